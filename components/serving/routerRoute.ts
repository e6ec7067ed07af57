/**
 * The HTTPRoute template KServe renders for every LLMInferenceService, as this stack ships it:
 * KServe v0.20.0's well-known `kserve-config-llm-router-route`
 * (config/llmisvcconfig/config-llm-router-route.yaml), its inference rules kept, with these changes:
 *
 * - no `timeouts` on any rule: GKE's Gateway controller rejects an HTTPRoute that has them
 *   ("GWCER104: Timeouts are not supported"); on GKE a backend's request timeout belongs in
 *   a GCPBackendPolicy;
 * - no catch-all: upstream sends everything else under a service's prefixes (and any path with KServe's
 *   model header) to the workload, where vLLM's API key guards only some prefixes
 *   (`VLLM_API_KEY.guardedPrefixes` in the catalog): `/invocations`, `/tokenize`, `/pooling` and the rest would answer without
 *   the key. Only {@link ROUTED_VLLM_PREFIXES} and vLLM's health check reach the server, each under both prefixes and
 *   with the model header;
 * - those non-scheduler paths go to `<service>-http`, a plain-HTTP Service this stack owns, instead of the workload
 *   Service KServe generates and reconciles: its protocol, name and health check are ours, so they work through the
 *   Gateway;
 * - no rule `name`: upstream names every service's rules alike, and Istio keys each rule's
 *   InferencePool (its EPP) by that name across all the routes of a Gateway, last one winning,
 *   so every service would call one EPP. Unnamed, Istio names a rule
 *   `<namespace>.<route>.<index>` (see {@link ISTIO.generatedRouteName}), unique per service;
 *   a templated name is no option, as the config's CRD holds rule names to Gateway API's
 *   SectionName pattern.
 *
 * A URLRewrite rule takes exactly one PathPrefix match and a route at most 16 rules (Gateway API v1.4.0's HTTPRoute
 * CRD), so each prefix and path is a rule of its own.
 *
 * With the body-based router (Pattern 2) the model-routing rules also match its `X-Gateway-Base-Model-Name` header
 * on the service's base model, so a request at the Gateway's root naming the model (or one of its LoRA adapters)
 * in its body reaches the service's InferencePool. KServe's own header match stays: it routes the fully qualified
 * `publishers/<namespace>/models/<model>` name, which vLLM also serves.
 *
 * The template's parent is the Gateway's HTTPS listener (`sectionName: https`); KServe replaces it with a service's
 * `router.gateway.refs` where the service names them, so each service names the listener there too.
 *
 * The strings in `{{ }}` are KServe's Go templates, filled in per service by the controller.
 */
import {
    BODY_BASED_ROUTER,
    GATEWAY_LISTENERS,
    INFERENCE_POOL_KIND,
    ISTIO,
    KSERVE_CHILDREN,
    ROUTED_VLLM_PREFIXES,
    VLLM_HEALTH_PATH,
    VLLM_PORT,
} from "@gke-tpu-inference/facts";

/** The InferencePool KServe creates for a service; the EPP picks an endpoint within it. */
const INFERENCE_POOL = {
    ...INFERENCE_POOL_KIND,
    name: KSERVE_CHILDREN.nameTemplate(KSERVE_CHILDREN.inferencePoolSuffix),
    port: VLLM_PORT,
    weight: 1,
};

/** Suffix of the plain-HTTP Service each model service owns for the paths the scheduler does not handle. */
export const HTTP_SERVICE_SUFFIX = "-http";

/** That Service, as the route template names it. */
const HTTP_SERVICE = { kind: "Service", name: KSERVE_CHILDREN.nameTemplate(HTTP_SERVICE_SUFFIX), port: VLLM_PORT, weight: 1 };

const SERVICE_PREFIX = "/{{ .ObjectMeta.Namespace }}/{{ .ObjectMeta.Name }}";
const PUBLISHER_PREFIX = "/publishers/{{ .ObjectMeta.Namespace }}/models/{{ .Spec.Model.Name }}";
const MODEL_HEADER = {
    type: "Exact",
    name: "{{ .GlobalConfig.ModelBasedRoutingHeaderName }}",
    value: "publishers/{{ .ObjectMeta.Namespace }}/models/{{ .Spec.Model.Name }}",
};
/** The body-based router's header: the base model of the body's `model`, whether it named the model or an adapter. */
const BASE_MODEL_HEADER = { type: "Exact", name: BODY_BASED_ROUTER.baseModelHeader, value: "{{ .Spec.Model.Name }}" };

/** Inference endpoints the scheduler routes, by the slug of upstream's rule names. */
const INFERENCE_ENDPOINTS: ReadonlyArray<[slug: string, path: string]> = [
    ["completions", "/v1/completions"],
    ["chat-completions", "/v1/chat/completions"],
    ["responses", "/v1/responses"],
    ["messages", "/v1/messages"],
];

type Backend = typeof INFERENCE_POOL | typeof HTTP_SERVICE;

/** The service's own path prefixes, as KServe's templates write them: `/<namespace>/<service>` and the publisher's. */
export const SERVICE_PATH_PREFIXES: readonly string[] = [SERVICE_PREFIX, PUBLISHER_PREFIX];

