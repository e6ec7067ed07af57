import { StackValidationPolicy } from "@pulumi/policy";
import { GATEWAY_CLASSES, gatewayClassServesInference, isInferencePoolBackend, PolicyText, policyText } from "./facts";
import { serviceGateways } from "./support/kserve";
import { isLlmInferenceService } from "./support/resources";
import { httpRoutes, routeBackends, routeParentRefs } from "./support/routes";
import { gatewaysByKey } from "./support/stack";

/** The report on Gateway `key` of class `className`, which routes to an InferencePool though only `allowed` classes serve one. */
export function gatewayClassMessage(key: string, className: string, allowed: readonly string[]): string {
    return `Gateway ${key} uses GatewayClass "${className}" but routes to an InferencePool; only ${allowed.join(", ")} serve InferencePool backends.`;
}

/**
 * A Gateway counts when an LLMInferenceService attaches to it or an HTTPRoute on it names an InferencePool; only GKE's
 * own classes are judged.
 */
export const requireRegionalGatewayClassForInference: StackValidationPolicy & PolicyText = {
    ...policyText(
        "global-gateway-class",
        "require-regional-gateway-class-for-inference",
        "A GKE Gateway that routes to an InferencePool must use a regional GatewayClass.",
    ),
    enforcementLevel: "mandatory",
    severity: "critical",
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
                serviceGateways(resource, args.resources).forEach((key) => inferenceGateways.add(key));
            }
        }
        for (const route of httpRoutes(args.resources).filter((candidate) => routeBackends(candidate).some(isInferencePoolBackend))) {
            routeParentRefs(route).forEach((key) => inferenceGateways.add(key));
        }
        for (const key of [...inferenceGateways].sort()) {
            const gateway = gateways.get(key);
            // Only GKE's classes are in question; another implementation's Gateway (Istio's) has its own rules.
            if (gateway && gatewayClassServesInference(gateway.className, allowed) === "never") {
                reportViolation(gatewayClassMessage(key, gateway.className, allowed), gateway.resource.urn);
            }
        }
    },
};
