import { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { isGkeGatewayClass, PolicyText, policyText } from "./facts";
import { clustersOf, clustersOfObject } from "./support/clusters";
import { isInferencePool, isKubernetesKind, isLlmInferenceService, kindOfType, objectKey } from "./support/resources";

const GATEWAY_API_GROUP = "gateway.networking.k8s.io";
/** GKE's policies for its Gateways' load balancers; only GKE's Gateway controller reads them. */
const GKE_GATEWAY_POLICY_GROUP = "networking.gke.io";
const GKE_GATEWAY_POLICY_KINDS = ["GCPBackendPolicy", "HealthCheckPolicy", "GCPGatewayPolicy"];

/** How many of the objects that need the Gateway API a message names before it counts the rest. */
const NAMED = 3;

/** Kinds of the Gateway API that are cluster-scoped: named without a namespace. */
const CLUSTER_SCOPED = ["GatewayClass"];

/** Objects as `Kind namespace/name` (`Kind name` for a cluster-scoped one), sorted. */
function describe(objects: PolicyResource[]): string[] {
    return objects
        .map((object) => {
            const { kind } = kindOfType(object.type);
            return `${kind} ${CLUSTER_SCOPED.includes(kind) ? object.props.metadata?.name : objectKey(object)}`;
        })
        .sort();
}

/** Components that install what the pack cannot see: a Helm release (no preview shows its objects), or a chart, manifest or kustomization whose objects the stack does not show. */
const INSTALLERS = [
    "kubernetes:helm.sh/v3:Release",
    "kubernetes:helm.sh/v3:Chart",
    "kubernetes:helm.sh/v4:Chart",
    "kubernetes:yaml:ConfigFile",
    "kubernetes:yaml:ConfigGroup",
    "kubernetes:yaml/v2:ConfigFile",
    "kubernetes:yaml/v2:ConfigGroup",
    "kubernetes:kustomize:Directory",
    "kubernetes:kustomize/v2:Directory",
];

/** The installers on `cluster` whose objects the stack does not show: any of them may install the Gateway API's CRDs. */
function unseenInstallers(cluster: PolicyResource, resources: PolicyResource[], clusters: PolicyResource[]): PolicyResource[] {
    return resources.filter(
        (resource) =>
            INSTALLERS.includes(resource.type) &&
            !resources.some((child) => child.parent === resource) &&
            clustersOfObject(resource, resources, clusters).includes(cluster),
    );
}

/** The first few of `names`, then a count. */
function list(names: readonly string[]): string {
    return names.length > NAMED ? `${names.slice(0, NAMED).join(", ")} and ${names.length - NAMED} more` : names.join(", ");
}

/** The report on a cluster whose Gateway API channel installs no GatewayClasses, naming what needs them there. */
export function gatewayApiChannelMessage(cluster: string, channel: unknown, needing: readonly string[]): string {
    const setting =
        channel === undefined || channel === null ? "does not set gatewayApiConfig.channel" : `sets gatewayApiConfig.channel ${channel}`;
    return `Cluster ${cluster} ${setting}, so GKE installs neither the Gateway API nor its controller there; ${list(needing)} ${needing.length === 1 ? "needs" : "need"} them: set it to CHANNEL_STANDARD.`;
}

/** The report on a cluster without the HTTP load balancing add-on. */
export function httpLoadBalancingMessage(cluster: string, needing: readonly string[]): string {
    return `Cluster ${cluster} disables the HttpLoadBalancing add-on, which GKE's Gateway controller needs for ${list(needing)}.`;
}

/** The report on a routes-based cluster. */
export function notVpcNativeMessage(cluster: string, needing: readonly string[]): string {
    return `Cluster ${cluster} is not VPC-native; GKE's Gateway controller needs networkingMode VPC_NATIVE with an ipAllocationPolicy for ${list(needing)}.`;
}

/** True when the stack installs the CRD of `object`'s kind itself (a CustomResourceDefinition it declares or renders). */
function installsOwnCrd(object: PolicyResource, resources: PolicyResource[]): boolean {
    const { group, kind } = kindOfType(object.type);
    return resources.some(
        (resource) =>
            isKubernetesKind(resource.type, "apiextensions.k8s.io", "CustomResourceDefinition") &&
            resource.props.spec?.group === group &&
            resource.props.spec?.names?.kind === kind,
    );
}

/**
 * What `object` needs of GKE: `controller` for a Gateway of GKE's classes and GKE's Gateway policies (only GKE's
 * controller serves them); `api` for another Gateway API object, an InferencePool, or an LLMInferenceService whose
 * router KServe turns into an HTTPRoute, unless the stack installs those CRDs itself; nothing otherwise.
 */
function needOf(object: PolicyResource, resources: PolicyResource[]): "controller" | "api" | undefined {
    const { group, kind } = kindOfType(object.type);
    if (
        (group === GATEWAY_API_GROUP && kind === "Gateway" && isGkeGatewayClass(object.props.spec?.gatewayClassName)) ||
        (group === GKE_GATEWAY_POLICY_GROUP && GKE_GATEWAY_POLICY_KINDS.includes(kind))
    ) {
        return "controller";
    }
    if (group === GATEWAY_API_GROUP || isInferencePool(object.type)) {
        return installsOwnCrd(object, resources) ? undefined : "api";
    }
    const router = object.props.spec?.router;
    if (isLlmInferenceService(object.type) && (router?.route !== undefined || router?.gateway !== undefined)) {
        return "api";
    }
    return undefined;
}

/**
 * Judges the clusters where the stack puts something that needs the Gateway API (a Gateway, a route, an InferencePool,
 * an LLMInferenceService with a router, GKE's Gateway policies); a cluster that serves none is no concern of the
 * lesson. An Autopilot cluster runs the Gateway controller unless its channel turns it off
 * (https://cloud.google.com/kubernetes-engine/docs/how-to/deploying-gateways, "GKE Gateway controller requirements":
 * Autopilot 1.26 or later, with no step to enable it, unlike Standard's `--gateway-api`), and is always VPC-native with
 * HTTP load balancing; a Standard cluster created without networkingMode is VPC-native (the provider's default for new
 * clusters, @pulumi/gcp container.Cluster networkingMode). The add-on and VPC-native networking matter only to GKE's
 * own Gateway controller.
 */
export const requireGatewayApiOnCluster: StackValidationPolicy & PolicyText = {
    ...policyText(
        "gateway-api-disabled",
        "require-gateway-api-on-cluster",
        "A GKE cluster that serves Gateway API objects must enable the Gateway API controller and the HTTP load balancing add-on, and be VPC-native.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateStack: (args, reportViolation) => {
        const clusters = clustersOf(args.resources);
        const needs = new Map<PolicyResource, { controller: PolicyResource[]; api: PolicyResource[] }>();
        for (const object of args.resources) {
            const need = needOf(object, args.resources);
            if (need === undefined) {
                continue;
            }
            for (const cluster of clustersOfObject(object, args.resources, clusters)) {
                const entry = needs.get(cluster) ?? { controller: [], api: [] };
                entry[need].push(object);
                needs.set(cluster, entry);
            }
        }
        for (const [cluster, { controller, api }] of needs) {
            const autopilot = cluster.props.enableAutopilot === true;
            const channel = cluster.props.gatewayApiConfig?.channel;
            const enabled = channel === "CHANNEL_STANDARD" || channel === "CHANNEL_EXPERIMENTAL" || (autopilot && channel === undefined);
            // Another implementation's objects need only the CRDs, which an installer the stack does not show may bring.
            const crdsMayComeWith = controller.length === 0 && unseenInstallers(cluster, args.resources, clusters).length > 0;
            if (!enabled && !crdsMayComeWith) {
                reportViolation(gatewayApiChannelMessage(cluster.name, channel, describe([...controller, ...api])), cluster.urn);
            }
            if (controller.length === 0) {
                continue;
            }
            if (cluster.props.addonsConfig?.httpLoadBalancing?.disabled === true) {
                reportViolation(httpLoadBalancingMessage(cluster.name, describe(controller)), cluster.urn);
            }
            if (cluster.props.networkingMode === "ROUTES") {
                reportViolation(notVpcNativeMessage(cluster.name, describe(controller)), cluster.urn);
            }
        }
    },
};
