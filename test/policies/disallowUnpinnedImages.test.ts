import { disallowUnpinnedImages as policy } from "../../policies/disallowUnpinnedImages";
import { llmService, vllmContainer } from "./fixtures";
import { UNKNOWN, check, kube } from "./harness";

describe("disallow-unpinned-images", () => {
    test("passes version tags and digests", async () => {
        expect(await check(policy, [llmService()])).toEqual([]);
        expect(await check(policy, [llmService(vllmContainer({ image: `vllm/vllm-tpu@sha256:${"a".repeat(64)}` }))])).toEqual([]);
    });

    test("fails latest and untagged images, in any container of any workload", async () => {
        expect(await check(policy, [llmService(vllmContainer({ image: "vllm/vllm-tpu:latest" }))])).toEqual([
            {
                level: "mandatory",
                resource: "qwen",
                message:
                    "qwen spec.template.containers[0] (main) runs image vllm/vllm-tpu:latest, which is not pinned to a version tag or digest.",
            },
        ]);
        const deployment = kube("apps/v1", "Deployment", "epp", {
            metadata: { name: "epp" },
            spec: { template: { spec: { containers: [{ name: "epp", image: "registry.local:5000/epp" }] } } },
        });
        expect((await check(policy, [deployment])).map((violation) => violation.message)).toEqual([
            "epp spec.template.spec.containers[0] (epp) runs image registry.local:5000/epp, which is not pinned to a version tag or digest.",
        ]);
    });

    test("not applicable: KServe templates and resources without containers", async () => {
        expect(
            await check(policy, [
                llmService(vllmContainer({ image: "{{ .Spec.Image }}" })),
                kube("v1", "Namespace", "ns", { metadata: { name: "ns" } }),
            ]),
        ).toEqual([]);
    });

    test("preview: an unknown image is not a violation", async () => {
        expect((await check(policy, [llmService(vllmContainer({ image: UNKNOWN }))]))[0].level).toBe("advisory");
    });
});
