import { requireAllTpuChips as policy } from "../../policies/requireAllTpuChips";
import { llmService, vllmContainer } from "./fixtures";
import { UNKNOWN, check } from "./harness";

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
        const service = llmService(vllmContainer({ resources: tpu("4", "4") }));
        const template = (service.inputs.spec as { template: Record<string, unknown> }).template;
        delete template.nodeSelector;
        template.affinity = {
            nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                    nodeSelectorTerms: [
                        { matchExpressions: [{ key: "cloud.google.com/gke-tpu-topology", operator: "In", values: ["2x4"] }] },
                    ],
                },
            },
        };
        expect((await check(policy, [service])).map((violation) => violation.message)).toEqual([
            "qwen spec.template.containers[0] (main) requests 4 google.com/tpu on a 2x4 VM, which has 8 chips; request all of them.",
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
