import { StackValidationPolicy } from "@pulumi/policy";
import { backendKey, describeBackend, istioOpenReason, listenersOf, parentGateways, PolicyText, policyText } from "./facts";
import { admits, exposedGateways, gatewayImplementation, gkeBackendGuard, istioAccess } from "./support/access";
import { exposedModelServices } from "./support/serviceExposure";
import { namespaceOf, objectKey } from "./support/resources";

/** The report on a LoadBalancer Service or Ingress that puts vLLM on the internet with nothing in front of it. */
export function openServiceMessage(description: string, service: string, literalHeaders: readonly string[]): string {
    const headers =
        literalHeaders.length > 0
            ? `; its header check (${literalHeaders.join(", ")}) compares a value written in the program, which anyone who reads the program or the stack's state can send`
            : "";
    return `${description} puts model server Service ${service} on the internet and nothing restricts who reaches it${headers}: make its load balancer internal, allow only your callers' ranges (loadBalancerSourceRanges, or the Ingress controller's allowlist), or require authentication (IAP, the load balancer's OIDC), or serve it through a Gateway with access control.`;
}

/**
 * An external Gateway (not GKE's internal classes, not a Service annotated internal) that reaches an InferencePool or a
 * vLLM Service must refuse someone it does not know: on GKE's classes every backend's GCPBackendPolicy enables IAP or
 * names a Cloud Armor policy whose rules deny them (a policy with no rules, or allowlists with nothing denying after
 * them, only has GCP's allow-all default rule); on another class its Service's loadBalancerSourceRanges, or Istio's
 * AuthorizationPolicies as Istio evaluates them (a DENY rule refuses; ALLOW policies are a union, so one that takes any
 * source opens the Gateway). Routes to those backends must not be served on a plain-HTTP listener, unless the rule only
 * redirects to HTTPS; a service's route takes the listener from its gateway refs, which KServe writes over the route
 * template's. Without a Gateway, a LoadBalancer Service or an Ingress that reaches a vLLM Service must keep it internal
 * or restrict it as its controller reads the program (facts/judgements/exposure.ts): an allowlist, authentication, IAP
 * or Cloud Armor. What the program cannot show (a Cloud Armor policy it does not declare, a Gateway of an
 * implementation the pack does not know, whose load balancer and access rules it cannot read) is left to the advisory
 * disallow-gateway-open-to-internet.
 */
export const requireGatewayAccessControl: StackValidationPolicy & PolicyText = {
    ...policyText(
        "open-endpoint",
        "require-gateway-access-control",
        "An inference backend (an InferencePool, or a Service in front of vLLM or another model server) reachable from the internet, through an external Gateway, an Ingress or a LoadBalancer Service, must restrict who reaches it; a Gateway must serve it over HTTPS only.",
    ),
    enforcementLevel: "mandatory",
    severity: "critical",
    validateStack: (args, reportViolation) => {
        for (const { key, gateway, reaching } of exposedGateways(args.resources)) {
            const implementation = gatewayImplementation(gateway, args.resources);
            if (implementation === "unknown") {
                continue;
            }
            if (implementation === "gke") {
                const backends = new Map(
                    reaching.flatMap((attachment) => attachment.forwarding).map((backend) => [backendKey(backend), backend]),
                );
                for (const backend of [...backends.values()].sort((a, b) => backendKey(a).localeCompare(backendKey(b)))) {
                    const guard = gkeBackendGuard(backend, args.resources);
                    if (guard.iap) {
                        continue;
                    }
                    if (guard.armor === undefined) {
                        reportViolation(
                            `Gateway ${key} is external and sends ${describeBackend(backend)} requests from anyone: no GCPBackendPolicy targeting it sets spec.default.securityPolicy (Cloud Armor) or iap.enabled.`,
                            backend.source.urn,
                        );
                    } else if (guard.armor.verdict?.verdict === "guardsNothing") {
                        reportViolation(
                            `Gateway ${key} is external and sends ${describeBackend(backend)} requests from anyone: its Cloud Armor policy ${guard.armor.name} lets in everyone its rules do not single out (${guard.armor.verdict.rule} lets them through); add a rule that denies every source outside the allowlist, or make the default rule deny.`,
                            guard.armor.resource?.urn ?? backend.source.urn,
                        );
                    }
                }
            } else {
                const access = istioAccess(gateway, args.resources);
                if (access.verdict === "guardsNothing") {
                    reportViolation(
                        `Gateway ${key} is external and routes to inference backends from anyone: ${istioOpenReason(
                            access.authorization,
                            access.deciding && objectKey(access.deciding),
                        )}, and its Service sets no loadBalancerSourceRanges.`,
                        access.deciding?.urn ?? gateway.urn,
                    );
                }
            }
            const plain = listenersOf(gateway.props, "HTTP");
            for (const attachment of reaching) {
                const refs = attachment.parentRefs.filter((ref) => parentGateways([ref], attachment.namespace).includes(key));
                const served = plain.filter(
                    (listener) =>
                        refs.some(
                            (ref) =>
                                (ref.sectionName === undefined || ref.sectionName === listener.name) &&
                                // A port in the reference attaches the route to that port's listeners only (Gateway API v1.4.0 httproutes.yaml:253-263).
                                (ref.port === undefined || ref.port === listener.port),
                        ) && admits(listener, namespaceOf(gateway), attachment.namespace, args.resources),
                );
                for (const listener of served) {
                    reportViolation(
                        `Gateway ${key} serves ${attachment.forwarding.map(describeBackend).join(", ")} over plain HTTP on listener ${JSON.stringify(listener.name)} (port ${listener.port}): attach the route to an HTTPS listener (sectionName; for KServe's route, in router.gateway.refs) and let HTTP only redirect to https.`,
                        attachment.source.urn,
                    );
                }
            }
        }
        for (const { through, description, service, exposure } of exposedModelServices(args.resources)) {
            if (exposure.verdict === "open") {
                reportViolation(openServiceMessage(description, service, exposure.literalHeaders), through.urn);
            }
        }
    },
};
