/**
 * A fleet from the outside: which kubeconfig context reads each member, and judgements over the objects a fleet adds,
 * pure so that recorded objects test them and shared by `npm run doctor` and `npm run smoke`: a member's twin
 * InferencePool exported, the config cluster's GCPInferencePoolImport (read through its CRD, its schema not being
 * public), the route and the policies that name an import.
 */
import { MULTI_CLUSTER_INFERENCE } from "@gke-tpu-inference/facts";
import { FLEET_POOL_SUFFIX } from "../../components/fleet/fleetExport";
import { CliError, CliOptions } from "../cli";
import { Condition, Finding, describeCondition } from "./checks";
import type { KubeObject, ObjectReader } from "./kube";
import type { FleetMemberOutput, FleetOutput } from "./stackOutputs";

/** `--member-context`, for a command that reads every member of a fleet. */
export const MEMBER_CONTEXT_OPTIONS = {
    "member-context": {
        type: "string",
        multiple: true,
        value: "REGION=KUBECONTEXT",
        description:
            "in a fleet, read REGION's cluster with this kubeconfig context (repeatable); by default gke_<project>_<region>_<cluster>, the context its kubeconfigCommand output writes",
    },
} as const satisfies CliOptions;

/**
 * The name of the stack-owned twin of KServe's `<service>-inference-pool` that each member exports, and the config
 * cluster's routes and policies name as a GCPInferencePoolImport.
 */
export const fleetPoolName = (service: string) => `${service}${FLEET_POOL_SUFFIX}`;

/**
 * What KServe v0.20.0 reports of an LLMInferenceService with a scheduler and no route: no Gateway ever accepts its pool,
 * so InferencePoolReady, then RouterReady and Ready, stay False with this reason
 * (kserve/kserve@v0.20.0:pkg/controller/v1alpha2/llmisvc/router.go:831-837; RouterReady copies the reason,
 * pkg/apis/serving/v1alpha2/llm_inference_service_lifecycle.go:318-337).
 */
export const KSERVE_UNROUTED = { condition: "InferencePoolReady", reason: "WaitingForGateway" } as const;

/**
 * The context `gcloud container clusters get-credentials` writes for a member: `gke_<project>_<location>_<cluster>`
 * (GoogleCloudPlatform/gke-mcp@0483e4e:pkg/tools/cluster/cluster.go:225-226, "Standard naming convention for
 * gcloud-generated kubeconfigs"), the project read from the member's own kubeconfigCommand output.
 */
export function gcloudContext(region: string, member: FleetMemberOutput): string {
    const project = /--project[= ](\S+)/.exec(member.kubeconfigCommand)?.[1];
    if (project === undefined) {
        throw new CliError(
            `the fleet member ${region}'s kubeconfigCommand names no --project: give --member-context ${region}=KUBECONTEXT`,
        );
    }
    return `gke_${project}_${region}_${member.clusterName}`;
}

/** The kubeconfig context of each member: `--member-context REGION=KUBECONTEXT` where given, else gcloud's. */
export function memberContexts(fleet: FleetOutput, given: readonly string[] = []): Record<string, string> {
    const regions = Object.keys(fleet.members);
    const chosen = new Map<string, string>();
    for (const entry of given) {
        const separator = entry.indexOf("=");
        const [region, context] = separator > 0 ? [entry.slice(0, separator), entry.slice(separator + 1)] : [entry, ""];
        if (context === "") {
            throw new CliError(`--member-context ${JSON.stringify(entry)} is not REGION=KUBECONTEXT`);
        }
        if (!regions.includes(region)) {
            throw new CliError(`--member-context ${region}: the fleet has no member there; its members: ${regions.join(", ")}`);
        }
        chosen.set(region, context);
    }
    return Object.fromEntries(regions.map((region) => [region, chosen.get(region) ?? gcloudContext(region, fleet.members[region])]));
}

/** Whether a member exports `service`: its twin pool exists and carries GKE's export annotation. */
export function poolExported(pool: KubeObject | undefined, namespace: string, service: string): Finding {
    const { key, value } = MULTI_CLUSTER_INFERENCE.exportAnnotation;
    const name = `InferencePool ${namespace}/${fleetPoolName(service)}`;
    if (!pool) {
        return { ok: false, detail: `${name} does not exist: the config cluster gets no import of ${service} from this member` };
    }
    const set = pool.metadata?.annotations?.[key];
    return set === value
        ? { ok: true, detail: `${name}: ${key}=${value}` }
        : { ok: false, detail: `${name}: ${key} is ${set === undefined ? "not set" : JSON.stringify(set)}, not ${JSON.stringify(value)}` };
}

