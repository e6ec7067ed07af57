/**
 * What a client can reach through a previewed stack's Gateway, path by path: every route of vLLM's server (the catalog's
 * {@link VLLM_ROUTES}), sent at the Gateway's root and under each model service's two prefixes, with and without the
 * headers that route by model, to each of the Gateway's listeners. Each request is resolved as the Gateway resolves it
 * (the HTTPRoutes KServe renders from the namespace's template, with the parents the services' gateway refs give, and
 * the stack's own routes; Gateway API's precedence; URL rewrites) to what answers it, and the guards it passes on the
 * way: the allowlist (Cloud Armor on GKE, Istio's AuthorizationPolicies and the load balancer's source ranges), the rate
 * limit, an identity check, vLLM's key and Model Armor. In a fleet, the config cluster's routes send to imports, each of
 * which stands for the pool of its namespace and name that every member exports, and so for the members' vLLM.
 */
import { celEnv, parse, plan } from "@bufbuild/cel";
import { PolicyResource } from "@pulumi/policy";
import {
    BODY_BASED_ROUTER,
    BackendRef,
    KSERVE,
    KSERVE_CHILDREN,
    KSERVE_GLOBALS,
    KubeProps,
    VLLM_ROUTES,
    VllmRoute,
    AttachedRoute,
    containersOf,
    importsPool,
    isGkeGatewayClass,
    isInferencePoolBackend,
    isMultiClusterGatewayClass,
    isPoolImportBackend,
    isVllmContainer,
    kindOf,
    labelsOf,
    listenersOf,
    parentGateways,
    renderKServeRoute,
    resolveRequest,
    selectsKServeWorkload,
    targetsGateway,
    vllmGuardedPrefix,
    vllmRequiresApiKey,
} from "@gke-tpu-inference/facts";
import { admits, gkeBackendGuard, istioAccess } from "../../policies/support/access";
import { effectiveServiceSpec, kserveRoute, serviceParentRefs } from "../../policies/support/kserve";
import { isInferencePool, isKubernetesKind, isLlmInferenceService, namespaceOf } from "../../policies/support/resources";
import { httpRoutes, routeBackends } from "../../policies/support/routes";
import { gatewaysByKey } from "../../policies/support/stack";
import { RecordedResource } from "./recorder";

/** How a probe addresses a model: under the service's own prefix, its model's publisher prefix, or at the Gateway's root. */
export type ProbeVia = "service path" | "publisher path" | "root";

/** One request a client sends. */
export interface Probe {
    listener: string;
    /** The model service it addresses (`namespace/name`): by its prefixes, or by the header it carries. */
    service: string;
    via: ProbeVia;
    /** The routing header it carries, if any: KServe's model header, or the body-based router's base-model header. */
    header?: string;
    method: string;
    path: string;
    /** The vLLM route it is aimed at. */
    aimedAt: VllmRoute;
}

/** What answers a probe. */
export type Reach =
    | { kind: "vllm"; service: string; path: string; route?: VllmRoute }
    | { kind: "redirect" }
    | { kind: "gateway"; status: 404 }
    | { kind: "other backend"; backend: string };

/** The guards a probe passes on its way. */
export interface Guards {
    allowlist: boolean;
    rateLimit: boolean;
    identity: boolean;
    key: boolean;
    modelArmor: boolean;
}

/** One probe, what answers it and the guards on the way. */
export interface Exposure {
    probe: Probe;
    reach: Reach;
    guards: Guards;
}

/** A model service behind the Gateway. */
interface Service {
    namespace: string;
    name: string;
    modelName: string;
    requiresKey: boolean;
}

/** The resources as a policy reads them. */
function asPolicyResources(resources: readonly RecordedResource[]): PolicyResource[] {
    return resources.map(
        (resource) =>
            ({ type: resource.type, name: resource.name, urn: resource.urn, props: resource.inputs }) as unknown as PolicyResource,
    );
}

/** `/v1/responses/{response_id}` → `/v1/responses/response_id`; `/metrics*` → `/metrics`. */
function concretePath(route: VllmRoute): string {
    return route.path.replace(/\{([^}]+)\}/g, "$1").replace(/\*$/, "");
}

