/**
 * Each lesson, caught however a program writes it (TPU placement the less common ways, what must come before a
 * model service, GKE Gateway backends, Istio's ext_proc to the EPP), judged by the pack in its own process.
 */
import * as gcp from "@pulumi/gcp";
import * as k8s from "@pulumi/kubernetes";
import { summary, usePack, verdict } from "./harness";
import { LABELS, Obj, TPU_SELECTOR, TPU_TOLERATIONS, llmService, meta, template, tpuDeployment, tpuPod, vllm } from "./lessonObjects";

const pack = usePack();

describe("TPU placement written the less common ways", () => {
    const term = (...expressions: Array<[string, string, string[]]>) => ({
        matchExpressions: expressions.map(([key, operator, values]) => ({ key, operator, values })),
    });
    const affinity = (...terms: Obj[]) => ({
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } },
    });
    const ACCELERATOR = "cloud.google.com/gke-tpu-accelerator";
    const TOPOLOGY = "cloud.google.com/gke-tpu-topology";
    const selectorFindings = async (program: () => unknown) =>
        summary((await verdict(pack(), program)).filter((finding) => finding.policy === "require-tpu-selector-matching-pool"));

    test("node affinity terms are alternatives: accelerator and topology in different terms leave either one open", async () => {
        expect(
            await selectorFindings(() =>
                tpuDeployment(vllm(), affinity(term([ACCELERATOR, "In", ["tpu-v6e-slice"]]), term([TOPOLOGY, "In", ["2x2"]]))),
            ),
        ).toEqual(["mandatory require-tpu-selector-matching-pool @w"]);
        expect(
            await selectorFindings(() =>
                tpuDeployment(vllm(), affinity(term([ACCELERATOR, "In", ["tpu-v6e-slice"]], [TOPOLOGY, "In", ["2x2"]]))),
            ),
        ).toEqual([]);
    });

    test("a nodeSelector and a node affinity that contradict each other never schedule", async () => {
        const findings = (
            await verdict(pack(), () =>
                tpuDeployment(vllm(), {
                    nodeSelector: { ...TPU_SELECTOR, [ACCELERATOR]: "tpu-v6e" },
                    ...affinity(term([ACCELERATOR, "In", ["tpu-v6e-slice"]])),
                }),
            )
        ).filter((finding) => finding.policy === "require-tpu-selector-matching-pool");
        expect(findings.map((finding) => finding.message.split("\n")[1])).toEqual([
            "w (spec.template.spec) can never be placed: its nodeSelector and required node affinity allow no common cloud.google.com/gke-tpu-accelerator.",
        ]);
    });

    test("an LLMInferenceService placed by its base config: judged merged, and left alone when the config is elsewhere", async () => {
        const base = (selector: Record<string, string>) =>
            new k8s.apiextensions.CustomResource("base", {
                apiVersion: "serving.kserve.io/v1alpha2",
                kind: "LLMInferenceServiceConfig",
                metadata: meta("tpu-v6e-2x2"),
                spec: { template: { nodeSelector: selector, tolerations: TPU_TOLERATIONS } },
            });
        const service = () => llmService({ baseRefs: [{ name: "tpu-v6e-2x2" }], template: { containers: [vllm()] } });
        expect(
            await selectorFindings(() => {
                base(TPU_SELECTOR);
                service();
            }),
        ).toEqual([]);
        expect(
            await selectorFindings(() => {
                base({ ...TPU_SELECTOR, [ACCELERATOR]: "tpu-v6e" });
                service();
            }),
        ).toEqual(["mandatory require-tpu-selector-matching-pool @qwen"]);
        expect(await selectorFindings(service)).toEqual([]);
    });

    test("a NodePool without nodeLocations takes its cluster's", async () => {
        const stack = (zone: string) => () => {
            new gcp.container.Cluster("c", { name: "inference", location: "europe-west4", nodeLocations: [zone], initialNodeCount: 1 });
            new gcp.container.NodePool("tpu", {
                cluster: "projects/acme/locations/europe-west4/clusters/inference",
                location: "europe-west4",
                nodeConfig: { machineType: "ct6e-standard-4t" },
            });
        };
        const zoneFindings = async (program: () => unknown) =>
            summary((await verdict(pack(), program)).filter((finding) => finding.policy === "require-supported-tpu-zone"));
        expect(await zoneFindings(stack("europe-west4-a"))).toEqual([]);
        expect(await zoneFindings(stack("europe-west4-b"))).toEqual(["mandatory require-supported-tpu-zone @tpu"]);
    });
});

