/**
 * The one place that turns a model service's settings into the containers KServe runs: the
 * vLLM TPU server and the llm-d endpoint picker. Strings in `{{ }}` are KServe's Go
 * templates, filled in per service by its controller.
 */
import * as pulumi from "@pulumi/pulumi";
import {
    EPP_CONFIG_API_VERSION,
    IMAGES,
    KSERVE_CHILDREN,
    PREFIX_CACHE_ROUTING,
    VLLM_PORT,
    VLLM_QUIET_ENDPOINTS,
    VLLM_SHUTDOWN,
    VLLM_TPU_LOADING,
} from "@gke-tpu-inference/facts";
import { ModelServiceSettings } from "./settings";

/** An HTTP probe on vLLM's port. */
function httpProbe(path: string, periodSeconds: number, failureThreshold: number) {
    return { httpGet: { path, port: VLLM_PORT, scheme: "HTTP" }, periodSeconds, timeoutSeconds: 5, failureThreshold, successThreshold: 1 };
}

const STARTUP_PERIOD_SECONDS = 5;

/** Where KServe puts the weights it fetches. */
export const KSERVE_MODEL_PATH = "/mnt/models";

/** How the vLLM container of one model service is built, besides its settings. */
export interface VllmContainerOptions {
    /** TPU chips on one VM: the tensor-parallel size and the chips requested. */
    chipsPerVm: number;
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
}

/**
 * vLLM's command line for `model` on a VM with `chipsPerVm` TPU chips: TPU-valid flags only, from settings, plus what
 * KServe's own default command gives that replacing it would drop: draining in-flight requests on shutdown, and no
 * access-log line for every probe, health check and scrape. Weights in Cloud Storage are streamed by the Run:ai model
 * streamer, which the vLLM TPU image carries.
 */
export function vllmArgs(model: ModelServiceSettings, chipsPerVm: number, weightsUri?: pulumi.Input<string>): pulumi.Input<string>[] {
    return [
        weightsUri ?? KSERVE_MODEL_PATH,
        ...(weightsUri !== undefined ? [`--load-format=${VLLM_TPU_LOADING.streamerLoadFormat}`] : []),
        "--served-model-name",
        model.modelName,
        "publishers/{{ .ObjectMeta.Namespace }}/models/{{ .Spec.Model.Name }}",
        `--port=${VLLM_PORT}`,
        `--shutdown-timeout=${VLLM_SHUTDOWN.drainSeconds}`,
        `--disable-access-log-for-endpoints=${VLLM_QUIET_ENDPOINTS.join(",")}`,
        `--tensor-parallel-size=${chipsPerVm}`,
        `--max-model-len=${model.maxModelLen}`,
        ...(model.pattern === "pattern3" ? ["--enable-prefix-caching"] : []),
        ...model.extraArgs,
    ];
}

/**
 * The `main` container of the service's pod template. KServe merges it over its default
 * template by name, so every field set here replaces KServe's: the command (KServe's is a
 * GPU-oriented bash wrapper), the probes (all HTTP; no fixed initial delays) and the
 * security context.
 */
export function vllmContainer(model: ModelServiceSettings, options: VllmContainerOptions) {
    const { chipsPerVm } = options;
    const env = [
        ...(options.hfTokenSecret !== undefined
            ? [{ name: "HF_TOKEN", valueFrom: { secretKeyRef: { name: options.hfTokenSecret, key: "HF_TOKEN" } } }]
            : []),
        // tpu-inference hands this to JAX as its persistent compilation cache directory.
        ...(options.compilationCacheUri !== undefined
            ? [{ name: VLLM_TPU_LOADING.compilationCacheEnv, value: options.compilationCacheUri }]
            : []),
    ];
    return {
        name: "main",
        image: options.image,
        command: ["vllm", "serve"],
        args: vllmArgs(model, chipsPerVm, options.weightsUri),
        ports: [{ containerPort: VLLM_PORT, name: "http", protocol: "TCP" }],
        ...(env.length > 0 ? { env } : {}),
        // A TPU replica takes every chip of its VM: GKE schedules TPU VMs whole.
        resources: { requests: { "google.com/tpu": String(chipsPerVm) }, limits: { "google.com/tpu": String(chipsPerVm) } },
        // Stop receiving traffic before SIGTERM; vLLM then drains for --shutdown-timeout within the pod's grace period.
        lifecycle: { preStop: { exec: { command: ["/bin/sleep", String(VLLM_SHUTDOWN.preStopSleepSeconds)] } } },
        // Polled every few seconds, so Ready follows serving closely, for up to the whole startup budget.
        startupProbe: httpProbe("/health", STARTUP_PERIOD_SECONDS, Math.ceil(options.startupBudgetSeconds / STARTUP_PERIOD_SECONDS)),
        livenessProbe: httpProbe("/health", 10, 6),
        readinessProbe: httpProbe("/v1/models", 5, 3),
        // The upstream vllm-tpu image runs as root and KServe's default template demands runAsNonRoot,
        // which would keep the container from starting; the rest of KServe's restrictions
        // (no privilege escalation, all capabilities dropped, RuntimeDefault seccomp) still apply.
        securityContext: { runAsNonRoot: false, runAsUser: 0 },
    };
}

/** The endpoint picker's port for the Gateway's ext_proc calls, and its health port. */
const EPP_GRPC_PORT = 9002;
const EPP_HEALTH_PORT = 9003;

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
            String(EPP_GRPC_PORT),
            "--grpc-health-port",
            String(EPP_HEALTH_PORT),
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
