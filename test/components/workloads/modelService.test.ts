import { spawnSync } from "child_process";
import * as k8s from "@pulumi/kubernetes";
import { jsonpath } from "json-p3";
import { INFERENCE_BACKEND_TIMEOUT_SECONDS } from "../../../components/gateway/gkeProvider";
import { TpuScheduling } from "../../../components/serving/tpuScheduling";
import {
    endpointPickerContainer,
    prefixCacheEndpointPickerConfig,
    vllmContainer,
    vllmWorkerContainer,
} from "../../../components/serving/vllm";
import { ModelService } from "../../../components/workloads/modelService";
import { CrdValidator } from "../../crds";
import { Graph, record } from "../../harness";
import { PATTERN1, PATTERN3, modelsFrom } from "../settings/parse";
import { COLD_START_OFF, ONE_VM, SCHEDULING, SERVING_WAIT, commonArgs, serviceFor } from "./modelServiceHarness";

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
                annotations: {
                    "gke-tpu-inference/cold-start-seconds": "180",
                    // KServe downloading from Hugging Face at a quarter of the field report's throughput: 720 s.
                    "gke-tpu-inference/cold-start-pessimistic-seconds": "720",
                    "pulumi.com/waitFor": SERVING_WAIT,
                    "pulumi.com/timeoutSeconds": "2520",
                },
            },
            spec: {
                model: { uri: "hf://Qwen/Qwen2.5-3B-Instruct", name: "Qwen/Qwen2.5-3B-Instruct" },
                replicas: 1,
                router: {
                    route: {},
                    // The HTTPS listener, named here: KServe writes these refs over the route template's parentRefs.
                    gateway: { refs: [{ name: "inference-gateway", namespace: "inference-gateway", sectionName: "https" }] },
                    scheduler: { template: { containers: [endpointPickerContainer()] } },
                },
                template: {
                    serviceAccountName: "qwen-server",
                    nodeSelector: SCHEDULING.nodeSelector,
                    tolerations: SCHEDULING.tolerations,
                    terminationGracePeriodSeconds: 60,
                    containers: [
                        vllmContainer(PATTERN1, {
                            shape: ONE_VM,
                            image: PATTERN1.image,
                            startupBudgetSeconds: 720,
                            apiKeySecret: "vllm-api-key",
                        }),
                    ],
                },
            },
        });
        // The backend policies (Cloud Armor on both backends) before KServe creates the route that reaches them.
        expect(pattern1.graph.dependencyNames(pattern1.llmisvc)).toEqual([
            "kubernetes:core/v1:Namespace platform",
            "kubernetes:core/v1:ServiceAccount qwen-weights-server",
            "kubernetes:networking.gke.io/v1:GCPBackendPolicy qwen-http-backend",
            "kubernetes:networking.gke.io/v1:GCPBackendPolicy qwen-pool-backend",
        ]);
    });

    test("a fleet member's service: KServe's scheduler and pool, no route and no Gateway refs, no Gateway backend objects; pulumi up waits for a replica alone", async () => {
        const member = await serviceFor(PATTERN1, false, COLD_START_OFF, SCHEDULING, null);
        const spec = member.llmisvc.inputs.spec as Record<string, unknown>;
        expect(spec.router).toEqual({ scheduler: { template: { containers: [endpointPickerContainer()] } } });
        expect((member.llmisvc.inputs.metadata as { annotations: Record<string, string> }).annotations["pulumi.com/waitFor"]).toBe(
            '["jsonpath={.status[?@.primary.readyReplicas > 0]}"]',
        );
        expect(member.graph.resources.filter((resource) => resource.type.startsWith("kubernetes:networking.gke.io/"))).toEqual([]);
        // The rest of the service is the single cluster's.
        const withoutRouter = (candidate: Record<string, unknown>) =>
            Object.fromEntries(Object.entries(candidate).filter(([key]) => key !== "router"));
        expect(withoutRouter(spec)).toEqual(withoutRouter(pattern1.llmisvc.inputs.spec as Record<string, unknown>));
    });

    test("pattern 3: replicas, prefix caching and the inline EndpointPickerConfig; the token reaches vLLM and, through the server's own account, the storage initializer", () => {
        const spec = pattern3.llmisvc.inputs.spec as Record<string, Record<string, unknown>>;
        expect(spec.replicas).toBe(2);
        expect(spec.router.scheduler).toEqual({
            template: { containers: [endpointPickerContainer()] },
            config: { inline: prefixCacheEndpointPickerConfig() },
        });
        expect(spec.template).toEqual({
            serviceAccountName: "qwen-cache-server",
            nodeSelector: SCHEDULING.nodeSelector,
            tolerations: SCHEDULING.tolerations,
            terminationGracePeriodSeconds: 60,
            containers: [
                vllmContainer(PATTERN3, {
                    shape: ONE_VM,
                    image: PATTERN3.image,
                    startupBudgetSeconds: 720,
                    hfTokenSecret: "hf-token",
                    apiKeySecret: "vllm-api-key",
                }),
            ],
        });
        const main = (spec.template.containers as Array<{ args: string[]; env: unknown[] }>)[0];
        expect(main.args).toContain("--enable-prefix-caching");
        // The key vLLM requires of callers and the token, both from Secrets: neither is in the spec.
        expect(main.env).toEqual([
            { name: "VLLM_API_KEY", valueFrom: { secretKeyRef: { name: "vllm-api-key", key: "VLLM_API_KEY" } } },
            { name: "HF_TOKEN", valueFrom: { secretKeyRef: { name: "hf-token", key: "HF_TOKEN" } } },
        ]);
        // KServe gives its storage initializer the HF_TOKEN of the Secrets the pod's account lists.
        expect(pattern3.graph.get("kubernetes:core/v1:ServiceAccount", "qwen-cache-weights-server").inputs).toEqual({
            apiVersion: "v1",
            kind: "ServiceAccount",
            metadata: { name: "qwen-cache-server", namespace: "models" },
            secrets: [{ name: "hf-token" }],
        });
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

    test("a GCPBackendPolicy on each backend names the Cloud Armor policy; the InferencePool's also a long timeout; the service waits for both", () => {
        expect(INFERENCE_BACKEND_TIMEOUT_SECONDS).toBeGreaterThanOrEqual(300);
        const pool = pattern1.graph.get("kubernetes:networking.gke.io/v1:GCPBackendPolicy", "qwen-pool-backend");
        const http = pattern1.graph.get("kubernetes:networking.gke.io/v1:GCPBackendPolicy", "qwen-http-backend");
        expect(pool.inputs).toEqual({
            apiVersion: "networking.gke.io/v1",
            kind: "GCPBackendPolicy",
            metadata: { name: "qwen-inference-pool", namespace: "models" },
            spec: {
                default: { timeoutSec: 600, securityPolicy: "tpu-inference-test-inference" },
                targetRef: { group: "inference.networking.k8s.io", kind: "InferencePool", name: "qwen-inference-pool" },
            },
        });
        expect(http.inputs).toEqual({
            apiVersion: "networking.gke.io/v1",
            kind: "GCPBackendPolicy",
            metadata: { name: "qwen-http", namespace: "models" },
            spec: {
                default: { securityPolicy: "tpu-inference-test-inference" },
                targetRef: { group: "", kind: "Service", name: "qwen-http" },
            },
        });
        const validator = new CrdValidator();
        expect([...validator.errors(pool.inputs), ...validator.errors(http.inputs)]).toEqual([]);
        expect(pattern1.llmisvc.dependencies).toEqual(expect.arrayContaining([pool.urn, http.urn]));
    });

    test("outputs the URL through the Gateway and requests to paste", () => {
        expect(pattern1.outputs).toEqual({
            baseUrl: "https://198.51.100.20/models/qwen",
            curl: {
                models: 'curl -sS --cacert ca.crt -H "Authorization: Bearer $API_KEY" https://198.51.100.20/models/qwen/v1/models',
                completions:
                    "curl -sS --cacert ca.crt -H \"Authorization: Bearer $API_KEY\" https://198.51.100.20/models/qwen/v1/completions -H 'Content-Type: application/json' " +
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
            "--cacert",
            "ca.crt",
            "-H",
            // $API_KEY expands from the shell: unset here.
            "Authorization: Bearer ",
            "https://198.51.100.20/models/odd/v1/completions",
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

describe("ModelService on a multi-host slice", () => {
    const SLICE: TpuScheduling = {
        ...SCHEDULING,
        nodeSelector: { ...SCHEDULING.nodeSelector, "cloud.google.com/gke-tpu-topology": "4x4" },
        hostsPerSlice: 4,
    };
    const [LLAMA] = modelsFrom([{ name: "llama", pattern: "pattern1", modelUri: "hf://meta-llama/Llama-3.1-70B-Instruct" }], {
        tpuTopology: "4x4",
        tpuMaxNodes: "4",
        hfToken: "hf_test",
    });
    let slice: Awaited<ReturnType<typeof serviceFor>>;
    beforeAll(async () => {
        slice = await serviceFor(LLAMA, true, COLD_START_OFF, SLICE);
    });

    test("one LeaderWorkerSet group per replica: a pipeline stage per host, every pod on the slice's nodes with all its VM's chips", () => {
        const spec = slice.llmisvc.inputs.spec as Record<string, unknown>;
        const options = {
            shape: SLICE,
            image: LLAMA.image,
            startupBudgetSeconds: 4860,
            hfTokenSecret: "hf-token",
            apiKeySecret: "vllm-api-key",
        };
        const pod = {
            serviceAccountName: "llama-server",
            nodeSelector: SLICE.nodeSelector,
            tolerations: SLICE.tolerations,
            terminationGracePeriodSeconds: 60,
        };
        expect(spec.replicas).toBe(1);
        expect(spec.parallelism).toEqual({ pipeline: 4, tensor: 4 });
        expect(spec.template).toEqual({ ...pod, containers: [vllmContainer(LLAMA, options)] });
        expect(spec.worker).toEqual({ ...pod, containers: [vllmWorkerContainer(options)] });
        expect((slice.llmisvc.inputs.metadata as { annotations: Record<string, string> }).annotations).toEqual(
            expect.objectContaining({ "leaderworkerset.sigs.k8s.io/exclusive-topology": "cloud.google.com/gke-nodepool" }),
        );
    });

    test("the leader serves vLLM with the preset's command; the workers hold their chips and the same environment, without probes", () => {
        const options = { shape: SLICE, image: LLAMA.image, startupBudgetSeconds: 4860, hfTokenSecret: "hf-token" };
        const leader = vllmContainer(LLAMA, options);
        expect(leader).not.toHaveProperty("command");
        expect(leader.args.slice(7, 10)).toEqual(["--tensor-parallel-size=4", "--pipeline-parallel-size=4", "--max-model-len=2048"]);
        expect(vllmWorkerContainer(options)).toEqual({
            name: "main",
            image: "docker.io/vllm/vllm-tpu:v0.27.0",
            env: [{ name: "HF_TOKEN", valueFrom: { secretKeyRef: { name: "hf-token", key: "HF_TOKEN" } } }],
            resources: { requests: { "google.com/tpu": "4" }, limits: { "google.com/tpu": "4" } },
            securityContext: { runAsNonRoot: false, runAsUser: 0 },
        });
    });

    test("a single-host service has no worker, no parallelism and no placement annotation", () => {
        const spec = slice.llmisvc.inputs.spec as Record<string, unknown>;
        expect(Object.keys(spec)).toContain("worker");
        return serviceFor(PATTERN1).then(({ llmisvc }) => {
            expect(Object.keys(llmisvc.inputs.spec as object)).not.toContain("worker");
            expect(Object.keys(llmisvc.inputs.spec as object)).not.toContain("parallelism");
            expect(JSON.stringify(llmisvc.inputs.metadata)).not.toContain("exclusive-topology");
        });
    });
});

describe("what pulumi up waits for on a model service", () => {
    /** The service's status as KServe writes it (workload_status.go), with the Deployment's or LeaderWorkerSet's ready count. */
    const status = (routerReady: string, readyReplicas?: number) => ({
        status: {
            conditions: [
                { type: "Ready", status: "False" },
                { type: "RouterReady", status: routerReady },
                { type: "MainWorkloadReady", status: "False", reason: "MinimumReplicasUnavailable" },
            ],
            workloads: {
                primary: { kind: "Deployment", name: "qwen-kserve", ...(readyReplicas === undefined ? {} : { readyReplicas }) },
                scheduler: { kind: "Deployment", name: "qwen-kserve-router-scheduler", readyReplicas: 1 },
            },
        },
    });
    /** Pulumi's reading of one waitFor expression (provider/pkg/jsonpath: RFC 9535, a path alone matching when it selects something). */
    const holds = (expression: string, object: ReturnType<typeof status>) => {
        if (expression.startsWith("condition=")) {
            return object.status.conditions.some(
                (condition) => condition.type === expression.slice("condition=".length) && condition.status === "True",
            );
        }
        const path = /^jsonpath=\{(.*)\}$/.exec(expression)![1];
        return jsonpath.query(`$${path}`, object).values().length > 0;
    };
    const waitFor = JSON.parse(SERVING_WAIT) as string[];

    test("satisfied while a scale-out is under way: the router ready and replicas serving, though KServe's Ready is False", () => {
        expect(waitFor.every((expression) => holds(expression, status("True", 2)))).toBe(true);
    });

    test("not satisfied before anything serves: no ready replica, an EPP or route not ready", () => {
        expect(waitFor.every((expression) => holds(expression, status("True", 0)))).toBe(false);
        expect(waitFor.every((expression) => holds(expression, status("True")))).toBe(false);
        expect(waitFor.every((expression) => holds(expression, status("False", 2)))).toBe(false);
    });

    test("the expression keeps clear of what Pulumi's parser splits on: one '=' after the prefix, no braces inside", () => {
        const path = waitFor[1].slice("jsonpath=".length);
        expect(path.includes("=")).toBe(false);
        expect(path.slice(1, -1).includes("{") || path.slice(1, -1).includes("}")).toBe(false);
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
                gatewayUrl: "https://198.51.100.20",
                platform: [],
                paused: true,
                ...commonArgs(COLD_START_OFF, [PATTERN1], { name: "g", namespace: "g" }),
            });
        });
        const metadata = graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService", "qwen-llmisvc").inputs.metadata;
        expect(metadata).toEqual({
            name: "qwen",
            namespace: "models",
            annotations: {
                "serving.kserve.io/stop": "true",
                "gke-tpu-inference/cold-start-seconds": "180",
                "gke-tpu-inference/cold-start-pessimistic-seconds": "720",
            },
        });
    });
});

describe("ModelService's arguments", () => {
    test("an autoscaled service without KEDA is refused before anything of it is registered", async () => {
        const [autoscaled] = modelsFrom([{ name: "qwen", pattern: "pattern3", autoscaling: { minReplicas: 2, maxReplicas: 3 } }]);
        await expect(serviceFor(autoscaled)).rejects.toThrow("model service qwen autoscales, but the stack passed no KEDA");
    });
});
