import { ResourceValidationPolicy } from "@pulumi/policy";

/** Security baseline: nodes boot verified (Shielded GKE nodes with Secure Boot). */
export const requireShieldedNodes: ResourceValidationPolicy = {
    name: "require-shielded-nodes",
    description: "GKE nodes must be Shielded nodes with Secure Boot, so that a tampered boot chain is refused.",
    enforcementLevel: "mandatory",
    severity: "medium",
    remediationSteps:
        "Leave enableShieldedNodes on the cluster (true) and set nodeConfig.shieldedInstanceConfig.enableSecureBoot true on every node pool.",
    validateResource: (args, reportViolation) => {
        if (args.type === "gcp:container/cluster:Cluster" && args.props.enableShieldedNodes === false) {
            reportViolation(`Cluster ${args.name} turns Shielded GKE nodes off (enableShieldedNodes false).`);
        }
        if (args.type === "gcp:container/nodePool:NodePool" && args.props.nodeConfig?.shieldedInstanceConfig?.enableSecureBoot !== true) {
            reportViolation(`Node pool ${args.name} does not enable Secure Boot (nodeConfig.shieldedInstanceConfig.enableSecureBoot).`);
        }
    },
};
