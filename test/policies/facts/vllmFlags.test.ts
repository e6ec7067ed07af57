import { commandWords, shellWords, startsVllmServer, vllmFlags } from "@gke-tpu-inference/facts";

const flags = (command: unknown, args: unknown) =>
    vllmFlags(commandWords(command, args)).map(({ flag, value }) => (value === undefined ? flag : `${flag}=${value}`));

describe("vLLM command lines, as vLLM's parser reads them", () => {
    test("--flag value, --flag=value, underscores and short aliases all name the same flag", () => {
        expect(
            flags(
                ["vllm", "serve"],
                ["/mnt/models", "--tensor-parallel-size", "4", "--max_model_len=2048", "-tp", "8", "-q", "fp8", "--enable-prefix-caching"],
            ),
        ).toEqual([
            "--tensor-parallel-size=4",
            "--max-model-len=2048",
            "--tensor-parallel-size=8",
            "--quantization=fp8",
            "--enable-prefix-caching",
        ]);
    });

    test("one string holding a flag and its value is split like the shell splits it", () => {
        expect(flags([], ["--prefix-cache-block-size 16", "--served-model-name 'my model'"])).toEqual([
            "--prefix-cache-block-size=16",
            "--served-model-name=my model",
        ]);
    });

    test("flags inside sh -c scripts count, with continuations, quotes and comments handled as sh does", () => {
        const script = [
            "python3 -m vllm.entrypoints.openai.api_server \\",
            "  --model=/mnt/models \\",
            "  --tensor-parallel-size=4 \\",
            "  # REMOVED: --gpu-memory-utilization=0.9",
            '  --prefix_cache_block_size="16"',
        ].join("\n");
        const words = commandWords(["/bin/sh", "-c"], [script]);
        expect(startsVllmServer(words)).toBe(true);
        expect(vllmFlags(words).map((flag) => flag.flag)).toEqual(["--model", "--tensor-parallel-size", "--prefix-cache-block-size"]);
        expect(shellWords("exec vllm serve a; echo 'b c' && x\\ y")).toEqual(["exec", "vllm", "serve", "a", "echo", "b c", "x y"]);
    });

    test("recognises vLLM's server however it is started, and nothing else", () => {
        expect(startsVllmServer(["vllm", "serve", "/mnt/models"])).toBe(true);
        expect(startsVllmServer(["/usr/local/bin/vllm", "serve"])).toBe(true);
        expect(startsVllmServer(["python", "-m", "vllm.entrypoints.api_server"])).toBe(true);
        expect(startsVllmServer(["/app/epp", "--pool-name", "x"])).toBe(false);
        expect(startsVllmServer(["vllm", "bench", "serve"])).toBe(false);
    });
});
