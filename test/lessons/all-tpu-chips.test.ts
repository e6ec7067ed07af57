/**
 * Lesson all-tpu-chips, the whole category: in every kind that carries a pod template and every form that declares it,
 * a TPU container (or init container) that asks for fewer chips than its VM has, by requests or limits, as a string or
 * a number, by nodeSelector or node affinity, or whose request and limit disagree or lack a limit, is caught; every
 * container that takes all its VM's chips (a limit alone is enough) is left alone.
 */
import { ALL_TPU_CHIPS_MESSAGES as say, requireAllTpuChips as policy } from "../../policies/requireAllTpuChips";
import { llmService, vllmContainer } from "../support/fixtures";
import { UNKNOWN, check } from "../support/harness";
import { TPU_SELECTOR, tpuAffinity, tpuWorkload, vllm } from "../support/lessonObjects";
import { summary, verdict } from "../support/pack";
import { DECLARING_FORMS, POD_KINDS, podObject } from "../support/podKinds";
import { useWorkerPack } from "../workerPack";

describe("the rule", () => {
    const tpu = (requests: string, limits: string) => ({ requests: { "google.com/tpu": requests }, limits: { "google.com/tpu": limits } });

    describe("require-all-tpu-chips", () => {
        test("passes every chip of the VM", async () => {
            expect(await check(policy, [llmService()])).toEqual([]);
            expect(await check(policy, [llmService(vllmContainer({ resources: tpu("8", "8") }), { topology: "2x4" })])).toEqual([]);
        });

        test("fails part of the VM, and requests that differ from limits", async () => {
            expect(await check(policy, [llmService(vllmContainer({ resources: tpu("2", "2") }))])).toEqual([
                {
                    level: "mandatory",
                    resource: "qwen",
                    message:
                        "qwen spec.template.containers[0] (main) requests 2 google.com/tpu on a 2x2 VM, which has 4 chips; request all of them.",
                },
            ]);
            expect(
                (await check(policy, [llmService(vllmContainer({ resources: tpu("4", "8") }))])).map((violation) => violation.message),
            ).toEqual(["qwen spec.template.containers[0] (main) requests 4 and limits 8 google.com/tpu; they must be equal."]);
        });

        test("a limit alone is a request of the same count (Kubernetes copies it), and a topology chosen by node affinity counts", async () => {
            expect(await check(policy, [llmService(vllmContainer({ resources: { limits: { "google.com/tpu": "4" } } }))])).toEqual([]);
            const service = llmService(vllmContainer({ resources: tpu("2", "2") }));
            const template = (service.inputs.spec as { template: Record<string, unknown> }).template;
            delete template.nodeSelector;
            template.affinity = {
                nodeAffinity: {
                    requiredDuringSchedulingIgnoredDuringExecution: {
                        nodeSelectorTerms: [
                            { matchExpressions: [{ key: "cloud.google.com/gke-tpu-topology", operator: "In", values: ["2x2"] }] },
                        ],
                    },
                },
            };
            expect((await check(policy, [service])).map((violation) => violation.message)).toEqual([
                "qwen spec.template.containers[0] (main) requests 2 google.com/tpu on a 2x2 VM, which has 4 chips; request all of them.",
            ]);
        });

        test("not applicable: containers without TPU", async () => {
            expect(await check(policy, [llmService(vllmContainer({ resources: { requests: { cpu: "1" } } }))])).toEqual([]);
        });

        test("preview: unknown resources are not a violation", async () => {
            expect(
                (
                    await check(policy, [
                        llmService(
                            vllmContainer({ resources: { requests: { "google.com/tpu": UNKNOWN }, limits: { "google.com/tpu": "4" } } }),
                        ),
                    ])
                )[0].level,
            ).toBe("advisory");
        });
    });
});

