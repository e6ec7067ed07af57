import { ResourceValidationPolicy } from "@pulumi/policy";
import { policyText } from "./facts";

/** Enforces lesson workload-identity (policies/facts/lessons). */
export const requireWorkloadIdentity: ResourceValidationPolicy = {
    ...policyText(
        "require-workload-identity",
        "A GKE cluster must enable Workload Identity and its node pools must run the GKE metadata server.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateResource: (args, reportViolation) => {
        if (args.type === "gcp:container/cluster:Cluster" && !args.props.workloadIdentityConfig?.workloadPool) {
            reportViolation(`Cluster ${args.name} does not enable Workload Identity (workloadIdentityConfig.workloadPool).`);
        }
        if (args.type === "gcp:container/nodePool:NodePool" && args.props.nodeConfig?.workloadMetadataConfig?.mode !== "GKE_METADATA") {
            reportViolation(
                `Node pool ${args.name} does not run the GKE metadata server (nodeConfig.workloadMetadataConfig.mode GKE_METADATA).`,
            );
        }
    },
};
