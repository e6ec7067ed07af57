import { ResourceValidationPolicy } from "@pulumi/policy";
import { policyText } from "./facts";

/** The report on a cluster whose Gateway API channel installs no GatewayClasses. */
export function gatewayApiChannelMessage(cluster: string, channel: unknown): string {
    return `Cluster ${cluster} has gatewayApiConfig.channel = ${JSON.stringify(channel ?? null)}; GKE installs no GatewayClasses unless it is CHANNEL_STANDARD.`;
}

/** The report on a cluster without the HTTP load balancing add-on. */
export function httpLoadBalancingMessage(cluster: string): string {
    return `Cluster ${cluster} disables the HttpLoadBalancing add-on, which GKE's Gateway controller needs.`;
}

/** The report on a routes-based cluster. */
export function notVpcNativeMessage(cluster: string): string {
    return `Cluster ${cluster} is not VPC-native; GKE Gateways need networkingMode VPC_NATIVE with an ipAllocationPolicy.`;
}

/**
 * Enforces lesson gateway-api-disabled (policies/facts/lessons). An Autopilot cluster runs the Gateway controller unless
 * its channel turns it off (https://cloud.google.com/kubernetes-engine/docs/how-to/deploying-gateways, "GKE Gateway
 * controller requirements": Autopilot 1.26 or later, with no step to enable it, unlike Standard's `--gateway-api`), and
 * is always VPC-native with HTTP load balancing; a Standard cluster created without
 * networkingMode is VPC-native (the provider's default for new clusters, @pulumi/gcp container.Cluster networkingMode).
 */
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
        const autopilot = args.props.enableAutopilot === true;
        const channel = args.props.gatewayApiConfig?.channel;
        const enabled = channel === "CHANNEL_STANDARD" || channel === "CHANNEL_EXPERIMENTAL" || (autopilot && channel === undefined);
        if (!enabled) {
            reportViolation(gatewayApiChannelMessage(args.name, channel));
        }
        if (args.props.addonsConfig?.httpLoadBalancing?.disabled === true) {
            reportViolation(httpLoadBalancingMessage(args.name));
        }
        if (args.props.networkingMode === "ROUTES") {
            reportViolation(notVpcNativeMessage(args.name));
        }
    },
};
