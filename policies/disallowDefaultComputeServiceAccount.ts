import { ResourceValidationPolicy } from "@pulumi/policy";
import { policyText } from "./facts";

/** Enforces lesson node-service-account (policies/facts/lessons). */
export const disallowDefaultComputeServiceAccount: ResourceValidationPolicy = {
    ...policyText(
        "disallow-default-compute-service-account",
        "GKE nodes must run as a dedicated service account, not the Compute Engine default service account.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateResource: (args, reportViolation) => {
        const isCluster = args.type === "gcp:container/cluster:Cluster";
        // Autopilot manages its nodes' identity itself.
        if ((!isCluster && args.type !== "gcp:container/nodePool:NodePool") || (isCluster && args.props.enableAutopilot === true)) {
            return;
        }
        // A cluster's nodeConfig is what its default pool (even one removed at creation) runs as.
        const account: unknown = args.props.nodeConfig?.serviceAccount;
        if (
            account === undefined ||
            account === "default" ||
            (typeof account === "string" && account.endsWith("-compute@developer.gserviceaccount.com"))
        ) {
            reportViolation(
                `${isCluster ? "Cluster" : "Node pool"} ${args.name} runs its nodes as the Compute Engine default service account; set nodeConfig.serviceAccount to a dedicated one.`,
            );
        }
    },
};
