/**
 * Reading the ext_proc wiring a team writes by hand in Istio EnvoyFilters (seed 002): the ext_proc filters and
 * per-route overrides they patch in, with the gRPC target each calls, and the clusters they add. Envoy reads its
 * JSON in snake_case or lowerCamelCase, so both spellings are read. Source: Envoy's ext_proc API
 * (envoy.extensions.filters.http.ext_proc.v3 ExternalProcessor, ExtProcPerRoute, ProcessingMode) as Istio 1.29.6
 * writes it (pilot/pkg/xds/filters/filters.go:172-197, pilot/pkg/networking/core/route/route.go:514-545).
 */
import { PolicyResource } from "@pulumi/policy";
import { EPP_PORTS, INFERENCE_EXT_PROC_MODE, KSERVE_CHILDREN } from "./facts";
import { Props, isKubernetesKind, namespaceOf } from "./support";

/** Envoy's name for the ext_proc HTTP filter, which per-route overrides are keyed by. */
const EXT_PROC_FILTER = "envoy.filters.http.ext_proc";

/** A field in either of Envoy's JSON spellings. */
function field(object: Props | undefined, snakeCase: string): unknown {
    if (object === null || typeof object !== "object") {
        return undefined;
    }
    const camelCase = snakeCase.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
    return object[snakeCase] ?? object[camelCase];
}

/** Envoy's defaults for a ProcessingMode field left unset: headers are sent, bodies and trailers are not. */
const ENVOY_MODE_DEFAULTS: Readonly<Record<keyof typeof INFERENCE_EXT_PROC_MODE, string>> = {
    request_header_mode: "SEND",
    request_body_mode: "NONE",
    request_trailer_mode: "SKIP",
    response_header_mode: "SEND",
    response_body_mode: "NONE",
    response_trailer_mode: "SKIP",
};

/** A ProcessingMode with Envoy's defaults filled in (`DEFAULT` is the default too). */
export function effectiveMode(mode: Props | undefined): Record<keyof typeof INFERENCE_EXT_PROC_MODE, string> {
    return Object.fromEntries(
        Object.entries(ENVOY_MODE_DEFAULTS).map(([name, fallback]) => {
            const value = field(mode, name);
            return [name, typeof value === "string" && value !== "DEFAULT" ? value : fallback];
        }),
    ) as Record<keyof typeof INFERENCE_EXT_PROC_MODE, string>;
}

/** One ext_proc configuration an EnvoyFilter patches in. */
export interface ExtProcPatch {
    filter: PolicyResource;
    /** `configPatches[i]`, for messages. */
    at: string;
    /** A filter in the listener's chain, or a route's override of it. */
    kind: "filter" | "override";
    /** Its processing mode as written (undefined: Envoy's defaults; for an override, the filter's). */
    processingMode?: Props;
    /** The cluster an `envoy_grpc` service names. */
    clusterName?: string;
    /** The target a `google_grpc` service dials. */
    targetUri?: string;
}

/** A cluster an EnvoyFilter adds, with its endpoints' addresses. */
export interface AddedCluster {
    filter: PolicyResource;
    at: string;
    name: string;
    endpoints: Array<{ address: string; port?: number }>;
    /** It speaks TLS to its endpoints. */
    tls: boolean;
}

function configPatches(filter: PolicyResource): Array<{ at: string; patch: Props }> {
    const patches = filter.props.spec?.configPatches;
    return Array.isArray(patches) ? patches.map((patch: Props, index: number) => ({ at: `spec.configPatches[${index}]`, patch })) : [];
}

function isEnvoyFilter(resource: PolicyResource): boolean {
    return isKubernetesKind(resource.type, "networking.istio.io", "EnvoyFilter");
}

/** The gRPC target of an ext_proc `grpc_service`. */
function grpcTarget(grpcService: unknown): Pick<ExtProcPatch, "clusterName" | "targetUri"> {
    const envoyGrpc = field(grpcService as Props, "envoy_grpc") as Props | undefined;
    const googleGrpc = field(grpcService as Props, "google_grpc") as Props | undefined;
    const clusterName = field(envoyGrpc, "cluster_name");
    const targetUri = field(googleGrpc, "target_uri");
    return {
        ...(typeof clusterName === "string" ? { clusterName } : {}),
        ...(typeof targetUri === "string" ? { targetUri } : {}),
    };
}