/** What reaches vLLM beside the scheduler's endpoints: its guarded API prefixes the stack routes, and its health check. */
export const SERVER_PATHS: readonly string[] = [...ROUTED_VLLM_PREFIXES, VLLM_HEALTH_PATH];

/** A rule that strips `prefix` from `prefix + target` and sends the request to `backend`. */
export function rewriteRule<B>(backend: B, prefix: string, target: string) {
    return {
        backendRefs: [backend],
        matches: [{ path: { type: "PathPrefix", value: `${prefix}${target}` } }],
        filters: [{ type: "URLRewrite", urlRewrite: { path: { type: "ReplacePrefixMatch", replacePrefixMatch: target } } }],
    };
}

/** The slug of a path in the names of the rules that route it: `v1` of `/v1`, `health` of `/health`. */
function slug(path: string): string {
    return path.replace(/^\//, "").replace(/\//g, "-");
}

/** One rule of the template, by the name upstream gives it (or, for the rules upstream lacks, one in its style). */
interface TemplateRule {
    upstreamName: string;
    /** True for the `/<namespace>/<service>/…` and `/publishers/…` rules, which never need the body-based router. */
    byServicePath: boolean;
    rule: ReturnType<typeof rewriteRule<Backend>> | { backendRefs: Backend[]; matches: unknown[] };
}

/**
 * The template's rules in upstream's order, its catch-alls replaced by rules for {@link ROUTED_VLLM_PREFIXES} and vLLM's
 * health check; with `bodyBasedRouting`, model routing on the router's base-model header too.
 */
export function templateRules(bodyBasedRouting: boolean): TemplateRule[] {
    const modelHeaders = bodyBasedRouting ? [MODEL_HEADER, BASE_MODEL_HEADER] : [MODEL_HEADER];
    const byPath = (upstreamName: string, rule: ReturnType<typeof rewriteRule<Backend>>): TemplateRule => ({
        upstreamName,
        byServicePath: true,
        rule,
    });
    return [
        ...INFERENCE_ENDPOINTS.map(([slugOf, path]) => byPath(`v1-${slugOf}-path`, rewriteRule(INFERENCE_POOL, SERVICE_PREFIX, path))),
        {
            upstreamName: "v1-model-routing",
            byServicePath: false,
            rule: {
                backendRefs: [INFERENCE_POOL],
                matches: modelHeaders.flatMap((header) =>
                    INFERENCE_ENDPOINTS.flatMap(([, path]) =>
                        [path, `${path}/`].map((value) => ({ path: { type: "Exact", value }, headers: [header] })),
                    ),
                ),
            },
        },
        ...INFERENCE_ENDPOINTS.map(([slugOf, path]) =>
            byPath(`v1-${slugOf}-publisher-path`, rewriteRule(INFERENCE_POOL, PUBLISHER_PREFIX, path)),
        ),
        ...SERVER_PATHS.map((path) => byPath(`${slug(path)}-publisher-path`, rewriteRule(HTTP_SERVICE, PUBLISHER_PREFIX, path))),
        ...SERVER_PATHS.map((path) => byPath(`${slug(path)}-path`, rewriteRule(HTTP_SERVICE, SERVICE_PREFIX, path))),
        {
            upstreamName: "server-model-routing",
            byServicePath: false,
            rule: {
                backendRefs: [HTTP_SERVICE],
                matches: modelHeaders.flatMap((header) =>
                    SERVER_PATHS.map((value) => ({ path: { type: "PathPrefix", value }, headers: [header] })),
                ),
            },
        },
    ];
}

/**
 * The HTTPRoute spec of the route template: parent Gateway from KServe's global config, unnamed rules without `timeouts`,
 * vLLM's routed prefixes and health check to `<service>-http`; with `bodyBasedRouting`, model routing on the router's
 * base-model header too.
 */
export function routerRouteSpec(bodyBasedRouting: boolean) {
    return {
        parentRefs: [
            {
                group: "gateway.networking.k8s.io",
                kind: "Gateway",
                name: "{{ .GlobalConfig.IngressGatewayName }}",
                namespace: "{{ .GlobalConfig.IngressGatewayNamespace }}",
                // HTTPS only: the plain-HTTP listener only redirects. KServe replaces this parent with a service's gateway refs.
                sectionName: GATEWAY_LISTENERS.https.name,
            },
        ],
        rules: templateRules(bodyBasedRouting).map(({ rule }) => rule),
    };
}

/** The names Istio gives the routes of the rules that select requests by the service's own path prefix, for service `service` in `namespace`. */
export function servicePathRouteNames(namespace: string, service: string): string[] {
    return templateRules(false).flatMap(({ byServicePath }, index) =>
        byServicePath ? [ISTIO.generatedRouteName(namespace, `${service}${KSERVE_CHILDREN.routeSuffix}`, index)] : [],
    );
}

/** The inference paths at the Gateway's root that the body-based router serves (with and without a trailing slash, as the rules match them). */
export const ROOT_INFERENCE_PATHS: readonly string[] = INFERENCE_ENDPOINTS.flatMap(([, path]) => [path, `${path}/`]);
