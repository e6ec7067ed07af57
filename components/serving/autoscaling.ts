/**
 * A model service's KEDA ScaledObject: KServe's workload Deployment scaled between the entry's minimum and maximum on
 * an inference signal read from Managed Service for Prometheus, with scale-down held back by the startup budget.
 */
import { AUTOSCALING_SIGNALS, KEDA_PAUSED_ANNOTATION, KSERVE_CHILDREN, METRICS } from "@gke-tpu-inference/facts";
import { ModelAutoscaling } from "../settings/models";

/** The Prometheus HTTP API of Managed Service for Prometheus for `project`. */
export function managedPrometheusUrl(project: string): string {
    return `https://monitoring.googleapis.com/v1/projects/${project}/location/global/prometheus`;
}

/** The signal summed over the service's replicas, as the stack's PodMonitoring labels them. */
export function signalQuery(scaling: Pick<ModelAutoscaling, "signal">, namespace: string, service: string): string {
    return `sum(${AUTOSCALING_SIGNALS[scaling.signal].metric}{namespace="${namespace}",${METRICS.serviceLabel}="${service}"})`;
}

/** Everything the ScaledObject needs besides the entry. */
export interface ScaledObjectOptions {
    namespace: string;
    project: string;
    /** The model's startup budget: no replica is removed sooner after the last scale-up, and at most one per budget. */
    startupBudgetSeconds: number;
    /** The ClusterTriggerAuthentication that carries KEDA's Workload Identity. */
    triggerAuthentication: string;
    /** The stack is paused: KServe has removed the Deployment, and KEDA leaves it alone until the stack resumes. */
    paused: boolean;
}

/** How often KEDA reads the signal, in seconds. */
const POLLING_SECONDS = 15;

/** What the HPA API accepts: a stabilization window up to an hour, a policy period up to 30 minutes (autoscaling/v2, as the ScaledObject CRD says). */
const HPA_LIMITS = { stabilizationWindowSeconds: 3600, periodSeconds: 1800 } as const;

/** The ScaledObject for model service `service`. */
export function scaledObject(service: string, scaling: ModelAutoscaling, options: ScaledObjectOptions) {
    return {
        apiVersion: "keda.sh/v1alpha1",
        kind: "ScaledObject",
        metadata: {
            name: service,
            namespace: options.namespace,
            ...(options.paused ? { annotations: { [KEDA_PAUSED_ANNOTATION]: "true" } } : {}),
        },
        spec: {
            scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: KSERVE_CHILDREN.workloadDeployment(service) },
            minReplicaCount: scaling.minReplicas,
            maxReplicaCount: scaling.maxReplicas,
            pollingInterval: POLLING_SECONDS,
            advanced: {
                horizontalPodAutoscalerConfig: {
                    behavior: {
                        // A replica takes its whole cold start to serve: keep the one just warmed, and drain one at a time.
                        scaleDown: {
                            stabilizationWindowSeconds: Math.min(options.startupBudgetSeconds, HPA_LIMITS.stabilizationWindowSeconds),
                            policies: [
                                { type: "Pods", value: 1, periodSeconds: Math.min(options.startupBudgetSeconds, HPA_LIMITS.periodSeconds) },
                            ],
                        },
                    },
                },
            },
            triggers: [
                {
                    type: "prometheus",
                    name: scaling.signal,
                    metadata: {
                        serverAddress: managedPrometheusUrl(options.project),
                        query: signalQuery(scaling, options.namespace, service),
                        // AverageValue (KEDA's default): replicas = the sum over replicas divided by the target per replica.
                        threshold: String(scaling.target),
                    },
                    authenticationRef: { name: options.triggerAuthentication, kind: "ClusterTriggerAuthentication" },
                },
            ],
        },
    };
}
