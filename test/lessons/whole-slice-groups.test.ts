/**
 * Lesson whole-slice-groups, the whole category: every workload kind that can put TPU pods on a multi-host slice
 * (single pods, Jobs, CronJobs, JobSets, LeaderWorkerSets, LLMInferenceServices) is caught when its pods cannot form one
 * group of one pod per host on one slice, and every safe shape (a group sized to the slice's hosts and held to one node
 * pool, a single-host topology, a workload off TPU) is left alone.
 */
import { WHOLE_SLICE_MESSAGES as say, requireWholeSliceGroups as policy } from "../../policies/requireWholeSliceGroups";
import { RecordedResource } from "../../scripts/offline/recorder";
import { llmService, vllmContainer } from "../support/fixtures";
import { check, kube } from "../support/harness";

describe("the rule", () => {
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
    function leaderWorkerSet(
        size: number | undefined,
        annotations: Record<string, string> = EXCLUSIVE,
        leader: object | undefined = tpuPod(),
    ) {
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
            expect(await check(policy, [leaderWorkerSet(5, EXCLUSIVE, { containers: [{ name: "proxy", image: "proxy:v1" }] })])).toEqual(
                [],
            );
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
            expect((await check(policy, [sliceService({ worker: tpuPod(), parallelism: { pipeline: 2 } })])).map((v) => v.message)).toEqual(
                ["llama's groups have 2 TPU pods on a 4x4 slice of 4 hosts; a group must hold every host of the slice, one pod each."],
            );
            // KServe's data-parallel group: data / dataLocal pods.
            expect(
                (await check(policy, [sliceService({ worker: tpuPod(), parallelism: { data: 8, dataLocal: 1 } })])).map((v) => v.message),
            ).toEqual([
                "llama's groups have 8 TPU pods on a 4x4 slice of 4 hosts; a group must hold every host of the slice, one pod each.",
            ]);
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
                (
                    await check(policy, [
                        leaderWorkerSet(4, { "leaderworkerset.sigs.k8s.io/exclusive-topology": "kubernetes.io/hostname" }),
                    ])
                ).map((v) => v.message),
            ).toEqual([
                "vllm has no leaderworkerset.sigs.k8s.io/exclusive-topology: cloud.google.com/gke-nodepool annotation; without it one group's pods can land on the node pools of two slices.",
            ]);
        });

        test("not applicable: single-host shapes, pods without a topology, a worker a base config may supply", async () => {
            expect(await check(policy, [llmService()])).toEqual([]);
            expect(await check(policy, [llmService(vllmContainer(), { topology: "2x4" })])).toEqual([]);
            expect(await check(policy, [sliceService({ baseRefs: [{ name: "team-multi-host" }] })])).toEqual([]);
            const unplaced = sliceService({});
            delete ((unplaced.inputs as { spec: { template: Record<string, unknown> } }).spec.template as Record<string, unknown>)
                .nodeSelector;
            expect(await check(policy, [unplaced])).toEqual([]);
            // Other kinds on a multi-host slice: every spelling, below.
        });
    });
});

