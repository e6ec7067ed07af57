/**
 * A fleet as the stack shows it: the clusters registered to one (a GKE Hub Membership whose endpoint names them, or
 * their own `fleet` block), whether the stack serves multi-cluster inference, and the model services each cluster
 * serves and exports. A cluster is told apart by the Kubernetes provider each object is applied with (clusters.ts).
 */
import { PolicyResource } from "@pulumi/policy";
import { KSERVE_CHILDREN, gkeVersionStanding, isExportedPool, isMultiClusterGatewayClass, labelsOf, readKnown } from "../facts";
import { clusterReferencedBy, clustersOf, clustersOfObject } from "./clusters";
import { effectiveServiceSpec } from "./kserve";
import { isInferencePool, isLlmInferenceService, namespaceOf, objectKey } from "./resources";
import { gatewaysByKey } from "./stack";

export const MEMBERSHIP_TYPE = "gcp:gkehub/membership:Membership";

/** The stack's clusters registered to a fleet: by a Membership naming them (or waiting for them alone), or by their own `fleet` block. */
export function fleetClusters(resources: PolicyResource[]): PolicyResource[] {
    const clusters = clustersOf(resources);
    const registered = new Set(clusters.filter((cluster) => readKnown(() => cluster.props.fleet).value !== undefined));
    for (const membership of resources.filter((resource) => resource.type === MEMBERSHIP_TYPE)) {
        // The link is built from the cluster's id, unknown at preview for a new cluster: then the cluster it waits for.
        const link = readKnown(() => membership.props.endpoint?.gkeCluster?.resourceLink).value;
        const cluster = clusterReferencedBy(link, membership, clusters);
        if (cluster) {
            registered.add(cluster);
        }
    }
    return clusters.filter((cluster) => registered.has(cluster));
}

/** True when the stack serves inference across a fleet: a Gateway of a multi-cluster class, or an exported InferencePool. */
export function servesMultiClusterInference(resources: PolicyResource[]): boolean {
    return (
        [...gatewaysByKey(resources).values()].some((gateway) => isMultiClusterGatewayClass(gateway.className)) ||
        resources.some((resource) => isInferencePool(resource.type) && isExportedPool(resource.props))
    );
}

/** How a cluster is named in messages: its GKE name, else its name in the program. */
export function clusterName(cluster: PolicyResource): string {
    const name = readKnown(() => cluster.props.name).value;
    return typeof name === "string" ? name : cluster.name;
}

/** A model service one cluster serves: the pods of a selector in a namespace, and the object that makes the cluster serve them. */
export interface ServedModel {
    cluster: PolicyResource;
    /** The namespace and the sorted selector: the same model service in every cluster that serves it. */
    identity: string;
    resource: PolicyResource;
    /** For an InferencePool, its `namespace/name` and whether it is exported. */
    pool?: { key: string; exported: boolean };
}

function identityOf(namespace: string, selector: unknown): string {
    const labels = labelsOf(selector);
    return `${namespace} ${JSON.stringify(
        Object.keys(labels)
            .sort()
            .map((key) => [key, labels[key]]),
    )}`;
}

/**
 * The model services each cluster serves: each InferencePool (the pods its v1 `selector.matchLabels` or alpha
 * `selector` picks), and the pool KServe makes for each LLMInferenceService with a scheduler (its merged pool spec's
 * selector, KServe's workload pods by default). An object is counted on the cluster it is applied to, and not at all
 * where the program does not show which.
 */
export function servedModels(resources: PolicyResource[]): ServedModel[] {
    const clusters = clustersOf(resources);
    const served: ServedModel[] = [];
    for (const resource of resources) {
        const inPool = isInferencePool(resource.type);
        if (!inPool && !(isLlmInferenceService(resource.type) && resource.props.spec?.router?.scheduler !== undefined)) {
            continue;
        }
        const [cluster, ...others] = clustersOfObject(resource, resources, clusters);
        if (cluster === undefined || others.length > 0) {
            continue;
        }
        if (inPool) {
            const selector = resource.props.spec?.selector;
            const identity = identityOf(namespaceOf(resource), selector?.matchLabels ?? selector);
            served.push({ cluster, identity, resource, pool: { key: objectKey(resource), exported: isExportedPool(resource.props) } });
            continue;
        }
        const pool = effectiveServiceSpec(resource, resources).spec.router?.scheduler?.pool;
        if (pool?.ref === undefined) {
            const selector = pool?.spec?.selector?.matchLabels ?? KSERVE_CHILDREN.workloadLabels(resource.props.metadata?.name);
            served.push({ cluster, identity: identityOf(namespaceOf(resource), selector), resource });
        }
    }
    return served;
}

/**
 * The fleet's clusters in a stack that serves multi-cluster inference (none otherwise), each with the version it asks
 * for (`minMasterVersion`) and where that stands against `floor`.
 */
export function fleetClusterVersions(
    resources: PolicyResource[],
    floor: string,
): Array<{ cluster: PolicyResource; version: unknown; standing: ReturnType<typeof gkeVersionStanding> | "unknownAtPreview" }> {
    return (servesMultiClusterInference(resources) ? fleetClusters(resources) : []).map((cluster) => {
        // A version the program reads from GKE during the preview is unknown in a preview that cannot read it yet.
        const read = readKnown(() => cluster.props.minMasterVersion as unknown);
        if (read.unknown) {
            return { cluster, version: undefined, standing: "unknownAtPreview" as const };
        }
        const version = read.value;
        return {
            cluster,
            version,
            standing: typeof version === "string" || version === undefined ? gkeVersionStanding(version, floor) : "unknown",
        };
    });
}