describe("LeaderWorkerSet and KServe, however the stack installs them, come before any LLMInferenceService", () => {
    const LWS_CRD = {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: "leaderworkersets.leaderworkerset.x-k8s.io" },
        spec: {
            group: "leaderworkerset.x-k8s.io",
            names: { kind: "LeaderWorkerSet", plural: "leaderworkersets" },
            scope: "Namespaced",
            versions: [],
        },
    };
    const KSERVE_CONTROLLER = {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "llmisvc-controller-manager", namespace: "kserve" },
        spec: {
            selector: { matchLabels: { app: "llmisvc" } },
            template: {
                metadata: { labels: { app: "llmisvc" } },
                spec: { containers: [{ name: "manager", image: "docker.io/kserve/llmisvc-controller:v0.20.0" }] },
            },
        },
    };
    const service = (dependsOn: k8s.yaml.v2.ConfigGroup[] | unknown[]) =>
        new k8s.apiextensions.CustomResource(
            "qwen",
            {
                apiVersion: "serving.kserve.io/v1alpha2",
                kind: "LLMInferenceService",
                metadata: meta("qwen"),
                spec: { model: { uri: "hf://Qwen/Qwen2.5-3B-Instruct" }, template: tpuPod([vllm()]) },
            },
            { dependsOn: dependsOn as never },
        );
    const ways: Array<[string, () => unknown[], Record<string, (args: Obj) => Obj>]> = [
        [
            "helm.v3.Release by chart name with repositoryOpts, and by OCI reference",
            () => [
                new k8s.helm.v3.Release("lws", { chart: "lws", version: "0.7.0", repositoryOpts: { repo: "https://example.com/charts" } }),
                new k8s.helm.v3.Release("kserve", { chart: "oci://ghcr.io/kserve/charts/kserve-llmisvc-resources", version: "v0.20.0" }),
            ],
            {},
        ],
        [
            "helm.v3.Release with the version in the OCI tag",
            () => [new k8s.helm.v3.Release("lws", { chart: "oci://registry.k8s.io/lws/charts/lws:0.7.0" })],
            {},
        ],
        [
            "helm.v3.Chart, whose objects the SDK registers from `helm template`",
            () => [new k8s.helm.v3.Chart("lws", { chart: "lws", version: "0.7.0", fetchOpts: { repo: "https://example.com/charts" } })],
            { "kubernetes:helm:template": () => ({ result: [LWS_CRD] }) },
        ],
        ["manifests in a yaml/v2 ConfigGroup", () => [new k8s.yaml.v2.ConfigGroup("kserve", { objs: [KSERVE_CONTROLLER] })], {}],
        ["manifests in a yaml/v1 ConfigGroup", () => [new k8s.yaml.ConfigGroup("lws", { objs: [LWS_CRD] })], {}],
        [
            "a CustomResourceDefinition declared directly",
            () => [new k8s.apiextensions.v1.CustomResourceDefinition("lws-crd", { metadata: LWS_CRD.metadata, spec: LWS_CRD.spec })],
            {},
        ],
    ];

    test.each(ways)("caught without dependsOn: %s", async (_, install, invokes) => {
        const findings = await verdict(
            pack(),
            () => {
                install();
                service([]);
            },
            { invokes },
        );
        expect(summary(findings)).toEqual(["mandatory require-lws-and-kserve-before-model-services @qwen"]);
    });

    test.each(ways)("passed with dependsOn: %s", async (_, install, invokes) => {
        expect(summary(await verdict(pack(), () => service(install()), { invokes }))).toEqual([]);
    });

    test("a Helm release without an exact version is caught, and one pinned by its OCI tag passes", async () => {
        const findings = await verdict(pack(), () => {
            new k8s.helm.v3.Release("floating", { chart: "lws", repositoryOpts: { repo: "https://example.com/charts" } });
            new k8s.helm.v3.Release("range", { chart: "lws", version: "^0.7.0", repositoryOpts: { repo: "https://example.com/charts" } });
            new k8s.helm.v3.Release("tagged", { chart: "oci://registry.k8s.io/lws/charts/lws:0.7.0" });
        });
        expect(summary(findings)).toEqual([
            "mandatory require-pinned-chart-versions @floating",
            "mandatory require-pinned-chart-versions @range",
        ]);
    });
});

