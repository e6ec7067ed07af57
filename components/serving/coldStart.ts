/**
 * How long a model server takes from pod creation to Ready, estimated per phase from the catalog's sourced figures
 * ({@link COLD_START_FIGURES}), and the startup budget and timeouts that follow from it. Pure: the program, the
 * outputs and `npm run bench:coldstart` all read the same numbers.
 */
import {
    COLD_START_FIGURES,
    PESSIMISTIC_COLD_START,
    TPU_MULTI_HOST,
    dockerHubPath,
    isArtifactRegistryImage,
    tpuStartupBudgetSeconds,
} from "@gke-tpu-inference/facts";
import { ColdStartSettings, ModelServiceSettings } from "../settings/models";

/** Seconds per phase of one start, and their sum. */
export interface ColdStartPhases {
    /** Until the vLLM container runs: the image pulled, or streamed. */
    imagePull: number;
    /** On a multi-host slice, until every host of the group has joined the leader's Ray cluster; 0 on one host. */
    groupFormation: number;
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
    /**
     * The first start with every figure at its pessimistic value ({@link PESSIMISTIC_COLD_START}) and, on a multi-host
     * slice, the leader's whole wait for its group: what the startup budget must still cover.
     */
    pessimistic: ColdStartPhases;
    /** The startup probe's budget: twice the first start and at least the pessimistic one, in whole minutes, never below the catalog's minimum. */
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
        groupFormation: Math.round(parts.groupFormation),
        weights: Math.round(parts.weights),
        serverStart: Math.round(parts.serverStart),
        compile: Math.round(parts.compile),
    };
    return { ...rounded, total: rounded.imagePull + rounded.groupFormation + rounded.weights + rounded.serverStart + rounded.compile };
}

/**
 * The leader's longest wait for its group: the script's timeout counts polls of 5 s, and each poll also runs `ray.init()`,
 * taken here to last as long as the sleep.
 */
const RAY_GROUP_LONGEST_WAIT_SECONDS = 2 * TPU_MULTI_HOST.rayGroupTimeoutSeconds;

/**
 * The estimate for `model` with the stack's cold-start settings, one replica spanning `hosts` TPU VMs. On a multi-host
 * slice every host streams all the weights (each keeps its own pipeline stage), and the group forms once every worker
 * runs: LeaderWorkerSet creates the workers once the leader exists, so their image pulls are counted once more after
 * the leader's.
 */
export function estimateColdStart(
    model: Pick<ModelServiceSettings, "modelUri" | "image" | "weightsGb" | "layers">,
    coldStart: ColdStartSettings,
    hosts = 1,
): ColdStartEstimate {
    const figures = COLD_START_FIGURES;
    const slow = PESSIMISTIC_COLD_START.factor;
    const streamsTheImage = streamsImage(model, coldStart);
    const weightsSeconds = (pessimism: number) =>
        streamsWeights(model, coldStart)
            ? (model.weightsGb / figures.runaiStreamerGBps.value) * pessimism
            : (figures.initializerPullSeconds.value + model.weightsGb / figures.huggingFaceGBps.value) * pessimism;
    const imagePull = streamsTheImage ? figures.streamedImageStartSeconds.value : figures.imagePullSeconds.value;
    const compile = model.layers * figures.compileSecondsPerLayer.value;
    const typical = {
        imagePull,
        groupFormation: hosts > 1 ? imagePull : 0,
        weights: weightsSeconds(1),
        serverStart: figures.serverStartSeconds.value,
    };
    const first = phases({ ...typical, compile });
    const warm = phases({ ...typical, compile: coldStart.compilationCache ? compile * figures.cachedCompileFraction.value : compile });
    const pessimistic = phases({
        imagePull: figures.imagePullSeconds.value * slow,
        groupFormation: hosts > 1 ? RAY_GROUP_LONGEST_WAIT_SECONDS : 0,
        weights: weightsSeconds(slow),
        serverStart: figures.serverStartSeconds.value * slow,
        compile: compile * slow,
    });
    return {
        first,
        warm,
        pessimistic,
        startupBudgetSeconds: tpuStartupBudgetSeconds({ firstSeconds: first.total, pessimisticSeconds: pessimistic.total }),
    };
}

/** How long `pulumi up` waits for a model service to be Ready: TPU capacity found and nodes booted, then the startup budget. */
export function readyTimeoutSeconds(estimate: ColdStartEstimate): number {
    return TPU_NODE_PROVISIONING_SECONDS + estimate.startupBudgetSeconds;
}

/** What GKE may take to find TPU capacity and boot a node from zero, before any pod of the service starts. */
export const TPU_NODE_PROVISIONING_SECONDS = 30 * 60;

/**
 * How long the copy Job of a `hf://` model may take: its weights downloaded in one stream at a quarter of the field
 * report's Hugging Face throughput (the Job runs several; uploads overlap other downloads), at least ten minutes, and the
 * time it may wait for its new grant to apply before the first byte.
 */
export function copyTimeoutSeconds(model: Pick<ModelServiceSettings, "weightsGb">, grantWaitSeconds: number): number {
    const seconds = (model.weightsGb * PESSIMISTIC_COLD_START.factor) / COLD_START_FIGURES.huggingFaceGBps.value;
    return Math.max(600, Math.ceil(seconds / 60) * 60) + grantWaitSeconds;
}
