import { ResourceValidationPolicy } from "@pulumi/policy";

/** Security baseline: nodes get no public IP addresses; they reach registries through Cloud NAT. */
export const requirePrivateNodes: ResourceValidationPolicy = {
    name: "require-private-nodes",
    description: "A GKE cluster must use private nodes, so that no node has a public IP address.",
    enforcementLevel: "mandatory",
    severity: "high",
    remediationSteps: "Set privateClusterConfig.enablePrivateNodes true and give the network a Cloud NAT for image and model downloads.",
    validateResource: (args, reportViolation) => {
        if (args.type === "gcp:container/cluster:Cluster" && args.props.privateClusterConfig?.enablePrivateNodes !== true) {
            reportViolation(`Cluster ${args.name} does not use private nodes (privateClusterConfig.enablePrivateNodes).`);
        }
    },
};
