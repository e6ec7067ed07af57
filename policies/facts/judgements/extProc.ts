/**
 * The ext_proc wiring a team writes by hand in Istio EnvoyFilters (field report: a filter that never called the EPP, a
 * cluster pinned to its ClusterIP): the ext_proc filters and per-route overrides they patch in, with the gRPC target
 * each calls, the clusters they add, and whether what a filter sends the EPP lets it pick. Envoy reads its JSON in
 * snake_case or lowerCamelCase, so both spellings are read. Sources: Envoy's ext_proc API
 * (envoy.extensions.filters.http.ext_proc.v3 ExternalProcessor, ExtProcPerRoute, ProcessingMode) as Istio 1.29.6 writes
 * it (pilot/pkg/xds/filters/filters.go:172-197, pilot/pkg/networking/core/route/route.go:514-545); {@link SOURCES.eppExtProc},
 * {@link SOURCES.extProcModes}.
 */
import { EPP_PORTS, INFERENCE_EXT_PROC_MODE, KSERVE_CHILDREN } from "../catalog";
import { KubeProps, readKnown } from "./objects";

/** Envoy's name for the ext_proc HTTP filter, which per-route overrides are keyed by. */
const EXT_PROC_FILTER = "envoy.filters.http.ext_proc";

/** An EnvoyFilter, with what it came from (a policy resource, a live object) for reporting. */
export interface EnvoyFilterAt<Source> {
    source: Source;
    namespace: string;
    object: KubeProps;
}

/** A field in either of Envoy's JSON spellings. */
function field(object: KubeProps | undefined, snakeCase: string): unknown {
    if (object === null || typeof object !== "object") {
        return undefined;
    }
    const camelCase = snakeCase.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
    return object[snakeCase] ?? object[camelCase];
}

/** An ext_proc processing mode, field by field. */
export type ProcessingMode = Record<keyof typeof INFERENCE_EXT_PROC_MODE, string>;

/** Envoy's defaults for a ProcessingMode field left unset: headers are sent, bodies and trailers are not. */
const ENVOY_MODE_DEFAULTS: Readonly<ProcessingMode> = {
    request_header_mode: "SEND",
    request_body_mode: "NONE",
    request_trailer_mode: "SKIP",
    response_header_mode: "SEND",
    response_body_mode: "NONE",
    response_trailer_mode: "SKIP",
};

/** A ProcessingMode with Envoy's defaults filled in (`DEFAULT` is the default too). */
export function effectiveMode(mode: KubeProps | undefined): ProcessingMode {
    return Object.fromEntries(
        Object.entries(ENVOY_MODE_DEFAULTS).map(([name, fallback]) => {
            const value = field(mode, name);
            return [name, typeof value === "string" && value !== "DEFAULT" ? value : fallback];
        }),
    ) as ProcessingMode;
}

/** One ext_proc configuration an EnvoyFilter patches in. */
export interface ExtProcPatch<Source> {
    filter: EnvoyFilterAt<Source>;
    /** `spec.configPatches[i]`, for messages. */
    at: string;
    /** A filter in the listener's chain, or a route's override of it. */
    kind: "filter" | "override";
    /** Its processing mode as written (undefined: Envoy's defaults; for an override, the filter's). */
    processingMode?: KubeProps;
    /** The cluster an `envoy_grpc` service names. */
    clusterName?: string;
    /** The target a `google_grpc` service dials. */
    targetUri?: string;
}

/** A cluster an EnvoyFilter adds, with its endpoints' addresses. */
export interface AddedCluster<Source> {
    filter: EnvoyFilterAt<Source>;
    at: string;
    name: string;
    /** Its discovery type: STATIC (Envoy's default, hosts given as resolved IP addresses), STRICT_DNS, LOGICAL_DNS, EDS, … */
    discovery: string;
    /** Its endpoints whose address the program shows. */
    endpoints: Array<{ address: string; port?: number }>;
    /** How many of its endpoints have an address known only at the update (read from another resource's output). */
    unknownAddresses: number;
    /** It speaks TLS to its endpoints. */
    tls: boolean;
}

function configPatches(filter: EnvoyFilterAt<unknown>): Array<{ at: string; patch: KubeProps }> {
    const patches = filter.object.spec?.configPatches;
    return Array.isArray(patches) ? patches.map((patch: KubeProps, index: number) => ({ at: `spec.configPatches[${index}]`, patch })) : [];
}

/** The gRPC target of an ext_proc `grpc_service`. */
function grpcTarget(grpcService: unknown): { clusterName?: string; targetUri?: string } {
    const envoyGrpc = field(grpcService as KubeProps, "envoy_grpc") as KubeProps | undefined;
    const googleGrpc = field(grpcService as KubeProps, "google_grpc") as KubeProps | undefined;
    const clusterName = field(envoyGrpc, "cluster_name");
    const targetUri = field(googleGrpc, "target_uri");
    return {
        ...(typeof clusterName === "string" ? { clusterName } : {}),
        ...(typeof targetUri === "string" ? { targetUri } : {}),
    };
}

