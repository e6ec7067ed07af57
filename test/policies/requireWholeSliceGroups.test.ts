import { requireWholeSliceGroups as policy } from "../../policies/requireWholeSliceGroups";
import { llmService, vllmContainer } from "./fixtures";
import { check, kube } from "./harness";

const EXCLUSIVE = { "leaderworkerset.sigs.k8s.io/exclusive-topology": "cloud.google.com/gke-nodepool" };
const SLICE_SELECTOR = { "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "4x4" };
const tpuPod = (container = vllmContainer()) => ({ nodeSelector: SLICE_SELECTOR, containers: [container] });

/** An LLMInferenceService on a 4x4 slice: `spec` merged over the single-host fixture, `annotations` on its metadata. */
function sliceService(spec: Record<string, unknown>, annotations: Record<string, string> = EXCLUSIVE) {
    const service = llmService(vllmContainer(), { topology: "4x4", name: "llama" });
    const inputs = service.inputs as { metadata: Record<string, unknown>; spec: Record<string, unknown> };
    inputs.metadata.annotations = annotations;
    Object.assign(inputs.spec, spec);
    return service;
}

/** A LeaderWorkerSet a team wrote by hand. */
function leaderWorkerSet(size: number | undefined, annotations: Record<string, string> = EXCLUSIVE, leader: object | undefined = tpuPod()) {
    return kube("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", "vllm", {
        metadata: { name: "vllm", namespace: "models", annotations },
        spec: {
            replicas: 1,
            leaderWorkerTemplate: {
                ...(size !== undefined ? { size } : {}),
                ...(leader ? { leaderTemplate: { spec: leader } } : {}),
                workerTemplate: { spec: tpuPod() },
            },
        },
    });
}

const WORKER = { worker: tpuPod(), parallelism: { pipeline: 4, tensor: 4 } };

describe("require-whole-slice-groups", () => {
    test("passes one group of a pod per host, held to one node pool, from KServe or a LeaderWorkerSet", async () => {
        expect(await check(policy, [sliceService(WORKER)])).toEqual([]);
        expect(await check(policy, [sliceService({ worker: tpuPod(), parallelism: { data: 4, dataLocal: 1 } })])).toEqual([]);
        expect(await check(policy, [leaderWorkerSet(4)])).toEqual([]);
        // A leader without chips (a CPU proxy) and four TPU workers.
        expect(await check(policy, [leaderWorkerSet(5, EXCLUSIVE, { containers: [{ name: "proxy", image: "proxy:v1" }] })])).toEqual([]);
    });

    test("fails single pods on a multi-host slice", async () => {
        expect(await check(policy, [sliceService({})])).toEqual([
            {
                level: "mandatory",
                resource: "llama",
                message:
                    "llama runs single pods on a 4x4 slice of 4 hosts: each holds one VM's chips while GKE bills the slice's 4 VMs together, and no server spans them; give it spec.worker and parallelism for groups of 4 (KServe: pipeline: 4).",
            },
        ]);
    });

    test("fails a group smaller or larger than the slice's hosts", async () => {
        expect((await check(policy, [sliceService({ worker: tpuPod(), parallelism: { pipeline: 2 } })])).map((v) => v.message)).toEqual([
            "llama's groups have 2 TPU pods on a 4x4 slice of 4 hosts; a group must hold every host of the slice, one pod each.",
        ]);
        // KServe's data-parallel group: data / dataLocal pods.
        expect(
            (await check(policy, [sliceService({ worker: tpuPod(), parallelism: { data: 8, dataLocal: 1 } })])).map((v) => v.message),
        ).toEqual(["llama's groups have 8 TPU pods on a 4x4 slice of 4 hosts; a group must hold every host of the slice, one pod each."]);
        // A LeaderWorkerSet without a size runs groups of one.
        expect((await check(policy, [leaderWorkerSet(undefined)])).map((v) => v.message)).toEqual([
            "vllm's groups have 1 TPU pods on a 4x4 slice of 4 hosts; a group must hold every host of the slice, one pod each.",
        ]);
    });

    test("fails a group free to straddle two slices", async () => {
        expect((await check(policy, [sliceService(WORKER, {})])).map((v) => v.message)).toEqual([
            "llama has no leaderworkerset.sigs.k8s.io/exclusive-topology: cloud.google.com/gke-nodepool annotation; without it one group's pods can land on the node pools of two slices.",
        ]);
        expect(
            (await check(policy, [leaderWorkerSet(4, { "leaderworkerset.sigs.k8s.io/exclusive-topology": "kubernetes.io/hostname" })])).map(
                (v) => v.message,
            ),
        ).toEqual([
            "vllm has no leaderworkerset.sigs.k8s.io/exclusive-topology: cloud.google.com/gke-nodepool annotation; without it one group's pods can land on the node pools of two slices.",
        ]);
    });

    test("not applicable: single-host shapes, pods without a topology, a worker a base config may supply", async () => {
        expect(await check(policy, [llmService()])).toEqual([]);
        expect(await check(policy, [llmService(vllmContainer(), { topology: "2x4" })])).toEqual([]);
        expect(await check(policy, [sliceService({ baseRefs: [{ name: "team-multi-host" }] })])).toEqual([]);
        const unplaced = sliceService({});
        delete ((unplaced.inputs as { spec: { template: Record<string, unknown> } }).spec.template as Record<string, unknown>).nodeSelector;
        expect(await check(policy, [unplaced])).toEqual([]);
        // Other kinds on a multi-host slice: test/policies/lessons/whole-slice-groups.test.ts.
    });
});
