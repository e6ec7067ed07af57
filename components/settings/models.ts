/**
 * The model services the stack runs: each entry's fields, checked and documented by one schema (its descriptions
 * feed docs/reference/settings.md), the parts of a fast cold start, and pausing every service at once.
 */
import { z } from "zod";
import {
    AUTOSCALING_SIGNALS,
    AutoscalingSignal,
    DEFAULT_MODEL,
    GKE_LIMITS,
    IMAGES,
    KNOWN_MODELS,
    KSERVE_CHILDREN,
    TPU_REJECTED_VLLM_FLAGS,
    commandWords,
    imageReferenceProblem,
    vllmFlags,
} from "@gke-tpu-inference/facts";
import { parseGsUri } from "../lib/gcsUri";
import { suggestion } from "../lib/suggest";
import { DNS_LABEL, Setting, ValuesOf, bool, oneOf, says, wholeNumber } from "./setting";

/** The field reports' serving patterns: 1 is the baseline, 3 the prefix-cache scale-out. */
export type ServingPattern = "pattern1" | "pattern3";
const SERVING_PATTERNS: readonly ServingPattern[] = ["pattern1", "pattern3"];

/** How a model service scales: between `minReplicas` and `maxReplicas`, keeping `signal` near `target` per replica. */
export interface ModelAutoscaling {
    minReplicas: number;
    maxReplicas: number;
    signal: AutoscalingSignal;
    target: number;
}

/** One LLMInferenceService, validated. */
export interface ModelServiceSettings {
    /** DNS label, unique in the stack; also the path prefix through the Gateway. */
    name: string;
    pattern: ServingPattern;
    /** Where the weights come from: `hf://org/model` (staged in the stack's bucket, or fetched by KServe), `gs://bucket/path` (streamed), `s3://`, `pvc://`, `oci://` (KServe). */
    modelUri: string;
    /** The name clients send as `model`. */
    modelName: string;
    /** vLLM replicas; each takes one TPU VM of the pool's shape. With autoscaling, its minimum. */
    replicas: number;
    /** Replicas between a minimum and a maximum on an inference signal, instead of a fixed number. */
    autoscaling?: ModelAutoscaling;
    /** vLLM TPU image, pinned. */
    image: string;
    maxModelLen: number;
    /** Extra vLLM flags, after the ones the builder sets. */
    extraArgs: string[];
    /** Size of the weights in GB and the model's layers, for the cold-start estimate: from the catalog or the entry. */
    weightsGb: number;
    layers: number;
}

/** What makes a cold start fast, each part on by default (docs/explanation/cold-start.md). */
export interface ColdStartSettings {
    /** Copy `hf://` models into the stack's bucket once and stream them from there. */
    stageWeights: boolean;
    /** Keep the XLA compilation cache in the stack's bucket. */
    compilationCache: boolean;
    /** Image streaming on the TPU pool, and Docker Hub images pulled through an Artifact Registry remote repository. */
    imageStreaming: boolean;
}

/** Flags the service builder derives from settings; setting them again in extraArgs would contradict it. */
const BUILDER_FLAGS: Readonly<Record<string, string>> = {
    "--tensor-parallel-size": "it always equals the chips per VM",
    "--pipeline-parallel-size": "it always equals the slice's hosts (1 on a single-host shape)",
    "--max-model-len": "use maxModelLen",
    "--port": "vLLM serves on 8000, which the probes and health checks use",
    "--host": "vLLM listens on every interface",
    "--served-model-name": "use modelName",
    "--enable-prefix-caching": "pattern3 turns it on",
    "--shutdown-timeout": "the builder sizes the drain to the pod's grace period",
    "--disable-access-log-for-endpoints": "the builder already quiets /health, /metrics and /ping",
    "--load-format": "the builder streams weights from Cloud Storage with runai_streamer",
};

/** The flags extraArgs may not hold: those vLLM on TPU rejects, and those the builder sets. */
const REFUSED_FLAGS = [...Object.keys(TPU_REJECTED_VLLM_FLAGS), ...Object.keys(BUILDER_FLAGS)].join(", ");

const MODEL_URI = /^(hf|gs|s3|pvc|oci):\/\/\S+$/;

/** The signal an autoscaled service scales on when its entry names none. */
const DEFAULT_AUTOSCALING_SIGNAL: AutoscalingSignal = "queue";

/** What the settings reference says of a field of a model entry; `default` only where the schema has no default value of its own. */
interface FieldDoc {
    description: string;
    allowed: string;
    default?: string;
}
const FIELD_DOCS = z.registry<FieldDoc>();

