/**
 * Lesson tpu-autoscaling, the whole category: every autoscaler kind and spelling that can take a TPU replica away
 * sooner than one starts is caught, and every safe choice (held long enough, never scaling down) is left alone; and
 * autoscalers that may ask for more nodes than the pools they can land on hold, a whole slice per replica, are caught.
 */
import * as k8s from "@pulumi/kubernetes";
import { requireTpuAwareAutoscaling as policy, tpuCapacityMessage } from "../../policies/requireTpuAwareAutoscaling";
import { RecordedResource } from "../../scripts/offline/recorder";
import { llmService, tpuPool, vllmContainer } from "../support/fixtures";
import { check, kube } from "../support/harness";
import { meta, tpuDeployment, vllm } from "../support/lessonObjects";
import { summary, verdict } from "../support/pack";
import { useWorkerPack } from "../workerPack";

describe("the rule", () => {
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
});

describe("every spelling", () => {
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
                    expect(await verdict([workload(apiVersion, kind), hpa(version, kind, behavior({ selectPolicy: "Disabled" }))])).toEqual(
                        [],
                    );
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
                            scaledObject(kind, {
                                ...kedaBehavior({ stabilizationWindowSeconds: BUDGET }),
                                ...spec,
                                cooldownPeriod: BUDGET,
                            }),
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

        describe("capacity: a replica takes a whole slice's hosts, on the pools it can land on", () => {
            const SLICE = { "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "4x4" };
            const PLAN_CLASS = "tpu-plan";
            /** A v6e 4x4 node pool (four ct6e-standard-4t hosts a slice) named `name`, growing to `maxNodeCount`. */
            function slicePool(name: string, maxNodeCount: number, labels: Obj = {}): RecordedResource {
                const pool = tpuPool({
                    name,
                    placementPolicy: { type: "COMPACT", tpuTopology: "4x4" },
                    autoscaling: { minNodeCount: 0, maxNodeCount },
                    nodeConfig: { ...(tpuPool().inputs.nodeConfig as Obj), labels },
                });
                return { ...pool, name, urn: pool.urn.replace(/::tpu$/, `::${name}`) };
            }
            /** A LeaderWorkerSet of groups of four pods on a 4x4 slice, selecting `selector`. */
            const sliceGroups = (selector: Obj = SLICE) =>
                kube("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", "vllm", {
                    metadata: {
                        ...meta("vllm"),
                        annotations: { "leaderworkerset.sigs.k8s.io/exclusive-topology": "cloud.google.com/gke-nodepool" },
                    },
                    spec: {
                        leaderWorkerTemplate: {
                            size: 4,
                            workerTemplate: { spec: { nodeSelector: selector, containers: [vllmContainer()] } },
                        },
                    },
                });
            /** A ScaledObject on the LeaderWorkerSet, held for the budget, up to `max` groups. */
            const scaler = (max: number) =>
                scaledObject("LeaderWorkerSet", { ...kedaBehavior({ stabilizationWindowSeconds: BUDGET }), maxReplicaCount: max });
            const findings = async (resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);

            test("single-host: a replica is one node, as before", async () => {
                const deployment = workload("apps/v1", "Deployment");
                const held = (max: number) =>
                    hpa("v2", "Deployment", { ...behavior({ stabilizationWindowSeconds: BUDGET }), maxReplicas: max });
                expect(await verdict([deployment, held(20)])).toEqual([]);
                // maxNodeCount is per zone, totalMaxNodeCount the whole pool's.
                const zonal = (autoscaling: Obj) =>
                    tpuPool({ nodeLocations: ["europe-west4-a", "europe-west4-b"], autoscaling: { minNodeCount: 0, ...autoscaling } });
                expect(await findings([zonal({ maxNodeCount: 10 }), deployment, held(20)])).toEqual([]);
                expect(await findings([zonal({ totalMaxNodeCount: 15 }), deployment, held(20)])).toEqual([
                    tpuCapacityMessage("HorizontalPodAutoscaler scaler", [{ replicas: 20, hosts: 1 }], ["tpu"], 15),
                ]);
                expect(await verdict([deployment, held(21)])).toEqual([
                    "HorizontalPodAutoscaler scaler: the autoscalers on TPU servers may ask for 21 replicas × 1 host = 21 nodes together (a replica takes every host of its slice), but the TPU node pool they can land on (tpu) holds at most 20 nodes; the rest would stay Pending.",
                ]);
            });

            test("multi-host 4x4: 2 replicas need 8 nodes; a pool of 4 is caught, 8 nodes are clean", async () => {
                expect(await findings([slicePool("slice-a", 4), sliceGroups(), scaler(2)])).toEqual([
                    "ScaledObject scaler: the autoscalers on TPU servers may ask for 2 replicas × 4 hosts = 8 nodes together (a replica takes every host of its slice), but the TPU node pool they can land on (slice-a) holds at most 4 nodes; the rest would stay Pending.",
                ]);
                expect(await findings([slicePool("slice-a", 8), sliceGroups(), scaler(2)])).toEqual([]);
                expect(await findings([slicePool("slice-a", 4), slicePool("slice-b", 4), sliceGroups(), scaler(2)])).toEqual([]);
                expect(await findings([slicePool("slice-a", 4), sliceGroups(), scaler(1)])).toEqual([]);
            });

            test("only the pools of the workload's accelerator and topology count: a 2x2 pool holds no 4x4 replica", async () => {
                // POOL: 20 single-host 2x2 nodes, which the 4x4 groups cannot use.
                expect(await findings([POOL, slicePool("slice-a", 4), sliceGroups(), scaler(2)])).toEqual([
                    tpuCapacityMessage("ScaledObject scaler", [{ replicas: 2, hosts: 4 }], ["slice-a"], 4),
                ]);
            });

            test("the pools of a capacity plan's ComputeClass are summed, and only those", async () => {
                const plan = kube("cloud.google.com/v1", "ComputeClass", "plan", {
                    metadata: { name: PLAN_CLASS },
                    spec: {
                        priorities: [{ nodepools: ["slice-reserved"] }, { nodepools: ["slice-spot"] }],
                        whenUnsatisfiable: "DoNotScaleUp",
                    },
                });
                const bound = { "cloud.google.com/compute-class": PLAN_CLASS };
                const pools = [slicePool("slice-reserved", 4, bound), slicePool("slice-spot", 4, bound), slicePool("slice-other", 4)];
                const onPlan = sliceGroups({ ...SLICE, "cloud.google.com/compute-class": PLAN_CLASS });
                expect(await findings([...pools, plan, onPlan, scaler(2)])).toEqual([]);
                expect(await findings([...pools, plan, onPlan, scaler(3)])).toEqual([
                    "ScaledObject scaler: the autoscalers on TPU servers may ask for 3 replicas × 4 hosts = 12 nodes together (a replica takes every host of its slice), but the TPU node pools they can land on (slice-reserved, slice-spot) hold at most 8 nodes; the rest would stay Pending.",
                ]);
                // Without the class, the groups may land on every 4x4 pool: 12 nodes.
                expect(await findings([...pools, plan, sliceGroups(), scaler(3)])).toEqual([]);
                // A class of tpu priorities that creates no pool gives only the labelled pools its priorities match.
                const byShape = kube("cloud.google.com/v1", "ComputeClass", "plan", {
                    metadata: { name: PLAN_CLASS },
                    spec: {
                        priorities: [{ tpu: { type: "tpu-v6e-slice", topology: "4x4", count: 4 } }],
                        whenUnsatisfiable: "DoNotScaleUp",
                    },
                });
                expect(await findings([...pools, byShape, onPlan, scaler(3)])).toEqual([
                    "ScaledObject scaler: the autoscalers on TPU servers may ask for 3 replicas × 4 hosts = 12 nodes together (a replica takes every host of its slice), but the TPU node pools they can land on (slice-reserved, slice-spot) hold at most 8 nodes; the rest would stay Pending.",
                ]);
            });

            test("an LLMInferenceService whose worker runs on a multi-host slice: its own scaling and an HPA on its LeaderWorkerSet", async () => {
                /** KServe's groups of four: the leader (template) and three workers (worker), each on a host of the 4x4 slice. */
                const multiHost = (scaling?: Obj) => {
                    const service = llmService(vllmContainer(), { name: "big", topology: "4x4" });
                    const spec = service.inputs.spec as Obj;
                    spec.worker = { nodeSelector: SLICE, containers: [vllmContainer()] };
                    spec.parallelism = { pipeline: 4 };
                    if (scaling) {
                        spec.scaling = scaling;
                    }
                    return service;
                };
                const scaled = multiHost({ minReplicas: 2, maxReplicas: 2 });
                expect(await findings([slicePool("slice-a", 4), scaled])).toEqual([
                    "LLMInferenceService big: the autoscalers on TPU servers may ask for 2 replicas × 4 hosts = 8 nodes together (a replica takes every host of its slice), but the TPU node pool they can land on (slice-a) holds at most 4 nodes; the rest would stay Pending.",
                ]);
                expect(await findings([slicePool("slice-a", 4), slicePool("slice-b", 4), scaled])).toEqual([]);
                const onGroups = kube("autoscaling/v2", "HorizontalPodAutoscaler", "big", {
                    metadata: meta("big"),
                    spec: {
                        scaleTargetRef: { apiVersion: "leaderworkerset.x-k8s.io/v1", kind: "LeaderWorkerSet", name: "big-kserve-mn" },
                        minReplicas: 2,
                        maxReplicas: 2,
                    },
                });
                expect(await findings([slicePool("slice-a", 4), multiHost(), onGroups])).toEqual([
                    tpuCapacityMessage("HorizontalPodAutoscaler big", [{ replicas: 2, hosts: 4 }], ["slice-a"], 4),
                ]);
            });

            test("autoscalers sharing pools are summed, each replica at its slice's hosts", async () => {
                // A Deployment that selects no topology may land on the 2x2 pool and on the 4x4 one: those pools must hold it
                // and the 4x4 groups, which can only land on the 4x4 pool, together.
                const small = kube("apps/v1", "Deployment", "small", {
                    metadata: meta("small"),
                    spec: { template: { spec: { containers: [vllmContainer()] } } },
                });
                const onSmall = kube("autoscaling/v2", "HorizontalPodAutoscaler", "small", {
                    metadata: meta("small"),
                    spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "small" }, minReplicas: 3, maxReplicas: 3 },
                });
                const twoByTwo = (maxNodeCount: number) => tpuPool({ autoscaling: { minNodeCount: 0, maxNodeCount } });
                expect(await findings([twoByTwo(7), slicePool("slice-a", 8), sliceGroups(), scaler(2), small, onSmall])).toEqual([]);
                expect(await findings([twoByTwo(2), slicePool("slice-a", 8), sliceGroups(), scaler(2), small, onSmall])).toEqual([
                    "ScaledObject scaler: the autoscalers on TPU servers may ask for 2 replicas × 4 hosts + 3 replicas × 1 host = 11 nodes together (a replica takes every host of its slice), but the TPU node pools they can land on (tpu, slice-a) hold at most 10 nodes; the rest would stay Pending.",
                    "HorizontalPodAutoscaler small: the autoscalers on TPU servers may ask for 2 replicas × 4 hosts + 3 replicas × 1 host = 11 nodes together (a replica takes every host of its slice), but the TPU node pools they can land on (tpu, slice-a) hold at most 10 nodes; the rest would stay Pending.",
                ]);
                expect(tpuCapacityMessage("X", [{ replicas: 1, hosts: 4 }], ["a"], 1)).toBe(
                    "X: the autoscalers on TPU servers may ask for 1 replica × 4 hosts = 4 nodes together (a replica takes every host of its slice), but the TPU node pool they can land on (a) holds at most 1 node; the rest would stay Pending.",
                );
            });
        });
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();

    describe("autoscalers on TPU servers wait out a start", () => {
        /**
         * A TPU Deployment `w` and a ScaledObject on it holding scale-down for `window` seconds (none: Kubernetes' 300 s), from
         * one replica (or `minReplicaCount`: none is KEDA's 0, a scale to zero after its 300 s cooldownPeriod).
         */
        const scaled =
            (window?: number, minReplicaCount: number | null = 1) =>
            () => {
                tpuDeployment(vllm());
                new k8s.apiextensions.CustomResource("w-scaler", {
                    apiVersion: "keda.sh/v1alpha1",
                    kind: "ScaledObject",
                    metadata: meta("w-scaler"),
                    spec: {
                        scaleTargetRef: { name: "w" },
                        ...(minReplicaCount === null ? {} : { minReplicaCount }),
                        maxReplicaCount: 2,
                        triggers: [
                            { type: "prometheus", metadata: { serverAddress: "http://prometheus:9090", query: "sum(x)", threshold: "5" } },
                        ],
                        ...(window === undefined
                            ? {}
                            : {
                                  advanced: {
                                      horizontalPodAutoscalerConfig: { behavior: { scaleDown: { stabilizationWindowSeconds: window } } },
                                  },
                              }),
                    },
                });
            };

        test.each<[string, () => unknown, string[]]>([
            ["Kubernetes' default scale-down window", scaled(), ["advisory require-tpu-aware-autoscaling @w-scaler"]],
            ["a window shorter than the startup budget", scaled(120), ["advisory require-tpu-aware-autoscaling @w-scaler"]],
            ["a window of the whole budget", scaled(600), []],
            [
                "a window of the whole budget, but a scale to zero after KEDA's default cooldown",
                scaled(600, null),
                ["advisory require-tpu-aware-autoscaling @w-scaler"],
            ],
        ])("%s", async (_, program, expected) => {
            expect(summary(await verdict(pack(), program))).toEqual(expected);
        });
    });
});