/** The vLLM route a request to `path` reaches, if any: a `{name}` matches one path element, a trailing `*` anything after. */
export function vllmRouteAt(method: string, path: string): VllmRoute | undefined {
    return VLLM_ROUTES.find((route) => {
        if (!route.methods.includes(method)) {
            return false;
        }
        if (route.path.endsWith("*")) {
            return path.startsWith(route.path.slice(0, -1));
        }
        const pattern = new RegExp(`^${route.path.replace(/\{[^}]+\}/g, "[^/]+")}$`);
        return pattern.test(path);
    });
}

/** The model services of the stack, one object per cluster that runs each. */
function servicesOf(resources: PolicyResource[]): Array<Service & { resource: PolicyResource }> {
    return resources
        .filter((resource) => isLlmInferenceService(resource.type))
        .map((resource) => {
            const { spec } = effectiveServiceSpec(resource, resources);
            const kind = kindOf(resource.props.apiVersion, resource.props.kind);
            const containers = containersOf(kind, { ...resource.props, spec }).filter((at) => isVllmContainer(at, kind));
            return {
                resource,
                namespace: namespaceOf(resource),
                name: resource.props.metadata?.name,
                modelName: spec.model?.name,
                requiresKey: containers.length > 0 && containers.every((at) => vllmRequiresApiKey(at.container)),
            };
        });
}

/**
 * One service per namespace and name: a fleet's members each run the same one, which requires the key only where every
 * member's vLLM does.
 */
function distinctServices(services: readonly Service[]): Service[] {
    const byKey = new Map<string, Service>();
    for (const { namespace, name, modelName, requiresKey } of services) {
        const seen = byKey.get(`${namespace}/${name}`);
        byKey.set(`${namespace}/${name}`, { namespace, name, modelName, requiresKey: requiresKey && (seen?.requiresKey ?? true) });
    }
    return [...byKey.values()];
}

/** The HTTPRoutes on the Gateway `key`, KServe's for its services first (in the order the program creates them), then the program's own. */
function routesOn(resources: PolicyResource[], key: string, services: Array<Service & { resource: PolicyResource }>) {
    const kserve = services.map((service) => {
        const route =
            kserveRoute(service.resource, resources) ??
            renderKServeRoute({}, service, KSERVE_GLOBALS, serviceParentRefs(service.resource, resources));
        return { namespace: service.namespace, name: route.metadata.name, spec: route.spec };
    });
    const own = httpRoutes(resources).map((route) => ({
        namespace: namespaceOf(route),
        name: route.props.metadata?.name,
        spec: route.props.spec,
    }));
    return [...kserve, ...own].filter((route) => parentGateways(route.spec?.parentRefs, route.namespace).includes(key));
}

/** The routes a listener serves: those whose parent names it (or no listener) and whose namespace it admits. */
function routesOfListener(routes: AttachedRoute[], listener: KubeProps, gateway: PolicyResource, key: string, resources: PolicyResource[]) {
    return routes.filter((route) => {
        const parents: KubeProps[] = (Array.isArray(route.spec?.parentRefs) ? route.spec.parentRefs : []).filter((parent: KubeProps) =>
            parentGateways([parent], route.namespace).includes(key),
        );
        return (
            parents.some((parent) => parent.sectionName === undefined || parent.sectionName === listener.name) &&
            admits(listener, namespaceOf(gateway), route.namespace, resources)
        );
    });
}

/** The model service of `namespace` whose vLLM pods `selector` picks (KServe's workload labels), if any. */
function serviceSelectedBy(selector: unknown, namespace: string, services: readonly Service[]): Service | undefined {
    return selectsKServeWorkload(selector)
        ? services.find((service) => service.namespace === namespace && service.name === labelsOf(selector)["app.kubernetes.io/name"])
        : undefined;
}

/**
 * The model service a backend serves, if it is one's InferencePool, a Service that selects its vLLM pods, or an import
 * whose members' exported pools all select its vLLM pods.
 */