/** Every ext_proc filter and per-route override some EnvoyFilters patch in. */
export function extProcPatches<Source>(filters: ReadonlyArray<EnvoyFilterAt<Source>>): Array<ExtProcPatch<Source>> {
    return filters.flatMap((filter) =>
        configPatches(filter).flatMap(({ at, patch }): Array<ExtProcPatch<Source>> => {
            const value = patch.patch?.value as KubeProps | undefined;
            if (patch.applyTo === "HTTP_FILTER") {
                const config = field(value, "typed_config") as KubeProps | undefined;
                const isExtProc =
                    String(value?.name ?? "").startsWith(EXT_PROC_FILTER) || String(config?.["@type"] ?? "").endsWith(".ExternalProcessor");
                return isExtProc
                    ? [
                          {
                              filter,
                              at,
                              kind: "filter",
                              processingMode: field(config, "processing_mode") as KubeProps | undefined,
                              ...grpcTarget(field(config, "grpc_service")),
                          },
                      ]
                    : [];
            }
            const perFilter = field(value, "typed_per_filter_config") as KubeProps | undefined;
            const override = perFilter?.[EXT_PROC_FILTER] as KubeProps | undefined;
            const overrides = field(override, "overrides") as KubeProps | undefined;
            if (overrides === undefined) {
                return [];
            }
            return [
                {
                    filter,
                    at,
                    kind: "override",
                    processingMode: field(overrides, "processing_mode") as KubeProps | undefined,
                    ...grpcTarget(field(overrides, "grpc_service")),
                },
            ];
        }),
    );
}

/** Every cluster some EnvoyFilters add. */
export function addedClusters<Source>(filters: ReadonlyArray<EnvoyFilterAt<Source>>): Array<AddedCluster<Source>> {
    return filters.flatMap((filter) =>
        configPatches(filter)
            .filter(({ patch }) => patch.applyTo === "CLUSTER" && patch.patch?.operation === "ADD")
            .map(({ at, patch }) => {
                const value = (patch.patch.value ?? {}) as KubeProps;
                const groups = field(field(value, "load_assignment") as KubeProps, "endpoints");
                let unknownAddresses = 0;
                const endpoints = (Array.isArray(groups) ? groups : []).flatMap((group: KubeProps) => {
                    const lbEndpoints = field(group, "lb_endpoints");
                    return (Array.isArray(lbEndpoints) ? lbEndpoints : []).flatMap((lbEndpoint: KubeProps) => {
                        const socket = field(
                            field(field(lbEndpoint, "endpoint") as KubeProps, "address") as KubeProps,
                            "socket_address",
                        ) as KubeProps;
                        const address = readKnown(() => field(socket, "address"));
                        unknownAddresses += address.unknown ? 1 : 0;
                        const port = Number(readKnown(() => field(socket, "port_value")).value);
                        return typeof address.value === "string"
                            ? [{ address: address.value, ...(Number.isInteger(port) ? { port } : {}) }]
                            : [];
                    });
                });
                const discovery = field(value, "type");
                return {
                    filter,
                    at,
                    name: String(value.name ?? ""),
                    discovery: typeof discovery === "string" ? discovery : "STATIC",
                    endpoints,
                    unknownAddresses,
                    tls: field(value, "transport_socket") !== undefined,
                };
            }),
    );
}

/** `a.b.c.d` or an IPv6 literal: an address that is not a name. */
export function isLiteralIp(address: string): boolean {
    return /^\d{1,3}(\.\d{1,3}){3}$/.test(address) || address.includes(":");
}

/** gRPC's name schemes whose target is not a host (gRPC doc/naming.md). */
const NON_HOST_SCHEMES = new Set(["unix", "unix-abstract", "vsock"]);

/** The host of one `host[:port]`, `[ipv6]:port` or bare IPv6 address. */
function hostOfAddress(address: string): string {
    const bracketed = /^\[([^\]]+)\](?::\d*)?$/.exec(address);
    if (bracketed) {
        return bracketed[1];
    }
    return (address.match(/:/g) ?? []).length > 1 ? address : address.replace(/:\d*$/, "");
}

/**
 * The hosts a gRPC target URI dials, as gRPC resolves it (doc/naming.md): `dns:[//authority/]host[:port]`, `ipv4:` and
 * `ipv6:` address lists, a bare `host[:port]` (and any scheme gRPC does not know) through DNS; none for `unix:` sockets.
 */
