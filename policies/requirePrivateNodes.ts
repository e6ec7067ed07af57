import { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { policyText } from "./facts";
import { CLUSTER_TYPE, NODE_POOL_TYPE, NodePoolAt, nodePoolsOf } from "./support/nodePools";

/** What the policy reports. */
export const PRIVATE_NODES_MESSAGES = {
    cluster: (name: string) => `Cluster ${name} does not use private nodes (privateClusterConfig.enablePrivateNodes).`,
    poolOptsOut: (where: string) => `${where} gives its nodes public IP addresses (networkConfig.enablePrivateNodes false).`,
    poolOfPublicCluster: (where: string, cluster: string) =>
        `${where} takes public IP addresses from cluster ${cluster}, which does not use private nodes; set networkConfig.enablePrivateNodes true.`,
};

/** The pool's own choice (networkConfig.enablePrivateNodes), if it makes one. */
const ownChoice = (pool: NodePoolAt): boolean | undefined =>
    typeof pool.networkConfig.enablePrivateNodes === "boolean" ? pool.networkConfig.enablePrivateNodes : undefined;

/**
 * Enforces lesson private-nodes (policies/facts/lessons). Nodes are private by their cluster
 * (privateClusterConfig.enablePrivateNodes) or by their pool (networkConfig.enablePrivateNodes, which overrides the
 * cluster's either way). A cluster that is not private passes only when it runs no default pool and has pools, inline or
 * NodePools, each of which says private.
 */
export const requirePrivateNodes: StackValidationPolicy = {
    ...policyText("require-private-nodes", "A GKE cluster must use private nodes, so that no node has a public IP address."),
    enforcementLevel: "mandatory",
    severity: "high",
    validateStack: (args, reportViolation) => {
        const clusters = args.resources.filter((resource) => resource.type === CLUSTER_TYPE);
        const clusterOf = (pool: PolicyResource) =>
            clusters.find(
                (candidate) => typeof pool.props.cluster === "string" && pool.props.cluster.split("/").pop() === candidate.props.name,
            );
        for (const cluster of clusters) {
            const privateCluster = cluster.props.privateClusterConfig?.enablePrivateNodes === true;
            const pools = nodePoolsOf(cluster.type, cluster.name, cluster.props);
            const standalone = args.resources
                .filter((resource) => resource.type === NODE_POOL_TYPE && clusterOf(resource) === cluster)
                .map((resource) => nodePoolsOf(resource.type, resource.name, resource.props)[0]);
            // Private by its pools: it runs no public nodes of its own, and has pools, each private by its own choice.
            const privateByPools =
                cluster.props.enableAutopilot !== true &&
                pools.length + standalone.length > 0 &&
                [...pools, ...standalone].every((pool) => pool.kind !== "default" && ownChoice(pool) === true);
            if (!privateCluster && !privateByPools) {
                reportViolation(PRIVATE_NODES_MESSAGES.cluster(cluster.name), cluster.urn);
            } else {
                pools
                    .filter((pool) => ownChoice(pool) === false)
                    .forEach((pool) => reportViolation(PRIVATE_NODES_MESSAGES.poolOptsOut(pool.where), cluster.urn));
            }
        }
        for (const resource of args.resources.filter((candidate) => candidate.type === NODE_POOL_TYPE)) {
            const [pool] = nodePoolsOf(resource.type, resource.name, resource.props);
            const cluster = clusterOf(resource);
            if (ownChoice(pool) === false) {
                reportViolation(PRIVATE_NODES_MESSAGES.poolOptsOut(pool.where), resource.urn);
            } else if (
                ownChoice(pool) === undefined &&
                cluster !== undefined &&
                cluster.props.privateClusterConfig?.enablePrivateNodes !== true
            ) {
                reportViolation(PRIVATE_NODES_MESSAGES.poolOfPublicCluster(pool.where, cluster.name), resource.urn);
            }
        }
    },
};
