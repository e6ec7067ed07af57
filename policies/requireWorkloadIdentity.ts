import { ResourceValidationPolicy } from "@pulumi/policy";
import { policyText } from "./facts";
import { CLUSTER_TYPE, isAutopilot, nodePoolsOf } from "./support/nodePools";

/** What the policy reports. */
export const WORKLOAD_IDENTITY_MESSAGES = {
    cluster: (name: string) => `Cluster ${name} does not enable Workload Identity (workloadIdentityConfig.workloadPool).`,
    pool: (where: string) => `${where} does not run the GKE metadata server (nodeConfig.workloadMetadataConfig.mode GKE_METADATA).`,
};

/**
 * Enforces lesson workload-identity (policies/facts/lessons). An Autopilot cluster always runs Workload Identity. A
 * cluster's default pool, created with the cluster, takes Workload Identity from it unless its nodeConfig names another
 * mode; every other pool must name GKE_METADATA.
 */
export const requireWorkloadIdentity: ResourceValidationPolicy = {
    ...policyText(
        "require-workload-identity",
        "A GKE cluster must enable Workload Identity and its node pools must run the GKE metadata server.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateResource: (args, reportViolation) => {
        if (args.type === CLUSTER_TYPE && !isAutopilot(args.props) && !args.props.workloadIdentityConfig?.workloadPool) {
            reportViolation(WORKLOAD_IDENTITY_MESSAGES.cluster(args.name));
        }
        for (const pool of nodePoolsOf(args.type, args.name, args.props)) {
            const mode: unknown = pool.nodeConfig.workloadMetadataConfig?.mode;
            if (mode !== "GKE_METADATA" && !(pool.kind === "default" && mode === undefined)) {
                reportViolation(WORKLOAD_IDENTITY_MESSAGES.pool(pool.where));
            }
        }
    },
};
