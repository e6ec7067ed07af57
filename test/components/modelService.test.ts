import { spawnSync } from "child_process";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import { parse } from "yaml";
import { INFERENCE_BACKEND_TIMEOUT_SECONDS, ModelService } from "../../components/modelService";
import { ModelServiceSettings, parseSettings } from "../../components/settings";
import { TpuScheduling } from "../../components/tpuNodePool";
import { endpointPickerContainer, prefixCacheEndpointPickerConfig, vllmArgs, vllmContainer } from "../../components/vllm";
import { Graph, PROJECT, record } from "../harness";
import { sharedPath } from "../shared";

const SCHEDULING: TpuScheduling = {
    nodeSelector: { "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "2x2" },
    toleration: { key: "google.com/tpu", operator: "Equal", value: "present", effect: "NoSchedule" },
    chipsPerVm: 4,
};

function modelsFrom(models: unknown[]): ModelServiceSettings[] {
    return parseSettings(PROJECT, (key) => (key === "models" ? JSON.stringify(models) : undefined), "acme-inference").models;
}

const [PATTERN1, PATTERN3] = modelsFrom([
    { name: "qwen", pattern: "pattern1" },
    { name: "qwen-cache", pattern: "pattern3", replicas: 2 },
]);

const HTTP_PROBE = (path: string, periodSeconds: number, failureThreshold: number) => ({
    httpGet: { path, port: 8000, scheme: "HTTP" },
    periodSeconds,
    timeoutSeconds: 5,
    failureThreshold,
    successThreshold: 1,
});

/** Records one ModelService in namespace `models`; `hfToken` adds the token secret and service account. */
async function serviceFor(model: ModelServiceSettings, hfToken = false) {
    let outputs: { baseUrl?: string; curl?: { models: string; completions: string } } = {};
    const graph = await record(() => {
        const provider = new k8s.Provider("k8s", { kubeconfig: "{}" });
        const platform = new k8s.core.v1.Namespace("platform", { metadata: { name: "platform" } }, { provider });
        const service = new ModelService(model.name, {
            provider,
            namespace: "models",
            model,
            scheduling: SCHEDULING,
            gateway: { name: "inference-gateway", namespace: "inference-gateway" },
            gatewayAddress: "198.51.100.20",
            ...(hfToken ? { hfToken: { secretName: pulumi.output("hf-token"), serviceAccountName: pulumi.output("model-server") } } : {}),
            platform: [platform],
        });
        pulumi.all([service.baseUrl, service.curl]).apply(([baseUrl, curl]) => (outputs = { baseUrl, curl }));
    });
    return { graph, outputs, llmisvc: graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService", `${model.name}-llmisvc`) };
}

describe("vLLM TPU container builder", () => {
    test("pattern 1: TP equal to the chips per VM, the context length, port 8000, KServe's drain and quiet access log, nothing vLLM rejects", () => {
        expect(vllmArgs(PATTERN1, 4)).toEqual([
            "/mnt/models",
            "--served-model-name",
            "Qwen/Qwen2.5-3B-Instruct",
            "publishers/{{ .ObjectMeta.Namespace }}/models/{{ .Spec.Model.Name }}",
            "--port=8000",
            "--shutdown-timeout=40",
            "--disable-access-log-for-endpoints=/health,/metrics,/ping",
            "--tensor-parallel-size=4",
            "--max-model-len=2048",
        ]);
    });

    test("pattern 3 adds prefix caching; extra args come last", () => {
        const [model] = modelsFrom([{ name: "q", pattern: "pattern3", extraArgs: ["--gpu-memory-utilization=0.9"] }]);
        expect(vllmArgs(model, 8).slice(7)).toEqual([
            "--tensor-parallel-size=8",
            "--max-model-len=2048",
            "--enable-prefix-caching",
            "--gpu-memory-utilization=0.9",
        ]);
    });

    test("the container: pinned image, all chips requested and limited, a preStop pause before the drain, HTTP probes with a 15-minute startup budget, root allowed", () => {
        expect(vllmContainer(PATTERN1, 4)).toEqual({
            name: "main",
            image: "docker.io/vllm/vllm-tpu:v0.27.0",
            command: ["vllm", "serve"],
            args: vllmArgs(PATTERN1, 4),
            ports: [{ containerPort: 8000, name: "http", protocol: "TCP" }],
            resources: { requests: { "google.com/tpu": "4" }, limits: { "google.com/tpu": "4" } },
            lifecycle: { preStop: { exec: { command: ["/bin/sleep", "15"] } } },
            startupProbe: HTTP_PROBE("/health", 5, 180),
            livenessProbe: HTTP_PROBE("/health", 10, 6),
            readinessProbe: HTTP_PROBE("/v1/models", 5, 3),
            securityContext: { runAsNonRoot: false, runAsUser: 0 },
        });
    });
});

describe("endpoint picker", () => {
    test("pinned EPP image with secure serving on KServe's per-service certificate", () => {
        expect(endpointPickerContainer()).toEqual({
            name: "main",
            image: "ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.10.0",
            command: [
                "/app/epp",
                "--pool-name",
                "{{ ChildName .ObjectMeta.Name `-inference-pool` }}",
                "--pool-namespace",
                "{{ .ObjectMeta.Namespace }}",
                "--zap-encoder",
                "json",
                "--grpc-port",
                "9002",
                "--grpc-health-port",
                "9003",
                "--secure-serving=true",
                "--cert-path=/var/run/kserve/tls",
                "--enable-cert-reload=true",
                "--metrics-endpoint-auth=false",
            ],
        });
    });

    test("pattern 3 config: the pinned EPP's prefix-cache sample with the production weights and explicit saturation thresholds", () => {
        const sample = parse(
            fs.readFileSync(sharedPath("reference", "llm-d-router-v0.10.0", "epp-estimate-prefix-cache-config.yaml"), "utf8"),
        );
        const config = prefixCacheEndpointPickerConfig();
        expect(config.apiVersion).toBe(sample.apiVersion);
        expect(config.kind).toBe(sample.kind);
        expect(config.plugins.filter((plugin) => plugin.type !== "utilization-detector")).toEqual(sample.plugins);
        expect(config.schedulingProfiles).toEqual([
            {
                name: "default",
                plugins: [
                    { pluginRef: "decode-filter" },
                    { pluginRef: "prefix-cache-scorer", weight: 2.0 },
                    { pluginRef: "load-aware-scorer", weight: 1.0 },
                    { pluginRef: "max-score-picker" },
                ],
            },
        ]);
        expect(config.plugins.find((plugin) => plugin.type === "utilization-detector")).toEqual({
            type: "utilization-detector",
            parameters: { queueDepthThreshold: 5, kvCacheUtilThreshold: 0.8, metricsStalenessThreshold: "200ms" },
        });
        expect(config.flowControl).toEqual({ saturationDetector: { pluginRef: "utilization-detector" } });
    });
});

describe("ModelService", () => {
    let pattern1: Awaited<ReturnType<typeof serviceFor>>;
    let pattern3: Awaited<ReturnType<typeof serviceFor>>;
    beforeAll(async () => {
        pattern1 = await serviceFor(PATTERN1);
        pattern3 = await serviceFor(PATTERN3, true);
    });

    test("pattern 1: an LLMInferenceService in the storage version, on the TPU pool, attached to the stack's Gateway, waiting for Ready", () => {
        expect(pattern1.llmisvc.inputs).toEqual({
            apiVersion: "serving.kserve.io/v1alpha2",
            kind: "LLMInferenceService",
            metadata: {
                name: "qwen",
                namespace: "models",
                annotations: { "pulumi.com/waitFor": "condition=Ready", "pulumi.com/timeoutSeconds": "2700" },
            },
            spec: {
                model: { uri: "hf://Qwen/Qwen2.5-3B-Instruct", name: "Qwen/Qwen2.5-3B-Instruct" },
                replicas: 1,
                router: {
                    route: {},
                    gateway: { refs: [{ name: "inference-gateway", namespace: "inference-gateway" }] },
                    scheduler: { template: { containers: [endpointPickerContainer()] } },
                },
                template: {
                    nodeSelector: SCHEDULING.nodeSelector,
                    tolerations: [SCHEDULING.toleration],
                    terminationGracePeriodSeconds: 60,
                    containers: [vllmContainer(PATTERN1, 4)],
                },
            },
        });
        expect(pattern1.graph.dependencyNames(pattern1.llmisvc)).toEqual(["kubernetes:core/v1:Namespace platform"]);
    });

    test("pattern 3: replicas, prefix caching and the inline EndpointPickerConfig; the token reaches vLLM and the storage initializer", () => {
        const spec = pattern3.llmisvc.inputs.spec as Record<string, Record<string, unknown>>;
        expect(spec.replicas).toBe(2);
        expect(spec.router.scheduler).toEqual({
            template: { containers: [endpointPickerContainer()] },
            config: { inline: prefixCacheEndpointPickerConfig() },
        });
        expect(spec.template).toEqual({
            serviceAccountName: "model-server",
            nodeSelector: SCHEDULING.nodeSelector,
            tolerations: [SCHEDULING.toleration],
            terminationGracePeriodSeconds: 60,
            containers: [vllmContainer(PATTERN3, 4, "hf-token")],
        });
        const main = (spec.template.containers as Array<{ args: string[]; env: unknown[] }>)[0];
        expect(main.args).toContain("--enable-prefix-caching");
        expect(main.env).toEqual([{ name: "HF_TOKEN", valueFrom: { secretKeyRef: { name: "hf-token", key: "HF_TOKEN" } } }]);
    });

    test("an owned plain-HTTP Service selects the workload pods for the non-inference paths", () => {
        expect(pattern1.graph.get("kubernetes:core/v1:Service", "qwen-http").inputs).toEqual({
            apiVersion: "v1",
            kind: "Service",
            metadata: { name: "qwen-http", namespace: "models" },
            spec: {
                selector: {
                    "app.kubernetes.io/name": "qwen",
                    "app.kubernetes.io/part-of": "llminferenceservice",
                    "kserve.io/component": "workload",
                },
                ports: [{ name: "http", port: 8000, targetPort: 8000, protocol: "TCP", appProtocol: "http" }],
            },
        });
    });

    test.each([
        [
            "qwen-pool-health",
            "qwen-inference-pool",
            { group: "inference.networking.k8s.io", kind: "InferencePool", name: "qwen-inference-pool" },
        ],
        ["qwen-http-health", "qwen-http", { group: "", kind: "Service", name: "qwen-http" }],
    ])("%s: an HTTP health check on /health at the fixed port 8000", (resourceName, objectName, targetRef) => {
        expect(pattern1.graph.get("kubernetes:networking.gke.io/v1:HealthCheckPolicy", resourceName).inputs).toEqual({
            apiVersion: "networking.gke.io/v1",
            kind: "HealthCheckPolicy",
            metadata: { name: objectName, namespace: "models" },
            spec: {
                default: {
                    checkIntervalSec: 15,
                    timeoutSec: 5,
                    healthyThreshold: 1,
                    unhealthyThreshold: 2,
                    logConfig: { enabled: true },
                    config: { type: "HTTP", httpHealthCheck: { portSpecification: "USE_FIXED_PORT", port: 8000, requestPath: "/health" } },
                },
                targetRef,
            },
        });
    });

    test("a GCPBackendPolicy gives the InferencePool backend a long timeout", () => {
        expect(INFERENCE_BACKEND_TIMEOUT_SECONDS).toBeGreaterThanOrEqual(300);
        expect(pattern1.graph.get("kubernetes:networking.gke.io/v1:GCPBackendPolicy", "qwen-pool-backend").inputs).toEqual({
            apiVersion: "networking.gke.io/v1",
            kind: "GCPBackendPolicy",
            metadata: { name: "qwen-inference-pool", namespace: "models" },
            spec: {
                default: { timeoutSec: 600 },
                targetRef: { group: "inference.networking.k8s.io", kind: "InferencePool", name: "qwen-inference-pool" },
            },
        });
    });

    test("outputs the URL through the Gateway and requests to paste", () => {
        expect(pattern1.outputs).toEqual({
            baseUrl: "http://198.51.100.20/models/qwen",
            curl: {
                models: "curl -sS http://198.51.100.20/models/qwen/v1/models",
                completions:
                    "curl -sS http://198.51.100.20/models/qwen/v1/completions -H 'Content-Type: application/json' " +
                    `-d '{"model":"Qwen/Qwen2.5-3B-Instruct","prompt":"Say hello","max_tokens":32}'`,
            },
        });
    });

    test("the commands quote every value: a model name with quotes and a command substitution stays one argument", async () => {
        const modelName = `it's "odd" $(touch /tmp/curl-output-ran) \`id\``;
        const { outputs } = await serviceFor({ ...PATTERN1, name: "odd", modelName });
        // The shell reads the command with curl standing in for a function that prints its arguments.
        const run = spawnSync("/bin/sh", ["-c", `curl() { printf '%s\\n' "$@"; }; ${outputs.curl!.completions}`], { encoding: "utf8" });
        expect(run.stdout.split("\n").slice(0, -1)).toEqual([
            "-sS",
            "http://198.51.100.20/models/odd/v1/completions",
            "-H",
            "Content-Type: application/json",
            "-d",
            JSON.stringify({ model: modelName, prompt: "Say hello", max_tokens: 32 }),
        ]);
    });

    test("no object's timeouts or GPU flags slip in", () => {
        for (const graph of [pattern1.graph, pattern3.graph] as Graph[]) {
            const serialized = JSON.stringify(graph.resources.map((resource) => resource.inputs));
            expect(serialized).not.toContain("timeouts");
            expect(serialized).not.toContain("--prefix-cache-block-size");
            expect(serialized).not.toContain(":latest");
        }
    });
});

describe("ModelService day 2", () => {
    test("managed Prometheus scrapes vLLM and the EPP, labelling series with the service", async () => {
        const { graph } = await serviceFor(PATTERN1);
        expect(graph.get("kubernetes:monitoring.googleapis.com/v1:PodMonitoring", "qwen-vllm-metrics").inputs).toEqual({
            apiVersion: "monitoring.googleapis.com/v1",
            kind: "PodMonitoring",
            metadata: { name: "qwen-vllm", namespace: "models" },
            spec: {
                selector: {
                    matchLabels: {
                        "app.kubernetes.io/name": "qwen",
                        "app.kubernetes.io/part-of": "llminferenceservice",
                        "kserve.io/component": "workload",
                    },
                },
                endpoints: [{ port: 8000, path: "/metrics", interval: "15s" }],
                targetLabels: { fromPod: [{ from: "app.kubernetes.io/name", to: "model_service" }] },
            },
        });
        expect(
            (graph.get("kubernetes:monitoring.googleapis.com/v1:PodMonitoring", "qwen-epp-metrics").inputs.spec as Record<string, unknown>)
                .selector,
        ).toEqual({
            matchLabels: {
                "app.kubernetes.io/component": "llminferenceservice-router-scheduler",
                "app.kubernetes.io/name": "qwen",
                "app.kubernetes.io/part-of": "llminferenceservice",
            },
        });
    });

    test("paused: KServe stops the workloads, and nothing waits for Ready", async () => {
        const graph = await record(() => {
            const provider = new k8s.Provider("k8s", { kubeconfig: "{}" });
            new ModelService("qwen", {
                provider,
                namespace: "models",
                model: PATTERN1,
                scheduling: SCHEDULING,
                gateway: { name: "g", namespace: "g" },
                gatewayAddress: "198.51.100.20",
                platform: [],
                paused: true,
            });
        });
        const metadata = graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService", "qwen-llmisvc").inputs.metadata;
        expect(metadata).toEqual({ name: "qwen", namespace: "models", annotations: { "serving.kserve.io/stop": "true" } });
    });
});