/** Every ext_proc filter and per-route override the stack's EnvoyFilters patch in. */
export function extProcPatches(resources: PolicyResource[]): ExtProcPatch[] {
    return resources.filter(isEnvoyFilter).flatMap((filter) =>
        configPatches(filter).flatMap(({ at, patch }): ExtProcPatch[] => {
            const value = patch.patch?.value as Props | undefined;
            if (patch.applyTo === "HTTP_FILTER") {
                const config = field(value, "typed_config") as Props | undefined;
                const isExtProc =
                    String(value?.name ?? "").startsWith(EXT_PROC_FILTER) || String(config?.["@type"] ?? "").endsWith(".ExternalProcessor");
                return isExtProc
                    ? [
                          {
                              filter,
                              at,
                              kind: "filter",
                              processingMode: field(config, "processing_mode") as Props | undefined,
                              ...grpcTarget(field(config, "grpc_service")),
                          },
                      ]
                    : [];
            }
            const perFilter = field(value, "typed_per_filter_config") as Props | undefined;
            const override = perFilter?.[EXT_PROC_FILTER] as Props | undefined;
            const overrides = field(override, "overrides") as Props | undefined;
            if (overrides === undefined) {
                return [];
            }
            return [
                {
                    filter,
                    at,
                    kind: "override",
                    processingMode: field(overrides, "processing_mode") as Props | undefined,
                    ...grpcTarget(field(overrides, "grpc_service")),
                },
            ];
        }),
    );
}

/** Every cluster the stack's EnvoyFilters add. */
export function addedClusters(resources: PolicyResource[]): AddedCluster[] {
    return resources.filter(isEnvoyFilter).flatMap((filter) =>
        configPatches(filter)
            .filter(({ patch }) => patch.applyTo === "CLUSTER" && patch.patch?.operation === "ADD")
            .map(({ at, patch }) => {
                const value = (patch.patch.value ?? {}) as Props;
                const groups = field(field(value, "load_assignment") as Props, "endpoints");
                const endpoints = (Array.isArray(groups) ? groups : []).flatMap((group: Props) => {
                    const lbEndpoints = field(group, "lb_endpoints");
                    return (Array.isArray(lbEndpoints) ? lbEndpoints : []).flatMap((lbEndpoint: Props) => {
                        const socket = field(field(field(lbEndpoint, "endpoint") as Props, "address") as Props, "socket_address") as Props;
                        const address = field(socket, "address");
                        const port = Number(field(socket, "port_value"));
                        return typeof address === "string" ? [{ address, ...(Number.isInteger(port) ? { port } : {}) }] : [];
                    });
                });
                return {
                    filter,
                    at,
                    name: String(value.name ?? ""),
                    endpoints,
                    tls: field(value, "transport_socket") !== undefined,
                };
            }),
    );
}

/** `a.b.c.d` or an IPv6 literal: an address that is not a name. */
export function isLiteralIp(address: string): boolean {
    return /^\d{1,3}(\.\d{1,3}){3}$/.test(address) || address.includes(":");
}

/** The host and port an Istio outbound cluster name (`outbound|<port>|<subset>|<host>`) stands for. */
export function outboundClusterTarget(clusterName: string): { host: string; port: number } | undefined {
    const match = /^outbound\|(\d+)\|[^|]*\|(.+)$/.exec(clusterName);
    return match ? { port: Number(match[1]), host: match[2] } : undefined;
}

/**
 * Whether an ext_proc call goes to an endpoint picker: to the EPP's gRPC port (an Istio outbound cluster, an added
 * cluster's endpoints, a google_grpc target), or to a Service named as KServe names a service's EPP.
 */
export function callsEndpointPicker(patch: ExtProcPatch, clusters: AddedCluster[]): boolean {
    const isEndpointPicker = (host: string, port?: number) =>
        port === EPP_PORTS.grpc || host.split(".")[0].endsWith(KSERVE_CHILDREN.eppServiceSuffix);
    const target = patch.clusterName ? outboundClusterTarget(patch.clusterName) : undefined;
    if (target) {
        return isEndpointPicker(target.host, target.port);
    }
    const added = clusters.find((cluster) => cluster.name === patch.clusterName);
    if (added) {
        return added.endpoints.some((endpoint) => isEndpointPicker(endpoint.address, endpoint.port));
    }
    return patch.targetUri !== undefined && new RegExp(`:${EPP_PORTS.grpc}$`).test(patch.targetUri);
}

/** `namespace/name` of an EnvoyFilter and where in it, for messages. */
export function describePatch(item: { filter: PolicyResource; at: string }): string {
    return `EnvoyFilter ${namespaceOf(item.filter)}/${item.filter.props.metadata?.name} ${item.at}`;
}