describe("every spelling", () => {
    type Obj = Record<string, unknown>;

    const TPU = "google.com/tpu";
    const selectorFor = (topology: string) => ({
        nodeSelector: { "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": topology },
    });
    const affinityFor = (...topologies: string[]) => ({
        nodeSelector: { "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice" },
        affinity: {
            nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                    nodeSelectorTerms: [
                        { matchExpressions: [{ key: "cloud.google.com/gke-tpu-topology", operator: "In", values: topologies }] },
                    ],
                },
            },
        },
    });
    const chips = (requests: unknown, limits: unknown): Obj => ({
        resources: {
            ...(requests !== undefined ? { requests: { cpu: "8", [TPU]: requests } } : {}),
            ...(limits !== undefined ? { limits: { [TPU]: limits } } : {}),
        },
    });
    /** A pod placed by `placement` whose server takes `resources`, with init containers `init`. */
    const pod = (placement: Obj, resources: Obj, init: Obj[] = []): Obj => ({
        ...placement,
        containers: [vllmContainer(resources)],
        ...(init.length > 0 ? { initContainers: init } : {}),
    });

    describe("lesson all-tpu-chips: every way a TPU container leaves chips of its VM unrequested", () => {
        describe.each(POD_KINDS)("%s %s at %s", (apiVersion, kind, body, podPath) => {
            const main = `${podPath}.containers[0] (main)`;
            const verdict = async (spec: Obj) =>
                (await check(policy, [podObject(apiVersion, kind, body, spec)])).map((finding) => finding.message);

            test("caught: fewer chips by requests and limits, string or number, a limit alone; unequal; no limit; an init container", async () => {
                for (const [requests, limits] of [
                    ["1", "1"],
                    [1, 1],
                    [undefined, "2"],
                    [undefined, 2],
                ]) {
                    const expected = say.notAll("vllm", main, Number(limits), ["2x2"], [4]);
                    expect(await verdict(pod(selectorFor("2x2"), chips(requests, limits)))).toEqual([expected]);
                    expect(await verdict(pod(affinityFor("2x2"), chips(requests, limits)))).toEqual([expected]);
                }
                expect(await verdict(pod(selectorFor("2x2"), chips("4", "8")))).toEqual([say.unequal("vllm", main, 4, 8)]);
                expect(await verdict(pod(selectorFor("2x2"), chips(4, "4.5")))).toEqual([say.unequal("vllm", main, 4, 4.5)]);
                expect(await verdict(pod(selectorFor("2x2"), chips("4", undefined)))).toEqual([say.noLimit("vllm", main, 4)]);
                const init = { name: "warmup", image: "docker.io/vllm/vllm-tpu:v0.27.0", ...chips("1", "1") };
                expect(await verdict(pod(selectorFor("2x2"), chips("4", "4"), [init]))).toEqual([
                    say.notAll("vllm", `${podPath}.initContainers[0] (warmup)`, 1, ["2x2"], [4]),
                ]);
            });

            test("clean: all the VM's chips by requests and limits or a limit alone, string or number; a placement the pack cannot size", async () => {
                for (const [requests, limits] of [
                    ["4", "4"],
                    [4, 4],
                    [4, "4"],
                    [undefined, "4"],
                ]) {
                    expect(await verdict(pod(selectorFor("2x2"), chips(requests, limits)))).toEqual([]);
                    expect(await verdict(pod(affinityFor("2x2"), chips(requests, limits)))).toEqual([]);
                }
                expect(await verdict(pod(selectorFor("1x1"), chips("1", "1")))).toEqual([]);
                expect(await verdict(pod(selectorFor("4x4"), chips(undefined, 4)))).toEqual([]);
                // 2x4 is one 8-chip VM or two 4-chip VMs: either VM's chips, and nothing else.
                expect(await verdict(pod(selectorFor("2x4"), chips(undefined, 4)))).toEqual([]);
                expect(await verdict(pod(selectorFor("2x4"), chips(undefined, 8)))).toEqual([]);
                expect(await verdict(pod(selectorFor("2x4"), chips(undefined, 2)))).toEqual([say.notAll("vllm", main, 2, ["2x4"], [4, 8])]);
                // Topologies of VMs of one size: their chips, whichever it lands on.
                expect(await verdict(pod(affinityFor("2x2", "4x4"), chips(undefined, 2)))).toEqual([
                    say.notAll("vllm", main, 2, ["2x2", "4x4"], [4]),
                ]);
                // Topologies of VMs of different sizes, or none: any count may be right.
                expect(await verdict(pod(affinityFor("1x1", "2x2"), chips(undefined, 1)))).toEqual([]);
                expect(await verdict(pod({}, chips(undefined, 1)))).toEqual([]);
                expect(await verdict(pod(selectorFor("2x2"), { resources: { limits: { cpu: "1" } } }))).toEqual([]);
            });
        });

        test.each(DECLARING_FORMS)("declared as %s: caught and clean alike", async (_, declare) => {
            const [apiVersion, kind, body, podPath] = POD_KINDS[3];
            const findings = async (resources: Obj) =>
                (await check(policy, declare(podObject(apiVersion, kind, body, resources)))).map((finding) => finding.message);
            expect(await findings(pod(selectorFor("2x2"), chips(undefined, 1)))).toEqual([
                say.notAll("vllm", `${podPath}.containers[0] (main)`, 1, ["2x2"], [4]),
            ]);
            expect(await findings(pod(selectorFor("2x2"), chips(undefined, 4)))).toEqual([]);
        });
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();

    describe("chips, however the pod selects its TPU", () => {
        test("chips: a limit alone is the request; a request short of the VM's chips, or unequal to the limit, is caught", async () => {
            expect(
                summary(
                    await verdict(
                        pack(),
                        tpuWorkload({ nodeSelector: TPU_SELECTOR }, vllm({ resources: { limits: { "google.com/tpu": "4" } } })),
                    ),
                ),
            ).toEqual([]);
            expect(
                summary(
                    await verdict(
                        pack(),
                        tpuWorkload(tpuAffinity(["tpu-v6e-slice"], ["2x2"]), vllm({ resources: { limits: { "google.com/tpu": "2" } } })),
                    ),
                ),
            ).toEqual(["mandatory require-all-tpu-chips @w"]);
            expect(
                summary(
                    await verdict(
                        pack(),
                        tpuWorkload(
                            { nodeSelector: TPU_SELECTOR },
                            vllm({ resources: { requests: { "google.com/tpu": "4" }, limits: { "google.com/tpu": "8" } } }),
                        ),
                    ),
                ),
            ).toEqual(["mandatory require-all-tpu-chips @w"]);
        });
    });
});
