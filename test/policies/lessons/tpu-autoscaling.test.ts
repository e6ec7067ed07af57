/**
 * Lesson tpu-autoscaling, the whole category: every autoscaler kind and spelling that can take a TPU replica away
 * sooner than one starts is caught, and every safe choice (held long enough, never scaling down) is left alone.
 */
import { requireTpuAwareAutoscaling as policy } from "../../../policies/requireTpuAwareAutoscaling";
import { RecordedResource } from "../../../scripts/offline/recorder";
import { llmService, tpuPool, vllmContainer } from "../fixtures";
import { check, kube } from "../harness";

type Obj = Record<string, unknown>;

const POOL = tpuPool({ autoscaling: { minNodeCount: 0, maxNodeCount: 20 } });
/** The budget of a TPU server without an estimate of its own: the pack's minimum. */
const BUDGET = 600;
const meta = (name: string) => ({ name, namespace: "models" });

/** A TPU workload of `kind` named `vllm` whose pods run vLLM on TPU. */
function workload(apiVersion: string, kind: string): RecordedResource {
    const pod = { containers: [vllmContainer()] };
    const spec =
        kind === "LeaderWorkerSet"
            ? { leaderWorkerTemplate: { size: 1, workerTemplate: { spec: pod } } }
            : { selector: { matchLabels: { app: "vllm" } }, template: { metadata: { labels: { app: "vllm" } }, spec: pod } };
    return kube(apiVersion, kind, "vllm", { metadata: meta("vllm"), spec });
}

const TARGETS: Array<[apiVersion: string, kind: string]> = [
    ["apps/v1", "Deployment"],
    ["apps/v1", "StatefulSet"],
    ["apps/v1", "ReplicaSet"],
    ["leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"],
];

const hpa = (version: string, kind: string, spec: Obj = {}) =>
    kube(`autoscaling/${version}`, "HorizontalPodAutoscaler", "scaler", {
        metadata: meta("scaler"),
        spec: { scaleTargetRef: { apiVersion: "apps/v1", kind, name: "vllm" }, minReplicas: 1, maxReplicas: 3, ...spec },
    });

const scaledObject = (kind: string | undefined, spec: Obj = {}) =>
    kube("keda.sh/v1alpha1", "ScaledObject", "scaler", {
        metadata: meta("scaler"),
        spec: {
            scaleTargetRef: { ...(kind ? { kind } : {}), name: "vllm" },
            minReplicaCount: 1,
            maxReplicaCount: 3,
            triggers: [],
            ...spec,
        },
    });

const behavior = (scaleDown: Obj) => ({ behavior: { scaleDown } });
const kedaBehavior = (scaleDown: Obj) => ({ advanced: { horizontalPodAutoscalerConfig: behavior(scaleDown) } });

/** An LLMInferenceService on TPU with KServe's own `scaling` (or its prefill's). */
function scaledService(scaling: Obj, where: "scaling" | "prefill" = "scaling"): RecordedResource {
    const service = llmService(vllmContainer(), { name: "vllm" });
    const spec = service.inputs.spec as Obj;
    if (where === "scaling") {
        spec.scaling = scaling;
    } else {
        spec.prefill = { template: spec.template, scaling };
    }
    return service;
}

const verdict = async (resources: RecordedResource[]) => (await check(policy, [POOL, ...resources])).map((finding) => finding.message);

