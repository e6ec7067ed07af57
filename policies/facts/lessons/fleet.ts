/**
 * Lessons of a fleet: GKE clusters in several regions behind GKE's multi-cluster Inference Gateway, whose config cluster
 * routes to the pools the members export (Preview in GKE).
 */
import { MULTI_CLUSTER_INFERENCE, SOURCES, VLLM_HEALTH_PATH, VLLM_PORT } from "../catalog";
import { Lesson } from "./lesson";

const { exportAnnotation, importKind, minimumGkeVersion } = MULTI_CLUSTER_INFERENCE;
const EXPORT = `${exportAnnotation.key}: "${exportAnnotation.value}"`;

export const FLEET_LESSONS = [
    {
        id: "import-health-checks",
        title: `An imported pool without a HealthCheckPolicy is probed on / and never becomes healthy in any region`,
        symptom: "The multi-cluster Gateway gets its addresses, but every member's backends stay UNHEALTHY while vLLM's pods are Ready.",
        cause: `The config cluster's load balancer checks each ${importKind.kind} with GKE's default health check, which probes / rather than vLLM's ${VLLM_HEALTH_PATH}; a HealthCheckPolicy on the import is the only way to point it at ${VLLM_HEALTH_PATH}.`,
        fix: `In the config cluster, add a networking.gke.io/v1 HealthCheckPolicy in the import's namespace targeting group ${importKind.group}, kind ${importKind.kind} and the import's name, with config.type HTTP, httpHealthCheck.requestPath ${VLLM_HEALTH_PATH}, port ${VLLM_PORT} and portSpecification USE_FIXED_PORT.`,
        prevention: `The config cluster has a HealthCheckPolicy per import: HTTP, ${VLLM_HEALTH_PATH}, port ${VLLM_PORT}, USE_FIXED_PORT.`,
        inspect: "kubectl get healthcheckpolicy -A; kubectl get gcpinferencepoolimports -A",
        sources: [SOURCES.gkeMultiClusterInferenceSetup],
    },
    {
        id: "fleet-exports",
        title: "A pool exported from some members only, or an import no member exports: the fleet serves from fewer regions than it runs",
        symptom:
            "A member's TPU nodes run the model but never receive a request through the multi-cluster Gateway, or the Gateway's route to an import has no backend at all.",
        cause: `The config cluster imports an InferencePool only from the members that annotate it ${EXPORT}, as a ${importKind.kind} of the same namespace and name; a member that serves the model without exporting the pool gets no traffic, and an import no member exports does not exist.`,
        fix: `Annotate the InferencePool ${EXPORT} on every member that serves the model, under the same namespace and name, and route the config cluster's HTTPRoute to a ${importKind.kind} of that name.`,
        prevention: `Each member exports a stack-owned InferencePool of the same name per model service (KServe's own pool would lose the annotation on its next update), and the config cluster routes to that name.`,
        inspect:
            "kubectl get inferencepool -A -o custom-columns=NAME:.metadata.name,EXPORT:.metadata.annotations; kubectl get gcpinferencepoolimports -A",
        sources: [SOURCES.gkeMultiClusterInferenceSetup, SOURCES.gaieMultiClusterProposal],
    },
    {
        id: "multi-cluster-model-armor",
        title: "Model Armor on a multi-cluster Gateway is not applied: the prompts go unscreened",
        symptom:
            "Prompts and responses through the multi-cluster Gateway are never screened, though a Model Armor extension is attached to it.",
        cause: `${MULTI_CLUSTER_INFERENCE.unsupported.modelArmor}, so a traffic extension calling Model Armor on a Gateway of a multi-cluster class does nothing.`,
        fix: "Remove the Model Armor extension from the multi-cluster Gateway, and screen prompts elsewhere (in the client, or on a single-cluster Gateway of a regional class).",
        prevention: "The settings refuse modelArmor together with a fleet.",
        inspect: "kubectl get gcptrafficextension,gcproutingextension -A",
        sources: [SOURCES.gkeMultiClusterInferenceAbout],
    },
    {
        id: "fleet-version-floor",
        title: `Every cluster of a multi-cluster inference fleet needs GKE ${minimumGkeVersion} or later`,
        symptom: "The multi-cluster Gateway never imports a member's pools, or the config cluster does not accept its routes.",
        cause: `GKE's multi-cluster Inference Gateway needs GKE ${minimumGkeVersion} or later on every cluster registered to the fleet, the config cluster included; a cluster asked for an older version, or left to a release channel whose default is older, is below it.`,
        fix: `Set each fleet cluster's minMasterVersion to ${minimumGkeVersion} or later, or leave it unset on a release channel whose default version in the cluster's location is at least ${minimumGkeVersion} (gcloud container get-server-config --location LOCATION).`,
        prevention:
            "The preview checks each member's release-channel default against the floor in its region, and each member is created at that default (minMasterVersion, whose later changes are ignored so that GKE's channel schedules the upgrades).",
        inspect: "gcloud container clusters list --format='table(name,location,currentMasterVersion)'",
        sources: [SOURCES.gkeMultiClusterInferenceSetup, SOURCES.gkeVersionAliases],
    },
] as const satisfies readonly Lesson[];