export function grpcTargetHosts(targetUri: string): string[] {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(targetUri)?.[1]?.toLowerCase();
    if (scheme !== undefined && NON_HOST_SCHEMES.has(scheme)) {
        return [];
    }
    if (scheme === "ipv4" || scheme === "ipv6") {
        return targetUri
            .slice(scheme.length + 1)
            .split(",")
            .map((address) => (scheme === "ipv6" && !address.startsWith("[") ? address : hostOfAddress(address)));
    }
    const rest = scheme === "dns" ? targetUri.slice("dns:".length).replace(/^\/\/[^/]*\//, "") : targetUri;
    return [hostOfAddress(rest)];
}

/** The host and port an Istio outbound cluster name (`outbound|<port>|<subset>|<host>`) stands for. */
function outboundClusterTarget(clusterName: string): { host: string; port: number } | undefined {
    const match = /^outbound\|(\d+)\|[^|]*\|(.+)$/.exec(clusterName);
    return match ? { port: Number(match[1]), host: match[2] } : undefined;
}

/**
 * Whether an ext_proc call goes to an endpoint picker: to the EPP's gRPC port (an Istio outbound cluster, an added
 * cluster's endpoints, a google_grpc target), or to a Service named as KServe names a service's EPP.
 */
export function callsEndpointPicker<Source>(patch: ExtProcPatch<Source>, clusters: ReadonlyArray<AddedCluster<Source>>): boolean {
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
export function describePatch(item: { filter: EnvoyFilterAt<unknown>; at: string }): string {
    return `EnvoyFilter ${item.filter.namespace}/${item.filter.object.metadata?.name} ${item.at}`;
}

/** The processing modes the EPP needs, as `name VALUE` pairs, for messages. */
export const EPP_PROCESSING_MODES = Object.entries(INFERENCE_EXT_PROC_MODE)
    .map(([name, value]) => `${name} ${value}`)
    .join(", ");

/** The ext_proc filters and route overrides some EnvoyFilters point at the EPP. */
export interface EppExtProcCalls<Source> {
    filters: Array<ExtProcPatch<Source>>;
    overrides: Array<ExtProcPatch<Source>>;
}

/**
 * The filters that call the EPP, and the overrides that do: their own target is the EPP, or, without a target of their
 * own, they override a filter that calls it (one here, or the one Istio writes for InferencePool routes when
 * `poolRoutes`).
 */
export function eppExtProcCalls<Source>(filters: ReadonlyArray<EnvoyFilterAt<Source>>, poolRoutes: boolean): EppExtProcCalls<Source> {
    const clusters = addedClusters(filters);
    const patches = extProcPatches(filters);
    const eppFilters = patches.filter((patch) => patch.kind === "filter" && callsEndpointPicker(patch, clusters));
    const overrides = patches.filter(
        (patch) =>
            patch.kind === "override" &&
            (callsEndpointPicker(patch, clusters) ||
                (patch.clusterName === undefined && patch.targetUri === undefined && (eppFilters.length > 0 || poolRoutes))),
    );
    return { filters: eppFilters, overrides };
}

/** What is wrong with one ext_proc patch that calls the EPP. */
export interface ExtProcModeProblem<Source> {
    patch: ExtProcPatch<Source>;
    problem: string;
}

/** The problem of a call that sends the EPP `wrong` (each mode field and the value it effectively has). */
export function wrongModesProblem(wrong: ReadonlyArray<[name: string, value: string]>): string {
    return `calls the EPP with ${wrong.map(([name, value]) => `${name} ${value}`).join(", ")}; it needs ${EPP_PROCESSING_MODES}: without the body it cannot see the model or the prompt it routes by, and it supports no body mode but FULL_DUPLEX_STREAMED.`;
}

/** The problem of a filter that skips every request with no route override turning it on. */
export const SKIPPED_FILTER_PROBLEM =
    "skips every request's headers and no route override turns it on, so the EPP is never called and requests reach an endpoint it did not pick.";

/**
 * What is wrong with how the EPP is called: each filter and override must send what the EPP picks by, and a filter that
 * skips every request's headers must be turned on by an override. The EPP picks an endpoint from the request's body (the
 * model, the prompt's prefix) and supports no body mode but FULL_DUPLEX_STREAMED.
 */
export function extProcModeProblems<Source>(calls: EppExtProcCalls<Source>): Array<ExtProcModeProblem<Source>> {
    const routeOverrides = calls.overrides.filter((patch) => patch.processingMode !== undefined);
    const wrongModes = (patch: ExtProcPatch<Source>): Array<ExtProcModeProblem<Source>> => {
        const mode = effectiveMode(patch.processingMode);
        const wrong = Object.entries(INFERENCE_EXT_PROC_MODE).filter(([name, value]) => mode[name as keyof ProcessingMode] !== value);
        return wrong.length === 0
            ? []
            : [
                  {
                      patch,
                      problem: wrongModesProblem(wrong.map(([name]) => [name, mode[name as keyof ProcessingMode]])),
                  },
              ];
    };
    return [
        ...calls.filters.flatMap((filter): Array<ExtProcModeProblem<Source>> => {
            if (effectiveMode(filter.processingMode).request_header_mode !== "SKIP") {
                return wrongModes(filter);
            }
            return routeOverrides.length > 0
                ? []
                : [
                      {
                          patch: filter,
                          problem: SKIPPED_FILTER_PROBLEM,
                      },
                  ];
        }),
        ...routeOverrides.flatMap(wrongModes),
    ];
}