/** One model service entry; a field's problems are reported in the order of its fields here. */
const modelSchema = z.strictObject({
    name: z
        .string({ error: says("is not a non-empty string", "a DNS-1123 label") })
        .refine((value) => DNS_LABEL.test(value) && value.length <= KSERVE_CHILDREN.maxServiceNameLength, {
            error: says(
                `is not a DNS-1123 label of at most ${KSERVE_CHILDREN.maxServiceNameLength} characters`,
                "lowercase letters, digits and hyphens, starting and ending with a letter or digit (KServe derives longer names from it)",
            ),
        })
        .register(FIELD_DOCS, {
            default: "(required)",
            description: "Name of the LLMInferenceService, unique in the stack; the path prefix through the Gateway.",
            allowed: `a DNS-1123 label of at most ${KSERVE_CHILDREN.maxServiceNameLength} characters`,
        }),
    pattern: z
        .string({ error: says("is not a string", SERVING_PATTERNS.join(", ")) })
        .superRefine((value, ctx) => {
            if (!(SERVING_PATTERNS as readonly string[]).includes(value)) {
                // Pattern 2 routes between services, so it is the stack's switch rather than one service's pattern.
                const problem =
                    value === "pattern2"
                        ? "is a stack's pattern (several services behind one endpoint): set bodyBasedRouting to true and give each service pattern1 or pattern3"
                        : "is not a serving pattern";
                ctx.addIssue({ code: "custom", message: says(problem, SERVING_PATTERNS.join(", ")) });
            }
        })
        .register(FIELD_DOCS, {
            default: "(required)",
            description: "pattern1: one baseline replica; pattern3: prefix-cache scale-out with prefix-cache-aware routing.",
            allowed: SERVING_PATTERNS.join(", "),
        }),
    modelUri: z
        .string({ error: says("is not a non-empty string", "a string") })
        .regex(MODEL_URI, { error: says("is not a model URI", "hf://, gs://, s3://, pvc:// or oci:// followed by a path") })
        // The server's read grant is scoped to the model's folder; a whole bucket has none to scope it to.
        .refine((uri) => !uri.startsWith("gs://") || parseGsUri(uri).prefix !== "", {
            error: says(
                "names a whole bucket, and the server's read grant is scoped to the model's folder",
                "gs://BUCKET/FOLDER, the folder holding the model's config.json and safetensors",
            ),
        })
        .default(DEFAULT_MODEL.uri)
        .register(FIELD_DOCS, {
            description:
                "Where the weights come from: hf:// is staged in the stack's bucket and streamed (or, with stageWeights off, fetched by KServe), gs:// is streamed, s3://, pvc:// and oci:// are fetched by KServe.",
            allowed: "hf://, gs://, s3://, pvc:// or oci:// followed by a path",
        }),
    weightsGb: z
        .number({ error: says("is not a number", "the size of the model's weights in GB, more than 0") })
        .positive({ error: says("is not more than 0", "the size of the model's weights in GB, more than 0") })
        .optional()
        .register(FIELD_DOCS, {
            default: "from the catalog",
            description:
                "Size of the model's weights in GB, for the cold-start estimate and the startup budget; required for a model the catalog does not know.",
            allowed: "a number more than 0",
        }),
    layers: wholeNumber(1, 1000, "the model's transformer layers").optional().register(FIELD_DOCS, {
        default: "from the catalog",
        description: "The model's transformer layers, for the compilation estimate; required for a model the catalog does not know.",
        allowed: "a whole number from 1 to 1000",
    }),
    modelName: z
        .string({ error: says("is not a non-empty string", "a string") })
        .min(1, { error: says("is not a non-empty string", "a string") })
        .optional()
        .register(FIELD_DOCS, {
            default: "the URI's path",
            description: "The name clients send as `model`.",
            allowed: "a non-empty string",
        }),
    replicas: wholeNumber(1, GKE_LIMITS.nodesPerPoolZone, "one TPU VM each, within GKE's nodes per node pool zone")
        .optional()
        .register(FIELD_DOCS, {
            default: "1 (pattern1), 2 (pattern3)",
            description: "vLLM replicas, one TPU VM each; pattern3 needs at least 2.",
            allowed: `1 to ${GKE_LIMITS.nodesPerPoolZone}, at most tpuMaxNodes in total`,
        }),
    autoscaling: z
        .strictObject(
            {
                minReplicas: wholeNumber(1, GKE_LIMITS.nodesPerPoolZone, "TPU VMs kept serving; paused is the zero state"),
                maxReplicas: wholeNumber(1, GKE_LIMITS.nodesPerPoolZone, "one TPU VM each, within GKE's nodes per node pool zone"),
                signal: oneOf(Object.keys(AUTOSCALING_SIGNALS), "is not an autoscaling signal").default(DEFAULT_AUTOSCALING_SIGNAL),
                target: z
                    .number({ error: says("is not a number", "the signal's value per replica, more than 0") })
                    .positive({ error: says("is not more than 0", "the signal's value per replica, more than 0") })
                    .optional(),
            },
            { error: says("is not an autoscaling object", '{"minReplicas": 1, "maxReplicas": 3, "signal": "queue"}') },
        )
        .optional()
        .register(FIELD_DOCS, {
            default: "(none: fixed replicas)",
            description: `Scale between minReplicas and maxReplicas on signal (${Object.keys(AUTOSCALING_SIGNALS).join(" or ")}, default ${DEFAULT_AUTOSCALING_SIGNAL}) near target per replica (default ${Object.entries(
                AUTOSCALING_SIGNALS,
            )
                .map(([signal, { defaultTarget }]) => `${signal} ${defaultTarget}`)
                .join(", ")}); instead of replicas.`,
            allowed:
                "minReplicas 1 or more (2 for pattern3) up to maxReplicas; maxReplicas of all services within tpuMaxNodes; target within the signal's range",
        }),
    image: z
        .string({ error: says("is not a non-empty string", "a string") })
        .superRefine((value, ctx) => {
            const problem = imageReferenceProblem(value);
            if (problem !== undefined) {
                ctx.addIssue({
                    code: "custom",
                    message: says(
                        problem,
                        "an image with a release tag (a version, a date or a commit; not latest, a branch or a variant alone), or a digest (@sha256: and 64 hex digits)",
                    ),
                });
            }
        })
        .default(IMAGES.vllmTpu)
        .register(FIELD_DOCS, { description: "vLLM TPU image.", allowed: "a release tag (a version, a date or a commit), or a digest" }),
    maxModelLen: wholeNumber(1, Number.MAX_SAFE_INTEGER, "tokens").default(2048).register(FIELD_DOCS, {
        description: "vLLM's --max-model-len; its KV cache must fit one replica's TPU memory beside the weights.",
        allowed: "a whole number of tokens, at least 1, within a known model's context",
    }),
    extraArgs: z
        .array(z.string(), { error: says("is not a list of strings", 'e.g. ["--gpu-memory-utilization=0.9"]') })
        .superRefine((args, ctx) => {
            // Read as vLLM reads them: underscores, short aliases and `flag value` strings all count.
            for (const { flag, raw } of vllmFlags(commandWords([], args))) {
                const reason = TPU_REJECTED_VLLM_FLAGS[flag] ?? BUILDER_FLAGS[flag];
                if (reason !== undefined) {
                    ctx.addIssue({
                        code: "custom",
                        message: `contains ${JSON.stringify(raw)}: ${says(reason, `flags other than ${REFUSED_FLAGS}`)}`,
                    });
                }
            }
        })
        .default([])
        .register(FIELD_DOCS, { description: "More vLLM flags, after the builder's.", allowed: `flags other than ${REFUSED_FLAGS}` }),
});

