import { requireHttpHealthCheckPolicy as policy } from "../../policies/requireHttpHealthCheckPolicy";
import { HTTP_HEALTH, gateway, llmService, poolPolicy, vllmContainer } from "./fixtures";
import { check, kube } from "./harness";

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
        expect(await messages({ port: 8000 })).toEqual([]);
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
                        config: { type: "HTTP", httpHealthCheck: { portSpecification: "USE_FIXED_PORT", port, requestPath: "/health" } },
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