function serviceOfBackend(backend: BackendRef, services: readonly Service[], resources: PolicyResource[]): Service | undefined {
    if (isPoolImportBackend(backend)) {
        const selected = resources
            .filter((resource) => isInferencePool(resource.type) && importsPool(backend, resource.props, namespaceOf(resource)))
            // A v1 pool's `selector.matchLabels`, an alpha pool's `selector`.
            .map((pool) =>
                serviceSelectedBy(pool.props.spec?.selector?.matchLabels ?? pool.props.spec?.selector, backend.namespace, services),
            );
        return selected.length > 0 && selected.every((service) => service === selected[0]) ? selected[0] : undefined;
    }
    if (isInferencePoolBackend(backend)) {
        return services.find(
            (service) =>
                service.namespace === backend.namespace && `${service.name}${KSERVE_CHILDREN.inferencePoolSuffix}` === backend.name,
        );
    }
    const kserveMade = services.find(
        (service) => service.namespace === backend.namespace && `${service.name}${KSERVE_CHILDREN.workloadServiceSuffix}` === backend.name,
    );
    if (kserveMade !== undefined) {
        return kserveMade;
    }
    const target = resources.find(
        (resource) =>
            isKubernetesKind(resource.type, "", "Service") &&
            resource.props.metadata?.name === backend.name &&
            namespaceOf(resource) === backend.namespace,
    );
    return serviceSelectedBy(target?.props.spec?.selector, backend.namespace, services);
}

/** The request attributes a CEL matcher of the Gateway's extensions reads. */
type MatchedRequest = { method: string; path: string };

/**
 * Whether Model Armor screens a request: a chain of an extension on the Gateway that calls Model Armor and whose CEL
 * matcher (none: every request) holds for it. Each matcher is planned once.
 */
function modelArmorScreen(extensions: PolicyResource[]): (request: MatchedRequest) => boolean {
    const env = celEnv();
    const matchers = extensions.flatMap((extension) =>
        (extension.props.spec?.extensionChains ?? [])
            .filter((chain: KubeProps) =>
                (chain.extensions ?? []).some((call: KubeProps) => /^modelarmor\./.test(String(call.googleAPIServiceName))),
            )
            .flatMap((chain: KubeProps) =>
                (chain.matchCondition?.celExpressions ?? [{}]).map((expression: KubeProps) =>
                    expression.celMatcher === undefined ? () => true : plan(env, parse(String(expression.celMatcher))),
                ),
            ),
    ) as Array<(bindings: Record<string, unknown>) => unknown>;
    return (request) => matchers.some((matches) => matches({ request: { ...request, headers: {} } }) === true);
}

/**
 * The stack's Gateway (the one the services attach to, or in a fleet, where they have no route, the one whose routes
 * send to imports), whether it is a multi-cluster Gateway, and every probe of it, resolved.
 */
