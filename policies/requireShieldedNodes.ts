import { ResourceValidationPolicy } from "@pulumi/policy";
import { policyText } from "./facts";

/** Enforces lesson shielded-nodes (policies/facts/lessons). */
export const requireShieldedNodes: ResourceValidationPolicy = {
    ...policyText("require-shielded-nodes", "GKE nodes must be Shielded nodes with Secure Boot."),
    enforcementLevel: "mandatory",
    severity: "medium",
    validateResource: (args, reportViolation) => {
        if (args.type === "gcp:container/cluster:Cluster" && args.props.enableShieldedNodes === false) {
            reportViolation(`Cluster ${args.name} turns Shielded GKE nodes off (enableShieldedNodes false).`);
        }
        if (args.type === "gcp:container/nodePool:NodePool" && args.props.nodeConfig?.shieldedInstanceConfig?.enableSecureBoot !== true) {
            reportViolation(`Node pool ${args.name} does not enable Secure Boot (nodeConfig.shieldedInstanceConfig.enableSecureBoot).`);
        }
    },
};
