import { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { KSERVE, isGkeGatewayClass, PolicyText, policyText } from "./facts";
import { effectiveServiceSpec, serviceGateways } from "./support/kserve";
import { Props, isLlmInferenceService, namespaceOf } from "./support/resources";
import { attachesToGkeGateway, httpRoutes, routeParentRefs } from "./support/routes";
import { gatewaysByKey, kserveConfigResolver } from "./support/stack";

/** Names of the rules in an HTTPRoute spec that carry `timeouts`. */
function rulesWithTimeouts(spec: Props | undefined): string[] {
    const rules: Props[] = Array.isArray(spec?.rules) ? spec.rules : [];
    return rules.flatMap((rule, index) => (rule?.timeouts !== undefined && rule.timeouts !== null ? [rule.name ?? `#${index}`] : []));
}

/** The route template an LLMInferenceServiceConfig carries. */
function templateSpec(config: PolicyResource): Props | undefined {
    return config.props.spec?.router?.route?.http?.spec;
}

/** The reports of this policy: an HTTPRoute's rules, a service's own route, KServe's template, a baseRef's template. */
export const routeTimeoutMessages = {
    route: (route: string, rules: string[]) =>
        `HTTPRoute ${route} sets timeouts on rules ${rules.join(", ")} but attaches to a GKE Gateway, which rejects it.`,
    service: (service: string, rules: string[]) =>
        `LLMInferenceService ${service} sets route timeouts on rules ${rules.join(", ")}; its GKE Gateway rejects them.`,
    kserveDefault: (service: string, namespace: string) =>
        `LLMInferenceService ${service} gets its HTTPRoute from KServe's default ${KSERVE.routerRouteConfigName}, which sets timeouts that its GKE Gateway rejects; add a timeout-free ${KSERVE.routerRouteConfigName} to namespace ${namespace}.`,
    template: (service: string, namespace: string, config: string, rules: string[]) =>
        `LLMInferenceService ${service} gets its HTTPRoute from ${config}, which writes timeouts on rules ${rules.join(", ")} that its GKE Gateway rejects; add a timeout-free ${KSERVE.routerRouteConfigName} to namespace ${namespace}.`,
    baseRef: (service: string, config: string, rules: string[]) =>
        `LLMInferenceService ${service} takes its route from LLMInferenceServiceConfig ${config}, which writes timeouts on rules ${rules.join(", ")}; GKE rejects the HTTPRoute.`,
};

/**
 * A template is judged where a service resolves it, as KServe resolves configs: the service's namespace first, then the
 * controller's (kserve v0.20.0 pkg/controller/v1alpha2/llmisvc/config_merge.go).
 */
export const disallowHttpRouteTimeoutsOnGke: StackValidationPolicy & PolicyText = {
    ...policyText(
        "route-timeouts",
        "disallow-httproute-timeouts-on-gke",
        "HTTPRoutes attached to a GKE Gateway, and the KServe route templates that produce them, must not set rule timeouts.",
    ),
    enforcementLevel: "mandatory",
    severity: "critical",
    validateStack: (args, reportViolation) => {
        if (![...gatewaysByKey(args.resources).values()].some((gateway) => isGkeGatewayClass(gateway.className))) {
            args.notApplicable("the stack has no GKE Gateway");
        }
        const onGke = attachesToGkeGateway(args.resources);

        for (const route of httpRoutes(args.resources)) {
            const rules = rulesWithTimeouts(route.props.spec);
            if (rules.length > 0 && onGke(routeParentRefs(route))) {
                reportViolation(routeTimeoutMessages.route(route.props.metadata?.name, rules), route.urn);
            }
        }

        const resolve = kserveConfigResolver(args.resources);
        for (const service of args.resources.filter((resource) => isLlmInferenceService(resource.type))) {
            const route = effectiveServiceSpec(service, args.resources).spec.router?.route;
            if (route === undefined || route.http?.refs !== undefined || !onGke(serviceGateways(service, args.resources))) {
                continue;
            }
            const name = service.props.metadata?.name;
            const namespace = namespaceOf(service);
            // KServe merges the well-known route config, then the service's baseRefs, then the service itself; route
            // rules are a list without a merge key, so the last of them that has rules decides.
            const baseRefs: Props[] = Array.isArray(service.props.spec?.baseRefs) ? service.props.spec.baseRefs : [];
            const layers = [resolve(KSERVE.routerRouteConfigName, namespace), ...baseRefs.map((ref) => resolve(ref?.name, namespace))];
            const ownSpec = service.props.spec?.router?.route?.http?.spec;
            if (Array.isArray(ownSpec?.rules)) {
                const own = rulesWithTimeouts(ownSpec);
                if (own.length > 0) {
                    reportViolation(routeTimeoutMessages.service(`${namespace}/${name}`, own), service.urn);
                }
                continue;
            }
            const decisive = [...layers]
                .reverse()
                .find((config): config is PolicyResource => config !== undefined && Array.isArray(templateSpec(config)?.rules));
            if (decisive === undefined) {
                // A base config outside the stack may bring its own rules: nothing to judge then.
                if (layers.every((config, index) => index === 0 || config !== undefined) && layers[0] === undefined) {
                    reportViolation(routeTimeoutMessages.kserveDefault(`${namespace}/${name}`, namespace), service.urn);
                }
                continue;
            }
            const rules = rulesWithTimeouts(templateSpec(decisive));
            if (rules.length === 0) {
                continue;
            }
            const where = `${namespaceOf(decisive)}/${decisive.props.metadata?.name}`;
            reportViolation(
                decisive === layers[0]
                    ? routeTimeoutMessages.template(`${namespace}/${name}`, namespace, where, rules)
                    : routeTimeoutMessages.baseRef(`${namespace}/${name}`, where, rules),
                service.urn,
            );
        }
    },
};
