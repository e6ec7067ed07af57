/**
 * Lesson health-checks, the whole category: every backend a GKE Gateway makes of vLLM (KServe's InferencePool, an
 * InferencePool of either group an HTTPRoute v1 or v1beta1 names, a Service in front of vLLM pods) without a
 * HealthCheckPolicy, or with one that probes the wrong type, path or port, is caught; a policy that reaches it by any
 * spelling of its targetRef (group explicit, the alpha pool group, a Service's group empty or left out) and probes
 * /health over HTTP where vLLM serves is clean.
 */
import { BackendRef, healthCheckOf, healthCheckProblem } from "../../policies/facts";
import { noHealthCheckMessage, requireHttpHealthCheckPolicy as policy } from "../../policies/requireHttpHealthCheckPolicy";
import { RecordedResource } from "../../scripts/offline/recorder";
import { HTTP_HEALTH, gateway, llmService, poolPolicy, vllmContainer } from "../support/fixtures";
import { gkeGateway, pool, poolBackend, route, servedPool, service, vllmDeployment } from "../support/gatewayObjects";
import { check, kube, resource } from "../support/harness";
import { Obj } from "../support/lessonObjects";
import { summary, verdict } from "../support/pack";
import { useWorkerPack } from "../workerPack";

describe("the rule", () => {
    describe("require-http-health-check-policy", () => {
        test("passes an InferencePool with an HTTP /health check", async () => {
            expect(await check(policy, [gateway(), llmService(), poolPolicy("HealthCheckPolicy", HTTP_HEALTH)])).toEqual([]);
        });

        test("fails a backend without a HealthCheckPolicy", async () => {
            expect(await check(policy, [gateway(), llmService()])).toEqual([
                {
                    level: "mandatory",
                    resource: "qwen",
                    message:
                        'InferencePool models/qwen-inference-pool is routed through a GKE Gateway but no HealthCheckPolicy targets it; GKE checks "/" and marks vLLM unhealthy.',
                },
            ]);
        });

        test("fails HTTPS checks and checks of /", async () => {
            const https = poolPolicy("HealthCheckPolicy", {
                default: { config: { type: "HTTPS", httpsHealthCheck: { requestPath: "/health" } } },
            });
            expect((await check(policy, [gateway(), llmService(), https])).map((violation) => violation.message)).toEqual([
                'HealthCheckPolicy qwen-inference-pool checks InferencePool models/qwen-inference-pool with type "HTTPS"; vLLM serves plain HTTP, so use type HTTP.',
            ]);
            const root = poolPolicy("HealthCheckPolicy", { default: { config: { type: "HTTP", httpHealthCheck: { port: 8000 } } } });
            expect((await check(policy, [gateway(), llmService(), root])).map((violation) => violation.message)).toEqual([
                'HealthCheckPolicy qwen-inference-pool checks "/" on InferencePool models/qwen-inference-pool; vLLM answers health checks on /health.',
            ]);
        });

        test("covers the vLLM Services and InferencePools an HTTPRoute on a GKE Gateway names, not other Services", async () => {
            const route = kube("gateway.networking.k8s.io/v1", "HTTPRoute", "route", {
                metadata: { name: "route", namespace: "models" },
                spec: {
                    parentRefs: [{ name: "inference-gateway", namespace: "gateway" }],
                    rules: [
                        { backendRefs: [{ kind: "Service", name: "qwen-http", port: 8000 }] },
                        { backendRefs: [{ kind: "Service", name: "docs", port: 80 }] },
                        { backendRefs: [{ group: "inference.networking.k8s.io", kind: "InferencePool", name: "own-pool", port: 8000 }] },
                    ],
                },
            });
            const vllmService = kube("v1", "Service", "qwen-http", {
                metadata: { name: "qwen-http", namespace: "models" },
                spec: { selector: { app: "qwen" }, ports: [{ port: 8000 }] },
            });
            const docs = kube("v1", "Service", "docs", {
                metadata: { name: "docs", namespace: "models" },
                spec: { selector: { app: "docs" }, ports: [{ port: 80 }] },
            });
            const vllm = kube("apps/v1", "Deployment", "qwen", {
                metadata: { name: "qwen", namespace: "models" },
                spec: { template: { metadata: { labels: { app: "qwen" } }, spec: { containers: [vllmContainer()] } } },
            });
            expect((await check(policy, [gateway(), route, vllmService, docs, vllm])).map((violation) => violation.message)).toEqual([
                'Service models/qwen-http is routed through a GKE Gateway but no HealthCheckPolicy targets it; GKE checks "/" and marks vLLM unhealthy.',
                'InferencePool models/own-pool is routed through a GKE Gateway but no HealthCheckPolicy targets it; GKE checks "/" and marks vLLM unhealthy.',
            ]);
        });

        test("a health check on another path than /health fails, whatever the case of its type", async () => {
            const ready = poolPolicy("HealthCheckPolicy", {
                default: { config: { type: "http", httpHealthCheck: { port: 8000, requestPath: "/v1/models" } } },
            });
            expect((await check(policy, [gateway(), llmService(), ready])).map((violation) => violation.message)).toEqual([
                'HealthCheckPolicy qwen-inference-pool checks "/v1/models" on InferencePool models/qwen-inference-pool; vLLM answers health checks on /health.',
            ]);
        });

        test("the check must probe where the backend serves: the serving port, or a fixed port among the pool's target ports", async () => {
            const checking = (httpHealthCheck: Record<string, unknown>) =>
                poolPolicy("HealthCheckPolicy", {
                    default: { config: { type: "HTTP", httpHealthCheck: { requestPath: "/health", ...httpHealthCheck } } },
                });
            const messages = async (httpHealthCheck: Record<string, unknown>) =>
                (await check(policy, [gateway(), llmService(), checking(httpHealthCheck)])).map((violation) => violation.message);
            // KServe's pool serves on 8000; without a port GKE probes the serving port.
            expect(await messages({})).toEqual([]);
            expect(await messages({ portSpecification: "USE_SERVING_PORT" })).toEqual([]);
            expect(await messages({ portSpecification: "USE_FIXED_PORT", port: 8000 })).toEqual([]);
            expect(await messages({ port: 8000 })).toEqual([
                "HealthCheckPolicy qwen-inference-pool checks InferencePool models/qwen-inference-pool on port 8000 without a portSpecification, which the API server rejects: unset, it is USE_SERVING_PORT, which takes no port; set portSpecification USE_FIXED_PORT with the port, or drop the port.",
            ]);
            expect(await messages({ portSpecification: "USE_FIXED_PORT", port: 8080 })).toEqual([
                "HealthCheckPolicy qwen-inference-pool checks port 8080 on InferencePool models/qwen-inference-pool, which serves on 8000; GKE would probe a port vLLM does not answer on, so use port 8000 or USE_SERVING_PORT.",
            ]);
            expect(await messages({ portSpecification: "USE_NAMED_PORT", portName: "http" })).toEqual([
                'HealthCheckPolicy qwen-inference-pool checks InferencePool models/qwen-inference-pool on the named port "http"; GKE\'s network endpoint groups have no named ports, so use USE_SERVING_PORT or a fixed port.',
            ]);
        });

        test("a pool's own target ports, and a Service's target port, are where its backend serves", async () => {
            const service = llmService();
            (service.inputs.spec as { router: { scheduler: unknown } }).router.scheduler = {
                pool: { spec: { targetPorts: [{ number: 9000 }] } },
            };
            const fixed8000 = poolPolicy("HealthCheckPolicy", HTTP_HEALTH);
            expect((await check(policy, [gateway(), service, fixed8000])).map((violation) => violation.message)).toEqual([
                "HealthCheckPolicy qwen-inference-pool checks port 8000 on InferencePool models/qwen-inference-pool, which serves on 9000; GKE would probe a port vLLM does not answer on, so use port 9000 or USE_SERVING_PORT.",
            ]);
            const route = kube("gateway.networking.k8s.io/v1", "HTTPRoute", "route", {
                metadata: { name: "route", namespace: "models" },
                spec: {
                    parentRefs: [{ name: "inference-gateway", namespace: "gateway" }],
                    rules: [{ backendRefs: [{ kind: "Service", name: "qwen-http", port: 80 }] }],
                },
            });
            const vllmService = kube("v1", "Service", "qwen-http", {
                metadata: { name: "qwen-http", namespace: "models" },
                spec: { selector: { app: "qwen" }, ports: [{ port: 80, targetPort: 8000 }] },
            });
            const vllm = kube("apps/v1", "Deployment", "qwen", {
                metadata: { name: "qwen", namespace: "models" },
                spec: { template: { metadata: { labels: { app: "qwen" } }, spec: { containers: [vllmContainer()] } } },
            });
            const serviceCheck = (port: number) =>
                kube("networking.gke.io/v1", "HealthCheckPolicy", `qwen-http-${port}`, {
                    metadata: { name: "qwen-http", namespace: "models" },
                    spec: {
                        default: {
                            config: {
                                type: "HTTP",
                                httpHealthCheck: { portSpecification: "USE_FIXED_PORT", port, requestPath: "/health" },
                            },
                        },
                        targetRef: { group: "", kind: "Service", name: "qwen-http" },
                    },
                });
            expect(await check(policy, [gateway(), route, vllmService, vllm, serviceCheck(8000)])).toEqual([]);
            expect(
                (await check(policy, [gateway(), route, vllmService, vllm, serviceCheck(80)])).map((violation) => violation.message),
            ).toEqual([
                "HealthCheckPolicy qwen-http checks port 80 on Service models/qwen-http, which serves on 8000; GKE would probe a port vLLM does not answer on, so use port 8000 or USE_SERVING_PORT.",
            ]);
        });

        test("not applicable: no backend behind a GKE Gateway", async () => {
            expect(await check(policy, [gateway("istio"), llmService()])).toEqual([]);
        });
    });
});

