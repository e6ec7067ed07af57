import { ResourceValidationPolicy } from "@pulumi/policy";
import { policyText } from "./facts";

/** Enforces lesson private-nodes (policies/facts/lessons). */
export const requirePrivateNodes: ResourceValidationPolicy = {
    ...policyText("require-private-nodes", "A GKE cluster must use private nodes, so that no node has a public IP address."),
    enforcementLevel: "mandatory",
    severity: "high",
    validateResource: (args, reportViolation) => {
        if (args.type === "gcp:container/cluster:Cluster" && args.props.privateClusterConfig?.enablePrivateNodes !== true) {
            reportViolation(`Cluster ${args.name} does not use private nodes (privateClusterConfig.enablePrivateNodes).`);
        }
    },
};
