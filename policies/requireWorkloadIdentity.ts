import { ResourceValidationPolicy } from "@pulumi/policy";

/** Security baseline: pods get Google credentials through Workload Identity, never the node's service account. */
export const requireWorkloadIdentity: ResourceValidationPolicy = {
    name: "require-workload-identity",
    description:
        "A GKE cluster must enable Workload Identity and its node pools must run the GKE metadata server, so pods never borrow the node's credentials.",
    enforcementLevel: "mandatory",
    severity: "high",
    remediationSteps:
        "Set workloadIdentityConfig.workloadPool to <project>.svc.id.goog on the cluster and nodeConfig.workloadMetadataConfig.mode GKE_METADATA on every node pool.",
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
