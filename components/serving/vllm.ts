/**
 * The one place that turns a model service's settings into the containers KServe runs: the
 * vLLM TPU server and the llm-d endpoint picker. Strings in `{{ }}` are KServe's Go
 * templates, filled in per service by its controller.
 */
import * as pulumi from "@pulumi/pulumi";
import {
    EPP_CONFIG_API_VERSION,
    EPP_PORTS,
    IMAGES,
    KSERVE_CHILDREN,
    PREFIX_CACHE_ROUTING,
    TPU_MULTI_HOST,
    VLLM_API_KEY,
    VLLM_HEALTH_PATH,
    VLLM_PORT,
    VLLM_QUIET_ENDPOINTS,
    VLLM_SHUTDOWN,
    VLLM_TPU_LOADING,
} from "@gke-tpu-inference/facts";
import { TpuSettings } from "../settings/capacity";
import { ModelServiceSettings } from "../settings/models";

/** What one model replica spans: every chip of each VM, every VM of the slice. */
export type ReplicaShape = Pick<TpuSettings, "chipsPerVm" | "hostsPerSlice">;

/** An HTTP probe on vLLM's port. */
function httpProbe(path: string, periodSeconds: number, failureThreshold: number) {
    return { httpGet: { path, port: VLLM_PORT, scheme: "HTTP" }, periodSeconds, timeoutSeconds: 5, failureThreshold, successThreshold: 1 };
}

const STARTUP_PERIOD_SECONDS = 5;

/** Where KServe puts the weights it fetches. */
export const KSERVE_MODEL_PATH = "/mnt/models";

/** How the vLLM container of one model service is built, besides its settings. */
export interface VllmContainerOptions {
    /** Chips per VM (the tensor-parallel size and the chips each pod requests) and VMs per replica (the pipeline stages). */
    shape: ReplicaShape;
    /** The image as the pod pulls it (through the stack's remote repository, or as the settings name it). */
    image: pulumi.Input<string>;
    /** How long the startup probe lets the server start, from the model's cold-start estimate. */
    startupBudgetSeconds: number;
    /** `gs://…` the server streams its weights from; without it, the path KServe fetched them to. */
    weightsUri?: pulumi.Input<string>;
    /** `gs://…` of the persistent compilation cache. */
    compilationCacheUri?: pulumi.Input<string>;
    /** The Secret holding HF_TOKEN, when vLLM itself may reach Hugging Face. */
    hfTokenSecret?: pulumi.Input<string>;
    /** The Secret holding the key vLLM requires of every /v1 request (key {@link VLLM_API_KEY.env}). */
    apiKeySecret?: pulumi.Input<string>;
}

/**
 * vLLM's command line for `model` on a replica of `shape`: TPU-valid flags only, from settings, plus what KServe's own
 * default command gives that replacing it would drop: draining in-flight requests on shutdown, and no access-log line
 * for every probe, health check and scrape. Weights in Cloud Storage are streamed by the Run:ai model streamer, which
 * the vLLM TPU image carries. Across a multi-host slice each host is one pipeline stage over its own chips.
 */
export function vllmArgs(model: ModelServiceSettings, shape: ReplicaShape, weightsUri?: pulumi.Input<string>): pulumi.Input<string>[] {
    return [
        weightsUri ?? KSERVE_MODEL_PATH,
        ...(weightsUri !== undefined ? [`--load-format=${VLLM_TPU_LOADING.streamerLoadFormat}`] : []),
        "--served-model-name",
        model.modelName,
        "publishers/{{ .ObjectMeta.Namespace }}/models/{{ .Spec.Model.Name }}",
        `--port=${VLLM_PORT}`,
        `--shutdown-timeout=${VLLM_SHUTDOWN.drainSeconds}`,
        `--disable-access-log-for-endpoints=${VLLM_QUIET_ENDPOINTS.join(",")}`,
        `--tensor-parallel-size=${shape.chipsPerVm}`,
        ...(shape.hostsPerSlice > 1 ? [`--pipeline-parallel-size=${shape.hostsPerSlice}`] : []),
        `--max-model-len=${model.maxModelLen}`,
        ...(model.pattern === "pattern3" ? ["--enable-prefix-caching"] : []),
        ...model.extraArgs,
    ];
}

/**
 * The environment every vLLM process of the service reads: the key it requires of callers (from a Secret, so that it
 * is on no command line), the token where vLLM reaches Hugging Face, the compilation cache.
 */
