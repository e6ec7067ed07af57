import { StackValidationPolicy } from "@pulumi/policy";
import { KubeProps, isGkeGatewayClass, opensToInternet, policyText } from "./facts";
import { exposedGateways, istioGuards } from "./support/access";
import { isKubernetesKind, objectKey } from "./support/resources";

/**
 * Enforces lesson open-endpoint (policies/facts/lessons), advisory: an allowlist in front of an inference Gateway that
 * lets in every address (Cloud Armor's `*` or 0.0.0.0/0 in an allowing rule, an AuthorizationPolicy's ipBlocks, the
 * Gateway Service's loadBalancerSourceRanges) is the stack's explicit choice, and is called out.
 */
export const disallowGatewayOpenToInternet: StackValidationPolicy = {
    ...policyText(
        "disallow-gateway-open-to-internet",
        "An allowlist in front of an inference Gateway should not let in the whole internet (* or 0.0.0.0/0).",
    ),
    enforcementLevel: "advisory",
    severity: "high",
    validateStack: (args, reportViolation) => {
        for (const resource of args.resources) {
            const rules: KubeProps[] =
                resource.type === "gcp:compute/regionSecurityPolicy:RegionSecurityPolicy" ||
                resource.type === "gcp:compute/securityPolicy:SecurityPolicy"
                    ? Array.isArray(resource.props.rules)
                        ? resource.props.rules
                        : []
                    : resource.type === "gcp:compute/regionSecurityPolicyRule:RegionSecurityPolicyRule" ||
                        resource.type === "gcp:compute/securityPolicyRule:SecurityPolicyRule"
                      ? [resource.props]
                      : [];
            for (const rule of rules) {
                const ranges: unknown[] = rule.match?.config?.srcIpRanges ?? [];
                const allows = typeof rule.action === "string" && (rule.action === "allow" || rule.action === "throttle");
                if (allows && opensToInternet(ranges)) {
                    reportViolation(
                        `Cloud Armor rule at priority ${rule.priority ?? "(none)"} of ${resource.name} lets every address through (${rule.action} on ${ranges.join(", ")}): the Gateway is open to the internet, and only its key and identity checks stand before the TPUs.`,
                        resource.urn,
                    );
                }
            }
        }
        for (const { key, gateway } of exposedGateways(args.resources)) {
            if (isGkeGatewayClass(gateway.props.spec?.gatewayClassName)) {
                continue;
            }
            for (const open of istioGuards(gateway, args.resources).open) {
                reportViolation(
                    `${open.props.kind ?? (isKubernetesKind(open.type, "", "ConfigMap") ? "ConfigMap" : "AuthorizationPolicy")} ${objectKey(open)} lets every address into Gateway ${key} (0.0.0.0/0): the Gateway is open to the internet, and only its key and identity checks stand before the TPUs.`,
                    open.urn,
                );
            }
        }
    },
};
