/**
 * The HTTPRoute template KServe renders for every LLMInferenceService, as this stack ships it:
 * KServe v0.20.0's well-known `kserve-config-llm-router-route`
 * (config/llmisvcconfig/config-llm-router-route.yaml) rule for rule, without the `timeouts`
 * it puts on every rule, because GKE's Gateway controller rejects an HTTPRoute that has them
 * ("GWCER104: Timeouts are not supported"). On GKE a backend's request timeout belongs in a
 * GCPBackendPolicy.
 *
 * The strings in `{{ }}` are KServe's Go templates, filled in per service by the controller.
 */

/** The InferencePool KServe creates for a service; the EPP picks an endpoint within it. */
const INFERENCE_POOL = {
    group: "inference.networking.k8s.io",
    kind: "InferencePool",
    name: "{{ ChildName .ObjectMeta.Name `-inference-pool` }}",
    port: 8000,
    weight: 1,
};

/** The workload Service KServe creates; it serves every path the scheduler does not handle (/v1/models, /health). */
const WORKLOAD_SERVICE = { kind: "Service", name: "{{ ChildName .ObjectMeta.Name `-kserve-workload-svc` }}", port: 8000, weight: 1 };

const SERVICE_PREFIX = "/{{ .ObjectMeta.Namespace }}/{{ .ObjectMeta.Name }}";
const PUBLISHER_PREFIX = "/publishers/{{ .ObjectMeta.Namespace }}/models/{{ .Spec.Model.Name }}";
const MODEL_HEADER = {
    type: "Exact",
    name: "{{ .GlobalConfig.ModelBasedRoutingHeaderName }}",
    value: "publishers/{{ .ObjectMeta.Namespace }}/models/{{ .Spec.Model.Name }}",
};

/** Inference endpoints the scheduler routes, by rule-name slug. */
const INFERENCE_ENDPOINTS: ReadonlyArray<[slug: string, path: string]> = [
    ["completions", "/v1/completions"],
    ["chat-completions", "/v1/chat/completions"],
    ["responses", "/v1/responses"],
    ["messages", "/v1/messages"],
];

type Backend = typeof INFERENCE_POOL | typeof WORKLOAD_SERVICE;

/** A rule that strips `prefix` from `prefix + target` and sends the request to `backend`. */
function rewriteRule(name: string, backend: Backend, prefix: string, target: string) {
    return {
        name,
        backendRefs: [backend],
        matches: [{ path: { type: "PathPrefix", value: `${prefix}${target === "/" ? "" : target}` } }],
        filters: [{ type: "URLRewrite", urlRewrite: { path: { type: "ReplacePrefixMatch", replacePrefixMatch: target } } }],
    };
}

/** The HTTPRoute spec of the route template: parent Gateway from KServe's global config, rules without `timeouts`. */
export function routerRouteSpec() {
    return {
        parentRefs: [
            {
                group: "gateway.networking.k8s.io",
                kind: "Gateway",
                name: "{{ .GlobalConfig.IngressGatewayName }}",
                namespace: "{{ .GlobalConfig.IngressGatewayNamespace }}",
            },
        ],
        rules: [
            ...INFERENCE_ENDPOINTS.map(([slug, path]) => rewriteRule(`v1-${slug}-path`, INFERENCE_POOL, SERVICE_PREFIX, path)),
            {
                name: "v1-model-routing",
                backendRefs: [INFERENCE_POOL],
                matches: INFERENCE_ENDPOINTS.flatMap(([, path]) =>
                    [path, `${path}/`].map((value) => ({ path: { type: "Exact", value }, headers: [MODEL_HEADER] })),
                ),
            },
            ...INFERENCE_ENDPOINTS.map(([slug, path]) => rewriteRule(`v1-${slug}-publisher-path`, INFERENCE_POOL, PUBLISHER_PREFIX, path)),
            rewriteRule("v1-publisher-path-catch-all", WORKLOAD_SERVICE, PUBLISHER_PREFIX, "/"),
            rewriteRule("v1-catch-all-path", WORKLOAD_SERVICE, SERVICE_PREFIX, "/"),
            { name: "v1-catch-all-model-routing", backendRefs: [WORKLOAD_SERVICE], matches: [{ headers: [MODEL_HEADER] }] },
        ],
    };
}