function vllmEnv(options: VllmContainerOptions) {
    return [
        ...(options.apiKeySecret !== undefined
            ? [{ name: VLLM_API_KEY.env, valueFrom: { secretKeyRef: { name: options.apiKeySecret, key: VLLM_API_KEY.env } } }]
            : []),
        ...(options.hfTokenSecret !== undefined
            ? [{ name: "HF_TOKEN", valueFrom: { secretKeyRef: { name: options.hfTokenSecret, key: "HF_TOKEN" } } }]
            : []),
        // tpu-inference hands this to JAX as its persistent compilation cache directory; every compile is written there,
        // the short ones too, which JAX's 1 s default would recompile on every start.
        ...(options.compilationCacheUri !== undefined
            ? [
                  { name: VLLM_TPU_LOADING.compilationCacheEnv, value: options.compilationCacheUri },
                  ...Object.entries(VLLM_TPU_LOADING.cacheThresholdEnv).map(([name, value]) => ({ name, value })),
              ]
            : []),
    ];
}

/** What every TPU container of the service shares: the image, the whole VM's chips, the environment, the security context. */
function tpuContainerBase(options: VllmContainerOptions) {
    const chips = String(options.shape.chipsPerVm);
    const env = vllmEnv(options);
    return {
        name: "main",
        image: options.image,
        ...(env.length > 0 ? { env } : {}),
        // A TPU pod takes every chip of its VM: GKE schedules TPU VMs whole.
        resources: { requests: { "google.com/tpu": chips }, limits: { "google.com/tpu": chips } },
        // The upstream vllm-tpu image runs as root and KServe's default template demands runAsNonRoot,
        // which would keep the container from starting; the rest of KServe's restrictions
        // (no privilege escalation, all capabilities dropped, RuntimeDefault seccomp) still apply.
        securityContext: { runAsNonRoot: false, runAsUser: 0 },
    };
}

/**
 * The `main` container of the service's pod template (on a multi-host slice, of its group's leader). KServe merges it
 * over its preset by name, so every field set here replaces the preset's: the command (KServe's single-host one is a
 * GPU-oriented bash wrapper; on a multi-host slice the namespace's preset starts Ray first, see
 * {@link multiHostPresetSpec}), the probes (all HTTP; no fixed initial delays) and the security context.
 */
export function vllmContainer(model: ModelServiceSettings, options: VllmContainerOptions) {
    return {
        ...tpuContainerBase(options),
        ...(options.shape.hostsPerSlice > 1 ? {} : { command: ["vllm", "serve"] }),
        args: vllmArgs(model, options.shape, options.weightsUri),
        ports: [{ containerPort: VLLM_PORT, name: "http", protocol: "TCP" }],
        // Stop receiving traffic before SIGTERM; vLLM then drains for --shutdown-timeout within the pod's grace period.
        lifecycle: { preStop: { exec: { command: ["/bin/sleep", String(VLLM_SHUTDOWN.preStopSleepSeconds)] } } },
        // Polled every few seconds, so Ready follows serving closely, for up to the whole startup budget. Every probe asks
        // /health, as KServe's own template does: the kubelet sends no key, and vLLM refuses /v1 paths without it.
        startupProbe: httpProbe(VLLM_HEALTH_PATH, STARTUP_PERIOD_SECONDS, Math.ceil(options.startupBudgetSeconds / STARTUP_PERIOD_SECONDS)),
        livenessProbe: httpProbe(VLLM_HEALTH_PATH, 10, 6),
        readinessProbe: httpProbe(VLLM_HEALTH_PATH, 5, 3),
    };
}

/**
 * The `main` container of a multi-host group's other pods: a Ray worker (the preset's command) holding its VM's chips,
 * where the leader's vLLM places one pipeline stage. It serves nothing itself, so it has no probes.
 */
export function vllmWorkerContainer(options: VllmContainerOptions) {
    return tpuContainerBase(options);
}

/** Ray keeps its object store and vLLM's compiled-graph channels in shared memory; a container's default /dev/shm is 64 MiB. */
const SHARED_MEMORY = {
    volume: { name: "dshm", emptyDir: { medium: "Memory" } },
    mount: { name: "dshm", mountPath: "/dev/shm" },
};

