import { ResourceValidationPolicy } from "@pulumi/policy";
import { PolicyText, policyText } from "./facts";
import { nodePoolsOf } from "./support/nodePools";

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

/**
 * Judges every pool GKE runs: a NodePool, a pool inline in a Cluster, the cluster's default pool (its nodeConfig). A
 * default pool removed at creation (removeDefaultNodePool) is not judged, as the Shielded-node and Workload Identity
 * policies do not judge it: the provider deletes it as soon as the cluster is up, before anything of the program runs
 * on it. Autopilot manages its nodes' identity itself.
 */
export const disallowDefaultComputeServiceAccount: ResourceValidationPolicy & PolicyText = {
    ...policyText(
        "node-service-account",
        "disallow-default-compute-service-account",
        "GKE nodes must run as a dedicated service account, not the Compute Engine default service account.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateResource: (args, reportViolation) => {
        for (const pool of nodePoolsOf(args.type, args.name, args.props)) {
            if (isDefaultAccount(pool.nodeConfig.serviceAccount)) {
                reportViolation(NODE_SERVICE_ACCOUNT_MESSAGES.defaultAccount(pool.where));
            }
        }
    },
};
