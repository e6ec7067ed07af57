import { disallowGpuOnlyVllmFlags as policy } from "../../policies/disallowGpuOnlyVllmFlags";
import { llmService, vllmContainer } from "./fixtures";
import { UNKNOWN, check } from "./harness";

describe("disallow-gpu-only-vllm-flags", () => {
    test("passes TPU-valid flags", async () => {
        expect(await check(policy, [llmService(vllmContainer({ args: ["--enable-prefix-caching", "--max-model-len=2048"] }))])).toEqual([]);
    });

    test("fails --prefix-cache-block-size, as an arg or inside a shell line", async () => {
        const message =
            'qwen spec.template.containers[0] (main) passes --prefix-cache-block-size to vLLM on TPU: not a vLLM flag on any platform (vLLM sizes prefix-cache blocks with --block-size); vLLM exits with "unrecognized arguments".';
        expect(await check(policy, [llmService(vllmContainer({ args: ["--prefix-cache-block-size=16"] }))])).toEqual([
            { level: "mandatory", resource: "qwen", message },
        ]);
        const shell = vllmContainer({
            command: ["/bin/bash", "-c"],
            args: ["python3 -m vllm.entrypoints.openai.api_server --model=/mnt/models --prefix-cache-block-size 16"],
        });
        expect((await check(policy, [llmService(shell)])).map((violation) => violation.message)).toEqual([message]);
    });

    test("not applicable: GPU pods may pass it", async () => {
        expect(
            await check(policy, [
                llmService(vllmContainer({ resources: { limits: { "nvidia.com/gpu": "1" } }, args: ["--prefix-cache-block-size=16"] })),
            ]),
        ).toEqual([]);
    });

    test("preview: unknown args are not a violation", async () => {
        expect((await check(policy, [llmService(vllmContainer({ args: UNKNOWN }))]))[0].level).toBe("advisory");
    });
});