/** Where a GCPInferencePoolImport is read: the kind's CRD in the config cluster, served version first. */
export const IMPORT_CRD = `${MULTI_CLUSTER_INFERENCE.importKind.kind.toLowerCase()}s.${MULTI_CLUSTER_INFERENCE.importKind.group}`;

/**
 * The API version GKE serves GCPInferencePoolImport at, read from its CRD (no document gives it): the storage version,
 * else the first served; undefined when the CRD is absent.
 */
export async function importApiVersion(reader: ObjectReader): Promise<string | undefined> {
    const crd = await reader.get({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: IMPORT_CRD });
    const versions =
        (crd?.spec as { versions?: Array<{ name?: string; served?: boolean; storage?: boolean }> } | undefined)?.versions ?? [];
    const version = versions.find((candidate) => candidate.storage && candidate.served) ?? versions.find((candidate) => candidate.served);
    return version?.name === undefined ? undefined : `${MULTI_CLUSTER_INFERENCE.importKind.group}/${version.name}`;
}

/** What an import's status says, read generically: every condition list and every list of clusters, by path. */
export interface ImportStatus {
    conditions: Array<{ path: string; condition: Condition }>;
    clusters: Array<{ path: string; names: string[] }>;
}

/** Walks `status`, collecting its condition lists and its lists of clusters (any key ending in `clusters`) with their paths. */
export function readImportStatus(status: unknown, path = "status"): ImportStatus {
    const found: ImportStatus = { conditions: [], clusters: [] };
    if (Array.isArray(status)) {
        status.forEach((item, index) => merge(found, readImportStatus(item, `${path}[${index}]`)));
        return found;
    }
    if (status === null || typeof status !== "object") {
        return found;
    }
    for (const [key, value] of Object.entries(status)) {
        const at = `${path}.${key}`;
        if (key === "conditions" && Array.isArray(value)) {
            found.conditions.push(
                ...(value as Condition[])
                    .filter((condition) => typeof condition?.type === "string")
                    .map((condition) => ({ path: at, condition })),
            );
        } else if (/clusters$/i.test(key) && Array.isArray(value)) {
            found.clusters.push({
                path: at,
                names: value
                    .map((entry: unknown) => (typeof entry === "string" ? entry : (entry as { name?: unknown })?.name))
                    .filter((name): name is string => typeof name === "string"),
            });
            merge(found, { conditions: readImportStatus(value, at).conditions, clusters: [] });
        } else {
            merge(found, readImportStatus(value, at));
        }
    }
    return found;
}

function merge(into: ImportStatus, from: ImportStatus): void {
    into.conditions.push(...from.conditions);
    into.clusters.push(...from.clusters);
}

/** An import's conditions in words, each with where it was read; or that its status has none. */
export function describeImportConditions(status: ImportStatus): string {
    return status.conditions.length === 0
        ? "its status reports no condition"
        : status.conditions.map(({ path, condition }) => `${path}: ${describeCondition(condition)}`).join("; ");
}

/** The cluster names of an import's status that name a member's cluster: the name itself, or a resource path ending in it. */
export function exportingMembers(status: ImportStatus, fleet: FleetOutput): string[] {
    const names = status.clusters.flatMap((list) => list.names);
    return Object.entries(fleet.members)
        .filter(([, member]) => names.some((name) => name === member.clusterName || name.endsWith(`/${member.clusterName}`)))
        .map(([region]) => region);
}

/** The objects among `candidates` whose `spec.targetRef` names the import of `service`. */
export function targetingImport(candidates: readonly KubeObject[], service: string): KubeObject | undefined {
    const { group, kind } = MULTI_CLUSTER_INFERENCE.importKind;
    return candidates.find((candidate) => {
        const ref = (candidate.spec as { targetRef?: { group?: string; kind?: string; name?: string } } | undefined)?.targetRef;
        return ref?.group === group && ref.kind === kind && ref.name === fleetPoolName(service);
    });
}

/** The HTTPRoute among `routes` with a backendRef to the import of `service`. */
export function routeToImport(routes: readonly KubeObject[], service: string): KubeObject | undefined {
    const { group, kind } = MULTI_CLUSTER_INFERENCE.importKind;
    return routes.find((route) =>
        (
            (route.spec as { rules?: Array<{ backendRefs?: Array<{ group?: string; kind?: string; name?: string }> }> } | undefined)
                ?.rules ?? []
        ).some((rule) =>
            (rule.backendRefs ?? []).some((ref) => ref.group === group && ref.kind === kind && ref.name === fleetPoolName(service)),
        ),
    );
}
