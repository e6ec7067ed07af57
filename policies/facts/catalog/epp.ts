/**
 * The endpoint picker (EPP): its config schema, prefix-cache routing weights, the releases with the ALPN fix, its ports
 * and the ext_proc modes it needs.
 */

/** The EndpointPickerConfig schema the pinned EPP reads. Source: {@link SOURCES.eppConfig}. */
export const EPP_CONFIG_API_VERSION = "llm-d.ai/v1alpha1";

/** Prefix-cache-aware routing as the field report found it in production. Source: {@link SOURCES.seed003Weights}. */
export const PREFIX_CACHE_ROUTING = {
    /** The EPP plugin that scores endpoints by the prefix they hold. Source: {@link SOURCES.eppConfig}. */
    scorer: "prefix-cache-scorer",
    prefixCacheScorerWeight: 2.0,
    loadAwareScorerWeight: 1.0,
    queueDepthThreshold: 5,
    kvCacheUtilThreshold: 0.8,
    metricsStalenessThreshold: "200ms",
} as const;

/**
 * Endpoint picker images and the first release of each that offers ALPN `h2` on its TLS gRPC
 * server; older ones break Envoy/GKE ext_proc. Keyed by the image repository's last segment.
 * Source: {@link SOURCES.seed000Alpn}.
 */
export const EPP_MINIMUM_VERSIONS: Readonly<Record<string, string>> = {
    "llm-d-router-endpoint-picker": "0.9.0",
    "llm-d-inference-scheduler": "0.7.0",
};

/** The endpoint picker's ports: the Gateway's ext_proc calls and its gRPC health. Source: {@link SOURCES.eppTls}. */
export const EPP_PORTS = { grpc: 9002, health: 9003 } as const;

/**
 * What an Envoy ext_proc filter must send the EPP to pick an endpoint: the request's headers, its body (the model and
 * the prompt) in the one body mode the EPP supports, and the trailers that mode requires; the same for the response,
 * which carries the usage the EPP reads. The body-based router's chart sends the same. Sources: {@link SOURCES.eppExtProc},
 * {@link SOURCES.bodyBasedRouter}.
 */
export const INFERENCE_EXT_PROC_MODE = {
    request_header_mode: "SEND",
    request_body_mode: "FULL_DUPLEX_STREAMED",
    request_trailer_mode: "SEND",
    response_header_mode: "SEND",
    response_body_mode: "FULL_DUPLEX_STREAMED",
    response_trailer_mode: "SEND",
} as const;
