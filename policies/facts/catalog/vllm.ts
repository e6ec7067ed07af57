/**
 * vLLM: its images' entrypoints, port, shutdown, the flags TPU rejects, the models the stack knows, memory and loading
 * on TPU.
 */

/**
 * What the vLLM images run when a container sets no `command`: `serverFlags` images start vLLM's OpenAI-compatible
 * server with the container's args as its flags; `command` images run the args as a command, and with none start the
 * server with the flags in the environment variable `flagsEnv`. By image name (the last path segment of its
 * repository). Source: {@link SOURCES.vllmEntrypoints}.
 */
export const VLLM_IMAGE_ENTRYPOINTS: Readonly<Record<string, { args: "serverFlags" | "command"; flagsEnv?: string }>> = {
    "vllm-openai": { args: "serverFlags" },
    "vllm-tpu": { args: "command", flagsEnv: "VLLM_ARGS" },
};

/** The model the field reports served, the default for a model service. */
export const DEFAULT_MODEL = { uri: "hf://Qwen/Qwen2.5-3B-Instruct", name: "Qwen/Qwen2.5-3B-Instruct" } as const;

/** The port vLLM serves its OpenAI-compatible API on, over plain HTTP. */
export const VLLM_PORT = 8000;

/** The path vLLM answers health checks on: 200 once the engine is up. Source: {@link SOURCES.vllmHealth}. */
export const VLLM_HEALTH_PATH = "/health";

/**
 * How a vLLM pod stops, as KServe's default template has it: the pod gets 60 s; a 15 s preStop sleep lets the
 * Gateway and the EPP stop sending it requests; vLLM then drains in-flight requests for what is left after a 5 s
 * margin. Source: {@link SOURCES.vllmShutdown}.
 */
export const VLLM_SHUTDOWN = {
    terminationGracePeriodSeconds: 60,
    preStopSleepSeconds: 15,
    /** `--shutdown-timeout`: grace minus preStop minus KServe's 5 s margin. */
    drainSeconds: 60 - 15 - 5,
} as const;

/** What makes vLLM's server register a route: always, the model's task, or a flag, variable or mode the operator sets. */
export type VllmRouteCondition =
    | "always"
    | "generate model"
    | "pooling model"
    | "embedding model"
    | "scoring model"
    | "transcription model"
    | "a flag or environment variable"
    | "VLLM_SERVER_DEV_MODE";

/** One route of vLLM's OpenAI-compatible server: a `{name}` stands for a path parameter, a trailing `*` for a mount. */
export interface VllmRoute {
    readonly methods: readonly string[];
    readonly path: string;
    readonly registeredWhen: VllmRouteCondition;
    /** It takes a prompt or input and runs the model. */
    readonly inference: boolean;
}

/**
 * Every route vLLM's OpenAI-compatible server (the vllm-tpu image's entrypoint) registers, whatever its model and
 * flags: the table a client's path is probed against. Which of them the key guards is {@link VLLM_API_KEY}'s rule.
 * Source: {@link SOURCES.vllmRoutes}.
 */
