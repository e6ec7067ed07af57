import { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { KSERVE } from "../components/catalog";
import { Props, attachesToGkeGateway, gatewaysByKey, isGkeGatewayClass, isKubernetesKind, isLlmInferenceService, routeParentRefs, serviceGatewayRefs } from "./support";

/** Names of the rules in an HTTPRoute spec that carry `timeouts`. */
function rulesWithTimeouts(spec: Props | undefined): string[] {
    return ((spec?.rules ?? []) as Props[]).flatMap((rule, index) => (rule.timeouts !== undefined ? [rule.name ?? `#${index}`] : []));
}

/** The route template an LLMInferenceServiceConfig carries. */
function templateSpec(config: PolicyResource): Props | undefined {
    return config.props.spec?.router?.route?.http?.spec;
}

/**
 * Seed 003, issue #4: GKE rejected KServe's HTTPRoute ("GWCER104: Timeouts are not
 * supported"), because KServe's well-known route template writes `timeouts` on every rule.
 */
export const disallowHttpRouteTimeoutsOnGke: StackValidationPolicy = {
    name: "disallow-httproute-timeouts-on-gke",
    description: "HTTPRoutes attached to a GKE Gateway, and the KServe route templates that produce them, must not set rule timeouts, which GKE rejects.",
    enforcementLevel: "mandatory",
    severity: "critical",
    remediationSteps:
        "Remove timeouts from the route rules (set backend timeouts with a GCPBackendPolicy instead). For KServe, ship a kserve-config-llm-router-route LLMInferenceServiceConfig without timeouts in each namespace that runs LLMInferenceServices.",
    validateStack: (args, reportViolation) => {
        const onGke = attachesToGkeGateway(args.resources);
        if (![...gatewaysByKey(args.resources).values()].some((gateway) => isGkeGatewayClass(gateway.className))) {
            args.notApplicable("the stack has no GKE Gateway");
        }

        for (const route of args.resources.filter((resource) => isKubernetesKind(resource.type, "gateway.networking.k8s.io", "HTTPRoute"))) {
            const rules = rulesWithTimeouts(route.props.spec);
            if (rules.length > 0 && onGke(routeParentRefs(route.props))) {
                reportViolation(`HTTPRoute ${route.props.metadata?.name} sets timeouts on rules ${rules.join(", ")} but attaches to a GKE Gateway, which rejects it.`, route.urn);
            }
        }

        const configs = args.resources.filter((resource) => isKubernetesKind(resource.type, "serving.kserve.io", "LLMInferenceServiceConfig"));
        for (const config of configs) {
            const rules = rulesWithTimeouts(templateSpec(config));
            if (rules.length > 0) {
                reportViolation(
                    `LLMInferenceServiceConfig ${config.props.metadata?.namespace}/${config.props.metadata?.name} writes timeouts on route rules ${rules.join(", ")}; GKE rejects every HTTPRoute made from it.`,
                    config.urn,
                );
            }
        }

        // A service with a KServe-managed route uses the namespace's route template, else KServe's own, which has timeouts.
        const safeNamespaces = new Set(
            configs.filter((config) => config.props.metadata?.name === KSERVE.routerRouteConfigName && rulesWithTimeouts(templateSpec(config)).length === 0).map((config) => config.props.metadata?.namespace),
        );
        for (const service of args.resources.filter((resource) => isLlmInferenceService(resource.type))) {
            const route = service.props.spec?.router?.route;
            const managed = route !== undefined && route.http?.refs === undefined;
            const ownTimeouts = rulesWithTimeouts(route?.http?.spec);
            if (ownTimeouts.length > 0 && onGke(serviceGatewayRefs(service.props))) {
                reportViolation(`LLMInferenceService ${service.props.metadata?.name} sets route timeouts on rules ${ownTimeouts.join(", ")}; its GKE Gateway rejects them.`, service.urn);
            } else if (managed && route.http?.spec === undefined && onGke(serviceGatewayRefs(service.props)) && !safeNamespaces.has(service.props.metadata?.namespace)) {
                reportViolation(
                    `LLMInferenceService ${service.props.metadata?.namespace}/${service.props.metadata?.name} gets its HTTPRoute from KServe's default ${KSERVE.routerRouteConfigName}, which sets timeouts that its GKE Gateway rejects; add a timeout-free ${KSERVE.routerRouteConfigName} to namespace ${service.props.metadata?.namespace}.`,
                    service.urn,
                );
            }
        }
    },
};
