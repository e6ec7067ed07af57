/** Lessons of the endpoint picker and the ext_proc calls that reach it: TLS and ALPN, processing modes, addresses, prefix-cache hits. */
import { EPP_MINIMUM_VERSIONS, IMAGES, ISTIO, PREFIX_CACHE_ROUTING } from "../catalog";
import { EPP_PROCESSING_MODES } from "../judgements/extProc";
import { Lesson } from "./lesson";

const FIRST_FIXED = Object.entries(EPP_MINIMUM_VERSIONS)
    .map(([repository, version]) => `${repository} v${version}`)
    .join(", ");

export const EPP_LESSONS = [
    {
        id: "epp-alpn",
        title: "An EPP serving TLS without ALPN h2 cannot be reached by Envoy's ext_proc: routing silently stops",
        symptom:
            'Requests are served, but not by the replica the EPP would pick; the Gateway logs "TLS_error" on the ext_proc stream and the EPP sees no request.',
        cause: "Envoy's gRPC client requires ALPN h2 over TLS, and endpoint picker releases before the fix serve TLS gRPC without offering it; behind Istio the TLS to the EPP comes from a DestinationRule or a hand-written EnvoyFilter cluster.",
        fix: `Use ${IMAGES.endpointPicker} or a release at or above the ALPN fix (${FIRST_FIXED}), and speak TLS to the EPP, which serves nothing else.`,
        prevention: `The EPP is pinned at ${IMAGES.endpointPicker}, with secure serving on; behind Istio a DestinationRule speaks TLS to it.`,
        recovery: `use the pinned endpoint picker image (${IMAGES.endpointPicker}) or another at or above the ALPN fix`,
        inspect:
            "kubectl get pods -n llm-inference -l app.kubernetes.io/component=llminferenceservice-router-scheduler -o jsonpath='{..image}'",
        sources: [
            "https://github.com/kubernetes-sigs/gateway-api-inference-extension/pull/2385 (ALPN h2 on the EPP's TLS gRPC server)",
            "https://grpc.io/docs/guides/auth/ (gRPC over TLS negotiates h2 with ALPN)",
            "llm-d/llm-d-router v0.10.0 pkg/epp/server/options.go:153 and :226 (--secure-serving, on by default), pkg/epp/server/runserver.go:175-208",
        ],
    },
    {
        id: "ext-proc-modes",
        title: "A hand-written ext_proc filter that skips the EPP, or withholds the body, leaves requests unrouted",
        symptom:
            "The EPP is never called (Envoy's ext_proc cluster counts rq_total 0), or requests block or reach endpoints the EPP did not pick.",
        cause: "An EnvoyFilter that puts the EPP's ext_proc filter on every listener with its modes SKIP relies on a route override to turn it on; and the EPP picks an endpoint from the request's body (the model, the prompt's prefix) in the one body mode it supports, FULL_DUPLEX_STREAMED.",
        fix: `Set processing_mode to ${EPP_PROCESSING_MODES} (what Istio's own InferencePool support writes), or drop the EnvoyFilter and let istiod with ${ISTIO.inferenceExtensionEnv}=true call the EPP.`,
        prevention: `Behind Istio, istiod runs with ${ISTIO.inferenceExtensionEnv}=true and writes the EPP's ext_proc itself; the stack writes no EnvoyFilter for it.`,
        recovery: `drop the EnvoyFilter and let istiod call the EPP (${ISTIO.inferenceExtensionEnv}=true; this stack's Istio does), or set the modes it needs`,
        inspect: "kubectl get envoyfilter -A -o yaml | grep -B2 -A8 processing_mode",
        sources: [
            "llm-d/llm-d-router v0.10.0 README.md:47-50 (request and response bodies: only FULL_DUPLEX_STREAMED)",
            "istio/istio 1.29.6 pilot/pkg/networking/core/route/route.go:514-545 (the per-route override Istio writes for an InferencePool)",
            "https://www.envoyproxy.io/docs/envoy/latest/configuration/http/http_filters/ext_proc_filter",
        ],
    },
    {
        id: "ext-proc-cluster-by-ip",
        title: "An ext_proc cluster pinned to the EPP Service's ClusterIP breaks when the Service is recreated",
        symptom: "After the EPP's Service is recreated, the Gateway's ext_proc calls fail and nothing says so.",
        cause: "A STATIC cluster whose endpoint is a ClusterIP pasted into an EnvoyFilter keeps calling that address; a recreated Service gets another one.",
        fix: "Call the Service's cluster as Istio names it (outbound|9002||<service>.<namespace>.svc.cluster.local) instead of adding a STATIC cluster; for an EPP, drop the EnvoyFilter and let Istio's InferencePool support (istiod with ENABLE_GATEWAY_API_INFERENCE_EXTENSION=true) call it.",
        prevention: "The stack writes no EnvoyFilter: istiod calls the EPP by its Service's name.",
        sources: [
            "https://istio.io/latest/docs/reference/config/networking/envoy-filter/ (EnvoyFilter: clusters by Istio's outbound names)",
        ],
    },
    {
        id: "prefix-cache-zero",
        title: "Prefix-cache hits stuck at zero while prompts arrive: requests are not reaching the replica that holds their prefix",
        symptom: "vLLM's prefix-cache hits stay at zero while prompts with shared prefixes arrive.",
        cause: `Prefix-cache routing happens only when the Gateway's ext_proc reaches the EPP and the EPP scores by prefix: ${PREFIX_CACHE_ROUTING.scorer} ${PREFIX_CACHE_ROUTING.prefixCacheScorerWeight}, load-aware ${PREFIX_CACHE_ROUTING.loadAwareScorerWeight} (queue ${PREFIX_CACHE_ROUTING.queueDepthThreshold}, KV cache ${PREFIX_CACHE_ROUTING.kvCacheUtilThreshold * 100} %, staleness ${PREFIX_CACHE_ROUTING.metricsStalenessThreshold}).`,
        fix: `Give the EPP an EndpointPickerConfig with the ${PREFIX_CACHE_ROUTING.scorer}, and make sure the Gateway reaches it (TLS with ALPN h2, a ready EPP).`,
        prevention: "Pattern 3 services run the EPP with an explicit prefix-cache config, and an alert fires on zero hits.",
        recovery: "check the EPP's check above (ALPN, Ready) and that the service runs Pattern 3's prefix-cache scorer",
        inspect: 'the dashboard\'s "Prefix cache hit rate"; npm run doctor -- --metrics <Prometheus API>',
        sources: [
            "llm-d/llm-d-router v0.10.0 deploy/config/epp-estimate-prefix-cache-config.yaml",
            "https://docs.vllm.ai/en/latest/usage/metrics.html (vllm:prefix_cache_queries and vllm:prefix_cache_hits)",
        ],
    },
] as const satisfies readonly Lesson[];
