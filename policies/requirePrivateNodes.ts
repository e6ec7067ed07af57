import { StackValidationPolicy } from "@pulumi/policy";
import { PolicyText, policyText } from "./facts";
import { clusterOfPool, clustersOf } from "./support/clusters";
import { NODE_POOL_TYPE, NodePoolAt, nodePoolsOf } from "./support/nodePools";

/** What the policy reports. */
export const PRIVATE_NODES_MESSAGES = {
    cluster: (name: string, inheriting: readonly string[]) =>
        `Cluster ${name} does not use private nodes (privateClusterConfig.enablePrivateNodes)${inheriting.length > 0 ? `, so these pools get public IP addresses: ${inheriting.join(", ")}` : ""}; set it, or networkConfig.enablePrivateNodes true on every pool and no default pool.`,
    poolOptsOut: (where: string) => `${where} gives its nodes public IP addresses (networkConfig.enablePrivateNodes false).`,
};

/** The pool's own choice (networkConfig.enablePrivateNodes), if it makes one. */
const ownChoice = (pool: NodePoolAt): boolean | undefined =>
    typeof pool.networkConfig.enablePrivateNodes === "boolean" ? pool.networkConfig.enablePrivateNodes : undefined;

/**
 * Nodes are private by their cluster (privateClusterConfig.enablePrivateNodes) or by their pool
 * (networkConfig.enablePrivateNodes, which overrides the cluster's either way). Each cause is reported once, where the
 * fix goes: a cluster that is not private, on the cluster, naming the pools that inherit its public addresses (its
 * default pool, pools that make no choice, Autopilot's nodes, or pools declared elsewhere when the stack declares
 * none); a pool that opts out, on the pool.
 */
export const requirePrivateNodes: StackValidationPolicy & PolicyText = {
    ...policyText(
        "private-nodes",
        "require-private-nodes",
        "A GKE cluster must use private nodes, so that no node has a public IP address.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateStack: (args, reportViolation) => {
        const clusters = clustersOf(args.resources);
        const standalone = args.resources.filter((resource) => resource.type === NODE_POOL_TYPE);
        for (const cluster of clusters) {
            const inline = nodePoolsOf(cluster.type, cluster.name, cluster.props);
            const attached = standalone.filter((resource) => clusterOfPool(resource, clusters) === cluster);
            const inheritsPublic = (pool: NodePoolAt) => pool.kind === "default" || ownChoice(pool) === undefined;
            if (cluster.props.privateClusterConfig?.enablePrivateNodes !== true) {
                const inheriting = [
                    ...inline.filter(inheritsPublic).map((pool) => pool.where.replace(`Cluster ${cluster.name} `, "its ")),
                    ...attached
                        .filter((resource) => inheritsPublic(nodePoolsOf(resource.type, resource.name, resource.props)[0]))
                        .map((resource) => `node pool ${resource.name}`),
                ];
                if (inheriting.length > 0 || inline.length + attached.length === 0 || cluster.props.enableAutopilot === true) {
                    reportViolation(PRIVATE_NODES_MESSAGES.cluster(cluster.name, inheriting), cluster.urn);
                }
            }
            inline
                .filter((pool) => ownChoice(pool) === false)
                .forEach((pool) => reportViolation(PRIVATE_NODES_MESSAGES.poolOptsOut(pool.where), cluster.urn));
        }
        for (const resource of standalone) {
            const [pool] = nodePoolsOf(resource.type, resource.name, resource.props);
            if (ownChoice(pool) === false) {
                reportViolation(PRIVATE_NODES_MESSAGES.poolOptsOut(pool.where), resource.urn);
            }
        }
    },
};
