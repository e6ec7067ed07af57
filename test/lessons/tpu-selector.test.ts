/**
 * Lesson tpu-selector, the capacity half of the category: a TPU pod that selects a ComputeClass, or spot, flex-start or
 * reservation capacity, that no pool or class of the stack can give it is caught, in every spelling a pod can select
 * with; the pools a class names must carry its label and taint; and every safe variant is left alone. Every
 * ComputeClass here is valid against GKE's CRD (compute-class-api 1.34.0): the mistakes are ones the API server accepts.
 */
import * as gcp from "@pulumi/gcp";
import * as k8s from "@pulumi/kubernetes";
import { requireTpuSelectorMatchingPool as policy } from "../../policies/requireTpuSelectorMatchingPool";
import { RecordedResource } from "../../scripts/offline/recorder";
import { CrdValidator } from "../crds";
import { llmService, tpuPool, vllmContainer } from "../support/fixtures";
import { check, kube, resource } from "../support/harness";
import {
    Obj,
    TPU_SELECTOR,
    TPU_TOLERATIONS,
    llmInferenceService,
    meta,
    programOf,
    tpuAffinity,
    tpuDeployment,
    tpuNodePool,
    tpuWorkload,
    vllm,
} from "../support/lessonObjects";
import { summary, summaryOf, verdict } from "../support/pack";
import { useWorkerPack } from "../workerPack";

describe("the rule", () => {
    describe("require-tpu-selector-matching-pool", () => {
        test("passes a service selecting the pool's accelerator and topology", async () => {
            expect(await check(policy, [tpuPool(), llmService()])).toEqual([]);
        });

        test("fails the TPU VM accelerator name", async () => {
            const service = llmService();
            (service.inputs.spec as { template: { nodeSelector: Record<string, string> } }).template.nodeSelector[
                "cloud.google.com/gke-tpu-accelerator"
            ] = "tpu-v6e";
            expect(await check(policy, [tpuPool(), service])).toEqual([
                {
                    level: "mandatory",
                    resource: "qwen",
                    message:
                        'qwen (spec.template) selects cloud.google.com/gke-tpu-accelerator = "tpu-v6e"; TPU v6e nodes carry "tpu-v6e-slice".',
                },
            ]);
        });

        test("fails a topology no pool has", async () => {
            expect(
                (await check(policy, [tpuPool(), llmService(vllmContainer(), { topology: "2x4" })])).map((violation) => violation.message),
            ).toEqual([
                'qwen (spec.template) selects cloud.google.com/gke-tpu-topology = "2x4", which no TPU node pool in the stack has; pools offer 2x2.',
            ]);
        });

        test("a multi-host pool offers its tpuTopology; a Deployment is read too", async () => {
            const deployment = kube("apps/v1", "Deployment", "trainer", {
                metadata: { name: "trainer" },
                spec: {
                    template: {
                        spec: {
                            nodeSelector: {
                                "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
                                "cloud.google.com/gke-tpu-topology": "4x4",
                            },
                            containers: [vllmContainer()],
                        },
                    },
                },
            });
            expect(await check(policy, [tpuPool({ placementPolicy: { type: "COMPACT", tpuTopology: "4x4" } }), deployment])).toEqual([]);
        });

        test("not applicable: no TPU v6e pool in the stack", async () => {
            expect(await check(policy, [llmService(vllmContainer(), { topology: "8x8" })])).toEqual([]);
        });
    });
});

