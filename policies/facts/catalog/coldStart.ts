/**
 * A TPU server's cold start: the startup budget, the stack's estimate annotations, the field report's timeline and the
 * figures the estimate uses, and the bucket that keeps weights and compiled programs.
 */
import { FIELD_REPORTS } from "./sources";
import { KNOWN_MODELS } from "./vllm";

/** The shortest startup budget a TPU vLLM pod needs before liveness may act. Source: {@link SOURCES.seed003Startup}. */
export const MINIMUM_TPU_STARTUP_SECONDS = 600;

/**
 * The annotation on a model server's resource (the stack puts it on each LLMInferenceService) carrying its estimated
 * first start in seconds, from which the program sizes the startup probe and the pack checks it.
 */
export const COLD_START_ANNOTATION = "gke-tpu-inference/cold-start-seconds";

/**
 * Beside it, the same start with every figure at its pessimistic value ({@link PESSIMISTIC_COLD_START}) and, on a
 * multi-host slice, the whole wait for the group's hosts: the start the startup budget must still cover.
 */
export const COLD_START_PESSIMISTIC_ANNOTATION = "gke-tpu-inference/cold-start-pessimistic-seconds";

/**
 * How much worse than its estimate a start may turn out: each throughput at a quarter and each duration four times its
 * figure, the compilation cache and image streaming missing. A margin, not a measurement: three of the figures have no
 * published value (the Run:ai streamer's throughput from Cloud Storage, the cached compile, the streamed image start).
 */
export const PESSIMISTIC_COLD_START = { factor: 4 } as const;

/**
 * The startup budget a TPU server needs before liveness may act, in whole minutes, never below `minimum`: twice its
 * estimated first start (the estimate's own figures are partly assumptions), and at least its pessimistic start where
 * one is known.
 */
export function tpuStartupBudgetSeconds(
    start: { firstSeconds: number; pessimisticSeconds?: number },
    minimum: number = MINIMUM_TPU_STARTUP_SECONDS,
): number {
    return Math.max(minimum, Math.ceil(Math.max(2 * start.firstSeconds, start.pessimisticSeconds ?? 0) / 60) * 60);
}

/** A figure with where it comes from; `assumed` marks one no source gives, which the benchmark says plainly. */
export interface SourcedFigure {
    readonly value: number;
    readonly source: string;
    readonly assumed?: true;
}

/**
 * The field report's cold start of Qwen2.5-3B-Instruct on a v6e 2x2 VM ({@link FIELD_REPORTS.gkeDeployment}, issue #8): T+21 s storage initializer
 * image pulled, T+56 s weights downloaded from Hugging Face (35 s), T+86 s main container started (the vLLM image
 * pulled: 30 s), T+89 s API server up, T+180 s XLA compilation done (91 s), T+250 s Ready (a 240 s fixed probe delay).
 * Source: {@link SOURCES.seed003Startup}.
 */
export const FIELD_REPORT_COLD_START = {
    model: "Qwen/Qwen2.5-3B-Instruct",
    readySeconds: 250,
    initializerPullSeconds: 21,
    downloadSeconds: 35,
    imagePullSeconds: 30,
    serverStartSeconds: 3,
    compileSeconds: 91,
} as const;

/** Figures the cold-start estimate uses, each with its source or marked as an assumption. */
export const COLD_START_FIGURES = {
    huggingFaceGBps: {
        value: Number((KNOWN_MODELS[FIELD_REPORT_COLD_START.model].weightsGb / FIELD_REPORT_COLD_START.downloadSeconds).toFixed(3)),
        source: `${FIELD_REPORTS.gkeDeployment}, issue #8: 6.2 GB of Qwen2.5-3B-Instruct downloaded from Hugging Face in 35 s`,
    },
    initializerPullSeconds: {
        value: FIELD_REPORT_COLD_START.initializerPullSeconds,
        source: `${FIELD_REPORTS.gkeDeployment}, issue #8 (T+21 s)`,
    },
    imagePullSeconds: {
        value: FIELD_REPORT_COLD_START.imagePullSeconds,
        source: `${FIELD_REPORTS.gkeDeployment}, issue #8 (T+56 s to T+86 s)`,
    },
    serverStartSeconds: {
        value: FIELD_REPORT_COLD_START.serverStartSeconds,
        source: `${FIELD_REPORTS.gkeDeployment}, issue #8 (T+86 s to T+89 s)`,
    },
    compileSecondsPerLayer: {
        value: Number((FIELD_REPORT_COLD_START.compileSeconds / KNOWN_MODELS[FIELD_REPORT_COLD_START.model].layers).toFixed(3)),
        source: `${FIELD_REPORTS.gkeDeployment}, issue #8: 91 s for the 36 layers of Qwen2.5-3B-Instruct; compile time growing with the layers is an assumption`,
        assumed: true,
    },
    streamedImageStartSeconds: {
        value: 10,
        source: "assumption: image streaming starts the container while the image streams (see the image streaming docs); no published figure for this image",
        assumed: true,
    },
    runaiStreamerGBps: {
        value: 1,
        source: "assumption: Run:ai model streamer reading Cloud Storage in the VM's region; no published figure for a TPU v6e VM",
        assumed: true,
    },
    cachedCompileFraction: {
        value: 0.1,
        source: "assumption: loading compiled programs from the JAX cache takes a tenth of compiling them; no published figure",
        assumed: true,
    },
} as const satisfies Record<string, SourcedFigure>;

/**
 * Cloud Storage layout of the stack's bucket: weights per source under `weights/`, the compilation cache per model,
 * topology and image under `xla-cache/`, expired after `cacheLifetimeDays` as JAX advises. Source: {@link SOURCES.xlaCache}.
 */
export const COLD_START_STORAGE = {
    bucketSuffixBytes: 4,
    weightsPrefix: "weights",
    cachePrefix: "xla-cache",
    /** Written by the copy Job once every file of a revision is in the bucket; holds the revision. */
    markerObject: ".gke-tpu-inference-staged",
    cacheLifetimeDays: 30,
    softDeleteSeconds: 7 * 24 * 3600,
} as const;