export const VLLM_ROUTES: readonly VllmRoute[] = [
    { methods: ["GET"], path: "/health", registeredWhen: "always", inference: false },
    { methods: ["GET", "POST"], path: "/ping", registeredWhen: "always", inference: false },
    { methods: ["POST"], path: "/invocations", registeredWhen: "always", inference: true },
    { methods: ["GET"], path: "/load", registeredWhen: "always", inference: false },
    { methods: ["GET"], path: "/version", registeredWhen: "always", inference: false },
    { methods: ["GET"], path: "/metrics*", registeredWhen: "always", inference: false },
    { methods: ["GET"], path: "/openapi.json", registeredWhen: "always", inference: false },
    { methods: ["GET"], path: "/docs", registeredWhen: "always", inference: false },
    { methods: ["GET"], path: "/docs/oauth2-redirect", registeredWhen: "always", inference: false },
    { methods: ["GET"], path: "/redoc", registeredWhen: "always", inference: false },
    { methods: ["POST"], path: "/tokenize", registeredWhen: "always", inference: false },
    { methods: ["POST"], path: "/detokenize", registeredWhen: "always", inference: false },
    { methods: ["GET"], path: "/tokenizer_info", registeredWhen: "a flag or environment variable", inference: false },
    { methods: ["GET"], path: "/v1/models", registeredWhen: "always", inference: false },
    { methods: ["POST"], path: "/v1/load_lora_adapter", registeredWhen: "a flag or environment variable", inference: false },
    { methods: ["POST"], path: "/v1/unload_lora_adapter", registeredWhen: "a flag or environment variable", inference: false },
    { methods: ["POST"], path: "/adapters", registeredWhen: "a flag or environment variable", inference: false },
    { methods: ["DELETE"], path: "/adapters/{adapter_name}", registeredWhen: "a flag or environment variable", inference: false },
    { methods: ["POST"], path: "/start_profile", registeredWhen: "a flag or environment variable", inference: false },
    { methods: ["POST"], path: "/stop_profile", registeredWhen: "a flag or environment variable", inference: false },
    { methods: ["POST"], path: "/v1/chat/completions", registeredWhen: "generate model", inference: true },
    { methods: ["POST"], path: "/v1/chat/completions/batch", registeredWhen: "generate model", inference: true },
    { methods: ["POST"], path: "/v1/completions", registeredWhen: "generate model", inference: true },
    { methods: ["POST"], path: "/v1/completions/render", registeredWhen: "generate model", inference: false },
    { methods: ["POST"], path: "/v1/chat/completions/render", registeredWhen: "generate model", inference: false },
    { methods: ["POST"], path: "/v1/responses/render", registeredWhen: "generate model", inference: false },
    { methods: ["POST"], path: "/v1/responses", registeredWhen: "generate model", inference: true },
    { methods: ["GET"], path: "/v1/responses/{response_id}", registeredWhen: "generate model", inference: false },
    { methods: ["POST"], path: "/v1/responses/{response_id}/cancel", registeredWhen: "generate model", inference: false },
    { methods: ["POST"], path: "/v1/messages", registeredWhen: "generate model", inference: true },
    { methods: ["POST"], path: "/v1/messages/count_tokens", registeredWhen: "generate model", inference: false },
    { methods: ["POST"], path: "/generative_scoring", registeredWhen: "generate model", inference: true },
    { methods: ["POST"], path: "/inference/v1/generate", registeredWhen: "generate model", inference: true },
    { methods: ["POST"], path: "/abort_requests", registeredWhen: "a flag or environment variable", inference: false },
    { methods: ["POST"], path: "/scale_elastic_ep", registeredWhen: "generate model", inference: false },
    { methods: ["POST"], path: "/is_scaling_elastic_ep", registeredWhen: "generate model", inference: false },
    { methods: ["POST"], path: "/cohere/v2/chat", registeredWhen: "a flag or environment variable", inference: true },
    { methods: ["POST"], path: "/cohere/v2/chat/render", registeredWhen: "a flag or environment variable", inference: false },
    { methods: ["POST"], path: "/v1/audio/transcriptions", registeredWhen: "transcription model", inference: true },
    { methods: ["POST"], path: "/v1/audio/translations", registeredWhen: "transcription model", inference: true },
    { methods: ["GET"], path: "/v1/realtime", registeredWhen: "transcription model", inference: true },
    { methods: ["POST"], path: "/pooling", registeredWhen: "pooling model", inference: true },
    { methods: ["POST"], path: "/classify", registeredWhen: "pooling model", inference: true },
    { methods: ["POST"], path: "/v1/embeddings", registeredWhen: "embedding model", inference: true },
    { methods: ["POST"], path: "/v2/embed", registeredWhen: "embedding model", inference: true },
    { methods: ["POST"], path: "/score", registeredWhen: "scoring model", inference: true },
    { methods: ["POST"], path: "/v1/score", registeredWhen: "scoring model", inference: true },
    { methods: ["POST"], path: "/rerank", registeredWhen: "scoring model", inference: true },
    { methods: ["POST"], path: "/v1/rerank", registeredWhen: "scoring model", inference: true },
    { methods: ["POST"], path: "/v2/rerank", registeredWhen: "scoring model", inference: true },
    ...["/reset_prefix_cache", "/reset_mm_cache", "/reset_encoder_cache", "/pause", "/resume", "/init_weight_transfer_engine"]
        .concat(["/start_weight_update", "/update_weights", "/finish_weight_update", "/collective_rpc", "/sleep", "/wake_up"])
        .map((path): VllmRoute => ({ methods: ["POST"], path, registeredWhen: "VLLM_SERVER_DEV_MODE", inference: false })),
    ...["/is_paused", "/get_world_size", "/server_info", "/is_sleeping"].map((path): VllmRoute => ({
        methods: ["GET"],
        path,
        registeredWhen: "VLLM_SERVER_DEV_MODE",
        inference: false,
    })),
];

/** Endpoints polled every few seconds (probes, health checks, scrapes) whose access-log lines are noise. Source: {@link SOURCES.vllmShutdown}. */
export const VLLM_QUIET_ENDPOINTS: readonly string[] = ["/health", "/metrics", "/ping"];

/**
 * Flags copied from GPU write-ups that vLLM on TPU rejects at startup ("unrecognized arguments"), each with why.
 * Source: {@link SOURCES.seed003Flags}.
 */
