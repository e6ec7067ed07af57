import { estimateColdStart } from "../../../components/serving/coldStart";
import { httpService, llmInferenceService, podMonitorings, serviceCurl } from "../../../components/serving/modelServiceSpecs";
import { poolScheduling } from "../../../components/serving/tpuScheduling";
import { endpointPickerContainer, vllmContainer } from "../../../components/serving/vllm";
import { ColdStartSettings } from "../../../components/settings/models";
import { PATTERN1, PATTERN3, modelsFrom } from "../settings/parse";

const COLD_START_OFF: ColdStartSettings = { stageWeights: false, compilationCache: false, imageStreaming: false };
const SCHEDULING = poolScheduling({ topology: "2x2", chipsPerVm: 4, hostsPerSlice: 1 });
const GATEWAY = { name: "inference-gateway", namespace: "inference-gateway" };

/** The LLMInferenceService of `model` in namespace `models`, as ModelService builds it, with `overrides`. */
function specFor(model = PATTERN1, overrides: Partial<Parameters<typeof llmInferenceService>[1]> = {}) {
    return llmInferenceService(model, {
        namespace: "models",
        scheduling: SCHEDULING,
        gateway: GATEWAY,
        coldStart: estimateColdStart(model, COLD_START_OFF, 1),
        paused: false,
        serviceAccountName: "qwen-server",
        container: { image: model.image, hfTokenSecret: "hf-token", apiKeySecret: "vllm-api-key" },
        ...overrides,
    });
}

describe("the LLMInferenceService of a model service, as a pure function of its settings", () => {
    test("pattern 1 from Hugging Face: KServe fetches the weights, the pods land on the pool, pulumi up waits until it serves", () => {
        expect(specFor()).toEqual({
            apiVersion: "serving.kserve.io/v1alpha2",
            kind: "LLMInferenceService",
            metadata: {
                name: "qwen",
                namespace: "models",
                annotations: {
                    "gke-tpu-inference/cold-start-seconds": "180",
                    "gke-tpu-inference/cold-start-pessimistic-seconds": "720",
                    "pulumi.com/waitFor": '["condition=RouterReady","jsonpath={.status[?@.primary.readyReplicas > 0]}"]',
                    "pulumi.com/timeoutSeconds": "2520",
                },
            },
            spec: {
                model: { uri: "hf://Qwen/Qwen2.5-3B-Instruct", name: "Qwen/Qwen2.5-3B-Instruct" },
                replicas: 1,
                router: {
                    route: {},
                    gateway: { refs: [{ ...GATEWAY, sectionName: "https" }] },
                    scheduler: { template: { containers: [endpointPickerContainer()] } },
                },
                template: {
                    serviceAccountName: "qwen-server",
                    nodeSelector: SCHEDULING.nodeSelector,
                    tolerations: SCHEDULING.tolerations,
                    terminationGracePeriodSeconds: 60,
                    containers: [
                        vllmContainer(PATTERN1, {
                            shape: SCHEDULING,
                            image: PATTERN1.image,
                            startupBudgetSeconds: 720,
                            hfTokenSecret: "hf-token",
                            apiKeySecret: "vllm-api-key",
                        }),
                    ],
                },
            },
        });
    });

    test("streamed from Cloud Storage: the bucket's URI, no storage initializer, and no Hugging Face token for vLLM", () => {
        const { spec } = specFor(PATTERN1, {
            container: { image: PATTERN1.image, weightsUri: "gs://bucket/weights/Qwen/Qwen2.5-3B-Instruct", hfTokenSecret: "hf-token" },
        });
        expect(spec.model.uri).toBe("gs://bucket/weights/Qwen/Qwen2.5-3B-Instruct");
        expect(spec.storageInitializer).toEqual({ enabled: false });
        expect(JSON.stringify(spec.template)).not.toContain("HF_TOKEN");
        expect(JSON.stringify(specFor().spec.template)).toContain("HF_TOKEN");
        expect(specFor().spec).not.toHaveProperty("storageInitializer");
    });

    test("paused: KServe stops the service and nothing waits for it to serve", () => {
        expect(specFor(PATTERN1, { paused: true }).metadata.annotations).toEqual({
            "gke-tpu-inference/cold-start-seconds": "180",
            "gke-tpu-inference/cold-start-pessimistic-seconds": "720",
            "serving.kserve.io/stop": "true",
        });
    });

    test("pattern 3 routes by prefix cache; an autoscaled service leaves its replicas to the ScaledObject", () => {
        expect(specFor(PATTERN3).spec.router.scheduler).toEqual(expect.objectContaining({ config: expect.any(Object) }));
        expect(specFor(PATTERN3).spec.replicas).toBe(2);
        const [autoscaled] = modelsFrom([{ name: "qwen", pattern: "pattern3", autoscaling: { minReplicas: 2, maxReplicas: 3 } }]);
        expect(specFor(autoscaled).spec).not.toHaveProperty("replicas");
    });
});

describe("the service's own Service and PodMonitorings", () => {
    test("a plain-HTTP Service on vLLM's port, selecting the workload's pods", () => {
        expect(httpService(PATTERN1, "models")).toEqual({
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

    test("vLLM and the EPP scraped every 15 s on their metrics ports, every series labelled with the service", () => {
        expect(
            podMonitorings(PATTERN1, "models").map(({ component, object }) => [component, object.metadata.name, object.spec.endpoints]),
        ).toEqual([
            ["vllm", "qwen-vllm", [{ port: 8000, path: "/metrics", interval: "15s" }]],
            // The EPP's port by the name KServe's scheduler template gives it.
            ["epp", "qwen-epp", [{ port: "metrics", path: "/metrics", interval: "15s" }]],
        ]);
    });
});

describe("the requests a model service's output offers", () => {
    test("its models and a completion of its modelName, with the CA and the key", () => {
        expect(serviceCurl(PATTERN1, "https://198.51.100.20/models/qwen")).toEqual({
            models: 'curl -sS --cacert ca.crt -H "Authorization: Bearer $API_KEY" https://198.51.100.20/models/qwen/v1/models',
            completions:
                'curl -sS --cacert ca.crt -H "Authorization: Bearer $API_KEY" https://198.51.100.20/models/qwen/v1/completions -H \'Content-Type: application/json\' -d \'{"model":"Qwen/Qwen2.5-3B-Instruct","prompt":"Say hello","max_tokens":32}\'',
        });
    });
});
