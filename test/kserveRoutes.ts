/**
 * What the cluster makes of the namespace's route template: KServe renders it per service into an HTTPRoute
 * (kserve v0.20.0 pkg/controller/v1alpha2/llmisvc/config_merge.go:608-720, Go templates over the whole config), and
 * istiod turns every HTTPRoute rule on a Gateway into Envoy routes that call the EPP of the rule's InferencePool.
 */
import { ISTIO, KSERVE_GLOBALS, RenderedService, renderKServeRoute } from "@gke-tpu-inference/facts";

export type { RenderedService } from "@gke-tpu-inference/facts";

interface Rule {
    name?: string;
    backendRefs: Array<{ group?: string; kind?: string; name: string }>;
}

/** An HTTPRoute as KServe creates it for `service` from the template `spec`, on `gateway`. */
export function renderedRoute(
    spec: unknown,
    service: RenderedService,
    gateway = { namespace: "inference-gateway", name: "inference-gateway" },
) {
    const route = renderKServeRoute(spec, service, { ...KSERVE_GLOBALS, gateway });
    return { ...route, spec: route.spec as { rules: Rule[] } };
}

/**
 * The InferencePool each Envoy route on one Gateway listener calls the EPP of, as istiod 1.29.6 builds it: every rule's
 * route named by the rule's `name` or `<namespace>.<route>.<index>` (conversion.go:106-112), the maps of all routes merged
 * in creation order, a later entry replacing an earlier one of the same name (route_collections.go:855-864). Returns, per
 * route (in creation order) and per InferencePool rule, the pool its route name resolves to.
 */
export function istioEndpointPickers(routes: ReadonlyArray<ReturnType<typeof renderedRoute>>) {
    const routeName = (route: ReturnType<typeof renderedRoute>, rule: Rule, index: number) =>
        rule.name ?? ISTIO.generatedRouteName(route.metadata.namespace, route.metadata.name, index);
    const merged = new Map<string, string>();
    for (const route of routes) {
        route.spec.rules.forEach((rule, index) => {
            const pool = rule.backendRefs.find((ref) => ref.kind === "InferencePool");
            if (pool) {
                merged.set(routeName(route, rule, index), `${route.metadata.namespace}/${pool.name}`);
            }
        });
    }
    return routes.map((route) => ({
        route: `${route.metadata.namespace}/${route.metadata.name}`,
        pools: route.spec.rules.flatMap((rule, index) =>
            rule.backendRefs.some((ref) => ref.kind === "InferencePool") ? [merged.get(routeName(route, rule, index))] : [],
        ),
    }));
}