describe("lesson tpu-autoscaling: every autoscaler that can drop a TPU replica before it starts", () => {
    describe.each(TARGETS)("targeting a %s %s", (apiVersion, kind) => {
        test.each(["v2", "v2beta2"])(
            "HPA autoscaling/%s: the default window and a short one are caught, a long one or none at all is not",
            async (version) => {
                expect(await verdict([workload(apiVersion, kind), hpa(version, kind)])).toEqual([
                    expect.stringContaining(`may remove a replica of ${kind} vllm 300 s after scaling up`),
                ]);
                expect(
                    await verdict([workload(apiVersion, kind), hpa(version, kind, behavior({ stabilizationWindowSeconds: 120 }))]),
                ).toHaveLength(1);
                expect(
                    await verdict([workload(apiVersion, kind), hpa(version, kind, behavior({ stabilizationWindowSeconds: BUDGET }))]),
                ).toEqual([]);
                // Never scaling down is safe: scale-down disabled, or a floor as high as the ceiling.
                expect(await verdict([workload(apiVersion, kind), hpa(version, kind, behavior({ selectPolicy: "Disabled" }))])).toEqual([]);
                expect(await verdict([workload(apiVersion, kind), hpa(version, kind, { minReplicas: 3 })])).toEqual([]);
            },
        );

        test("HPA autoscaling/v1 has no behavior: Kubernetes' 300 s default is caught", async () => {
            expect(await verdict([workload(apiVersion, kind), hpa("v1", kind, { targetCPUUtilizationPercentage: 80 })])).toEqual([
                expect.stringContaining("300 s after scaling up"),
            ]);
            expect(await verdict([workload(apiVersion, kind), hpa("v1", kind, { minReplicas: 3 })])).toEqual([]);
        });

        test("KEDA ScaledObject: its HPA's window, and its scale to zero after cooldownPeriod", async () => {
            const target = workload(apiVersion, kind);
            expect(await verdict([target, scaledObject(kind)])).toEqual([expect.stringContaining("300 s after scaling up")]);
            expect(await verdict([target, scaledObject(kind, kedaBehavior({ stabilizationWindowSeconds: BUDGET }))])).toEqual([]);
            expect(await verdict([target, scaledObject(kind, kedaBehavior({ selectPolicy: "Disabled" }))])).toEqual([]);
            // Scale to zero: minReplicaCount 0 (KEDA's default too) hands the last replica to cooldownPeriod, 300 s by default.
            for (const spec of [{ minReplicaCount: 0 }, { minReplicaCount: undefined }]) {
                expect(
                    await verdict([target, scaledObject(kind, { ...kedaBehavior({ stabilizationWindowSeconds: BUDGET }), ...spec })]),
                ).toEqual([
                    expect.stringContaining(`may scale ${kind} vllm to 0 replicas 300 s after its triggers go idle (cooldownPeriod)`),
                ]);
                expect(
                    await verdict([
                        target,
                        scaledObject(kind, { ...kedaBehavior({ stabilizationWindowSeconds: BUDGET }), ...spec, cooldownPeriod: BUDGET }),
                    ]),
                ).toEqual([]);
            }
            // An idle count below the floor is a scale-down too.
            expect(
                await verdict([
                    target,
                    scaledObject(kind, {
                        ...kedaBehavior({ selectPolicy: "Disabled" }),
                        minReplicaCount: 2,
                        idleReplicaCount: 0,
                        cooldownPeriod: 60,
                    }),
                ]),
            ).toEqual([expect.stringContaining("to 0 replicas 60 s after its triggers go idle")]);
            // Pinned at one count: never scales down.
            expect(await verdict([target, scaledObject(kind, { minReplicaCount: 3, maxReplicaCount: 3 })])).toEqual([]);
        });
    });

    test("a ScaledObject without scaleTargetRef.kind targets a Deployment (KEDA's default)", async () => {
        expect(await verdict([workload("apps/v1", "Deployment"), scaledObject(undefined)])).toHaveLength(1);
        expect(await verdict([workload("apps/v1", "StatefulSet"), scaledObject(undefined)])).toEqual([]);
    });

    test("an autoscaler on KServe's Deployment of a TPU LLMInferenceService (named <service>-kserve)", async () => {
        const service = llmService(vllmContainer(), { name: "qwen" });
        const onKserve = kube("autoscaling/v2", "HorizontalPodAutoscaler", "qwen", {
            metadata: meta("qwen"),
            spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "qwen-kserve" }, maxReplicas: 3 },
        });
        expect(await verdict([service, onKserve])).toEqual([
            expect.stringContaining("may remove a replica of LLMInferenceService qwen 300 s"),
        ]);
    });

    describe("KServe's own scaling on an LLMInferenceService (spec.scaling, spec.prefill.scaling)", () => {
        test.each(["scaling", "prefill"] as const)(
            "%s through WVA's HPA: default and short windows caught; held or disabled clean",
            async (where) => {
                expect(await verdict([scaledService({ minReplicas: 1, maxReplicas: 3, wva: { hpa: {} } }, where)])).toEqual([
                    expect.stringContaining("may remove a replica of LLMInferenceService vllm 300 s after scaling up"),
                ]);
                const held = (scaleDown: Obj) =>
                    scaledService({ minReplicas: 1, maxReplicas: 3, wva: { hpa: behavior(scaleDown) } }, where);
                expect(await verdict([held({ stabilizationWindowSeconds: 60 })])).toHaveLength(1);
                expect(await verdict([held({ stabilizationWindowSeconds: BUDGET })])).toEqual([]);
                expect(await verdict([held({ selectPolicy: "Disabled" })])).toEqual([]);
                expect(await verdict([scaledService({ minReplicas: 2, maxReplicas: 2, wva: { hpa: {} } }, where)])).toEqual([]);
            },
        );

        test.each(["scaling", "prefill"] as const)(
            "%s through WVA's KEDA: its HPA window and its idle count's cooldownPeriod",
            async (where) => {
                const keda = (extra: Obj) =>
                    scaledService(
                        {
                            minReplicas: 1,
                            maxReplicas: 3,
                            wva: { keda: { ...kedaBehavior({ stabilizationWindowSeconds: BUDGET }), ...extra } },
                        },
                        where,
                    );
                expect(await verdict([keda({})])).toEqual([]);
                expect(await verdict([keda({ idleReplicaCount: 0 })])).toEqual([
                    expect.stringContaining("to 0 replicas 300 s after its triggers go idle"),
                ]);
                expect(await verdict([keda({ idleReplicaCount: 0, cooldownPeriod: BUDGET })])).toEqual([]);
            },
        );

        test("a service off TPU, or without scaling, is not this lesson's", async () => {
            const onCpu = scaledService({ minReplicas: 1, maxReplicas: 3, wva: { hpa: {} } });
            ((onCpu.inputs.spec as Obj).template as Obj).containers = [{ name: "main", image: "vllm/vllm-openai:v0.11.0" }];
            expect(await verdict([onCpu])).toEqual([]);
            expect(await verdict([llmService(vllmContainer(), { name: "vllm" })])).toEqual([]);
        });
    });

    test("an autoscaler on a workload off TPU, or on a name no resource has, is not this lesson's", async () => {
        const cpu = kube("apps/v1", "Deployment", "vllm", {
            metadata: meta("vllm"),
            spec: { template: { spec: { containers: [{ name: "main", image: "nginx:1.27" }] } } },
        });
        expect(await verdict([cpu, hpa("v2", "Deployment")])).toEqual([]);
        expect(await verdict([hpa("v2", "Deployment")])).toEqual([]);
    });
});
