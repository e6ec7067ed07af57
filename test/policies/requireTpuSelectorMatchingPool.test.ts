import { requireTpuSelectorMatchingPool as policy } from "../../policies/requireTpuSelectorMatchingPool";
import { llmService, tpuPool, vllmContainer } from "./fixtures";
import { check, kube } from "./harness";

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
