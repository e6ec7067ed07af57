import * as fs from "fs";
import { parse } from "yaml";
import { CrdValidator } from "./crds";
import { Graph, runProgram } from "./harness";
import { istioEndpointPickers, renderedRoute } from "./kserveRoutes";
import { requestPathProblems } from "./requestPath";
import { SHARED_PROGRAMS, sharedProgram } from "./shippedStacks";
import { sharedPath } from "./shared";

/** Two services, Pattern 3 and Pattern 1, so that both pattern's objects are seen behind Istio. */
const MODELS = SHARED_PROGRAMS.istioRouted.config.models;

const ISTIO_REPO = "https://istio-release.storage.googleapis.com/charts";

type Inputs = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The HTTP filters the Gateway's EnvoyFilters insert, first to last in the chain, as istiod 1.29.6 builds it: patch sets
 * in ascending priority (the creation time next, which a preview cannot know, so two INSERT_FIRST sets must differ in
 * priority), each INSERT_FIRST put at the front of the chain as it stands. Source: SOURCES.istioEnvoyFilterOrder.
 */
function istioHttpFilterOrder(filters: readonly Inputs[]): string[] {
    const patches = filters
        .map((filter) => ({
            priority: (filter.spec.priority as number | undefined) ?? 0,
            inserts: (filter.spec.configPatches as Inputs[]).filter(
                (patch) => patch.applyTo === "HTTP_FILTER" && patch.patch.operation === "INSERT_FIRST",
            ),
        }))
        .filter(({ inserts }) => inserts.length > 0);
    const priorities = patches.map(({ priority }) => priority);
    expect(new Set(priorities).size).toBe(priorities.length);
    const chain: string[] = [];
    for (const { inserts } of [...patches].sort((a, b) => a.priority - b.priority)) {
        for (const insert of inserts) {
            chain.unshift(insert.patch.value.name as string);
        }
    }
    return chain;
}

/** One validator for the file: compiling Istio's DestinationRule schema takes seconds. */
const validator = new CrdValidator();