/** A model entry as the schema checked it, before the catalog and the pattern fill in what it leaves out. */
export type ModelEntry = z.output<typeof modelSchema>;

type ModelField = keyof typeof modelSchema.shape;

/** Every field, in the order the settings reference and a misspelt field's message list them. */
const MODEL_FIELDS = Object.keys({
    name: true,
    pattern: true,
    modelUri: true,
    modelName: true,
    replicas: true,
    image: true,
    maxModelLen: true,
    extraArgs: true,
    weightsGb: true,
    layers: true,
    autoscaling: true,
} satisfies Record<ModelField, true>) as ModelField[];

/** The message of a field no model entry has, with the nearest one. */
export function unknownModelFieldProblem(field: string): string {
    return `is not a model service setting; allowed: ${MODEL_FIELDS.join(", ")}${suggestion(field, MODEL_FIELDS)}`;
}

/** What each field of a model entry means, allows and defaults to, for the settings reference. */
export function modelFieldDocs(): Array<{ field: ModelField; default: string; description: string; allowed: string }> {
    return MODEL_FIELDS.map((field) => {
        const schema = modelSchema.shape[field];
        const doc = FIELD_DOCS.get(schema)!;
        const value: unknown = schema instanceof z.ZodDefault ? schema.def.defaultValue : doc.default;
        return {
            field,
            default: typeof value === "string" ? value : JSON.stringify(value),
            description: doc.description,
            allowed: doc.allowed,
        };
    });
}