describe("every spelling", () => {
    type Obj = Record<string, unknown>;
    const CLASS = "tpu-class";
    const ACCELERATOR = { "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "2x2" };
    const validator = new CrdValidator();

    /** A TPU v6e node pool named `name` (its GKE name too, unless `named` is false), bound to `boundTo` by label and taint. */
    function pool(
        name: string,
        nodeConfig: Obj = {},
        options: { boundTo?: string; named?: boolean; machineType?: string; props?: Obj } = {},
    ) {
        const binding = options.boundTo;
        return resource("gcp:container/nodePool:NodePool", name, {
            ...(options.named === false ? {} : { name }),
            location: "europe-west4",
            nodeLocations: ["europe-west4-a"],
            // Autoscaled, as a pool a ComputeClass falls back to must be.
            autoscaling: { minNodeCount: 0, maxNodeCount: 3 },
            nodeConfig: {
                machineType: options.machineType ?? "ct6e-standard-4t",
                ...(binding
                    ? {
                          labels: { "cloud.google.com/compute-class": binding },
                          taints: [{ key: "cloud.google.com/compute-class", value: binding, effect: "NO_SCHEDULE" }],
                      }
                    : {}),
                ...nodeConfig,
            },
            ...options.props,
        });
    }

    /** A ComputeClass named `name` with `priorities`, as GKE's CRD takes it. */
    function computeClass(priorities: Obj[], name = CLASS): RecordedResource {
        return kube("cloud.google.com/v1", "ComputeClass", name, {
            metadata: { name },
            spec: { priorities, nodePoolAutoCreation: { enabled: false }, whenUnsatisfiable: "DoNotScaleUp" },
        });
    }

    /** A Deployment running vLLM on TPU whose pods select `nodeSelector` (and `affinity`). */
    function server(nodeSelector: Record<string, string>, affinity?: Obj): RecordedResource {
        return kube("apps/v1", "Deployment", "vllm", {
            metadata: { name: "vllm", namespace: "models" },
            spec: {
                selector: { matchLabels: { app: "vllm" } },
                template: {
                    metadata: { labels: { app: "vllm" } },
                    spec: { nodeSelector, ...(affinity ? { affinity } : {}), containers: [vllmContainer()] },
                },
            },
        });
    }

    const required = (...matchExpressions: Obj[]) => ({
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions }] } },
    });

    /** What GKE says of a labelled pool none of its class's priorities gives. */
    const unmatched = (name: string) =>
        `Node pool ${name} carries ComputeClass tpu-class's label, but no priority of the class names or matches it: GKE does not scale it for the class (NodepoolMisconfigured); name it in a priority, or drop the label.`;
    const STARVED =
        "ComputeClass tpu-class gives no node: its priorities describe TPU nodes and nodePoolAutoCreation is off, so only an autoscaled pool of the stack that carries its label and matches one could serve it, and none does.";

    /** The plan the stack builds: on-demand then spot, both pools bound to the class. */
    const PLAN = [pool("on-demand", {}, { boundTo: CLASS }), pool("spot", { spot: true }, { boundTo: CLASS })];
    const ORDERED = computeClass([{ nodepools: ["on-demand"] }, { nodepools: ["spot"] }]);

    const verdict = async (resources: RecordedResource[]) => {
        for (const object of resources.filter((candidate) => candidate.type === "kubernetes:cloud.google.com/v1:ComputeClass")) {
            expect(validator.errors(object.inputs)).toEqual([]);
        }
        return (await check(policy, resources)).map((finding) => finding.message);
    };

    describe("lesson tpu-selector: a TPU pod's ComputeClass and capacity selectors", () => {
        describe("caught", () => {
            test("a class the stack does not declare, by nodeSelector or by required node affinity", async () => {
                const expected = [
                    expect.stringContaining(
                        'selects cloud.google.com/compute-class = "tpu-other", but the stack declares no such ComputeClass (it declares tpu-class)',
                    ),
                ];
                expect(
                    await verdict([...PLAN, ORDERED, server({ ...ACCELERATOR, "cloud.google.com/compute-class": "tpu-other" })]),
                ).toEqual(expected);
                expect(
                    await verdict([
                        ...PLAN,
                        ORDERED,
                        server(ACCELERATOR, required({ key: "cloud.google.com/compute-class", operator: "In", values: ["tpu-other"] })),
                    ]),
                ).toEqual(expected);
            });

            test("a class whose pools are of another topology", async () => {
                const wide = [pool("wide", {}, { boundTo: CLASS, machineType: "ct6e-standard-8t" })];
                expect(
                    await verdict([
                        ...wide,
                        computeClass([{ nodepools: ["wide"] }]),
                        server({ ...ACCELERATOR, "cloud.google.com/compute-class": CLASS }),
                    ]),
                ).toEqual([
                    "vllm (spec.template.spec) selects ComputeClass tpu-class, whose priorities give no tpu-v6e-slice 2x2 TPU node: node pool wide (priorities[0]): tpu-v6e-slice 2x4.",
                ]);
            });

            test("a class of TPU priorities for another accelerator or topology, selected with or without the TPU labels", async () => {
                const v5e = computeClass([
                    { tpu: { type: "tpu-v5-lite-podslice", count: 4, topology: "2x2" } },
                    { tpu: { type: "tpu-v6e-slice", count: 8, topology: "2x4" } },
                ]);
                expect(await verdict([...PLAN, v5e, server({ ...ACCELERATOR, "cloud.google.com/compute-class": CLASS })])).toEqual([
                    STARVED,
                    "vllm (spec.template.spec) selects ComputeClass tpu-class, whose priorities give no tpu-v6e-slice 2x2 TPU node: priorities[0].tpu: tpu-v5-lite-podslice 2x2; priorities[1].tpu: tpu-v6e-slice 2x4.",
                ]);
                expect(
                    await verdict([
                        ...PLAN,
                        computeClass([{ machineType: "n2-standard-8" }]),
                        server({ "cloud.google.com/compute-class": CLASS }),
                    ]),
                ).toEqual([
                    unmatched("on-demand"),
                    unmatched("spot"),
                    "vllm (spec.template.spec) selects ComputeClass tpu-class, whose priorities give no TPU node: they name no TPU v6e node pool of the stack and no TPU shape.",
                ]);
            });

            test("a class naming a pool the stack does not have", async () => {
                expect(await verdict([...PLAN, computeClass([{ nodepools: ["on-demand"] }, { nodepools: ["ghost"] }])])).toEqual([
                    "ComputeClass tpu-class names node pool ghost in priorities[1], which no node pool of the stack is; GKE reports NodePoolNotExist and skips it.",
                    unmatched("spot"),
                ]);
            });

            test("a pool the class names that does not autoscale: the class never falls back to it", async () => {
                expect(
                    await verdict([
                        PLAN[0],
                        pool("spot", { spot: true }, { boundTo: CLASS, props: { autoscaling: undefined, nodeCount: 1 } }),
                        ORDERED,
                    ]),
                ).toEqual([
                    "Node pool spot, named in ComputeClass tpu-class's priorities[1], has no autoscaling: GKE's autoscaler never adds a node to it, so the class never falls back to it; set autoscaling on the pool.",
                ]);
            });

            test("a pool with the class's label and taint that no priority names or matches", async () => {
                const extra = pool("flex", { flexStart: true }, { boundTo: CLASS });
                expect(await verdict([...PLAN, extra, ORDERED])).toEqual([unmatched("flex")]);
                // A tpu priority of its shape takes it, asking for flex-start or not (a priority without it matches any pool).
                const withTpu = (priority: Record<string, unknown>) =>
                    verdict([...PLAN, extra, computeClass([{ nodepools: ["on-demand"] }, { nodepools: ["spot"] }, priority])]);
                const SHAPE = { tpu: { type: "tpu-v6e-slice", topology: "2x2", count: 4 } };
                expect(await withTpu({ ...SHAPE, flexStart: { enabled: true } })).toEqual([]);
                expect(await withTpu(SHAPE)).toEqual([]);
                // Not a priority that leaves the count out, or asks for spot (true or false) or a reservation the pool does not give.
                for (const priority of [
                    { tpu: { type: "tpu-v6e-slice", topology: "2x2" }, flexStart: { enabled: true } },
                    { ...SHAPE, spot: true },
                    {
                        ...SHAPE,
                        spot: false,
                        flexStart: { enabled: true },
                        reservations: { affinity: "Specific", specific: [{ name: "v6e-held" }] },
                    },
                ]) {
                    expect(await withTpu(priority)).toEqual([unmatched("flex")]);
                }
                // With whenUnsatisfiable ScaleUpAnyway, a labelled pool no priority matches serves the class last.
                const anyway = computeClass([{ nodepools: ["on-demand"] }, { nodepools: ["spot"] }]);
                const spec = anyway.inputs.spec as Record<string, unknown>;
                const inputs = { ...anyway.inputs, spec: { ...spec, whenUnsatisfiable: "ScaleUpAnyway" } };
                expect(await verdict([...PLAN, extra, { ...anyway, inputs, wire: { inputs, outputs: inputs } }])).toEqual([]);
            });

            test("a class of tpu priorities alone that creates no pool, where no pool of the stack carries its label and matches one", async () => {
                const tpuOnly = (enabled: boolean) =>
                    kube("cloud.google.com/v1", "ComputeClass", CLASS, {
                        metadata: { name: CLASS },
                        spec: {
                            priorities: [{ tpu: { type: "tpu-v6e-slice", topology: "2x2", count: 4 } }],
                            nodePoolAutoCreation: { enabled },
                            whenUnsatisfiable: "DoNotScaleUp",
                        },
                    });
                expect(await verdict([pool("on-demand"), tpuOnly(false)])).toEqual([STARVED]);
                // GKE may create one, or a labelled pool of the shape matches.
                expect(await verdict([pool("on-demand"), tpuOnly(true)])).toEqual([]);
                expect(await verdict([pool("on-demand", {}, { boundTo: CLASS }), tpuOnly(false)])).toEqual([]);
            });

            test.each([
                ["no label", { labels: {} }, "label cloud.google.com/compute-class=tpu-class"],
                ["no taint", { taints: [] }, "taint cloud.google.com/compute-class=tpu-class (nodeConfig.labels"],
                [
                    "the taint of another class",
                    { taints: [{ key: "cloud.google.com/compute-class", value: "other", effect: "NO_SCHEDULE" }] },
                    "taint",
                ],
                ["neither", { labels: {}, taints: [] }, "label cloud.google.com/compute-class=tpu-class and taint"],
            ])("a pool the class names with %s", async (_, nodeConfig, missing) => {
                const resources = [PLAN[0], pool("spot", { spot: true, ...nodeConfig }, { boundTo: CLASS }), ORDERED];
                expect(await verdict(resources)).toEqual([
                    expect.stringMatching(
                        new RegExp(
                            `^Node pool spot, named in ComputeClass tpu-class's priorities\\[1\\], lacks its ${missing.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`,
                        ),
                    ),
                ]);
            });

            test.each<[string, Record<string, string>, Obj | undefined]>([
                ["gke-spot by nodeSelector", { "cloud.google.com/gke-spot": "true" }, undefined],
                ["gke-spot by node affinity", {}, required({ key: "cloud.google.com/gke-spot", operator: "In", values: ["true"] })],
                ["gke-provisioning spot", { "cloud.google.com/gke-provisioning": "spot" }, undefined],
                ["gke-flex-start", { "cloud.google.com/gke-flex-start": "true" }, undefined],
                ["gke-provisioning flex-start", { "cloud.google.com/gke-provisioning": "flex-start" }, undefined],
                ["a reservation by name", { "cloud.google.com/reservation-name": "v6e-held" }, undefined],
            ])("%s with no such pool of the pod's topology", async (_, selector, affinity) => {
                const spotElsewhere = pool("wide-spot", { spot: true }, { machineType: "ct6e-standard-8t" });
                const [message] = await verdict([pool("on-demand"), spotElsewhere, server({ ...ACCELERATOR, ...selector }, affinity)]);
                expect(message).toMatch(
                    /^vllm \(spec\.template\.spec\) selects cloud\.google\.com\/(gke-spot|gke-provisioning|gke-flex-start|reservation-name) = ".*", which no TPU node of its shape provides: node pool on-demand: tpu-v6e-slice 2x2\.$/,
                );
            });

            test("spot through a class none of whose pools is spot", async () => {
                expect(
                    await verdict([
                        pool("on-demand", {}, { boundTo: CLASS }),
                        pool(
                            "reserved",
                            {
                                reservationAffinity: {
                                    consumeReservationType: "SPECIFIC_RESERVATION",
                                    key: "compute.googleapis.com/reservation-name",
                                    values: ["v6e-held"],
                                },
                            },
                            { boundTo: CLASS },
                        ),
                        computeClass([{ nodepools: ["reserved"] }, { nodepools: ["on-demand"] }]),
                        server({ ...ACCELERATOR, "cloud.google.com/compute-class": CLASS, "cloud.google.com/gke-spot": "true" }),
                    ]),
                ).toEqual([
                    'vllm (spec.template.spec) selects cloud.google.com/gke-spot = "true" through ComputeClass tpu-class, which no TPU node of its shape provides: node pool reserved (priorities[0]): tpu-v6e-slice 2x2, reservation v6e-held; node pool on-demand (priorities[1]): tpu-v6e-slice 2x2.',
                ]);
            });

            test("a class selector no value can meet: the nodeSelector's class and the affinity's differ", async () => {
                expect(
                    await verdict([
                        ...PLAN,
                        ORDERED,
                        server(
                            { ...ACCELERATOR, "cloud.google.com/compute-class": CLASS },
                            required({ key: "cloud.google.com/compute-class", operator: "In", values: ["other"] }),
                        ),
                    ]),
                ).toEqual([
                    expect.stringContaining(
                        "can never be placed: its nodeSelector and required node affinity allow no common cloud.google.com/compute-class.",
                    ),
                ]);
            });
        });

        describe("left alone", () => {
            test("the stack's own plan: pools bound by label and taint, named in order, the pods selecting the class", async () => {
                expect(await verdict([...PLAN, ORDERED, server({ ...ACCELERATOR, "cloud.google.com/compute-class": CLASS })])).toEqual([]);
            });

            test("the class's taint with another effect: GKE checks its key and value only", async () => {
                const preferred = pool(
                    "spot",
                    { spot: true, taints: [{ key: "cloud.google.com/compute-class", value: CLASS, effect: "PREFER_NO_SCHEDULE" }] },
                    { boundTo: CLASS },
                );
                expect(await verdict([PLAN[0], preferred, ORDERED])).toEqual([]);
            });

            test("pool names the preview does not know: the class's label finds its pools", async () => {
                const unnamed = [
                    pool("on-demand", {}, { boundTo: CLASS, named: false }),
                    pool("spot", { spot: true }, { boundTo: CLASS, named: false }),
                ];
                const byOutputs = computeClass([
                    { nodepools: ["tpu-inference-tpu-pool-1f3162a"] },
                    { nodepools: ["tpu-inference-spot-pool-0e25fa2"] },
                ]);
                expect(await verdict([...unnamed, byOutputs, server({ ...ACCELERATOR, "cloud.google.com/compute-class": CLASS })])).toEqual(
                    [],
                );
            });

            test("a class of TPU priorities GKE creates pools for, selected by the class alone or with the TPU labels", async () => {
                const autoCreated = kube("cloud.google.com/v1", "ComputeClass", CLASS, {
                    metadata: { name: CLASS },
                    spec: {
                        priorities: [
                            { machineType: "ct6e-standard-4t", spot: false, tpu: { type: "tpu-v6e-slice", count: 4, topology: "2x2" } },
                            {
                                flexStart: { enabled: true, nodeRecycling: { leadTimeSeconds: 3600 } },
                                machineType: "ct6e-standard-4t",
                                maxRunDurationSeconds: 604800,
                                tpu: { type: "tpu-v6e-slice", count: 4, topology: "2x2" },
                            },
                            { machineType: "ct6e-standard-4t", spot: true, tpu: { type: "tpu-v6e-slice", count: 4, topology: "2x2" } },
                        ],
                        nodePoolAutoCreation: { enabled: true },
                        whenUnsatisfiable: "DoNotScaleUp",
                    },
                });
                expect(await verdict([autoCreated, server({ "cloud.google.com/compute-class": CLASS })])).toEqual([]);
                expect(await verdict([autoCreated, server({ ...ACCELERATOR, "cloud.google.com/compute-class": CLASS })])).toEqual([]);
                expect(
                    await verdict([autoCreated, server({ "cloud.google.com/compute-class": CLASS, "cloud.google.com/gke-spot": "true" })]),
                ).toEqual([]);
            });

            test.each<[string, Record<string, string>, RecordedResource]>([
                ["gke-spot", { "cloud.google.com/gke-spot": "true" }, pool("spot", { spot: true })],
                ["gke-provisioning spot", { "cloud.google.com/gke-provisioning": "spot" }, pool("spot", { spot: true })],
                ["gke-provisioning standard", { "cloud.google.com/gke-provisioning": "standard" }, pool("plain")],
                ["gke-flex-start", { "cloud.google.com/gke-flex-start": "true" }, pool("flex", { flexStart: true })],
                [
                    "a reservation by name",
                    { "cloud.google.com/reservation-name": "v6e-held" },
                    pool("reserved", {
                        reservationAffinity: {
                            consumeReservationType: "SPECIFIC_RESERVATION",
                            key: "compute.googleapis.com/reservation-name",
                            values: ["v6e-held"],
                        },
                    }),
                ],
                [
                    "a reservation shared from another project, by its bare name and owner, as GKE labels its nodes",
                    { "cloud.google.com/reservation-name": "v6e-res", "cloud.google.com/reservation-project": "shared-proj" },
                    pool("shared", {
                        reservationAffinity: {
                            consumeReservationType: "SPECIFIC_RESERVATION",
                            key: "compute.googleapis.com/reservation-name",
                            values: ["projects/shared-proj/reservations/v6e-res/reservationBlocks/block-1"],
                        },
                    }),
                ],
            ])("%s with a pool of that kind", async (_, selector, provider) => {
                expect(await verdict([pool("on-demand"), provider, server({ ...ACCELERATOR, ...selector })])).toEqual([]);
            });

            test("a class the stack does not declare when the stack declares no pool or class: they live in another stack", async () => {
                expect(await verdict([server({ ...ACCELERATOR, "cloud.google.com/compute-class": "shared-tpu" })])).toEqual([]);
            });
        });
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();

    describe("TPU selection: nodeSelector or required node affinity, pools declared or elsewhere", () => {
        test.each<[string, () => unknown, string[]]>([
            [
                "the TPU VM API's accelerator name in a nodeSelector",
                tpuWorkload({ nodeSelector: { ...TPU_SELECTOR, "cloud.google.com/gke-tpu-accelerator": "tpu-v6e" } }),
                ["mandatory require-tpu-selector-matching-pool @w"],
            ],
            [
                "the TPU VM API's accelerator name in a node affinity",
                tpuWorkload(tpuAffinity(["tpu-v6e"], ["2x2"])),
                ["mandatory require-tpu-selector-matching-pool @w"],
            ],
            [
                "a topology the stack's NodePool does not carry",
                programOf(tpuNodePool("ct6e-standard-8t"), tpuWorkload(tpuAffinity(["tpu-v6e-slice"], ["2x2"]))),
                ["mandatory require-tpu-selector-matching-pool @w"],
            ],
            [
                "a topology the Cluster's inline pool does not carry",
                programOf(
                    () =>
                        new gcp.container.Cluster("c", {
                            location: "europe-west4",
                            nodePools: [
                                { name: "tpu", nodeLocations: ["europe-west4-a"], nodeConfig: { machineType: "ct6e-standard-8t" } },
                            ],
                        }),
                    tpuWorkload({ nodeSelector: TPU_SELECTOR }),
                ),
                ["mandatory require-tpu-selector-matching-pool @w"],
            ],
            [
                "no pool in the stack and a topology v6e has none of",
                tpuWorkload({ nodeSelector: { ...TPU_SELECTOR, "cloud.google.com/gke-tpu-topology": "2x3" } }),
                ["mandatory require-tpu-selector-matching-pool @w"],
            ],
            [
                "no pool in the stack and no topology at all",
                tpuWorkload({ nodeSelector: { "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice" } }),
                ["mandatory require-tpu-selector-matching-pool @w"],
            ],
        ])("caught: %s", async (_, program, expected) => {
            expect(summaryOf("require-tpu-selector-matching-pool", await verdict(pack(), program))).toEqual(expected);
        });

        test.each<[string, () => unknown]>([
            [
                "a node affinity that matches the NodePool",
                programOf(tpuNodePool("ct6e-standard-4t"), tpuWorkload(tpuAffinity(["tpu-v6e-slice"], ["2x2"]))),
            ],
            [
                "a nodeSelector that matches the Cluster's inline pool",
                programOf(
                    () =>
                        new gcp.container.Cluster("c", {
                            location: "europe-west4-a",
                            nodePools: [{ name: "tpu", nodeConfig: { machineType: "ct6e-standard-4t" } }],
                        }),
                    tpuWorkload({ nodeSelector: TPU_SELECTOR }),
                ),
            ],
            [
                "a workloads-only stack selecting a real v6e shape",
                tpuWorkload(
                    { nodeSelector: { ...TPU_SELECTOR, "cloud.google.com/gke-tpu-topology": "2x4" } },
                    vllm({ resources: { limits: { "google.com/tpu": "8" } } }),
                ),
            ],
            [
                "another TPU generation, which is not this pack's to judge",
                tpuWorkload({
                    nodeSelector: {
                        "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
                        "cloud.google.com/gke-tpu-topology": "2x4",
                    },
                }),
            ],
        ])("passed: %s", async (_, program) => {
            expect(summaryOf("require-tpu-selector-matching-pool", await verdict(pack(), program))).toEqual([]);
        });
    });

    describe("TPU placement written the less common ways", () => {
        const term = (...expressions: Array<[string, string, string[]]>) => ({
            matchExpressions: expressions.map(([key, operator, values]) => ({ key, operator, values })),
        });
        const affinity = (...terms: Obj[]) => ({
            affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } },
        });
        const ACCELERATOR = "cloud.google.com/gke-tpu-accelerator";
        const TOPOLOGY = "cloud.google.com/gke-tpu-topology";
        const selectorFindings = async (program: () => unknown) =>
            summary((await verdict(pack(), program)).filter((finding) => finding.policy === "require-tpu-selector-matching-pool"));

        test("node affinity terms are alternatives: accelerator and topology in different terms leave either one open", async () => {
            expect(
                await selectorFindings(() =>
                    tpuDeployment(vllm(), affinity(term([ACCELERATOR, "In", ["tpu-v6e-slice"]]), term([TOPOLOGY, "In", ["2x2"]]))),
                ),
            ).toEqual(["mandatory require-tpu-selector-matching-pool @w"]);
            expect(
                await selectorFindings(() =>
                    tpuDeployment(vllm(), affinity(term([ACCELERATOR, "In", ["tpu-v6e-slice"]], [TOPOLOGY, "In", ["2x2"]]))),
                ),
            ).toEqual([]);
        });

        test("a nodeSelector and a node affinity that contradict each other never schedule", async () => {
            const findings = (
                await verdict(pack(), () =>
                    tpuDeployment(vllm(), {
                        nodeSelector: { ...TPU_SELECTOR, [ACCELERATOR]: "tpu-v6e" },
                        ...affinity(term([ACCELERATOR, "In", ["tpu-v6e-slice"]])),
                    }),
                )
            ).filter((finding) => finding.policy === "require-tpu-selector-matching-pool");
            expect(findings.map((finding) => finding.message.split("\n")[1])).toEqual([
                "w (spec.template.spec) can never be placed: its nodeSelector and required node affinity allow no common cloud.google.com/gke-tpu-accelerator.",
            ]);
        });

        test("an LLMInferenceService placed by its base config: judged merged, and left alone when the config is elsewhere", async () => {
            const base = (selector: Record<string, string>) =>
                new k8s.apiextensions.CustomResource("base", {
                    apiVersion: "serving.kserve.io/v1alpha2",
                    kind: "LLMInferenceServiceConfig",
                    metadata: meta("tpu-v6e-2x2"),
                    spec: { template: { nodeSelector: selector, tolerations: TPU_TOLERATIONS } },
                });
            const service = () => llmInferenceService({ baseRefs: [{ name: "tpu-v6e-2x2" }], template: { containers: [vllm()] } });
            expect(
                await selectorFindings(() => {
                    base(TPU_SELECTOR);
                    service();
                }),
            ).toEqual([]);
            expect(
                await selectorFindings(() => {
                    base({ ...TPU_SELECTOR, [ACCELERATOR]: "tpu-v6e" });
                    service();
                }),
            ).toEqual(["mandatory require-tpu-selector-matching-pool @qwen"]);
            expect(await selectorFindings(service)).toEqual([]);
        });
    });
});
