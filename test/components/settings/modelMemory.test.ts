import { KNOWN_MODELS } from "@gke-tpu-inference/facts";
import { kvCacheGb } from "../../../components/settings/modelMemory";

describe("kvCacheGb: one sequence's KV cache as vLLM on TPU pads it", () => {
    test("Phi-3's head width of 96 takes 128 lanes: 2.15 GB for 4096 tokens on four chips, not the unpadded 1.61 GB", () => {
        const phi = KNOWN_MODELS["microsoft/Phi-3-mini-4k-instruct"];
        expect(kvCacheGb(phi, 4096, 4)).toBeCloseTo(2.147, 3);
        // 32 layers x 32 heads x 96 wide x key and value x 2 bytes x 4096 tokens, without padding.
        expect((32 * 32 * 96 * 2 * 2 * 4096) / 1e9).toBeCloseTo(1.611, 3);
    });

    test("fp8 packs four values a word: at one KV head a chip (Qwen2.5-3B, two heads on four chips) it saves nothing", () => {
        const qwen = KNOWN_MODELS["Qwen/Qwen2.5-3B-Instruct"];
        expect(kvCacheGb(qwen, 32768, 4, 1)).toBe(kvCacheGb(qwen, 32768, 4, 2));
        // At eight heads a chip (Llama 3.1 70B on one chip) it halves the cache.
        const llama = KNOWN_MODELS["meta-llama/Llama-3.1-70B-Instruct"];
        expect(kvCacheGb(llama, 8192, 1, 1)).toBe(kvCacheGb(llama, 8192, 1, 2) / 2);
    });

    test("a head width of 64 packs a key and a value into 128 lanes", () => {
        const narrow = { layers: 1, kvHeads: 2, headDim: 64 };
        // Two heads on one chip: 2 (bf16 packing) x 128 lanes x 2 bytes per token.
        expect(kvCacheGb(narrow, 1e9, 1)).toBe(2 * 128 * 2);
        // Width 96 pads to 128 for the key and the value of each head.
        expect(kvCacheGb({ ...narrow, headDim: 96 }, 1e9, 1)).toBe(4 * 128 * 2);
    });
});