/** Pausing and the model services, in the order the settings reference lists them. */
export const MODEL_SETTINGS = {
    paused: {
        type: "boolean",
        default: false,
        description: "Stops every model service (KServe keeps their definitions) and lets the TPU pool scale to zero (see Day 2).",
        allowed: "true, false",
        schema: bool(),
    },
    stageWeights: {
        type: "boolean",
        default: true,
        description:
            "Copy each hf:// model into the stack's bucket once (a Job per model) and stream it from there; off: KServe's storage initializer downloads it on every start.",
        allowed: "true, false",
        schema: bool(),
    },
    compilationCache: {
        type: "boolean",
        default: true,
        description:
            "Keep vLLM's XLA compilation cache in the stack's bucket, per model, topology and image, so a restart compiles nothing it compiled before.",
        allowed: "true, false",
        schema: bool(),
    },
    imageStreaming: {
        type: "boolean",
        default: true,
        description:
            "GKE image streaming on the TPU pool (it streams images in Artifact Registry), and Docker Hub images pulled through a remote repository in the region; off for teams with their own registry mirror.",
        allowed: "true, false",
        schema: bool(),
    },
    models: {
        type: "array<object>",
        default: [],
        description:
            "Model services to run (fields below); all their replicas together must fit tpuMaxNodes; empty leaves the TPU pool idle.",
        allowed: 'a list of model services, e.g. [{"name": "qwen", "pattern": "pattern1"}]',
        schema: z.array(modelSchema, { error: says("is not a list of model services", 'e.g. [{"name": "qwen", "pattern": "pattern1"}]') }),
    },
} as const satisfies Record<string, Setting>;

type ModelValues = ValuesOf<typeof MODEL_SETTINGS>;

/** The name clients send: the entry's, else the URI's path. */
export function modelNameOf(model: ModelEntry): string {
    return model.modelName ?? model.modelUri.replace(/^[a-z0-9]+:\/\//, "");
}

/** The catalog's figures for the model, by its name or its Hugging Face repository. */
export function knownModel(model: ModelEntry) {
    const hfRepository = model.modelUri.startsWith("hf://") ? model.modelUri.slice("hf://".length) : undefined;
    return KNOWN_MODELS[modelNameOf(model)] ?? (hfRepository !== undefined ? KNOWN_MODELS[hfRepository] : undefined);
}

/** The replicas a service starts with: its autoscaling minimum, its own count, else one (two for prefix-cache routing). */
export function replicasOf(model: ModelEntry): number {
    return model.autoscaling?.minReplicas ?? model.replicas ?? (model.pattern === "pattern3" ? 2 : 1);
}

/**
 * A model the catalog knows to be gated on Hugging Face, fetched from there (the copy Job, or KServe), with no token: the
 * download would fail after the cluster, the pool and the platform are up.
 */
export function gatedModelProblems(models: ModelEntry[], hasToken: boolean, key: (name: string) => string): string[] {
    if (hasToken) {
        return [];
    }
    return models.flatMap((model, index) =>
        model.modelUri.startsWith("hf://") && knownModel(model)?.gated
            ? [
                  `${key("models")}[${index}] (${modelNameOf(model)}) is gated on Hugging Face and ${key("hfToken")} is not set; allowed: ` +
                      `accept its license on https://huggingface.co/${model.modelUri.slice("hf://".length)}, then \`pulumi config set --secret hfToken <TOKEN>\` with that account's token, or a gs:// copy of the weights`,
              ]
            : [],
    );
}

export function coldStartOf(values: Pick<ModelValues, "stageWeights" | "compilationCache" | "imageStreaming">): ColdStartSettings {
    return { stageWeights: values.stageWeights, compilationCache: values.compilationCache, imageStreaming: values.imageStreaming };
}

/** The model services from checked entries, with what the catalog, the pattern and the signal give. */
export function modelServicesOf(models: ModelEntry[]): ModelServiceSettings[] {
    return models.map((model) => {
        const known = knownModel(model);
        const { autoscaling } = model;
        return {
            name: model.name,
            pattern: model.pattern as ServingPattern,
            modelUri: model.modelUri,
            modelName: modelNameOf(model),
            // The model rules refused an unknown model without both figures.
            weightsGb: model.weightsGb ?? known!.weightsGb,
            layers: model.layers ?? known!.layers,
            replicas: replicasOf(model),
            ...(autoscaling !== undefined
                ? {
                      autoscaling: {
                          minReplicas: autoscaling.minReplicas,
                          maxReplicas: autoscaling.maxReplicas,
                          signal: autoscaling.signal as AutoscalingSignal,
                          target: autoscaling.target ?? AUTOSCALING_SIGNALS[autoscaling.signal as AutoscalingSignal].defaultTarget,
                      },
                  }
                : {}),
            image: model.image,
            maxModelLen: model.maxModelLen,
            extraArgs: model.extraArgs,
        };
    });
}
