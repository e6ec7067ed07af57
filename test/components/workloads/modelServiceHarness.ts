/** One ModelService recorded as the stack builds it, for the tests of the workloads. */
import * as k8s from "@pulumi/kubernetes";
import { testGkeInstall } from "../gateway/gatewayArgs";
import * as pulumi from "@pulumi/pulumi";
import { ModelStore } from "../../../components/infrastructure/modelStore";
import { TpuScheduling } from "../../../components/serving/tpuScheduling";
import { ColdStartSettings, ModelServiceSettings } from "../../../components/settings/models";
import { ModelService } from "../../../components/workloads/modelService";
import { STORE_ARGS } from "../../coldStart";
import { record } from "../../harness";

/** The default pool's scheduling and replica shape: one ct6e-standard-4t VM. */
export const SCHEDULING: TpuScheduling = {
    nodeSelector: { "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "2x2" },
    tolerations: [{ key: "google.com/tpu", operator: "Equal", value: "present", effect: "NoSchedule" }],
    chipsPerVm: 4,
    hostsPerSlice: 1,
};
export const ONE_VM = { chipsPerVm: 4, hostsPerSlice: 1 };

/** JAX's thresholds for writing a compilation cache entry, both off. */
export const CACHE_THRESHOLDS = [
    { name: "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", value: "0" },
    { name: "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", value: "-1" },
];

/** What pulumi up waits for on a model service: its router ready and one replica serving. */
export const SERVING_WAIT = '["condition=RouterReady","jsonpath={.status[?@.primary.readyReplicas > 0]}"]';

/** Every cold-start part off: KServe fetches the weights, as before the stack staged them. */
export const COLD_START_OFF: ColdStartSettings = { stageWeights: false, compilationCache: false, imageStreaming: false };
export const COLD_START_ON: ColdStartSettings = { stageWeights: true, compilationCache: true, imageStreaming: true };

/** The Gateway a single cluster's services attach to. */
export const GATEWAY = { name: "inference-gateway", namespace: "inference-gateway" };

/** What ModelService needs besides the model, as the stack passes it behind GKE's Gateway (`gateway` null: a fleet member's, without one). */
export function commonArgs(
    coldStart: ColdStartSettings,
    models: ModelServiceSettings[],
    gateway: { name: string; namespace: string } | null = GATEWAY,
) {
    const store = new ModelStore("store", { ...STORE_ARGS, coldStart, models, protect: false });
    return {
        coldStart,
        store,
        ...(gateway !== null
            ? { front: { gateway, gatewayProvider: testGkeInstall(new k8s.Provider("k8s-gateway", { kubeconfig: "{}" })) } }
            : {}),
        identity: { project: "acme-inference", projectNumber: "123456789012", workloadPool: "acme-inference.svc.id.goog" },
        topology: "2x2",
    };
}

/** Records one ModelService in namespace `models`; `hfToken` adds the token secret and service account; `gateway` null: a fleet member's. */
export async function serviceFor(
    model: ModelServiceSettings,
    hfToken = false,
    coldStart = COLD_START_OFF,
    scheduling = SCHEDULING,
    gateway: { name: string; namespace: string } | null = GATEWAY,
) {
    let outputs: { baseUrl?: string; curl?: { models: string; completions: string } } = {};
    const graph = await record(() => {
        const provider = new k8s.Provider("k8s", { kubeconfig: "{}" });
        const platform = new k8s.core.v1.Namespace("platform", { metadata: { name: "platform" } }, { provider });
        const service = new ModelService(model.name, {
            provider,
            namespace: "models",
            model,
            scheduling,
            gatewayUrl: "https://198.51.100.20",
            apiKeySecret: "vllm-api-key",
            ...(hfToken ? { hfToken: { secretName: pulumi.output("hf-token") } } : {}),
            platform: [platform],
            ...commonArgs(coldStart, [model], gateway),
        });
        pulumi.all([service.baseUrl, service.curl]).apply(([baseUrl, curl]) => (outputs = { baseUrl, curl }));
    });
    return { graph, outputs, llmisvc: graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService", `${model.name}-llmisvc`) };
}
