import { ResourceValidationPolicy } from "@pulumi/policy";
import { policyText } from "./facts";
import { CLUSTER_TYPE, NODE_POOL_TYPE, isAutopilot } from "./support/nodePools";
import { Props } from "./support/resources";

/** What the policy reports of the nodes at `where` (`Cluster gke`, `Node pool tpu`, `Cluster gke nodePools[0] (cpu)`). */
export const NODE_SERVICE_ACCOUNT_MESSAGES = {
    defaultAccount: (where: string) =>
        `${where} runs its nodes as the Compute Engine default service account; set nodeConfig.serviceAccount to a dedicated one.`,
};

/** True when `account` is, or leaves GKE to use, the Compute Engine default service account. */
function isDefaultAccount(account: unknown): boolean {
    return (
        account === undefined ||
        account === null ||
        account === "" ||
        account === "default" ||
        (typeof account === "string" && /^\d+-compute@developer\.gserviceaccount\.com$/.test(account.trim()))
    );
}

/** Enforces lesson node-service-account (policies/facts/lessons). */
export const disallowDefaultComputeServiceAccount: ResourceValidationPolicy = {
    ...policyText(
        "disallow-default-compute-service-account",
        "GKE nodes must run as a dedicated service account, not the Compute Engine default service account.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateResource: (args, reportViolation) => {
        const isCluster = args.type === CLUSTER_TYPE;
        // Autopilot manages its nodes' identity itself.
        if ((!isCluster && args.type !== NODE_POOL_TYPE) || (isCluster && isAutopilot(args.props))) {
            return;
        }
        // A cluster's nodeConfig is what its default pool (even one removed at creation) runs as.
        if (isDefaultAccount(args.props.nodeConfig?.serviceAccount)) {
            reportViolation(NODE_SERVICE_ACCOUNT_MESSAGES.defaultAccount(`${isCluster ? "Cluster" : "Node pool"} ${args.name}`));
        }
        const inline: Props[] = isCluster && Array.isArray(args.props.nodePools) ? args.props.nodePools : [];
        inline.forEach((pool, index) => {
            if (isDefaultAccount(pool?.nodeConfig?.serviceAccount)) {
                reportViolation(
                    NODE_SERVICE_ACCOUNT_MESSAGES.defaultAccount(
                        `Cluster ${args.name} nodePools[${index}]${pool?.name ? ` (${pool.name})` : ""}`,
                    ),
                );
            }
        });
    },
};