describe("every spelling", () => {
    type Obj = Record<string, unknown>;

    const SLICE = { topology: "4x4", hosts: 4 };
    const LWS_EXCLUSIVE = { "leaderworkerset.sigs.k8s.io/exclusive-topology": "cloud.google.com/gke-nodepool" };
    const JOBSET_EXCLUSIVE = { "alpha.jobset.sigs.k8s.io/exclusive-topology": "cloud.google.com/gke-nodepool" };
    const meta = (name: string, annotations: Record<string, string> = {}) => ({ name, namespace: "models", annotations });

    /** A pod on TPU v6e nodes of `topology` (4x4: 4 hosts), with `extra` node selector labels; without chips when `chips` is false. */
    function tpuPod(topology = "4x4", extra: Record<string, string> = {}, chips = true): Obj {
        const container = chips ? vllmContainer() : vllmContainer({ resources: {} });
        return {
            nodeSelector: {
                "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
                "cloud.google.com/gke-tpu-topology": topology,
                ...extra,
            },
            containers: [container],
        };
    }
    const cpuPod = (): Obj => ({ containers: [{ name: "main", image: "nginx:1.27" }] });
    const ON_ONE_POOL = { "cloud.google.com/gke-nodepool": "tpu-4x4" };

    /** A template of `pod` as a pod-template field holds it. */
    const template = (pod: Obj) => ({ metadata: { labels: { app: "vllm" } }, spec: pod });

    /** Kinds whose pods stand alone, each with `pod` as its pod. */
    const SINGLE_POD_KINDS: Array<[apiVersion: string, kind: string, body: (pod: Obj) => Obj]> = [
        ["v1", "Pod", (pod) => ({ spec: pod })],
        [
            "apps/v1",
            "Deployment",
            (pod) => ({ spec: { replicas: 4, selector: { matchLabels: { app: "vllm" } }, template: template(pod) } }),
        ],
        [
            "apps/v1",
            "StatefulSet",
            (pod) => ({ spec: { replicas: 4, selector: { matchLabels: { app: "vllm" } }, template: template(pod) } }),
        ],
        [
            "apps/v1",
            "ReplicaSet",
            (pod) => ({ spec: { replicas: 4, selector: { matchLabels: { app: "vllm" } }, template: template(pod) } }),
        ],
        ["apps/v1", "DaemonSet", (pod) => ({ spec: { selector: { matchLabels: { app: "vllm" } }, template: template(pod) } })],
    ];

    const workload = (apiVersion: string, kind: string, body: Obj, annotations: Record<string, string> = {}): RecordedResource =>
        kube(apiVersion, kind, "vllm", { metadata: meta("vllm", annotations), ...body });

    /** A Job's spec running `pod` `parallelism` at once (`completions` as many, unless given). */
    const jobSpec = (pod: Obj, parallelism?: number, completions = parallelism): Obj => ({
        ...(parallelism !== undefined ? { parallelism } : {}),
        ...(completions !== undefined ? { completions, completionMode: "Indexed" } : {}),
        template: template(pod),
    });

    /** A Job or a CronJob (its jobTemplate) with `spec` as the Job's spec. */
    const JOB_KINDS: Array<[apiVersion: string, kind: string, body: (spec: Obj) => Obj]> = [
        ["batch/v1", "Job", (spec) => ({ spec })],
        ["batch/v1", "CronJob", (spec) => ({ spec: { schedule: "0 * * * *", jobTemplate: { spec } } })],
    ];

    /** A JobSet of one replicated Job named `slice` with `spec` as its Job's spec. */
    const jobSet = (spec: Obj, annotations: Record<string, string> = JOBSET_EXCLUSIVE) =>
        workload(
            "jobset.x-k8s.io/v1alpha2",
            "JobSet",
            { spec: { replicatedJobs: [{ name: "slice", replicas: 2, template: { spec } }] } },
            annotations,
        );

    /** A LeaderWorkerSet of groups of `size` (LeaderWorkerSet's default 1 when undefined), leader and workers on `pod`. */
    const leaderWorkerSet = (size: number | undefined, annotations: Record<string, string> = LWS_EXCLUSIVE, pod = tpuPod()) =>
        workload(
            "leaderworkerset.x-k8s.io/v1",
            "LeaderWorkerSet",
            {
                spec: {
                    replicas: 1,
                    leaderWorkerTemplate: {
                        ...(size !== undefined ? { size } : {}),
                        leaderTemplate: { spec: pod },
                        workerTemplate: { spec: pod },
                    },
                },
            },
            annotations,
        );

    /** An LLMInferenceService named `llama` on `topology` with `spec` merged over the fixture's. */
    function service(topology: string, spec: Obj = {}, annotations: Record<string, string> = LWS_EXCLUSIVE): RecordedResource {
        const resource = llmService(vllmContainer(), { topology, name: "llama" });
        const inputs = resource.inputs as { metadata: Obj; spec: Obj };
        inputs.metadata.annotations = annotations;
        Object.assign(inputs.spec, spec);
        return resource;
    }

    const verdict = async (...resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);

    describe("lesson whole-slice-groups: every workload kind that can land on a multi-host TPU slice", () => {
        describe.each(SINGLE_POD_KINDS)("%s %s (pods that stand alone)", (apiVersion, kind, body) => {
            test("caught on a multi-host slice, however it is selected", async () => {
                const caught = [say.singlePods("vllm", SLICE, say.groupFix(4))];
                expect(await verdict(workload(apiVersion, kind, body(tpuPod())))).toEqual(caught);
                // Pinned to one node pool is still single pods.
                expect(await verdict(workload(apiVersion, kind, body(tpuPod("4x4", ON_ONE_POOL))))).toEqual(caught);
                // A required node affinity instead of a nodeSelector.
                const affinity = {
                    containers: [vllmContainer()],
                    affinity: {
                        nodeAffinity: {
                            requiredDuringSchedulingIgnoredDuringExecution: {
                                nodeSelectorTerms: [
                                    { matchExpressions: [{ key: "cloud.google.com/gke-tpu-topology", operator: "In", values: ["4x4"] }] },
                                ],
                            },
                        },
                    },
                };
                expect(await verdict(workload(apiVersion, kind, body(affinity)))).toEqual(caught);
            });

            test("clean on a single-host topology, off TPU, or without chips", async () => {
                expect(await verdict(workload(apiVersion, kind, body(tpuPod("2x4"))))).toEqual([]);
                expect(await verdict(workload(apiVersion, kind, body(tpuPod("2x2"))))).toEqual([]);
                expect(await verdict(workload(apiVersion, kind, body(cpuPod())))).toEqual([]);
                expect(await verdict(workload(apiVersion, kind, body(tpuPod("4x4", {}, false))))).toEqual([]);
            });
        });

        describe.each(JOB_KINDS)("%s %s", (apiVersion, kind, body) => {
            test("caught: fewer or more pods at once than the slice's hosts, or free to straddle two slices", async () => {
                const pinned = tpuPod("4x4", ON_ONE_POOL);
                // Kubernetes' default parallelism is 1.
                expect(await verdict(workload(apiVersion, kind, body(jobSpec(pinned))))).toEqual([say.jobSize("vllm", 1, SLICE)]);
                expect(await verdict(workload(apiVersion, kind, body(jobSpec(pinned, 2))))).toEqual([say.jobSize("vllm", 2, SLICE)]);
                expect(await verdict(workload(apiVersion, kind, body(jobSpec(pinned, 8))))).toEqual([say.jobSize("vllm", 8, SLICE)]);
                // Fewer completions than parallelism: no more pods than completions run at once.
                expect(await verdict(workload(apiVersion, kind, body(jobSpec(pinned, 4, 2))))).toEqual([say.jobSize("vllm", 2, SLICE)]);
                expect(await verdict(workload(apiVersion, kind, body(jobSpec(tpuPod(), 4))))).toEqual([say.jobNotHeld("vllm")]);
                expect(await verdict(workload(apiVersion, kind, body(jobSpec(tpuPod()))))).toEqual([
                    say.jobSize("vllm", 1, SLICE),
                    say.jobNotHeld("vllm"),
                ]);
            });

            test("clean: one pod per host at once on the slice's node pool; a single-host topology; off TPU", async () => {
                expect(await verdict(workload(apiVersion, kind, body(jobSpec(tpuPod("4x4", ON_ONE_POOL), 4))))).toEqual([]);
                // A work queue (completions unset) running 4 at once.
                expect(await verdict(workload(apiVersion, kind, body(jobSpec(tpuPod("4x4", ON_ONE_POOL), 4, undefined))))).toEqual([]);
                expect(await verdict(workload(apiVersion, kind, body(jobSpec(tpuPod("2x4")))))).toEqual([]);
                expect(await verdict(workload(apiVersion, kind, body(jobSpec(cpuPod()))))).toEqual([]);
            });
        });

        describe("JobSet jobset.x-k8s.io (each replicated Job a group)", () => {
            const name = "vllm replicatedJobs[0] (slice)";
            test("caught: a Job not sized to the slice's hosts, or a JobSet without exclusive placement", async () => {
                expect(await verdict(jobSet(jobSpec(tpuPod(), 2)))).toEqual([say.jobSize(name, 2, SLICE)]);
                expect(await verdict(jobSet(jobSpec(tpuPod())))).toEqual([say.jobSize(name, 1, SLICE)]);
                expect(await verdict(jobSet(jobSpec(tpuPod(), 4), {}))).toEqual([
                    say.notExclusive("vllm", {
                        annotation: "alpha.jobset.sigs.k8s.io/exclusive-topology",
                        key: "cloud.google.com/gke-nodepool",
                    }),
                ]);
                // LeaderWorkerSet's annotation is not JobSet's.
                expect(await verdict(jobSet(jobSpec(tpuPod(), 4), LWS_EXCLUSIVE))).toHaveLength(1);
            });

            test("clean: Jobs of one pod per host, placed exclusively or on one node pool; single-host; off TPU", async () => {
                expect(await verdict(jobSet(jobSpec(tpuPod(), 4)))).toEqual([]);
                expect(await verdict(jobSet(jobSpec(tpuPod("4x4", ON_ONE_POOL), 4), {}))).toEqual([]);
                expect(await verdict(jobSet(jobSpec(tpuPod("2x4")), {}))).toEqual([]);
                expect(await verdict(jobSet(jobSpec(cpuPod()), {}))).toEqual([]);
            });
        });

        describe("LeaderWorkerSet leaderworkerset.x-k8s.io (leaderWorkerTemplate, workerTemplate)", () => {
            test("caught: groups not sized to the slice's hosts, or free to straddle two slices", async () => {
                expect(await verdict(leaderWorkerSet(2))).toEqual([say.groupSize("vllm", 2, SLICE)]);
                expect(await verdict(leaderWorkerSet(undefined))).toEqual([say.groupSize("vllm", 1, SLICE)]);
                expect(await verdict(leaderWorkerSet(4, {}))).toEqual([
                    say.notExclusive("vllm", {
                        annotation: "leaderworkerset.sigs.k8s.io/exclusive-topology",
                        key: "cloud.google.com/gke-nodepool",
                    }),
                ]);
            });

            test("clean: a group of the slice's hosts held to one node pool; single-host; off TPU", async () => {
                expect(await verdict(leaderWorkerSet(4))).toEqual([]);
                expect(await verdict(leaderWorkerSet(1, {}, tpuPod("2x4")))).toEqual([]);
                expect(await verdict(leaderWorkerSet(1, {}, cpuPod()))).toEqual([]);
            });
        });

        describe("LLMInferenceService serving.kserve.io (spec.template, spec.worker)", () => {
            test("caught: single pods, a group not sized to the slice's hosts, a group free to straddle two slices", async () => {
                expect(await verdict(service("4x4"))).toEqual([say.singlePods("llama", SLICE, say.kserveFix(4))]);
                expect(await verdict(service("4x4", { worker: tpuPod(), parallelism: { pipeline: 2 } }))).toEqual([
                    say.groupSize("llama", 2, SLICE),
                ]);
                expect(await verdict(service("4x4", { worker: tpuPod(), parallelism: { pipeline: 4 } }, {}))).toEqual([
                    say.notExclusive("llama", {
                        annotation: "leaderworkerset.sigs.k8s.io/exclusive-topology",
                        key: "cloud.google.com/gke-nodepool",
                    }),
                ]);
                // Only the worker on the slice: still the service's slice.
                const workerOnly = service("4x4", { worker: tpuPod(), parallelism: { pipeline: 2 } });
                delete ((workerOnly.inputs as { spec: { template: Obj } }).spec.template as Obj).nodeSelector;
                expect(await verdict(workerOnly)).toEqual([say.groupSize("llama", 2, SLICE)]);
            });

            test("clean: a group of the slice's hosts (pipeline or data / dataLocal), single-host, off TPU", async () => {
                expect(await verdict(service("4x4", { worker: tpuPod(), parallelism: { pipeline: 4, tensor: 4 } }))).toEqual([]);
                expect(await verdict(service("4x4", { worker: tpuPod(), parallelism: { data: 4, dataLocal: 1 } }))).toEqual([]);
                expect(await verdict(service("2x2", {}, {}))).toEqual([]);
                expect(await verdict(service("2x4", {}, {}))).toEqual([]);
                const offTpu = service("2x2", {}, {});
                ((offTpu.inputs as { spec: { template: Obj } }).spec.template as Obj).nodeSelector = {};
                expect(await verdict(offTpu)).toEqual([]);
            });
        });
    });
});
