import { StackValidationPolicy } from "@pulumi/policy";
import { PolicyText, policyText } from "./facts";
import { clusterOfPool, clustersOf } from "./support/clusters";
import { NODE_POOL_TYPE, isAutopilot, nodePoolsOf } from "./support/nodePools";

/** What the policy reports. */
export const WORKLOAD_IDENTITY_MESSAGES = {
    cluster: (name: string) =>
        `Cluster ${name} does not enable Workload Identity (workloadIdentityConfig.workloadPool), so none of its node pools can run the GKE metadata server.`,
    pool: (where: string, mode: unknown) =>
        `${where} sets nodeConfig.workloadMetadataConfig.mode ${String(mode)}, so its pods read the node's credentials; set it to GKE_METADATA or leave it unset.`,
};

/** Modes that leave a pool the GKE metadata server in a cluster with Workload Identity: MODE_UNSPECIFIED is "Not set" (https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/NodeConfig#mode). */
const UNSET_OR_GKE: readonly unknown[] = [undefined, "MODE_UNSPECIFIED", "GKE_METADATA"];

/**
 * An Autopilot cluster always runs Workload Identity. In a Standard cluster that enables it, a pool that names no mode
 * runs the GKE metadata server: GKE gives every node pool created in such a cluster Workload Identity, the default pool
 * as well as any other (https://cloud.google.com/kubernetes-engine/docs/how-to/workload-identity, "Enable Workload
 * Identity Federation for GKE on clusters and node pools": existing pools are not affected, new pools in the cluster
 * use it). So a pool fails only by naming another mode; a cluster without Workload Identity is the one cause for all
 * its pools, reported once, on the cluster. A pool whose cluster is not in the stack is judged by its own mode alone.
 */
export const requireWorkloadIdentity: StackValidationPolicy & PolicyText = {
    ...policyText(
        "workload-identity",
        "require-workload-identity",
        "A GKE cluster must enable Workload Identity and its node pools must run the GKE metadata server.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateStack: (args, reportViolation) => {
        const clusters = clustersOf(args.resources);
        const withoutIdentity = new Set(
            clusters.filter((cluster) => !isAutopilot(cluster.props) && !cluster.props.workloadIdentityConfig?.workloadPool),
        );
        for (const cluster of withoutIdentity) {
            reportViolation(WORKLOAD_IDENTITY_MESSAGES.cluster(cluster.name), cluster.urn);
        }
        const standalone = args.resources.filter((resource) => resource.type === NODE_POOL_TYPE);
        for (const resource of [...clusters, ...standalone]) {
            const cluster = resource.type === NODE_POOL_TYPE ? clusterOfPool(resource, clusters) : resource;
            if (cluster !== undefined && withoutIdentity.has(cluster)) {
                continue;
            }
            for (const pool of nodePoolsOf(resource.type, resource.name, resource.props)) {
                const mode: unknown = pool.nodeConfig.workloadMetadataConfig?.mode;
                if (!UNSET_OR_GKE.includes(mode)) {
                    reportViolation(WORKLOAD_IDENTITY_MESSAGES.pool(pool.where, mode), resource.urn);
                }
            }
        }
    },
};
