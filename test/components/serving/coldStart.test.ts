import { dockerHubPath, isArtifactRegistryImage, tpuStartupBudgetSeconds } from "@gke-tpu-inference/facts";
import {
    copyTimeoutSeconds,
    estimateColdStart,
    readyTimeoutSeconds,
    stagesWeights,
    streamsImage,
    streamsWeights,
} from "../../../components/serving/coldStart";
import { ColdStartSettings } from "../../../components/settings/models";
import { start } from "../../coldStart";

const ON: ColdStartSettings = { stageWeights: true, compilationCache: true, imageStreaming: true };
const OFF: ColdStartSettings = { stageWeights: false, compilationCache: false, imageStreaming: false };
const QWEN = { modelUri: "hf://Qwen/Qwen2.5-3B-Instruct", image: "docker.io/vllm/vllm-tpu:v0.27.0", weightsGb: 6.2, layers: 36 };

describe("where a start reads from", () => {
    test.each([
        ["hf://Qwen/Qwen2.5-3B-Instruct", ON, true, true],
        ["hf://Qwen/Qwen2.5-3B-Instruct", OFF, false, false],
        ["gs://models/qwen", ON, false, true],
        ["gs://models/qwen", OFF, false, true],
        ["pvc://models/qwen", ON, false, false],
        ["s3://models/qwen", ON, false, false],
    ])("%s with staging %s: staged %s, streamed %s", (modelUri, coldStart, staged, streamed) => {
        expect(stagesWeights({ modelUri }, coldStart)).toBe(staged);
        expect(streamsWeights({ modelUri }, coldStart)).toBe(streamed);
    });

    test.each([
        ["docker.io/vllm/vllm-tpu:v0.27.0", "vllm/vllm-tpu:v0.27.0", true],
        ["vllm/vllm-tpu:v0.27.0", "vllm/vllm-tpu:v0.27.0", true],
        ["index.docker.io/vllm/vllm-tpu@sha256:" + "a".repeat(64), "vllm/vllm-tpu@sha256:" + "a".repeat(64), true],
        ["busybox:1.37", "library/busybox:1.37", true],
        ["europe-west4-docker.pkg.dev/acme/images/vllm-tpu:v0.27.0", undefined, true],
        ["ghcr.io/acme/vllm-tpu:v0.27.0", undefined, false],
        ["localhost:5000/vllm-tpu:v0.27.0", undefined, false],
        ["registry.example:5000/vllm/vllm-tpu:v0.27.0", undefined, false],
    ])("%s: Docker Hub path %s, streamed %s", (image, hubPath, streamed) => {
        expect(dockerHubPath(image)).toBe(hubPath);
        expect(streamsImage({ image }, ON)).toBe(streamed);
        expect(streamsImage({ image }, OFF)).toBe(false);
        expect(isArtifactRegistryImage(image)).toBe(image.includes("-docker.pkg.dev/"));
    });
});

describe("the estimate", () => {
    test("every part on: streamed image and weights, compiled programs loaded from the cache when warm", () => {
        expect(estimateColdStart(QWEN, ON)).toEqual({
            first: start(10, 6, 3, 91),
            warm: start(10, 6, 3, 9),
            // The image pulled whole, each throughput at a quarter, each duration four times, the cache missing.
            pessimistic: start(120, 25, 12, 364),
            startupBudgetSeconds: 600,
        });
    });

    test("every part off: the field report's phases without its fixed probe delay, and a warm start no faster", () => {
        const estimate = estimateColdStart(QWEN, OFF);
        // 21 s for the initializer's image, 6.2 GB at the field report's 0.177 GB/s, the image pulled whole.
        expect(estimate.first).toEqual(start(30, 56, 3, 91));
        expect(estimate.warm).toEqual(estimate.first);
    });

    test("each part counts alone: the cache without staging, an image outside Artifact Registry", () => {
        expect(estimateColdStart(QWEN, { ...OFF, compilationCache: true }).warm).toEqual(start(30, 56, 3, 9));
        expect(estimateColdStart({ ...QWEN, image: "ghcr.io/acme/vllm-tpu:v0.27.0" }, ON).first.imagePull).toBe(30);
        expect(estimateColdStart({ ...QWEN, modelUri: "gs://models/qwen" }, OFF).first.weights).toBe(6);
    });

    test("the startup budget: twice the first start and at least the pessimistic one, in whole minutes, never below ten minutes", () => {
        expect(tpuStartupBudgetSeconds({ firstSeconds: 110 })).toBe(600);
        expect(tpuStartupBudgetSeconds({ firstSeconds: 301 })).toBe(660);
        expect(tpuStartupBudgetSeconds({ firstSeconds: 356 })).toBe(720);
        expect(tpuStartupBudgetSeconds({ firstSeconds: 110, pessimisticSeconds: 1506 })).toBe(1560);
        expect(tpuStartupBudgetSeconds({ firstSeconds: 110 }, 900)).toBe(900);
        const large = estimateColdStart({ ...QWEN, weightsGb: 141.2, layers: 80 }, ON);
        expect(large.first).toEqual(start(10, 141, 3, 202));
        expect(large.pessimistic).toEqual(start(120, 565, 12, 809));
        expect(large.startupBudgetSeconds).toBe(1560);
    });

    test("a multi-host group: the leader waits for every host to join Ray, at worst the script's whole timeout of polls", () => {
        const slice = estimateColdStart({ ...QWEN, weightsGb: 141.2, layers: 80 }, ON, 4);
        // Every host streams all the weights, alongside the others; the workers pull the image while the leader does.
        expect(slice.first).toEqual(start(10, 141, 3, 202, 10));
        // 60 polls of 5 s, each with a ray.init() taken as long again.
        expect(slice.pessimistic).toEqual(start(120, 565, 12, 809, 600));
        expect(slice.startupBudgetSeconds).toBe(2160);
    });

    test("a streamer at a quarter of the assumed throughput still starts within the budget, for every size the catalog knows", () => {
        for (const model of [QWEN, { ...QWEN, weightsGb: 16.1, layers: 32 }, { ...QWEN, weightsGb: 141.2, layers: 80 }]) {
            for (const hosts of [1, 4]) {
                const estimate = estimateColdStart(model, ON, hosts);
                const slowStreamer = estimate.first.total - estimate.first.weights + model.weightsGb / 0.25 + (hosts > 1 ? 600 : 0);
                expect(estimate.startupBudgetSeconds).toBeGreaterThanOrEqual(slowStreamer);
            }
        }
    });

    test("pulumi up waits 30 minutes for TPU capacity, then the budget; the copy Job one download at a quarter of its speed, at least ten minutes, and its wait for a grant", () => {
        expect(readyTimeoutSeconds(estimateColdStart(QWEN, ON))).toBe(1800 + 600);
        // Ten minutes at least, and the ten the Job may wait for its grant to apply.
        expect(copyTimeoutSeconds({ weightsGb: 6.2 }, 600)).toBe(1200);
        // 141.2 GB at a quarter of 0.177 GB/s = 3191 s, rounded up to whole minutes.
        expect(copyTimeoutSeconds({ weightsGb: 141.2 }, 600)).toBe(3840);
    });
});