describe("GKE Gateway backends: health checks, appProtocol, timeouts", () => {
    const gkeGateway = (className = "gke-l7-regional-external-managed") =>
        new k8s.apiextensions.CustomResource("gateway", {
            apiVersion: "gateway.networking.k8s.io/v1",
            kind: "Gateway",
            metadata: meta("inference", "gateway"),
            // HTTPS only, as lesson open-endpoint asks (test/policies/lessons/open-endpoint.test.ts judges the rest).
            spec: {
                gatewayClassName: className,
                listeners: [{ name: "https", protocol: "HTTPS", port: 443, tls: { certificateRefs: [{ name: "inference-tls" }] } }],
            },
        });
    const route = (backend: Obj, extra: Obj = {}) =>
        new k8s.apiextensions.CustomResource("route", {
            apiVersion: "gateway.networking.k8s.io/v1",
            kind: "HTTPRoute",
            metadata: meta("completions"),
            spec: {
                parentRefs: [{ name: "inference", namespace: "gateway" }],
                rules: [{ backendRefs: [{ port: 8000, ...backend }], ...extra }],
            },
        });
    const pool = () =>
        new k8s.apiextensions.CustomResource("pool", {
            apiVersion: "inference.networking.k8s.io/v1",
            kind: "InferencePool",
            metadata: meta("qwen-pool"),
            spec: {
                selector: { matchLabels: LABELS },
                targetPorts: [{ number: 8000 }],
                endpointPickerRef: { name: "qwen-epp", port: { number: 9002 } },
            },
        });
    const poolBackend = { group: "inference.networking.k8s.io", kind: "InferencePool", name: "qwen-pool" };
    const healthCheck = (config: Obj, target: Obj = poolBackend) =>
        new k8s.apiextensions.CustomResource("health", {
            apiVersion: "networking.gke.io/v1",
            kind: "HealthCheckPolicy",
            metadata: meta("qwen"),
            spec: { default: { config }, targetRef: target },
        });
    const backendPolicy = (timeoutSec: number, target: Obj = poolBackend) => {
        // The Cloud Armor policy it names: an allowlist, then a default that denies.
        new gcp.compute.RegionSecurityPolicy("armor", {
            name: "gateway-access",
            region: "europe-west4",
            type: "CLOUD_ARMOR",
            rules: [
                { priority: 1000, action: "allow", match: { versionedExpr: "SRC_IPS_V1", config: { srcIpRanges: ["203.0.113.0/24"] } } },
                { priority: 2147483647, action: "deny(403)", match: { versionedExpr: "SRC_IPS_V1", config: { srcIpRanges: ["*"] } } },
            ],
        });
        return new k8s.apiextensions.CustomResource("backend", {
            apiVersion: "networking.gke.io/v1",
            kind: "GCPBackendPolicy",
            metadata: meta("qwen"),
            // Cloud Armor on the backend, as lesson open-endpoint asks.
            spec: { default: { timeoutSec, securityPolicy: "gateway-access" }, targetRef: target },
        });
    };
    const vllmDeployment = () =>
        new k8s.apps.v1.Deployment("vllm", {
            metadata: meta("vllm"),
            spec: { selector: { matchLabels: LABELS }, template: template(tpuPod([vllm()])) as never },
        });
    const service = (port: Obj) =>
        new k8s.core.v1.Service("svc", {
            metadata: meta("vllm"),
            spec: { selector: LABELS, ports: [{ port: 8000, targetPort: 8000, ...port }] },
        });
    const servedPool =
        (health: Obj | undefined, timeout = 600) =>
        () => {
            gkeGateway();
            pool();
            route(poolBackend);
            backendPolicy(timeout);
            if (health) {
                healthCheck(health);
            }
        };

    test.each<[string, Obj | undefined, string[]]>([
        ["no HealthCheckPolicy for the InferencePool", undefined, ["mandatory require-http-health-check-policy @pool"]],
        ["a TCP check", { type: "TCP", tcpHealthCheck: { port: 8000 } }, ["mandatory require-http-health-check-policy @health"]],
        [
            "an HTTPS check",
            { type: "HTTPS", httpsHealthCheck: { port: 8000, requestPath: "/health" } },
            ["mandatory require-http-health-check-policy @health"],
        ],
        [
            "an HTTP check of GKE's default path",
            { type: "HTTP", httpHealthCheck: { port: 8000 } },
            ["mandatory require-http-health-check-policy @health"],
        ],
        [
            "an HTTP check of another path",
            { type: "HTTP", httpHealthCheck: { port: 8000, requestPath: "/v1/models" } },
            ["mandatory require-http-health-check-policy @health"],
        ],
        [
            "an HTTP check of /health, however the type is cased",
            { type: "http", httpHealthCheck: { port: 8000, requestPath: "/health" } },
            [],
        ],
    ])("%s", async (_, health, expected) => {
        expect(summary(await verdict(pack(), servedPool(health)))).toEqual(expected);
    });

    test("a vLLM Service routed through a GKE Gateway needs its health check too", async () => {
        const findings = await verdict(pack(), () => {
            gkeGateway();
            vllmDeployment();
            service({ name: "http", appProtocol: "HTTP" });
            route({ name: "vllm" });
        });
        // No GCPBackendPolicy guards the Service either (lesson open-endpoint).
        expect(summary(findings)).toEqual([
            "mandatory require-gateway-access-control @route",
            "mandatory require-http-health-check-policy @route",
        ]);
    });

    test.each<[string, Obj, string[]]>([
        ["appProtocol HTTPS", { name: "http", appProtocol: "HTTPS" }, ["mandatory disallow-https-app-protocol-to-vllm @svc"]],
        ["appProtocol https", { appProtocol: "https" }, ["mandatory disallow-https-app-protocol-to-vllm @svc"]],
        ["a port named https without appProtocol", { name: "https" }, ["mandatory disallow-https-app-protocol-to-vllm @svc"]],
        ["a port named https with appProtocol http", { name: "https", appProtocol: "http" }, []],
        ["appProtocol http", { name: "http", appProtocol: "http" }, []],
    ])("a Service in front of plain-HTTP vLLM with %s", async (_, port, expected) => {
        const findings = await verdict(pack(), () => {
            vllmDeployment();
            service(port);
        });
        expect(summary(findings)).toEqual(expected);
    });

    test("a short backend timeout on any InferencePool behind a GKE Gateway, KServe-made or not", async () => {
        expect(
            summary(await verdict(pack(), servedPool({ type: "HTTP", httpHealthCheck: { port: 8000, requestPath: "/health" } }, 30))),
        ).toEqual(["advisory require-long-inference-backend-timeout @backend"]);
        const kserveMade = await verdict(pack(), () => {
            gkeGateway();
            llmService({
                template: tpuPod([vllm()]),
                router: {
                    route: { http: { spec: { rules: [{ backendRefs: [{ ...poolBackend, name: "qwen-inference-pool" }] }] } } },
                    gateway: { refs: [{ name: "inference", namespace: "gateway" }] },
                    scheduler: {},
                },
            });
            healthCheck(
                { type: "HTTP", httpHealthCheck: { port: 8000, requestPath: "/health" } },
                { ...poolBackend, name: "qwen-inference-pool" },
            );
        });
        // Without a GCPBackendPolicy, the pool has no Cloud Armor either (lesson open-endpoint).
        expect(summary(kserveMade)).toEqual([
            "advisory require-long-inference-backend-timeout @qwen",
            "mandatory require-gateway-access-control @qwen",
        ]);
    });

    test("route timeouts are caught under a GKE Gateway and left alone under another implementation's", async () => {
        const withTimeouts = (className: string) => () => {
            gkeGateway(className);
            pool();
            route(poolBackend, { timeouts: { request: "300s" } });
            backendPolicy(600);
            healthCheck({ type: "HTTP", httpHealthCheck: { port: 8000, requestPath: "/health" } });
        };
        expect(summary(await verdict(pack(), withTimeouts("gke-l7-regional-external-managed")))).toEqual([
            "mandatory disallow-httproute-timeouts-on-gke @route",
        ]);
        // An external Istio Gateway without an AuthorizationPolicy is open (lesson open-endpoint), its timeouts are fine.
        expect(summary(await verdict(pack(), withTimeouts("istio")))).toEqual(["mandatory require-gateway-access-control @gateway"]);
    });

    test("behind Istio, GKE's health checks and backend timeout are not asked for; behind GKE they are", async () => {
        const bare = (className: string) => () => {
            gkeGateway(className);
            pool();
            route(poolBackend);
        };
        expect(summary(await verdict(pack(), bare("gke-l7-rilb")))).toEqual([
            "advisory require-long-inference-backend-timeout @pool",
            "mandatory require-http-health-check-policy @pool",
        ]);
        expect(summary(await verdict(pack(), bare("istio")))).toEqual(["mandatory require-gateway-access-control @gateway"]);
    });
});