describe("gatewayProvider istio: the program behind an Istio Gateway", () => {
    let graph: Graph;
    const types = () => new Set(graph.resources.map((resource) => resource.type));
    beforeAll(async () => {
        graph = new Graph(await sharedProgram("istioRouted"));
    });

    test("Istio's base and istiod charts, pinned, with InferencePool support on; istiod after its CRDs and the webhook firewall rule", () => {
        const base = graph.get("kubernetes:helm.sh/v4:Chart", "istio-base");
        const istiod = graph.get("kubernetes:helm.sh/v4:Chart", "istio-istiod");
        expect(base.inputs).toEqual({ chart: "base", version: "1.29.6", namespace: "istio-system", repositoryOpts: { repo: ISTIO_REPO } });
        expect(istiod.inputs).toEqual({
            chart: "istiod",
            version: "1.29.6",
            namespace: "istio-system",
            repositoryOpts: { repo: ISTIO_REPO },
            values: { pilot: { env: { ENABLE_GATEWAY_API_INFERENCE_EXTENSION: "true" } } },
        });
        expect(graph.dependencyNames(istiod)).toEqual([
            "gcp:compute/firewall:Firewall tpu-inference-webhooks",
            "kubernetes:core/v1:Namespace istio-ns",
            "kubernetes:helm.sh/v4:Chart istio-base",
        ]);
        // The control plane reaches istiod's webhooks on 15017 besides the others'.
        expect(graph.get("gcp:compute/firewall:Firewall", "tpu-inference-webhooks").inputs.allows).toEqual([
            { protocol: "tcp", ports: ["9443", "6443", "15017"] },
        ]);
    });

    test("a Gateway of class istio with an external passthrough load balancer, waiting for istiod and nothing of GKE's", () => {
        const gateway = graph.get("kubernetes:gateway.networking.k8s.io/v1:Gateway", "inference-gateway");
        expect(gateway.inputs.spec).toEqual({
            gatewayClassName: "istio",
            // Istio sets the Service's load balancer IP from the first address: the reserved one the certificate names.
            addresses: [{ type: "IPAddress", value: "198.51.100.20" }],
            listeners: [
                {
                    name: "https",
                    protocol: "HTTPS",
                    port: 443,
                    tls: { mode: "Terminate", certificateRefs: [{ kind: "Secret", group: "", name: "inference-gateway-tls" }] },
                    allowedRoutes: {
                        namespaces: { from: "Selector", selector: { matchLabels: { "gke-tpu-inference/gateway-access": "true" } } },
                    },
                },
                { name: "http", protocol: "HTTP", port: 80, allowedRoutes: { namespaces: { from: "Same" } } },
            ],
            infrastructure: {
                annotations: { "cloud.google.com/l4-rbs": "enabled" },
                parametersRef: { group: "", kind: "ConfigMap", name: "inference-gateway-service" },
            },
        });
        // Never programmed before its certificate and its access control exist.
        expect(graph.dependencyNames(gateway)).toEqual([
            "gcp:compute/address:Address inference-address",
            "kubernetes:cert-manager.io/v1:Certificate inference-certificate",
            "kubernetes:core/v1:ConfigMap inference-access-service",
            "kubernetes:core/v1:Namespace inference-ns",
            "kubernetes:helm.sh/v4:Chart istio-istiod",
            "kubernetes:networking.istio.io/v1alpha3:EnvoyFilter inference-access-rate-limit",
            "kubernetes:security.istio.io/v1:AuthorizationPolicy inference-access-allow",
        ]);
        expect(validator.errors(gateway.inputs)).toEqual([]);
    });

    test("no GKE Gateway pieces: no proxy-only subnet, HealthCheckPolicy, GCPBackendPolicy or routing extension", () => {
        const subnets = graph.ofType("gcp:compute/subnetwork:Subnetwork").map((subnet) => subnet.name);
        expect(subnets).toEqual(["tpu-inference-node-subnet"]);
        for (const kind of ["HealthCheckPolicy", "GCPBackendPolicy", "GCPRoutingExtension"]) {
            expect(types().has(`kubernetes:networking.gke.io/v1:${kind}`)).toBe(false);
        }
    });

    test("each service's EPP is reached over TLS: a DestinationRule for its KServe Service, after Istio's CRDs", () => {
        for (const service of ["qwen-pc", "phi"]) {
            const rule = graph.get("kubernetes:networking.istio.io/v1:DestinationRule", `${service}-epp-tls`);
            expect(rule.inputs).toEqual({
                apiVersion: "networking.istio.io/v1",
                kind: "DestinationRule",
                metadata: { name: `${service}-epp-service`, namespace: "llm-inference" },
                spec: {
                    host: `${service}-epp-service.llm-inference.svc.cluster.local`,
                    trafficPolicy: { tls: { mode: "SIMPLE", insecureSkipVerify: true } },
                },
            });
            expect(graph.dependencyNames(rule)).toEqual([
                "kubernetes:core/v1:Namespace serving-ns",
                "kubernetes:helm.sh/v4:Chart istio-base",
            ]);
            expect(validator.errors(rule.inputs)).toEqual([]);
        }
    });

    test("the model services do not wait for the Network Services API, which only GKE's InferencePool backends need", () => {
        const service = graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService", "phi-llmisvc");
        expect(graph.dependencyNames(service).filter((name) => name.includes("networkservices"))).toEqual([]);
    });

    test("the serving namespace stays out of the mesh", () => {
        expect(graph.get("kubernetes:core/v1:Namespace", "serving-ns").inputs.metadata).toEqual({
            name: "llm-inference",
            labels: { "gke-tpu-inference/gateway-access": "true", "istio-injection": "disabled" },
        });
    });

    test("Pattern 2 behind Istio: the router's ext_proc filter (requests only, off on the services' own paths) and TLS, built typed", () => {
        const filter = graph.get("kubernetes:networking.istio.io/v1alpha3:EnvoyFilter", "body-based-router-ext-proc");
        expect(filter.inputs).toEqual({
            apiVersion: "networking.istio.io/v1alpha3",
            kind: "EnvoyFilter",
            metadata: { name: "body-based-router", namespace: "inference-gateway" },
            spec: {
                targetRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: "inference-gateway" }],
                configPatches: [
                    {
                        applyTo: "HTTP_FILTER",
                        match: {
                            context: "GATEWAY",
                            listener: { filterChain: { filter: { name: "envoy.filters.network.http_connection_manager" } } },
                        },
                        patch: {
                            operation: "INSERT_FIRST",
                            value: {
                                name: "envoy.filters.http.ext_proc.bbr",
                                typed_config: {
                                    "@type": "type.googleapis.com/envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor",
                                    failure_mode_allow: false,
                                    allow_mode_override: true,
                                    // The router reads requests only: responses, streamed ones included, pass straight through.
                                    processing_mode: {
                                        request_header_mode: "SEND",
                                        request_body_mode: "FULL_DUPLEX_STREAMED",
                                        request_trailer_mode: "SEND",
                                        response_header_mode: "SKIP",
                                        response_body_mode: "NONE",
                                        response_trailer_mode: "SKIP",
                                    },
                                    grpc_service: {
                                        envoy_grpc: {
                                            cluster_name: "outbound|9004||body-based-router.inference-gateway.svc.cluster.local",
                                        },
                                    },
                                },
                            },
                        },
                    },
                    // Off on every route a service's own path selects: 0-3 by path, 5-8 by publisher path, 9-10 the catch-alls.
                    ...["qwen-pc", "phi"].flatMap((service) =>
                        [0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12].map((index) => ({
                            applyTo: "HTTP_ROUTE",
                            match: {
                                context: "GATEWAY",
                                routeConfiguration: { vhost: { route: { name: `llm-inference.${service}-kserve-route.${index}` } } },
                            },
                            patch: {
                                operation: "MERGE",
                                value: {
                                    typed_per_filter_config: {
                                        "envoy.filters.http.ext_proc.bbr": {
                                            "@type": "type.googleapis.com/envoy.extensions.filters.http.ext_proc.v3.ExtProcPerRoute",
                                            disabled: true,
                                        },
                                    },
                                },
                            },
                        })),
                    ),
                ],
            },
        });
        const rule = graph.get("kubernetes:networking.istio.io/v1:DestinationRule", "body-based-router-tls");
        expect(rule.inputs.spec).toEqual({
            host: "body-based-router.inference-gateway.svc.cluster.local",
            trafficPolicy: { tls: { mode: "SIMPLE", insecureSkipVerify: true } },
        });
        for (const object of [filter, rule]) {
            expect(validator.errors(object.inputs)).toEqual([]);
            expect(graph.dependencyNames(object)).toEqual([
                "kubernetes:core/v1:Namespace inference-ns",
                "kubernetes:helm.sh/v4:Chart istio-base",
            ]);
        }
    });

    test("two services' routes on the one Gateway each call their own service's EPP, Pattern 2's model routing included", () => {
        const template = graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceServiceConfig", "serving-router-route").inputs as {
            spec: { router: { route: { http: { spec: unknown } } } };
        };
        const routes = [
            { namespace: "llm-inference", name: "qwen-pc", modelName: "Qwen/Qwen2.5-3B-Instruct" },
            { namespace: "llm-inference", name: "phi", modelName: "microsoft/Phi-3-mini-4k-instruct" },
        ].map((service) => renderedRoute(template.spec.router.route.http.spec, service));
        // Nine rules per route name an InferencePool: four by path, the model routing, four by publisher path.
        expect(istioEndpointPickers(routes)).toEqual([
            { route: "llm-inference/qwen-pc-kserve-route", pools: Array(9).fill("llm-inference/qwen-pc-inference-pool") },
            { route: "llm-inference/phi-kserve-route", pools: Array(9).fill("llm-inference/phi-inference-pool") },
        ]);
    });

    test("the router's filter is off on exactly the routes istiod makes of the rules a service's own path prefix selects", () => {
        const template = graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceServiceConfig", "serving-router-route").inputs as {
            spec: { router: { route: { http: { spec: unknown } } } };
        };
        type Match = { path?: { type: string; value: string }; headers?: unknown[] };
        const ownPathRoutes = ["qwen-pc", "phi"].flatMap((name) => {
            const route = renderedRoute(template.spec.router.route.http.spec, { namespace: "llm-inference", name, modelName: "m" });
            const rules = route.spec.rules as unknown as Array<{ matches: Match[] }>;
            return rules.flatMap((rule, index) =>
                // A service's own path: a path prefix under the service's or its model's prefix, and no header.
                rule.matches.every(
                    (match) =>
                        match.path?.type === "PathPrefix" &&
                        match.headers === undefined &&
                        ["/llm-inference/", "/publishers/"].some((prefix) => match.path!.value.startsWith(prefix)),
                )
                    ? [`llm-inference.${route.metadata.name}.${index}`]
                    : [],
            );
        });
        const filter = graph.get("kubernetes:networking.istio.io/v1alpha3:EnvoyFilter", "body-based-router-ext-proc").inputs as {
            spec: { configPatches: Array<{ applyTo: string; match: { routeConfiguration?: { vhost: { route: { name: string } } } } }> };
        };
        const disabled = filter.spec.configPatches
            .filter((patch) => patch.applyTo === "HTTP_ROUTE")
            .map((patch) => patch.match.routeConfiguration!.vhost.route.name);
        expect(disabled.sort()).toEqual(ownPathRoutes.sort());
        expect(disabled).toHaveLength(24);
    });

    test("the same check catches what upstream's route template does: its named rules make every service call the newest one's EPP", () => {
        const upstream = parse(fs.readFileSync(sharedPath("reference", "kserve-v0.20.0", "config-llm-router-route.yaml"), "utf8")) as {
            spec: { router: { route: { http: { spec: unknown } } } };
        };
        const routes = ["qwen-pc", "phi"].map((name) =>
            renderedRoute(upstream.spec.router.route.http.spec, { namespace: "llm-inference", name, modelName: "m" }),
        );
        expect(istioEndpointPickers(routes).map((route) => new Set(route.pools))).toEqual([
            new Set(["llm-inference/phi-inference-pool"]),
            new Set(["llm-inference/phi-inference-pool"]),
        ]);
    });

    test("the per-client rate limit runs first in the Gateway's HTTP filters, before the body-based router, as istiod orders them", () => {
        expect(
            istioHttpFilterOrder(graph.ofType("kubernetes:networking.istio.io/v1alpha3:EnvoyFilter").map((filter) => filter.inputs)),
        ).toEqual(["envoy.filters.http.local_ratelimit", "envoy.filters.http.ext_proc.bbr"]);
    });

    test("two services and Pattern 2 behind Istio: the emitted objects build every hop of Istio's request path", () => {
        expect(requestPathProblems(graph.resources, "istio")).toEqual([]);
    });

    test("the outputs name the provider and Istio's class", () => {
        expect(graph.recording.outputs).toMatchObject({ gatewayProvider: "istio", gatewayClass: "istio" });
    });
});

describe("two services behind Istio without Pattern 2", () => {
    test("each route's rules call its own service's EPP, and every hop of Istio's request path is built", async () => {
        const graph = await runProgram({ gatewayProvider: "istio", models: MODELS, tpuMaxNodes: "3" });
        // The Gateway's rate limit only: no router filter.
        expect(graph.ofType("kubernetes:networking.istio.io/v1alpha3:EnvoyFilter").map((filter) => filter.name)).toEqual([
            "inference-access-rate-limit",
        ]);
        expect(requestPathProblems(graph.resources, "istio")).toEqual([]);
    });
});

describe("gatewayProvider istio with gatewayLoadBalancer internal", () => {
    test("GKE gives the Gateway's Service an internal passthrough load balancer", async () => {
        const graph = await runProgram({ gatewayProvider: "istio", gatewayLoadBalancer: "internal" });
        expect(graph.get("kubernetes:gateway.networking.k8s.io/v1:Gateway", "inference-gateway").inputs.spec).toMatchObject({
            gatewayClassName: "istio",
            infrastructure: { annotations: { "networking.gke.io/load-balancer-type": "Internal" } },
        });
    });
});
