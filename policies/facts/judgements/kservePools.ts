/**
 * The InferencePool KServe makes for an LLMInferenceService with a scheduler and no `pool.ref`: its metadata from
 * expectedSchedulerInferencePool (kserve v0.20.0 pkg/controller/v1alpha2/llmisvc/scheduler.go:299-319), its spec the
 * pool spec of the well-known scheduler config (config/llmisvcconfig/config-llm-scheduler.yaml:8-24) with its Go
 * templates filled in for the service, as {@link renderKServeRoute} fills the route template's.
 */
import { EPP_PORTS, INFERENCE_POOL_KIND, KSERVE, KSERVE_CHILDREN } from "../catalog";

/** KServe's InferencePool of the service `name` in `namespace`. */
export function renderKServeInferencePool(service: { namespace: string; name: string }) {
    return {
        // scheduler.go:299-319 builds the pool of inference.networking.k8s.io/v1 (igwapi).
        apiVersion: `${INFERENCE_POOL_KIND.group}/v1`,
        kind: INFERENCE_POOL_KIND.kind,
        metadata: {
            // scheduler.go:304: ChildName(name, "-inference-pool").
            name: `${service.name}${KSERVE_CHILDREN.inferencePoolSuffix}`,
            // scheduler.go:305: the service's namespace.
            namespace: service.namespace,
            // scheduler.go:306 and SchedulerLabels, :1623-1629.
            labels: KSERVE_CHILDREN.schedulerLabels(service.name),
        },
        // scheduler.go:312-313 copies the merged pool spec, the scheduler config's (config-llm-scheduler.yaml:9-24).
        spec: {
            // config-llm-scheduler.yaml:17-22: the service's workload pods.
            selector: { matchLabels: KSERVE_CHILDREN.workloadLabels(service.name) },
            // config-llm-scheduler.yaml:23-24: vLLM's port.
            targetPorts: KSERVE.inferencePoolTargetPorts.map((number) => ({ number })),
            // config-llm-scheduler.yaml:10-16: the service's EPP Service, on its ext_proc port.
            endpointPickerRef: {
                failureMode: KSERVE.inferencePoolFailureMode,
                kind: "Service",
                name: `${service.name}${KSERVE_CHILDREN.eppServiceSuffix}`,
                port: { number: EPP_PORTS.grpc },
            },
        },
    };
}
