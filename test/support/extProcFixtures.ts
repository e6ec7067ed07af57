import { kube } from "./harness";

type Obj = Record<string, unknown>;

/** An ext_proc HTTP filter on the Gateway's listeners calling `cluster` in `mode` (undefined: Envoy's defaults). */
export function extProcFilterPatch(cluster: string, mode?: Obj, spelling: "snake" | "camel" = "snake"): Obj {
    const config =
        spelling === "snake"
            ? {
                  "@type": "type.googleapis.com/envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor",
                  grpc_service: { envoy_grpc: { cluster_name: cluster }, timeout: "2s" },
                  ...(mode ? { processing_mode: mode } : {}),
              }
            : {
                  "@type": "type.googleapis.com/envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor",
                  grpcService: { envoyGrpc: { clusterName: cluster } },
                  ...(mode ? { processingMode: mode } : {}),
              };
    return {
        applyTo: "HTTP_FILTER",
        match: {
            context: "GATEWAY",
            listener: {
                filterChain: {
                    filter: { name: "envoy.filters.network.http_connection_manager", subFilter: { name: "envoy.filters.http.ext_proc" } },
                },
            },
        },
        patch: { operation: "REPLACE", value: { name: "envoy.filters.http.ext_proc", typed_config: config } },
    };
}

/** A STATIC cluster `name` with one endpoint at `address:port`, TLS when `tls`. */
export function clusterPatch(name: string, address: string, port = 9002, tls = false): Obj {
    return {
        applyTo: "CLUSTER",
        match: { context: "GATEWAY" },
        patch: {
            operation: "ADD",
            value: {
                name,
                type: address.match(/^\d/) ? "STATIC" : "STRICT_DNS",
                connect_timeout: "2s",
                lb_policy: "ROUND_ROBIN",
                http2_protocol_options: {},
                ...(tls
                    ? {
                          transport_socket: {
                              name: "envoy.transport_sockets.tls",
                              typed_config: {
                                  "@type": "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext",
                                  common_tls_context: { alpn_protocols: ["h2"] },
                              },
                          },
                      }
                    : {}),
                load_assignment: {
                    cluster_name: name,
                    endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address, port_value: port } } } }] }],
                },
            },
        },
    };
}

/** A per-route override of the ext_proc filter on route `route`, in `mode`. */
export function routeOverridePatch(route: string, mode: Obj): Obj {
    return {
        applyTo: "HTTP_ROUTE",
        match: { context: "GATEWAY", routeConfiguration: { vhost: { route: { name: route } } } },
        patch: {
            operation: "MERGE",
            value: {
                typed_per_filter_config: {
                    "envoy.filters.http.ext_proc": {
                        "@type": "type.googleapis.com/envoy.extensions.filters.http.ext_proc.v3.ExtProcPerRoute",
                        overrides: { processing_mode: mode },
                    },
                },
            },
        },
    };
}

/** An EnvoyFilter `name` in namespace `gateway` on the inference Gateway's pods with `patches`. */
export function envoyFilter(name: string, patches: Obj[]) {
    return kube("networking.istio.io/v1alpha3", "EnvoyFilter", name, {
        metadata: { name, namespace: "gateway" },
        spec: {
            workloadSelector: { labels: { "gateway.networking.k8s.io/gateway-name": "inference-gateway" } },
            configPatches: patches,
        },
    });
}

/** Seed 002's filter: every mode skipped, to be turned on per route. */
export const SEED_002_MODE = {
    request_header_mode: "SKIP",
    request_body_mode: "NONE",
    response_header_mode: "SKIP",
    response_body_mode: "NONE",
};

/** What the EPP needs, as Istio writes it for an InferencePool route. */
export const EPP_MODE = {
    request_header_mode: "SEND",
    request_body_mode: "FULL_DUPLEX_STREAMED",
    request_trailer_mode: "SEND",
    response_header_mode: "SEND",
    response_body_mode: "FULL_DUPLEX_STREAMED",
    response_trailer_mode: "SEND",
};

/** The EPP Service's cluster as Istio names it. */
export const EPP_CLUSTER = "outbound|9002||qwen-epp-service.models.svc.cluster.local";

/** Seed 002's EnvoyFilter: the skip-everything filter and its STATIC cluster at the ClusterIP its guide pastes in. */
export function seed002Filter() {
    return envoyFilter("epp-ext-proc-poc", [extProcFilterPatch("epp-cluster", SEED_002_MODE), clusterPatch("epp-cluster", "10.96.12.34")]);
}
