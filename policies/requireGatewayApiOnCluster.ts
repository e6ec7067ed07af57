import { ResourceValidationPolicy } from "@pulumi/policy";
import { policyText } from "./facts";

/** Enforces lesson gateway-api-disabled (policies/facts/lessons). */
export const requireGatewayApiOnCluster: ResourceValidationPolicy = {
    ...policyText(
        "require-gateway-api-on-cluster",
        "A GKE cluster must enable the Gateway API controller and the HTTP load balancing add-on, and be VPC-native.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateResource: (args, reportViolation) => {
        if (args.type !== "gcp:container/cluster:Cluster") {
            return;
        }
        const channel = args.props.gatewayApiConfig?.channel;
        if (channel !== "CHANNEL_STANDARD" && channel !== "CHANNEL_EXPERIMENTAL") {
            reportViolation(
                `Cluster ${args.name} has gatewayApiConfig.channel = ${JSON.stringify(channel ?? null)}; GKE installs no GatewayClasses unless it is CHANNEL_STANDARD.`,
            );
        }
        if (args.props.addonsConfig?.httpLoadBalancing?.disabled === true) {
            reportViolation(`Cluster ${args.name} disables the HttpLoadBalancing add-on, which GKE's Gateway controller needs.`);
        }
        if (
            args.props.networkingMode === "ROUTES" ||
            (args.props.networkingMode === undefined && args.props.ipAllocationPolicy === undefined)
        ) {
            reportViolation(
                `Cluster ${args.name} is not VPC-native; GKE Gateways need networkingMode VPC_NATIVE with an ipAllocationPolicy.`,
            );
        }
    },
};
