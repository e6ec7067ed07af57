import { requireTpuAwareAutoscaling as policy, tpuCapacityMessage } from "../../policies/requireTpuAwareAutoscaling";
import { RecordedResource } from "../../scripts/offline/recorder";
import { llmService, tpuPool, vllmContainer } from "./fixtures";
import { check, kube } from "./harness";

/** The fixture service, carrying the stack's estimate of its first start. */
function estimatedService(seconds: number, name = "qwen"): RecordedResource {
    const service = llmService(vllmContainer(), { name });
    (service.inputs.metadata as Record<string, unknown>).annotations = { "gke-tpu-inference/cold-start-seconds": String(seconds) };
    return service;
}

/** A KEDA ScaledObject on `target` (a Deployment in `models`). */
function scaledObject(target: string, spec: Record<string, unknown> = {}, name = target): RecordedResource {
    return kube("keda.sh/v1alpha1", "ScaledObject", name, {
        metadata: { name, namespace: "models" },
        spec: { scaleTargetRef: { name: target }, minReplicaCount: 1, maxReplicaCount: 2, triggers: [], ...spec },
    });
}

const held = (seconds: number) => ({
    advanced: { horizontalPodAutoscalerConfig: { behavior: { scaleDown: { stabilizationWindowSeconds: seconds } } } },
});
const POOL = tpuPool({ autoscaling: { minNodeCount: 0, maxNodeCount: 3 } });

describe("require-tpu-aware-autoscaling", () => {
    test("passes the stack's own: KServe's Deployment held for the budget its estimate calls for, within the pool", async () => {
        // 356 s estimated: a 720 s budget.
        expect(await check(policy, [POOL, estimatedService(356), scaledObject("qwen-kserve", held(720))])).toEqual([]);
    });

    test("fails a scale-down window shorter than the startup budget, Kubernetes' 300 s default included", async () => {
        expect(await check(policy, [POOL, estimatedService(356), scaledObject("qwen-kserve", held(600))])).toEqual([
            {
                level: "advisory",
                resource: "qwen-kserve",
                message:
                    "ScaledObject qwen-kserve may remove a replica of LLMInferenceService qwen 600 s after scaling up, within the 720 s its replicas take to start; hold scale-down for at least 720 s.",
            },
        ]);
        const hpa = kube("autoscaling/v2", "HorizontalPodAutoscaler", "vllm", {
            metadata: { name: "vllm", namespace: "models" },
            spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "vllm" }, maxReplicas: 2 },
        });
        const deployment = kube("apps/v1", "Deployment", "vllm", {
            metadata: { name: "vllm", namespace: "models" },
            spec: { template: { spec: { containers: [vllmContainer()] } } },
        });
        expect((await check(policy, [POOL, deployment, hpa]))[0].message).toBe(
            "HorizontalPodAutoscaler vllm may remove a replica of Deployment vllm 300 s after scaling up, within the 600 s its replicas take to start; hold scale-down for at least 600 s.",
        );
    });

    test("fails autoscalers that together reach past the TPU pools, KEDA's default maximum of 100 included", async () => {
        const findings = await check(policy, [
            POOL,
            estimatedService(110, "a"),
            estimatedService(110, "b"),
            scaledObject("a-kserve", { ...held(600), maxReplicaCount: 2 }),
            scaledObject("b-kserve", { ...held(600), maxReplicaCount: undefined }),
        ]);
        expect(findings.map((finding) => finding.message)).toEqual([
            "ScaledObject a-kserve: the autoscalers on TPU servers may ask for 102 replicas × 1 host = 102 nodes together (a replica takes every host of its slice), but the TPU node pool they can land on (tpu) holds at most 3 nodes; the rest would stay Pending.",
            tpuCapacityMessage("ScaledObject b-kserve", [{ replicas: 102, hosts: 1 }], ["tpu"], 3),
        ]);
    });

    test("not applicable: autoscalers on workloads without TPU chips, or none at all", async () => {
        const cpu = kube("apps/v1", "Deployment", "web", {
            metadata: { name: "web", namespace: "models" },
            spec: { template: { spec: { containers: [{ name: "web", image: "nginx:1.27" }] } } },
        });
        expect(await check(policy, [POOL, cpu, scaledObject("web")])).toEqual([]);
        expect(await check(policy, [POOL, estimatedService(110)])).toEqual([]);
    });
});