describe("Istio: ext_proc to the EPP written by hand (seed 002)", () => {
    /** Seed 002's EnvoyFilter as its guide writes it, with the ClusterIP its sed step pastes in. */
    const seed002 = () =>
        new k8s.apiextensions.CustomResource("epp-ext-proc-poc", {
            apiVersion: "networking.istio.io/v1alpha3",
            kind: "EnvoyFilter",
            metadata: meta("epp-ext-proc-poc", "llm-d-inference-scheduler"),
            spec: {
                workloadSelector: { labels: { "gateway.networking.k8s.io/gateway-name": "infra-inference-scheduling-inference-gateway" } },
                configPatches: [
                    {
                        applyTo: "HTTP_FILTER",
                        match: {
                            context: "GATEWAY",
                            listener: {
                                filterChain: {
                                    filter: {
                                        name: "envoy.filters.network.http_connection_manager",
                                        subFilter: { name: "envoy.filters.http.ext_proc" },
                                    },
                                },
                            },
                        },
                        patch: {
                            operation: "REPLACE",
                            value: {
                                name: "envoy.filters.http.ext_proc",
                                typed_config: {
                                    "@type": "type.googleapis.com/envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor",
                                    grpc_service: { envoy_grpc: { cluster_name: "epp-cluster" }, timeout: "2s" },
                                    processing_mode: {
                                        request_header_mode: "SKIP",
                                        request_body_mode: "NONE",
                                        response_header_mode: "SKIP",
                                        response_body_mode: "NONE",
                                    },
                                },
                            },
                        },
                    },
                    {
                        applyTo: "CLUSTER",
                        match: { context: "GATEWAY" },
                        patch: {
                            operation: "ADD",
                            value: {
                                name: "epp-cluster",
                                type: "STATIC",
                                connect_timeout: "2s",
                                lb_policy: "ROUND_ROBIN",
                                http2_protocol_options: {},
                                load_assignment: {
                                    cluster_name: "epp-cluster",
                                    endpoints: [
                                        {
                                            lb_endpoints: [
                                                { endpoint: { address: { socket_address: { address: "10.96.41.7", port_value: 9002 } } } },
                                            ],
                                        },
                                    ],
                                },
                            },
                        },
                    },
                ],
            },
        });

    test("a program that repeats seed 002's EnvoyFilter is caught twice: a ClusterIP, and an EPP never called", async () => {
        expect(summary(await verdict(pack(), seed002))).toEqual([
            "mandatory disallow-ext-proc-cluster-by-ip @epp-ext-proc-poc",
            "mandatory require-epp-ext-proc-mode @epp-ext-proc-poc",
        ]);
    });

    test("the same filter sending what the EPP needs to its Service by name passes", async () => {
        const fixed = () =>
            new k8s.apiextensions.CustomResource("epp-ext-proc", {
                apiVersion: "networking.istio.io/v1alpha3",
                kind: "EnvoyFilter",
                metadata: meta("epp-ext-proc", "gateway"),
                spec: {
                    configPatches: [
                        {
                            applyTo: "HTTP_FILTER",
                            match: { context: "GATEWAY" },
                            patch: {
                                operation: "INSERT_FIRST",
                                value: {
                                    name: "envoy.filters.http.ext_proc",
                                    typed_config: {
                                        "@type": "type.googleapis.com/envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor",
                                        grpc_service: {
                                            envoy_grpc: { cluster_name: "outbound|9002||qwen-epp-service.models.svc.cluster.local" },
                                        },
                                        processing_mode: {
                                            request_header_mode: "SEND",
                                            request_body_mode: "FULL_DUPLEX_STREAMED",
                                            request_trailer_mode: "SEND",
                                            response_header_mode: "SEND",
                                            response_body_mode: "FULL_DUPLEX_STREAMED",
                                            response_trailer_mode: "SEND",
                                        },
                                    },
                                },
                            },
                        },
                    ],
                },
            });
        expect(summary(await verdict(pack(), fixed))).toEqual([]);
    });
});