export const TPU_REJECTED_VLLM_FLAGS: Readonly<Record<string, string>> = {
    "--prefix-cache-block-size":
        'not a vLLM flag on any platform (vLLM sizes prefix-cache blocks with --block-size); vLLM exits with "unrecognized arguments"',
};

/** What the stack knows of a model: its weights, its layers and, for the KV cache, its attention shape and longest context. */
export interface KnownModel {
    /** Size of its weights in GB (10^9 bytes), bf16. */
    readonly weightsGb: number;
    readonly layers: number;
    /** `num_key_value_heads` of its config. */
    readonly kvHeads: number;
    /** Width of one attention head: `hidden_size / num_attention_heads` where the config names no `head_dim`. */
    readonly headDim: number;
    /** `max_position_embeddings`: vLLM refuses a longer --max-model-len. */
    readonly maxContext: number;
    /** Hugging Face gates it: the repository serves files only to an account that accepted its license, with a token. */
    readonly gated: boolean;
}

/**
 * Models the catalog knows. Any other model names its size in its model entry (`weightsGb`, `layers`).
 * Sources: {@link SOURCES.modelCards}, {@link SOURCES.modelConfigs}.
 */
export const KNOWN_MODELS: Readonly<Record<string, KnownModel>> = {
    "Qwen/Qwen2.5-3B-Instruct": { weightsGb: 6.2, layers: 36, kvHeads: 2, headDim: 128, maxContext: 32768, gated: false },
    "microsoft/Phi-3-mini-4k-instruct": { weightsGb: 7.6, layers: 32, kvHeads: 32, headDim: 96, maxContext: 4096, gated: false },
    "meta-llama/Llama-3.1-8B-Instruct": { weightsGb: 16.1, layers: 32, kvHeads: 8, headDim: 128, maxContext: 131072, gated: true },
    "meta-llama/Llama-3.1-70B-Instruct": { weightsGb: 141.2, layers: 80, kvHeads: 8, headDim: 128, maxContext: 131072, gated: true },
    "Qwen/Qwen2.5-72B-Instruct": { weightsGb: 145.4, layers: 80, kvHeads: 8, headDim: 128, maxContext: 32768, gated: false },
};

/** How far an entry's `weightsGb` may differ from the catalog's figure for a known model (rounding, another shard format). */
export const KNOWN_WEIGHTS_TOLERANCE = 0.1;

/**
 * How vLLM on TPU shares a replica's memory. It caps what it uses at `--gpu-memory-utilization` of the chips' HBM and gives
 * the KV cache what the weights leave of that, refusing to start when nothing is left; the rest is the runtime's. The KV
 * cache must hold at least one sequence of `--max-model-len`, two values (key and value) per layer, KV head and head
 * dimension, in the model's dtype; with tensor parallelism each chip holds `max(1, kvHeads / chips)` heads, replicating
 * them where the model has fewer than chips. Its pages pad: the keys and values of a chip's heads to whole 32-bit words of
 * the dtype (two bf16 values, four fp8), each head's width to a multiple of 128 (a width of 64 has a kernel of its own
 * that packs a key and a value into 128). Source: {@link SOURCES.vllmMemory}.
 */
export const VLLM_MEMORY = {
    /** The flag's default at the older of the releases read; the check is no looser than vLLM. */
    defaultUtilization: 0.9,
    utilizationFlag: "--gpu-memory-utilization",
    /** bf16, the known models' dtype; `--kv-cache-dtype fp8` halves it. */
    bytesPerValue: 2,
    kvCacheDtypeFlag: "--kv-cache-dtype",
    /** The KV cache packs values into words of this many bits. */
    packingBits: 32,
    /** A head's width is padded to a multiple of this. */
    headDimAlignment: 128,
} as const;

/** What the vLLM TPU image reads for the weights and the compilation cache. Sources: {@link SOURCES.runaiStreamer}, {@link SOURCES.xlaCache}. */
export const VLLM_TPU_LOADING = {
    streamerLoadFormat: "runai_streamer",
    /** The JAX compilation cache's directory; unset, vLLM's default under the container's home, gone with the container. */
    compilationCacheEnv: "VLLM_XLA_CACHE_PATH",
    /** A non-zero integer turns the compilation cache off. */
    disableCacheEnv: "VLLM_DISABLE_COMPILE_CACHE",
    /**
     * JAX's thresholds for writing an entry, as environment variables (each JAX flag reads its upper-cased name): by
     * default only compiles of at least 1 s are written, so every shorter one is compiled again on every start. The
     * cache's own quick start sets both off. Source: {@link SOURCES.jaxCacheThresholds}.
     */
    cacheThresholdEnv: { JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS: "0", JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES: "-1" },
} as const;
