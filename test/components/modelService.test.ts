import { spawnSync } from "child_process";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import { jsonpath } from "json-p3";
import { parse } from "yaml";
import { INFERENCE_BACKEND_TIMEOUT_SECONDS, ModelService } from "../../components/modelService";
import { ModelStore } from "../../components/modelStore";
import { COPY_SCRIPT } from "../../components/modelWeights";
import { ColdStartSettings, ModelServiceSettings } from "../../components/settings/models";
import { parseSettings } from "../../components/settings/stack";
import { TpuScheduling } from "../../components/tpuNodePool";
import {
    endpointPickerContainer,
    prefixCacheEndpointPickerConfig,
    vllmArgs,
    vllmContainer,
    vllmWorkerContainer,
} from "../../components/vllm";
import { STORE_ARGS } from "../coldStart";
import { Graph, PROJECT, record } from "../harness";
import { sharedPath } from "../shared";

const SCHEDULING: TpuScheduling = {
    nodeSelector: { "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "2x2" },
    toleration: { key: "google.com/tpu", operator: "Equal", value: "present", effect: "NoSchedule" },
    chipsPerVm: 4,
    hostsPerSlice: 1,
};
const ONE_VM = { chipsPerVm: 4, hostsPerSlice: 1 };

/** The model entries as the settings read them, with other stack settings in `config` (a multi-host topology, say). */
function modelsFrom(models: unknown[], config: Record<string, string> = {}): ModelServiceSettings[] {
    return parseSettings(PROJECT, (key) => (key === "models" ? JSON.stringify(models) : config[key]), "acme-inference").models;
}

const [PATTERN1, PATTERN3] = modelsFrom([
    { name: "qwen", pattern: "pattern1" },
    { name: "qwen-cache", pattern: "pattern3", replicas: 2 },
]);

/** JAX's thresholds for writing a compilation cache entry, both off. */
const CACHE_THRESHOLDS = [
    { name: "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", value: "0" },
    { name: "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", value: "-1" },
];

/** What pulumi up waits for on a model service: its router ready and one replica serving. */
const SERVING_WAIT = '["condition=RouterReady","jsonpath={.status[?@.primary.readyReplicas > 0]}"]';

const HTTP_PROBE = (path: string, periodSeconds: number, failureThreshold: number) => ({
    httpGet: { path, port: 8000, scheme: "HTTP" },
    periodSeconds,
    timeoutSeconds: 5,
    failureThreshold,
    successThreshold: 1,
});

/** Every cold-start part off: KServe fetches the weights, as before the stack staged them. */
const COLD_START_OFF: ColdStartSettings = { stageWeights: false, compilationCache: false, imageStreaming: false };
const COLD_START_ON: ColdStartSettings = { stageWeights: true, compilationCache: true, imageStreaming: true };

/** What ModelService needs besides the model, as the stack passes it. */
function commonArgs(coldStart: ColdStartSettings, models: ModelServiceSettings[]) {
    const store = new ModelStore("store", { ...STORE_ARGS, coldStart, models, protect: false });
    return {
        coldStart,
        store,
        identity: { project: "acme-inference", projectNumber: "123456789012", workloadPool: "acme-inference.svc.id.goog" },
        topology: "2x2",
    };
}

/** Records one ModelService in namespace `models`; `hfToken` adds the token secret and service account. */
async function serviceFor(model: ModelServiceSettings, hfToken = false, coldStart = COLD_START_OFF, scheduling = SCHEDULING) {
    let outputs: { baseUrl?: string; curl?: { models: string; completions: string } } = {};
    const graph = await record(() => {
        const provider = new k8s.Provider("k8s", { kubeconfig: "{}" });
        const platform = new k8s.core.v1.Namespace("platform", { metadata: { name: "platform" } }, { provider });
        const service = new ModelService(model.name, {
            provider,
            namespace: "models",
            model,
            scheduling,
            gateway: { name: "inference-gateway", namespace: "inference-gateway" },
            gatewayAddress: "198.51.100.20",
            ...(hfToken ? { hfToken: { secretName: pulumi.output("hf-token") } } : {}),
            platform: [platform],
            ...commonArgs(coldStart, [model]),
        });
        pulumi.all([service.baseUrl, service.curl]).apply(([baseUrl, curl]) => (outputs = { baseUrl, curl }));
    });
    return { graph, outputs, llmisvc: graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService", `${model.name}-llmisvc`) };
}

describe("vLLM TPU container builder", () => {
    test("pattern 1: TP equal to the chips per VM, the context length, port 8000, KServe's drain and quiet access log, nothing vLLM rejects", () => {
        expect(vllmArgs(PATTERN1, ONE_VM)).toEqual([
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
        expect(vllmArgs(model, { chipsPerVm: 8, hostsPerSlice: 1 }).slice(7)).toEqual([
            "--tensor-parallel-size=8",
            "--max-model-len=2048",
            "--enable-prefix-caching",
            "--gpu-memory-utilization=0.9",
        ]);
    });

    test("the container: the image as pulled, all chips requested and limited, a preStop pause before the drain, HTTP probes with the model's startup budget, root allowed", () => {
        expect(vllmContainer(PATTERN1, { shape: ONE_VM, image: PATTERN1.image, startupBudgetSeconds: 900 })).toEqual({
            name: "main",
            image: "docker.io/vllm/vllm-tpu:v0.27.0",
            command: ["vllm", "serve"],
            args: vllmArgs(PATTERN1, ONE_VM),
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
                    gateway: { refs: [{ name: "inference-gateway", namespace: "inference-gateway" }] },
                    scheduler: { template: { containers: [endpointPickerContainer()] } },
                },
                template: {
                    serviceAccountName: "qwen-server",
                    nodeSelector: SCHEDULING.nodeSelector,
                    tolerations: [SCHEDULING.toleration],
                    terminationGracePeriodSeconds: 60,
                    containers: [vllmContainer(PATTERN1, { shape: ONE_VM, image: PATTERN1.image, startupBudgetSeconds: 720 })],
                },
            },
        });
        expect(pattern1.graph.dependencyNames(pattern1.llmisvc)).toEqual([
            "kubernetes:core/v1:Namespace platform",
            "kubernetes:core/v1:ServiceAccount qwen-weights-server",
        ]);
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
            tolerations: [SCHEDULING.toleration],
            terminationGracePeriodSeconds: 60,
            containers: [
                vllmContainer(PATTERN3, { shape: ONE_VM, image: PATTERN3.image, startupBudgetSeconds: 720, hfTokenSecret: "hf-token" }),
            ],
        });
        const main = (spec.template.containers as Array<{ args: string[]; env: unknown[] }>)[0];
        expect(main.args).toContain("--enable-prefix-caching");
        expect(main.env).toEqual([{ name: "HF_TOKEN", valueFrom: { secretKeyRef: { name: "hf-token", key: "HF_TOKEN" } } }]);
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
        const options = { shape: SLICE, image: LLAMA.image, startupBudgetSeconds: 4860, hfTokenSecret: "hf-token" };
        const pod = {
            serviceAccountName: "llama-server",
            nodeSelector: SLICE.nodeSelector,
            tolerations: [SLICE.toleration],
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

describe("ModelService with a fast cold start", () => {
    const BUCKET = "tpu-inference-dev-weights-9ceade23";
    const PRINCIPAL =
        "principal://iam.googleapis.com/projects/123456789012/locations/global/workloadIdentityPools/acme-inference.svc.id.goog/subject/ns/models/sa";
    let staged: Awaited<ReturnType<typeof serviceFor>>;
    beforeAll(async () => {
        staged = await serviceFor(PATTERN1, true, COLD_START_ON);
    });

    test("the server streams the staged weights from the bucket, keeps its compiled programs there, and pulls its image through the remote repository", () => {
        const spec = staged.llmisvc.inputs.spec as Record<string, Record<string, unknown>>;
        const weights = `gs://${BUCKET}/weights/Qwen/Qwen2.5-3B-Instruct`;
        expect(spec.model).toEqual({ uri: weights, name: "Qwen/Qwen2.5-3B-Instruct" });
        expect(spec.storageInitializer).toEqual({ enabled: false });
        const [main] = spec.template.containers as Array<Record<string, unknown>>;
        expect(spec.template.serviceAccountName).toBe("qwen-server");
        expect((main.args as string[]).slice(0, 2)).toEqual([weights, "--load-format=runai_streamer"]);
        // Every compile is written to the cache, the ones under JAX's default 1 s included.
        expect(main.env).toEqual([
            { name: "VLLM_XLA_CACHE_PATH", value: `gs://${BUCKET}/xla-cache/Qwen/Qwen2.5-3B-Instruct/2x2/v0.27.0` },
            ...CACHE_THRESHOLDS,
        ]);
        expect(main.image).toBe("europe-west4-docker.pkg.dev/acme-inference/tpu-inference-dev-images/vllm/vllm-tpu:v0.27.0");
    });

    test("least privilege: the server reads its weights' prefix and the bucket's names, writes only its cache's prefix; the copy Job writes only its model's prefix", () => {
        const grant = (name: string) => staged.graph.get("gcp:storage/bucketIAMMember:BucketIAMMember", name).inputs;
        expect(grant("qwen-weights-read-weights")).toEqual({
            bucket: BUCKET,
            role: "roles/storage.objectViewer",
            member: `${PRINCIPAL}/qwen-server`,
            condition: {
                title: "read the model's weights",
                expression: `resource.name.startsWith("projects/_/buckets/${BUCKET}/objects/weights/Qwen/Qwen2.5-3B-Instruct/")`,
            },
        });
        // The streamer reads the bucket and lists it; a condition cannot scope either in a role binding.
        expect(grant("qwen-weights-stack-bucket")).toEqual({
            bucket: BUCKET,
            role: "roles/storage.legacyBucketReader",
            member: `${PRINCIPAL}/qwen-server`,
        });
        expect(grant("qwen-weights-cache")).toEqual({
            bucket: BUCKET,
            role: "roles/storage.objectUser",
            member: `${PRINCIPAL}/qwen-server`,
            condition: {
                title: "keep the compilation cache",
                expression: `resource.name.startsWith("projects/_/buckets/${BUCKET}/objects/xla-cache/Qwen/Qwen2.5-3B-Instruct/2x2/v0.27.0/")`,
            },
        });
        expect(grant("qwen-weights-write-weights")).toEqual({
            bucket: BUCKET,
            role: "roles/storage.objectUser",
            member: `${PRINCIPAL}/qwen-weights-copy`,
            condition: {
                title: "stage the model's weights",
                expression: `resource.name.startsWith("projects/_/buckets/${BUCKET}/objects/weights/Qwen/Qwen2.5-3B-Instruct/")`,
            },
        });
        // One bucket reader grant: the staged weights and the cache share the stack's bucket.
        expect(
            staged.graph
                .ofType("gcp:storage/bucketIAMMember:BucketIAMMember")
                .map((member) => member.name)
                .sort(),
        ).toEqual(["qwen-weights-cache", "qwen-weights-read-weights", "qwen-weights-stack-bucket", "qwen-weights-write-weights"]);
    });

    test("a model in a team's own bucket: reads of its folder and the bucket there, the cache and its bucket reader in the stack's", async () => {
        const [own] = modelsFrom([{ name: "mine", pattern: "pattern1", modelUri: "gs://team-models/llama/8b", weightsGb: 16, layers: 32 }]);
        const { graph } = await serviceFor(own, false, COLD_START_ON);
        const grants = graph
            .ofType("gcp:storage/bucketIAMMember:BucketIAMMember")
            .map(({ name, inputs }) => ({
                name,
                bucket: inputs.bucket,
                role: inputs.role,
                objects: (inputs.condition as { expression?: string } | undefined)?.expression,
            }))
            .sort((a, b) => a.name.localeCompare(b.name));
        expect(grants).toEqual([
            {
                name: "mine-weights-cache",
                bucket: BUCKET,
                role: "roles/storage.objectUser",
                objects: `resource.name.startsWith("projects/_/buckets/${BUCKET}/objects/xla-cache/team-models/llama/8b/2x2/v0.27.0/")`,
            },
            {
                name: "mine-weights-read-weights",
                bucket: "team-models",
                role: "roles/storage.objectViewer",
                objects: 'resource.name.startsWith("projects/_/buckets/team-models/objects/llama/8b/")',
            },
            { name: "mine-weights-stack-bucket", bucket: BUCKET, role: "roles/storage.legacyBucketReader", objects: undefined },
            { name: "mine-weights-weights-bucket", bucket: "team-models", role: "roles/storage.legacyBucketReader", objects: undefined },
        ]);
    });

    test("one reader grant on the stack's bucket whatever reads it, so that a change of what reads it never drops the binding", async () => {
        const readers = async (model: ModelServiceSettings, coldStart: ColdStartSettings) =>
            (await serviceFor(model, false, coldStart)).graph
                .ofType("gcp:storage/bucketIAMMember:BucketIAMMember")
                .filter(({ inputs }) => inputs.role === "roles/storage.legacyBucketReader")
                .map(({ name, inputs }) => `${name} on ${inputs.bucket}`);
        // Staged weights with the cache, then KServe fetching them with the cache: the same resource stays.
        expect(await readers(PATTERN1, COLD_START_ON)).toEqual([`qwen-weights-stack-bucket on ${BUCKET}`]);
        expect(await readers(PATTERN1, { ...COLD_START_ON, stageWeights: false })).toEqual([`qwen-weights-stack-bucket on ${BUCKET}`]);
        // A gs:// model inside the stack's own bucket: still one binding of the member and the role.
        const [inside] = modelsFrom([
            {
                name: "qwen",
                pattern: "pattern1",
                modelUri: `gs://${BUCKET}/weights/Qwen/Qwen2.5-3B-Instruct`,
                modelName: "Qwen/Qwen2.5-3B-Instruct",
            },
        ]);
        expect(await readers(inside, COLD_START_ON)).toEqual([`qwen-weights-stack-bucket on ${BUCKET}`]);
    });

    test("the copy Job: the token from its Secret, never in the spec; its grant before it runs; the server after the copy and its grants", () => {
        const job = staged.graph.get("kubernetes:batch/v1:Job", "qwen-weights-copy");
        const pod = (job.inputs.spec as { template: { spec: Record<string, unknown> } }).template.spec;
        const [copy] = pod.containers as Array<{ env: Array<Record<string, unknown>>; command: string[] } & Record<string, unknown>>;
        expect(pod.serviceAccountName).toBe("qwen-weights-copy");
        expect(copy.command).toEqual(["python3", "-c", COPY_SCRIPT]);
        expect(copy.env).toEqual([
            { name: "HF_REPOSITORY", value: "Qwen/Qwen2.5-3B-Instruct" },
            { name: "BUCKET", value: BUCKET },
            { name: "PREFIX", value: "weights/Qwen/Qwen2.5-3B-Instruct" },
            { name: "MARKER", value: ".gke-tpu-inference-staged" },
            { name: "WORKERS", value: "4" },
            { name: "SCRATCH", value: "/scratch" },
            { name: "SCRATCH_LIMIT_BYTES", value: String(24 * 2 ** 30) },
            { name: "REFUSED_EXIT_CODE", value: "3" },
            { name: "GRANT_WAIT_SECONDS", value: "600" },
            { name: "GRANT_RETRY_SECONDS", value: "10" },
            { name: "HF_TOKEN", valueFrom: { secretKeyRef: { name: "hf-token", key: "HF_TOKEN" } } },
        ]);
        // Four files at once through a scratch volume of four of Hugging Face's largest shards; the refusal ends the Job.
        expect(copy.resources).toEqual({ requests: { cpu: "2", memory: "4Gi", "ephemeral-storage": "24Gi" } });
        expect(copy.volumeMounts).toEqual([{ name: "scratch", mountPath: "/scratch" }]);
        expect(copy.terminationMessagePolicy).toBe("FallbackToLogsOnError");
        expect(pod.volumes).toEqual([{ name: "scratch", emptyDir: { sizeLimit: "24Gi" } }]);
        const jobSpec = job.inputs.spec as Record<string, unknown>;
        expect(jobSpec.backoffLimit).toBe(3);
        expect(jobSpec.activeDeadlineSeconds).toBe(1200);
        expect(jobSpec.podFailurePolicy).toEqual({
            rules: [{ action: "FailJob", onExitCodes: { containerName: "copy", operator: "In", values: [3] } }],
        });
        expect((job.inputs.metadata as { annotations: unknown }).annotations).toEqual({ "pulumi.com/timeoutSeconds": "1200" });
        // Outputs carry the image (through the repository), the bucket and the account; the grants are the explicit edges.
        expect(staged.graph.dependencyNames(job)).toEqual([
            "gcp:artifactregistry/repository:Repository store-images",
            "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember store-images-reader",
            "gcp:storage/bucket:Bucket store-bucket",
            "gcp:storage/bucketIAMMember:BucketIAMMember qwen-weights-write-weights",
            "kubernetes:core/v1:ServiceAccount qwen-weights-copier",
        ]);
        expect(staged.graph.dependencyNames(staged.llmisvc)).toEqual([
            "gcp:artifactregistry/repository:Repository store-images",
            "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember store-images-reader",
            "gcp:storage/bucket:Bucket store-bucket",
            "gcp:storage/bucketIAMMember:BucketIAMMember qwen-weights-cache",
            "gcp:storage/bucketIAMMember:BucketIAMMember qwen-weights-read-weights",
            "gcp:storage/bucketIAMMember:BucketIAMMember qwen-weights-stack-bucket",
            "kubernetes:batch/v1:Job qwen-weights-copy",
            "kubernetes:core/v1:Namespace platform",
            "kubernetes:core/v1:ServiceAccount qwen-weights-server",
        ]);
    });

    test("the compilation cache is keyed by the image's digest when it is pinned by one, as by its tag otherwise", async () => {
        const digest = `sha256:${"a".repeat(64)}`;
        const [pinned] = modelsFrom([{ name: "qwen", pattern: "pattern1", image: `docker.io/vllm/vllm-tpu@${digest}` }]);
        const { llmisvc } = await serviceFor(pinned, false, COLD_START_ON);
        const [main] = (llmisvc.inputs.spec as { template: { containers: Array<{ env: unknown[] }> } }).template.containers;
        expect(main.env).toEqual([
            { name: "VLLM_XLA_CACHE_PATH", value: `gs://${BUCKET}/xla-cache/Qwen/Qwen2.5-3B-Instruct/2x2/sha256-${"a".repeat(64)}` },
            ...CACHE_THRESHOLDS,
        ]);
    });

    test("the startup budget and Ready timeout follow the estimate, which the pack reads from an annotation", () => {
        expect(staged.llmisvc.inputs.metadata).toEqual({
            name: "qwen",
            namespace: "models",
            annotations: {
                "gke-tpu-inference/cold-start-seconds": "110",
                "gke-tpu-inference/cold-start-pessimistic-seconds": "521",
                "pulumi.com/waitFor": SERVING_WAIT,
                "pulumi.com/timeoutSeconds": String(30 * 60 + 600),
            },
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
                gateway: { name: "g", namespace: "g" },
                gatewayAddress: "198.51.100.20",
                platform: [],
                paused: true,
                ...commonArgs(COLD_START_OFF, [PATTERN1]),
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
