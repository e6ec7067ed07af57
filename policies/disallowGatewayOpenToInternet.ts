import { StackValidationPolicy } from "@pulumi/policy";
import { BackendRef, backendKey, describeBackend, PolicyText, policyText } from "./facts";
import { exposedGateways, gatewayImplementation, gkeBackendGuard, istioAccess } from "./support/access";
import { exposedModelServices } from "./support/serviceExposure";
import { isKubernetesKind, objectKey } from "./support/resources";

/** The note on a Gateway of an implementation the pack does not know, naming the inference backends it routes to. */
function unknownImplementationMessage(gateway: string, className: unknown, backends: readonly BackendRef[]): string {
    const described = [...new Set(backends.map(describeBackend))].sort().join(", ");
    return `Gateway ${gateway} routes to ${described}, but its class ${JSON.stringify(className)} is neither GKE's nor Istio's: whether it is reachable from outside, who may call it and whether it serves only HTTPS could not be judged; restrict it to its callers and serve it over HTTPS only.`;
}

/**
 * Advisory: the allowlist in front of an inference backend of an external Gateway that lets in every address by name (a
 * Cloud Armor rule on `*` or 0.0.0.0/0, or an expression that holds for any address; an AuthorizationPolicy's ipBlocks;
 * the Gateway Service's loadBalancerSourceRanges) is the program's explicit choice, and is called out; so is a Cloud
 * Armor policy the program names but does not declare, or whose rules read what a preview cannot know, which could not
 * be judged, and a Gateway of an implementation the pack does not know (neither GKE's classes nor Istio's), whose
 * exposure and access rules it cannot read, and so are a LoadBalancer Service or an Ingress in front of vLLM guarded by
 * something the program does not show. A policy no inference backend uses is no concern of this lesson.
 */
export const disallowGatewayOpenToInternet: StackValidationPolicy & PolicyText = {
    ...policyText(
        "open-endpoint",
        "disallow-gateway-open-to-internet",
        "An allowlist in front of an inference Gateway should not let in the whole internet (* or 0.0.0.0/0).",
    ),
    enforcementLevel: "advisory",
    severity: "high",
    validateStack: (args, reportViolation) => {
        for (const { key, gateway, reaching } of exposedGateways(args.resources)) {
            const implementation = gatewayImplementation(gateway, args.resources);
            if (implementation === "unknown") {
                reportViolation(
                    unknownImplementationMessage(
                        key,
                        gateway.props.spec?.gatewayClassName,
                        reaching.flatMap((attachment) => attachment.forwarding),
                    ),
                    gateway.urn,
                );
                continue;
            }
            if (implementation === "istio") {
                const access = istioAccess(gateway, args.resources);
                if (access.verdict === "unknown") {
                    reportViolation(
                        access.deciding?.props.spec?.action === "CUSTOM"
                            ? `AuthorizationPolicy ${objectKey(access.deciding)} hands Gateway ${key}'s requests to an external authorizer (CUSTOM, provider ${JSON.stringify(access.deciding.props.spec?.provider?.name)}), which the program does not show: whether it refuses anyone could not be judged.`
                            : `Gateway ${key}'s AuthorizationPolicies could not be judged: ${access.deciding ? `${objectKey(access.deciding)} has a rule on what the pack cannot evaluate` : "a rule reads what the pack cannot evaluate"}; check that they refuse callers you do not know.`,
                        access.deciding?.urn ?? gateway.urn,
                    );
                    continue;
                }
                if (access.verdict === "opens" && access.deciding !== undefined) {
                    const kind = isKubernetesKind(access.deciding.type, "", "ConfigMap") ? "ConfigMap" : "AuthorizationPolicy";
                    reportViolation(
                        `${kind} ${objectKey(access.deciding)} lets every address into Gateway ${key} (0.0.0.0/0): the Gateway is open to the internet, and only what its model servers check themselves stands before them.`,
                        access.deciding.urn,
                    );
                }
                continue;
            }
            const reported = new Set<string>();
            const backends = new Map(
                reaching.flatMap((attachment) => attachment.forwarding).map((backend) => [backendKey(backend), backend]),
            );
            for (const backend of [...backends.values()].sort((a, b) => backendKey(a).localeCompare(backendKey(b)))) {
                const armor = gkeBackendGuard(backend, args.resources).armor;
                if (armor === undefined || reported.has(armor.name)) {
                    continue;
                }
                reported.add(armor.name);
                if (armor.verdict === undefined) {
                    reportViolation(
                        `${describeBackend(backend)} behind Gateway ${key} names Cloud Armor policy ${armor.name}, which the program does not declare: whether it refuses anyone could not be judged.`,
                        backend.source.urn,
                    );
                } else if (armor.verdict.verdict === "opens") {
                    reportViolation(
                        `Cloud Armor policy ${armor.name} lets every address through (${armor.verdict.rule}): the Gateway ${key} is open to the internet, and only what its model servers check themselves stands before them.`,
                        armor.resource!.urn,
                    );
                } else if (armor.verdict.verdict === "unknown") {
                    reportViolation(
                        `Cloud Armor policy ${armor.name} in front of ${describeBackend(backend)} could not be judged: ${armor.verdict.rule}.`,
                        armor.resource!.urn,
                    );
                }
            }
        }
        for (const { through, description, service, exposure } of exposedModelServices(args.resources)) {
            if (exposure.verdict === "unknown") {
                reportViolation(
                    `${description} puts model server Service ${service} on the internet, and what stands in front of it could not be judged: ${exposure.why}.`,
                    through.urn,
                );
            }
        }
    },
};
