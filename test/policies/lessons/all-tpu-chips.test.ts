/**
 * Lesson all-tpu-chips, the whole category: in every kind that carries a pod template and every form that declares it,
 * a TPU container (or init container) that asks for fewer chips than its VM has, by requests or limits, as a string or
 * a number, by nodeSelector or node affinity, or whose request and limit disagree or lack a limit, is caught; every
 * container that takes all its VM's chips (a limit alone is enough) is left alone.
 */
import { ALL_TPU_CHIPS_MESSAGES as say, requireAllTpuChips as policy } from "../../../policies/requireAllTpuChips";
import { vllmContainer } from "../fixtures";
import { check } from "../harness";
import { DECLARING_FORMS, POD_KINDS, podObject } from "./podKinds";

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
                const expected = say.notAll("vllm", main, Number(limits), ["2x2"], 4);
                expect(await verdict(pod(selectorFor("2x2"), chips(requests, limits)))).toEqual([expected]);
                expect(await verdict(pod(affinityFor("2x2"), chips(requests, limits)))).toEqual([expected]);
            }
            expect(await verdict(pod(selectorFor("2x2"), chips("4", "8")))).toEqual([say.unequal("vllm", main, 4, 8)]);
            expect(await verdict(pod(selectorFor("2x2"), chips(4, "4.5")))).toEqual([say.unequal("vllm", main, 4, 4.5)]);
            expect(await verdict(pod(selectorFor("2x2"), chips("4", undefined)))).toEqual([say.noLimit("vllm", main, 4)]);
            const init = { name: "warmup", image: "docker.io/vllm/vllm-tpu:v0.27.0", ...chips("1", "1") };
            expect(await verdict(pod(selectorFor("2x2"), chips("4", "4"), [init]))).toEqual([
                say.notAll("vllm", `${podPath}.initContainers[0] (warmup)`, 1, ["2x2"], 4),
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
            say.notAll("vllm", `${podPath}.containers[0] (main)`, 1, ["2x2"], 4),
        ]);
        expect(await findings(pod(selectorFor("2x2"), chips(undefined, 4)))).toEqual([]);
    });
});