export function stackExposure(recorded: readonly RecordedResource[]): {
    gateway: string;
    provider: "gke" | "istio";
    multiCluster: boolean;
    exposures: Exposure[];
} {
    const resources = asPolicyResources(recorded);
    const members = servicesOf(resources);
    const services = distinctServices(members);
    const [key] = [
        ...members.flatMap((service) => parentGateways(serviceParentRefs(service.resource, resources), service.namespace)),
        ...httpRoutes(resources)
            .filter((route) => routeBackends(route).some(isPoolImportBackend))
            .flatMap((route) => parentGateways(route.props.spec?.parentRefs, namespaceOf(route))),
    ];
    const gateway = gatewaysByKey(resources).get(key)?.resource;
    if (gateway === undefined) {
        return { gateway: key ?? "(none)", provider: "gke", multiCluster: false, exposures: [] };
    }
    const gke = isGkeGatewayClass(gateway.props.spec?.gatewayClassName);
    const routes = routesOn(resources, key, members);
    const istio = gke ? undefined : istioAccess(gateway, resources);
    const onGateway = (kind: string, group: string) =>
        resources.filter(
            (resource) => isKubernetesKind(resource.type, group, kind) && targetsGateway(resource.props, gateway.props.metadata?.name),
        );
    const screened = modelArmorScreen(onGateway("GCPTrafficExtension", "networking.gke.io"));
    const istioRateLimit = onGateway("EnvoyFilter", "networking.istio.io").some((filter) =>
        JSON.stringify(filter.props.spec ?? {}).includes("envoy.filters.http.local_ratelimit"),
    );
    const exposures: Exposure[] = [];
    for (const listener of [...listenersOf(gateway.props, "HTTPS"), ...listenersOf(gateway.props, "HTTP")]) {
        const served = routesOfListener(routes, listener, gateway, key, resources);
        for (const service of services) {
            const prefixes: Array<[ProbeVia, string]> = [
                ["service path", `/${service.namespace}/${service.name}`],
                ["publisher path", `/publishers/${service.namespace}/models/${service.modelName}`],
                ["root", ""],
            ];
            const headers: Array<[string | undefined, Record<string, string>]> = [
                [undefined, {}],
                [KSERVE.modelRoutingHeader, { [KSERVE.modelRoutingHeader]: `publishers/${service.namespace}/models/${service.modelName}` }],
                // The body-based router's header, which a client can send itself as well as the router set it.
                [BODY_BASED_ROUTER.baseModelHeader, { [BODY_BASED_ROUTER.baseModelHeader]: service.modelName }],
            ];
            for (const aimedAt of VLLM_ROUTES) {
                for (const [via, prefix] of prefixes) {
                    for (const [header, sent] of headers) {
                        const method = aimedAt.methods[0];
                        const path = `${prefix}${concretePath(aimedAt)}`;
                        const probe: Probe = {
                            listener: listener.name,
                            service: `${service.namespace}/${service.name}`,
                            via,
                            ...(header ? { header } : {}),
                            method,
                            path,
                            aimedAt,
                        };
                        const resolved = resolveRequest(served, { method, path, headers: sent });
                        const [backend] = resolved?.backendRefs ?? [];
                        const target = backend && serviceOfBackend(backend, services, resources);
                        const reach: Reach =
                            resolved === undefined
                                ? { kind: "gateway", status: 404 }
                                : resolved.redirects
                                  ? { kind: "redirect" }
                                  : target === undefined
                                    ? {
                                          kind: "other backend",
                                          backend: backend ? `${backend.kind} ${backend.namespace}/${backend.name}` : "(none)",
                                      }
                                    : {
                                          kind: "vllm",
                                          service: `${target.namespace}/${target.name}`,
                                          path: resolved.forwardedPath,
                                          ...(() => {
                                              const route = vllmRouteAt(method, resolved.forwardedPath);
                                              return route ? { route } : {};
                                          })(),
                                      };
                        const armor = gke && backend ? gkeBackendGuard(backend, resources) : undefined;
                        exposures.push({
                            probe,
                            reach,
                            guards: {
                                allowlist: gke ? armor?.armor?.verdict?.verdict === "restricts" : istio!.verdict === "restricts",
                                rateLimit: gke ? armor?.armor?.verdict?.rateLimited === true : istioRateLimit,
                                identity: gke ? armor?.iap === true : istio!.identity,
                                key: reach.kind === "vllm" && target!.requiresKey && vllmGuardedPrefix(reach.path) !== undefined,
                                modelArmor: screened({ method, path }),
                            },
                        });
                    }
                }
            }
        }
    }
    return {
        gateway: key,
        provider: gke ? "gke" : "istio",
        multiCluster: isMultiClusterGatewayClass(gateway.props.spec?.gatewayClassName),
        exposures,
    };
}

/** Whether a vLLM route an exposure reaches runs something other than vLLM's health check. */
function reachesHandler(exposure: Exposure): boolean {
    return exposure.reach.kind === "vllm" && exposure.reach.route !== undefined && exposure.reach.route.path !== "/health";
}

/**
 * The probes that reach a vLLM route past a guard the stack must hold: without vLLM's key (any route but its health
 * check), or, where the stack runs Model Armor, unscreened.
 */
export function unguardedExposures(exposures: readonly Exposure[], modelArmor: boolean): Exposure[] {
    return exposures.filter(
        (exposure) => reachesHandler(exposure) && (!exposure.guards.key || (modelArmor && !exposure.guards.modelArmor)),
    );
}
