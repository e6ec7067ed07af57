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

    test("not applicable: no backend behind a GKE Gateway", async () => {
        expect(await check(policy, [gateway("istio"), llmService()])).toEqual([]);
    });
});
