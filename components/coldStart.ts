/**
 * How long a model server takes from pod creation to Ready, estimated per phase from the catalog's sourced figures
 * ({@link COLD_START_FIGURES}), and the startup budget and timeouts that follow from it. Pure: the program, the
 * outputs and `npm run bench:coldstart` all read the same numbers.
 */
import { COLD_START_FIGURES, dockerHubPath, isArtifactRegistryImage, tpuStartupBudgetSeconds } from "@gke-tpu-inference/facts";
import { ColdStartSettings, ModelServiceSettings } from "./settings";

/** Seconds per phase of one start, and their sum. */
export interface ColdStartPhases {
    /** Until the vLLM container runs: the image pulled, or streamed. */
    imagePull: number;
    /** Reading the weights: downloaded by KServe's storage initializer, or streamed from Cloud Storage into the server. */
    weights: number;
    /** vLLM's API server starting. */
    serverStart: number;
    /** XLA compilation, or loading what the compilation cache holds. */
    compile: number;
    total: number;
}

/** A model server's cold start: the first start of a model, and a warm one (a restart, scale-out or resume). */
export interface ColdStartEstimate {
    /** Nothing cached: the first start after `pulumi up`. */
    first: ColdStartPhases;
    /** The weights already in the stack's bucket and the compilation cache filled, on a node that has not pulled the image. */
    warm: ColdStartPhases;
    /** The startup probe's budget: twice the first start, in whole minutes, never below the catalog's minimum. */
    startupBudgetSeconds: number;
}

/** Whether the stack copies the model's `hf://` repository into its bucket. */
export function stagesWeights(model: Pick<ModelServiceSettings, "modelUri">, coldStart: Pick<ColdStartSettings, "stageWeights">): boolean {
    return coldStart.stageWeights && model.modelUri.startsWith("hf://");
}

/** Whether the server streams its weights from Cloud Storage (staged `hf://` models and `gs://` URIs) rather than KServe fetching them. */
export function streamsWeights(model: Pick<ModelServiceSettings, "modelUri">, coldStart: Pick<ColdStartSettings, "stageWeights">): boolean {
    return model.modelUri.startsWith("gs://") || stagesWeights(model, coldStart);
}

/**
 * Whether the TPU nodes stream the server's image: image streaming on, and the image in Artifact Registry, either pulled
 * through the stack's remote repository (a Docker Hub image) or already there.
 */
export function streamsImage(model: Pick<ModelServiceSettings, "image">, coldStart: Pick<ColdStartSettings, "imageStreaming">): boolean {
    return coldStart.imageStreaming && (dockerHubPath(model.image) !== undefined || isArtifactRegistryImage(model.image));
}

function phases(parts: Omit<ColdStartPhases, "total">): ColdStartPhases {
    const rounded = {
        imagePull: Math.round(parts.imagePull),
        weights: Math.round(parts.weights),
        serverStart: Math.round(parts.serverStart),
        compile: Math.round(parts.compile),
    };
    return { ...rounded, total: rounded.imagePull + rounded.weights + rounded.serverStart + rounded.compile };
}

/** The estimate for `model` with the stack's cold-start settings. */
export function estimateColdStart(
    model: Pick<ModelServiceSettings, "modelUri" | "image" | "weightsGb" | "layers">,
    coldStart: ColdStartSettings,
): ColdStartEstimate {
    const figures = COLD_START_FIGURES;
    const imagePull = streamsImage(model, coldStart) ? figures.streamedImageStartSeconds.value : figures.imagePullSeconds.value;
    const weights = streamsWeights(model, coldStart)
        ? model.weightsGb / figures.runaiStreamerGBps.value
        : figures.initializerPullSeconds.value + model.weightsGb / figures.huggingFaceGBps.value;
    const compile = model.layers * figures.compileSecondsPerLayer.value;
    const first = phases({ imagePull, weights, serverStart: figures.serverStartSeconds.value, compile });
    const warm = phases({
        imagePull,
        weights,
        serverStart: figures.serverStartSeconds.value,
        compile: coldStart.compilationCache ? compile * figures.cachedCompileFraction.value : compile,
    });
    return { first, warm, startupBudgetSeconds: tpuStartupBudgetSeconds(first.total) };
}

/** How long `pulumi up` waits for a model service to be Ready: TPU capacity found and nodes booted, then the startup budget. */
export function readyTimeoutSeconds(estimate: ColdStartEstimate): number {
    return TPU_NODE_PROVISIONING_SECONDS + estimate.startupBudgetSeconds;
}

/** What GKE may take to find TPU capacity and boot a node from zero, before any pod of the service starts. */
export const TPU_NODE_PROVISIONING_SECONDS = 30 * 60;

/** How long the copy Job of a `hf://` model may take: thrice the download at the field report's Hugging Face throughput, at least ten minutes. */
export function copyTimeoutSeconds(model: Pick<ModelServiceSettings, "weightsGb">): number {
    return Math.max(600, Math.ceil((3 * model.weightsGb) / COLD_START_FIGURES.huggingFaceGBps.value / 60) * 60);
}