describe("every spelling", () => {
    type Obj = Record<string, unknown>;

    const POOL: BackendRef = {
        namespace: "models",
        group: "inference.networking.k8s.io",
        kind: "InferencePool",
        name: "qwen-inference-pool",
    };
    const SERVICE: BackendRef = { namespace: "models", group: "", kind: "Service", name: "qwen-http" };

    const healthCheck = (targetRef: Obj, spec: Obj = HTTP_HEALTH, how?: string) =>
        kube(
            "networking.gke.io/v1",
            "HealthCheckPolicy",
            "health",
            { metadata: { name: "health", namespace: "models" }, spec: { ...spec, targetRef } },
            { parent: how ? resource(how, "manifests", {}) : undefined },
        );

    /** The targetRef spellings that reach each backend. */
    const POOL_TARGETS = [
        { group: "inference.networking.k8s.io", kind: "InferencePool", name: POOL.name },
        { group: "inference.networking.x-k8s.io", kind: "InferencePool", name: POOL.name },
        { group: "inference.networking.k8s.io", kind: "InferencePool", name: POOL.name, namespace: "models" },
    ];
    const SERVICE_TARGETS = [
        { group: "", kind: "Service", name: SERVICE.name },
        { kind: "Service", name: SERVICE.name },
    ];

    const checkSpec = (http: Obj, type: unknown = "HTTP") => ({ default: { config: { type, httpHealthCheck: http } } });
    /** Checks that probe vLLM where it answers. */
    const SAFE = [
        checkSpec({ portSpecification: "USE_FIXED_PORT", port: 8000, requestPath: "/health" }),
        checkSpec({ portSpecification: "USE_SERVING_PORT", requestPath: "/health" }),
        checkSpec({ requestPath: "/health" }),
    ];
    /** Checks that never see vLLM healthy. */
    const BROKEN = [
        checkSpec({ port: 8000, requestPath: "/health" }, "HTTPS"),
        checkSpec({ port: 8000, requestPath: "/health" }, "HTTP2"),
        checkSpec({ port: 8000, requestPath: "/health" }, "GRPC"),
        { default: { config: { httpHealthCheck: { port: 8000, requestPath: "/health" } } } },
        checkSpec({ port: 8000 }),
        checkSpec({ port: 8000, requestPath: "/" }),
        checkSpec({ portSpecification: "USE_NAMED_PORT", portName: "http", requestPath: "/health" }),
        checkSpec({ portName: "http", requestPath: "/health" }),
        checkSpec({ portSpecification: "USE_FIXED_PORT", port: 8080, requestPath: "/health" }),
        // A port without a portSpecification: the CRD admits it only with USE_FIXED_PORT, so the API server rejects it.
        checkSpec({ port: 8000, requestPath: "/health" }),
        {},
    ];

    const inferencePool = (apiVersion: string, spec: Obj) =>
        kube(apiVersion, "InferencePool", "pool", { metadata: { name: POOL.name, namespace: "models" }, spec });
    const route = (apiVersion: string, backend: Obj) =>
        kube(apiVersion, "HTTPRoute", "route", {
            metadata: { name: "route", namespace: "models" },
            spec: { parentRefs: [{ name: "inference-gateway", namespace: "gateway" }], rules: [{ backendRefs: [backend] }] },
        });
    const vllmDeployment = kube("apps/v1", "Deployment", "vllm", {
        metadata: { name: "vllm", namespace: "models" },
        spec: {
            template: {
                metadata: { labels: { app: "vllm" } },
                spec: { containers: [vllmContainer({ ports: [{ containerPort: 8000 }] })] },
            },
        },
    });
    const vllmService = kube("v1", "Service", "qwen-http", {
        metadata: { name: "qwen-http", namespace: "models" },
        spec: { selector: { app: "vllm" }, ports: [{ name: "http", port: 8000, targetPort: 8000 }] },
    });

    /** Each way a GKE Gateway gets the backend, with the resources that make it. */
    const WAYS: Array<[label: string, backend: BackendRef, targets: Obj[], resources: RecordedResource[]]> = [
        ["KServe's InferencePool of an LLMInferenceService", POOL, POOL_TARGETS, [llmService()]],
        ...["inference.networking.k8s.io", "inference.networking.x-k8s.io"].flatMap((group) =>
            ["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1"].map(
                (routeVersion): [string, BackendRef, Obj[], RecordedResource[]] => [
                    `an InferencePool ${group} named by an HTTPRoute ${routeVersion}`,
                    POOL,
                    POOL_TARGETS,
                    [
                        group === "inference.networking.k8s.io"
                            ? inferencePool(`${group}/v1`, { targetPorts: [{ number: 8000 }] })
                            : inferencePool(`${group}/v1alpha2`, { targetPortNumber: 8000 }),
                        route(routeVersion, { group, kind: "InferencePool", name: POOL.name }),
                    ],
                ],
            ),
        ),
        [
            "a Service in front of vLLM named by an HTTPRoute",
            SERVICE,
            SERVICE_TARGETS,
            [vllmDeployment, vllmService, route("gateway.networking.k8s.io/v1", { name: "qwen-http", port: 8000 })],
        ],
    ];

    const verdict = async (resources: RecordedResource[]) =>
        (await check(policy, [gateway(), ...resources])).map((finding) => finding.message);

    describe("lesson health-checks: every GKE backend of vLLM and every health check of it", () => {
        describe.each(WAYS)("%s", (_, backend, targets, resources) => {
            test("without a HealthCheckPolicy: caught", async () => {
                expect(await verdict(resources)).toEqual([noHealthCheckMessage(backend)]);
            });

            test.each(targets.map((target) => [JSON.stringify(target), target]))(
                "targeted as %s: safe checks clean, broken ones caught",
                async (_, target) => {
                    for (const spec of SAFE) {
                        expect(await verdict([...resources, healthCheck(target, spec)])).toEqual([]);
                    }
                    for (const spec of BROKEN) {
                        const problem = healthCheckProblem("health", backend, healthCheckOf({ spec }), [8000]);
                        expect(problem).toBeDefined();
                        expect(await verdict([...resources, healthCheck(target, spec)])).toEqual([problem]);
                    }
                },
            );

            test.each(["kubernetes:yaml/v2:ConfigGroup", "kubernetes:helm.sh/v4:Chart", "kubernetes:yaml:ConfigFile"])(
                "a HealthCheckPolicy rendered by %s counts",
                async (how) => {
                    expect(await verdict([...resources, healthCheck(targets[0], HTTP_HEALTH, how)])).toEqual([]);
                },
            );
        });

        test("a targetRef that misses the backend (an InferencePool without its group, another name) leaves it unchecked", async () => {
            for (const target of [
                { kind: "InferencePool", name: POOL.name },
                { group: POOL.group, kind: "InferencePool", name: "other" },
            ]) {
                expect(await verdict([llmService(), healthCheck(target)])).toEqual([noHealthCheckMessage(POOL)]);
            }
        });

        test("a fixed port on a pool serving elsewhere is caught against the pool's own ports", async () => {
            const pool = inferencePool("inference.networking.k8s.io/v1", { targetPorts: [{ number: 8080 }] });
            const onPool = route("gateway.networking.k8s.io/v1", { group: POOL.group, kind: "InferencePool", name: POOL.name });
            expect(await verdict([pool, onPool, healthCheck(POOL_TARGETS[0])])).toEqual([
                healthCheckProblem("health", POOL, healthCheckOf({ spec: HTTP_HEALTH }), [8080]),
            ]);
        });

        test("not this lesson's: backends behind another implementation's Gateway, Services not in front of vLLM", async () => {
            expect((await check(policy, [gateway("istio"), llmService()])).map((finding) => finding.message)).toEqual([]);
            const web = kube("v1", "Service", "web", {
                metadata: { name: "web", namespace: "models" },
                spec: { selector: { app: "web" }, ports: [{ port: 80 }] },
            });
            expect(await verdict([web, route("gateway.networking.k8s.io/v1", { name: "web", port: 80 })])).toEqual([]);
        });
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();

    describe("GKE Gateway backends: health checks", () => {
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
                { type: "http", httpHealthCheck: { portSpecification: "USE_FIXED_PORT", port: 8000, requestPath: "/health" } },
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
});
