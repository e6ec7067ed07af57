import { StackValidationPolicy } from "@pulumi/policy";
import { backendKey, describeBackend, guardsBackend, isGkeGatewayClass, listenersOf, parentGateways, policyText } from "./facts";
import { admits, exposedGateways, istioGuards } from "./support/access";
import { namespaceOf } from "./support/resources";
import { gkePoliciesByTarget } from "./support/routes";

/**
 * Enforces lesson open-endpoint (policies/facts/lessons). An external Gateway (not GKE's internal classes, not a Service
 * annotated internal) that reaches an InferencePool or a vLLM Service must guard every backend: on GKE's classes a
 * GCPBackendPolicy with a Cloud Armor securityPolicy or IAP; on another class an ALLOW AuthorizationPolicy on the Gateway
 * whose every rule requires a source or a principal, or its Service's loadBalancerSourceRanges. Routes to those backends
 * must not be served on a plain-HTTP listener, unless the rule only redirects to HTTPS.
 */
export const requireGatewayAccessControl: StackValidationPolicy = {
    ...policyText(
        "require-gateway-access-control",
        "An external Gateway that routes to an inference backend (an InferencePool or a vLLM Service) must restrict who reaches it and serve it over HTTPS only.",
    ),
    enforcementLevel: "mandatory",
    severity: "critical",
    validateStack: (args, reportViolation) => {
        for (const { key, gateway, reaching } of exposedGateways(args.resources)) {
            const className = gateway.props.spec?.gatewayClassName;
            if (isGkeGatewayClass(className)) {
                const policies = gkePoliciesByTarget(args.resources, "GCPBackendPolicy");
                const backends = new Map(
                    reaching.flatMap((attachment) => attachment.forwarding).map((backend) => [backendKey(backend), backend]),
                );
                for (const backend of [...backends.values()].sort((a, b) => backendKey(a).localeCompare(backendKey(b)))) {
                    if (!guardsBackend(policies.get(backendKey(backend))?.props)) {
                        reportViolation(
                            `Gateway ${key} is external and sends ${describeBackend(backend)} requests from anyone: no GCPBackendPolicy targeting it sets spec.default.securityPolicy (Cloud Armor) or iap.enabled.`,
                            backend.source.urn,
                        );
                    }
                }
            } else if (!istioGuards(gateway, args.resources).guarded) {
                reportViolation(
                    `Gateway ${key} is external and routes to inference backends from anyone: no ALLOW AuthorizationPolicy targets it with every rule limited to ipBlocks, remoteIpBlocks or requestPrincipals, and its Service sets no loadBalancerSourceRanges.`,
                    gateway.urn,
                );
            }
            const plain = listenersOf(gateway.props, "HTTP");
            for (const attachment of reaching) {
                const refs = attachment.parentRefs.filter((ref) => parentGateways([ref], attachment.namespace).includes(key));
                const served = plain.filter(
                    (listener) =>
                        refs.some((ref) => ref.sectionName === undefined || ref.sectionName === listener.name) &&
                        admits(listener, namespaceOf(gateway), attachment.namespace, args.resources),
                );
                for (const listener of served) {
                    reportViolation(
                        `Gateway ${key} serves ${attachment.forwarding.map(describeBackend).join(", ")} over plain HTTP on listener ${JSON.stringify(listener.name)} (port ${listener.port}): attach the route to an HTTPS listener (sectionName) and let HTTP only redirect to https.`,
                        attachment.source.urn,
                    );
                }
            }
        }
    },
};
