import { ResourceValidationPolicy } from "@pulumi/policy";
import { PolicyText, policyText } from "./facts";
import { CLUSTER_TYPE, isAutopilot, nodePoolsOf } from "./support/nodePools";

/** What the policy reports. */
export const SHIELDED_NODES_MESSAGES = {
    cluster: (name: string) => `Cluster ${name} turns Shielded GKE nodes off (enableShieldedNodes false).`,
    secureBoot: (where: string) => `${where} does not enable Secure Boot (nodeConfig.shieldedInstanceConfig.enableSecureBoot).`,
};

/**
 * GKE turns Shielded nodes on by default, Secure Boot off, in every pool: the cluster's default pool, pools inline in
 * it, and NodePools. Autopilot manages its nodes itself.
 */
export const requireShieldedNodes: ResourceValidationPolicy & PolicyText = {
    ...policyText("shielded-nodes", "require-shielded-nodes", "GKE nodes must be Shielded nodes with Secure Boot."),
    enforcementLevel: "mandatory",
    severity: "medium",
    validateResource: (args, reportViolation) => {
        if (args.type === CLUSTER_TYPE && !isAutopilot(args.props) && args.props.enableShieldedNodes === false) {
            reportViolation(SHIELDED_NODES_MESSAGES.cluster(args.name));
        }
        for (const pool of nodePoolsOf(args.type, args.name, args.props)) {
            if (pool.nodeConfig.shieldedInstanceConfig?.enableSecureBoot !== true) {
                reportViolation(SHIELDED_NODES_MESSAGES.secureBoot(pool.where));
            }
        }
    },
};
