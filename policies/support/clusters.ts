/**
 * Which GKE cluster a resource lands on: a NodePool names its cluster; a Kubernetes object reaches the cluster its
 * provider was configured from (the provider waits for the cluster's outputs, its kubeconfig), or, on the default
 * provider, the stack's only cluster.
 */
import { PolicyResource } from "@pulumi/policy";
import { CLUSTER_TYPE } from "./nodePools";
import { transitiveDependencies } from "./installations";

/** The Kubernetes provider's type token, as the engine registers an explicit provider. */
const KUBERNETES_PROVIDER_TYPE = "pulumi:providers:kubernetes";

/** The stack's GKE clusters. */
export function clustersOf(resources: PolicyResource[]): PolicyResource[] {
    return resources.filter((resource) => resource.type === CLUSTER_TYPE);
}

/**
 * The cluster among `clusters` that `reference` (a cluster's name, id or resource link) names, else the only one
 * `dependent` waits for (a reference built from a cluster's outputs). Undefined when it is not in the stack.
 */
export function clusterReferencedBy(reference: unknown, dependent: PolicyResource, clusters: PolicyResource[]): PolicyResource | undefined {
    const named = typeof reference === "string" ? reference.split("/").pop() : undefined;
    const byName = clusters.find((candidate) => named !== undefined && candidate.props.name === named);
    if (byName) {
        return byName;
    }
    const awaited = clusters.filter((candidate) => dependent.dependencies.includes(candidate));
    return awaited.length === 1 ? awaited[0] : undefined;
}

/** The cluster NodePool `pool` belongs to among `clusters`: the one its `cluster` input names (by name or id), else the only cluster it waits for. */
export function clusterOfPool(pool: PolicyResource, clusters: PolicyResource[]): PolicyResource | undefined {
    return clusterReferencedBy(pool.props.cluster, pool, clusters);
}

/** The provider resource an object was registered with, looking up through its parents (a chart's objects take the chart's). */
function providerResource(resource: PolicyResource, resources: PolicyResource[]): PolicyResource | undefined {
    for (let current: PolicyResource | undefined = resource; current; current = current.parent) {
        const urn = current.provider?.urn;
        if (urn !== undefined) {
            return resources.find((candidate) => candidate.urn === urn);
        }
    }
    return undefined;
}

/**
 * The clusters Kubernetes object `resource` is applied to: those its explicit provider waits for (a kubeconfig built
 * from a cluster's outputs); on the default provider (the ambient kubeconfig), the stack's only cluster, unless the
 * program reaches that cluster through an explicit provider (then the ambient kubeconfig is not shown to be it). Empty
 * when the program does not show it: a provider built from another stack's outputs or a file, or several clusters.
 */
export function clustersOfObject(
    resource: PolicyResource,
    resources: PolicyResource[],
    clusters = clustersOf(resources),
): PolicyResource[] {
    const provider = providerResource(resource, resources);
    if (provider === undefined || /^default(_|$)/.test(provider.name)) {
        // The ambient kubeconfig is the only cluster's, unless the program reaches that cluster through a provider of its own.
        const explicit = resources.some(
            (candidate) =>
                candidate.type === KUBERNETES_PROVIDER_TYPE &&
                !/^default(_|$)/.test(candidate.name) &&
                transitiveDependencies(candidate).has(clusters[0]),
        );
        return clusters.length === 1 && !explicit ? clusters : [];
    }
    const awaited = transitiveDependencies(provider);
    return clusters.filter((cluster) => awaited.has(cluster));
}