/**
 * KServe's preset for a service with a `worker` and pipeline parallelism, which KServe v0.20.0 looks up by name but does
 * not ship: how one vLLM TPU server spans a multi-host slice. The leader starts the Ray head, waits for the group's
 * other hosts, then runs vLLM with the service's args; the workers join the leader's Ray. tpu-inference's Ray executor
 * then places one pipeline stage on each host.
 */
export function multiHostPresetSpec() {
    const script = TPU_MULTI_HOST.rayBootstrapScript;
    const timeout = `--ray_init_timeout=${TPU_MULTI_HOST.rayGroupTimeoutSeconds}`;
    const shared = {
        env: [TPU_MULTI_HOST.backendEnv],
        volumeMounts: [SHARED_MEMORY.mount],
    };
    return {
        template: {
            containers: [
                {
                    name: "main",
                    // "--" becomes $0, so the service's args are "$@": vLLM's flags.
                    command: [
                        "/bin/bash",
                        "-c",
                        `bash ${script} leader --ray_cluster_size="\${${TPU_MULTI_HOST.groupSizeEnv}}" ${timeout} && exec vllm serve "$@"`,
                        "--",
                    ],
                    ...shared,
                },
            ],
            volumes: [SHARED_MEMORY.volume],
        },
        worker: {
            containers: [
                {
                    name: "main",
                    command: [
                        "/bin/bash",
                        "-c",
                        `exec bash ${script} worker --ray_address="\${${TPU_MULTI_HOST.leaderAddressEnv}}" ${timeout}`,
                    ],
                    ...shared,
                },
            ],
            volumes: [SHARED_MEMORY.volume],
        },
    };
}

/**
 * The EPP's `main` container: the pinned image (with the ALPN h2 fix that TLS ext_proc
 * needs) and its command with secure serving on, using the certificate KServe issues for
 * the service. Replaces KServe's command, whose TLS flags depend on a cluster-wide switch
 * that would also put vLLM behind TLS.
 */
export function endpointPickerContainer() {
    return {
        name: "main",
        image: IMAGES.endpointPicker,
        command: [
            "/app/epp",
            "--pool-name",
            KSERVE_CHILDREN.nameTemplate(KSERVE_CHILDREN.inferencePoolSuffix),
            "--pool-namespace",
            "{{ .ObjectMeta.Namespace }}",
            "--zap-encoder",
            "json",
            "--grpc-port",
            String(EPP_PORTS.grpc),
            "--grpc-health-port",
            String(EPP_PORTS.health),
            "--secure-serving=true",
            "--cert-path=/var/run/kserve/tls",
            "--enable-cert-reload=true",
            // Managed Prometheus scrapes the metrics port without a Kubernetes token; it is reachable only inside the cluster.
            "--metrics-endpoint-auth=false",
        ],
    };
}

/**
 * Prefix-cache-aware routing for pattern 3, in the pinned EPP's EndpointPickerConfig: the
 * scorers and weights the field report found in production, and the saturation thresholds
 * set explicitly on the utilization detector.
 */
export function prefixCacheEndpointPickerConfig() {
    return {
        apiVersion: EPP_CONFIG_API_VERSION,
        kind: "EndpointPickerConfig",
        plugins: [
            { type: "single-profile-handler" },
            { type: "decode-filter" },
            { type: PREFIX_CACHE_ROUTING.scorer },
            { type: "load-aware-scorer" },
            { type: "max-score-picker" },
            {
                type: "utilization-detector",
                parameters: {
                    queueDepthThreshold: PREFIX_CACHE_ROUTING.queueDepthThreshold,
                    kvCacheUtilThreshold: PREFIX_CACHE_ROUTING.kvCacheUtilThreshold,
                    metricsStalenessThreshold: PREFIX_CACHE_ROUTING.metricsStalenessThreshold,
                },
            },
        ],
        flowControl: { saturationDetector: { pluginRef: "utilization-detector" } },
        schedulingProfiles: [
            {
                name: "default",
                plugins: [
                    { pluginRef: "decode-filter" },
                    { pluginRef: PREFIX_CACHE_ROUTING.scorer, weight: PREFIX_CACHE_ROUTING.prefixCacheScorerWeight },
                    { pluginRef: "load-aware-scorer", weight: PREFIX_CACHE_ROUTING.loadAwareScorerWeight },
                    { pluginRef: "max-score-picker" },
                ],
            },
        ],
    };
}
