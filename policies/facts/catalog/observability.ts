/**
 * Metrics and autoscaling: the signals a service scales on, KEDA's names, and the Prometheus series the dashboard, the
 * alerts and the doctor read.
 */

/**
 * The inference signals a model service may scale on: a vLLM series summed over the service's replicas, and the default
 * target per replica, the thresholds at which the EPP treats a replica as saturated (the field report's production
 * values, {@link PREFIX_CACHE_ROUTING}). KEDA's Prometheus trigger divides the sum by the target (AverageValue) to get
 * the replicas. Source: {@link SOURCES.vllmMetrics}.
 */
export const AUTOSCALING_SIGNALS = {
    /** Requests waiting for a slot in vLLM's batch. */
    queue: { metric: "vllm:num_requests_waiting", defaultTarget: 5, maximumTarget: Number.MAX_SAFE_INTEGER },
    /** The share of the KV cache in use, 0 to 1. */
    kvCache: { metric: "vllm:kv_cache_usage_perc", defaultTarget: 0.8, maximumTarget: 1 },
} as const;

/** The Kubernetes service account KEDA's operator runs as, which its Prometheus scaler calls Google as. Source: {@link SOURCES.webhookPorts}. */
export const KEDA_OPERATOR_ACCOUNT = "keda-operator";

/**
 * On a ScaledObject, stops KEDA's scale loop and deletes its HPA, leaving the target as it is (kedacore/keda
 * controllers/keda/scaledobject_controller.go reconcileScaledObject); removing it resumes scaling.
 */
export const KEDA_PAUSED_ANNOTATION = "autoscaling.keda.sh/paused";

/** A key of {@link AUTOSCALING_SIGNALS}. */
export type AutoscalingSignal = keyof typeof AUTOSCALING_SIGNALS;

/** Prometheus series the dashboard and alerts read. Source: {@link SOURCES.vllmMetrics}. */
export const METRICS = {
    /** The label this stack's PodMonitorings copy each pod's `app.kubernetes.io/name` into: the model service a series is from. */
    serviceLabel: "model_service",
    vllm: {
        requestSuccess: "vllm:request_success_total",
        timeToFirstTokenBucket: "vllm:time_to_first_token_seconds_bucket",
        generationTokens: "vllm:generation_tokens_total",
        promptTokens: "vllm:prompt_tokens_total",
        requestsWaiting: "vllm:num_requests_waiting",
        kvCacheUsage: "vllm:kv_cache_usage_perc",
        prefixCacheHits: "vllm:prefix_cache_hits_total",
        prefixCacheQueries: "vllm:prefix_cache_queries_total",
    },
    epp: {
        schedulerAttempts: "llm_d_epp_scheduler_attempts_total",
        /** The label naming the endpoint a decision chose; `pod_name` is only on the deprecated `inference_extension_*` series. */
        endpointLabel: "endpoint_name",
        /** The EPP's metrics port (named `metrics` in KServe's scheduler template). */
        port: "metrics",
    },
    /**
     * GKE's managed kube state metrics (cluster monitoring components DEPLOYMENT and HPA), queried by their upstream names.
     * Source: {@link SOURCES.kubeStateMetrics}.
     */
    kubeState: {
        components: ["DEPLOYMENT", "HPA"],
        deploymentDesired: "kube_deployment_spec_replicas",
        deploymentAvailable: "kube_deployment_status_replicas_available",
        deploymentLabel: "deployment",
        hpaCurrent: "kube_horizontalpodautoscaler_status_current_replicas",
        hpaMax: "kube_horizontalpodautoscaler_spec_max_replicas",
        hpaLabel: "horizontalpodautoscaler",
    },
    /** KEDA names the HPA of ScaledObject `name` `keda-hpa-<name>` (keda v2.20.2 controllers/keda/hpa.go:395-402). */
    kedaHpaName: (scaledObject: string) => `keda-hpa-${scaledObject}`,
} as const;
