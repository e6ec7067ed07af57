import { StackValidationPolicy } from "@pulumi/policy";
import { GATEWAY_CLASSES, INFERENCE_POOL_KIND } from "../components/catalog";
import { gatewaysByKey, isKubernetesKind, isLlmInferenceService, routeBackends, routeParentRefs, serviceGatewayRefs } from "./support";

/**
 * Seed 003, issue #1: a Gateway of the global class `gke-l7-global-external-managed` got an
 * address, but its InferencePool backends never became healthy; only regional GKE
 * GatewayClasses serve InferencePool.
 */
export const requireRegionalGatewayClassForInference: StackValidationPolicy = {
    name: "require-regional-gateway-class-for-inference",
    description: "A Gateway that routes to an InferencePool must use a regional GKE GatewayClass, because global classes never serve InferencePool backends.",
    enforcementLevel: "mandatory",
    severity: "critical",
    remediationSteps: "Set the Gateway's spec.gatewayClassName to gke-l7-regional-external-managed (external) or gke-l7-rilb (internal), and make sure the region has a proxy-only subnet.",
    configSchema: {
        properties: {
            allowedGatewayClasses: {
                type: "array",
                items: { type: "string" },
                default: [...GATEWAY_CLASSES.regional],
                description: "GatewayClasses that serve InferencePool backends.",
            },
        },
    },
    validateStack: (args, reportViolation) => {
        const allowed = args.getConfig<{ allowedGatewayClasses?: string[] }>().allowedGatewayClasses ?? [...GATEWAY_CLASSES.regional];
        const gateways = gatewaysByKey(args.resources);
        const inferenceGateways = new Set<string>();
        for (const resource of args.resources) {
            if (isLlmInferenceService(resource.type)) {
                serviceGatewayRefs(resource.props).forEach((key) => inferenceGateways.add(key));
            } else if (isKubernetesKind(resource.type, "gateway.networking.k8s.io", "HTTPRoute") && routeBackends(resource).some((backend) => backend.kind === INFERENCE_POOL_KIND.kind)) {
                routeParentRefs(resource.props).forEach((key) => inferenceGateways.add(key));
            }
        }
        for (const key of [...inferenceGateways].sort()) {
            const gateway = gateways.get(key);
            if (gateway && !allowed.includes(gateway.className)) {
                reportViolation(
                    `Gateway ${key} uses GatewayClass "${gateway.className}" but routes to an InferencePool; only ${allowed.join(", ")} serve InferencePool backends.`,
                    gateway.resource.urn,
                );
            }
        }
    },
};
