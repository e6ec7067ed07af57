/**
 * The Kubernetes objects of one model service, as pure functions of its settings: the LLMInferenceService KServe
 * reconciles (vLLM on the TPU pools behind the llm-d EPP, attached to the stack's Gateway), the plain-HTTP Service of the
 * paths the scheduler does not handle, and the PodMonitorings Managed Prometheus scrapes; and the requests its output
 * offers. ModelService registers them.
 */
import * as pulumi from "@pulumi/pulumi";
import {
    COLD_START_ANNOTATION,
    COLD_START_PESSIMISTIC_ANNOTATION,
    GATEWAY_LISTENERS,
    KSERVE,
    KSERVE_CHILDREN,
    KSERVE_STOP_ANNOTATION,
    METRICS,
    TPU_MULTI_HOST,
    VLLM_PORT,
    VLLM_SHUTDOWN,
} from "@gke-tpu-inference/facts";
import { authorizedCurl } from "../lib/shell";
import { ModelServiceSettings } from "../settings/models";
import { ColdStartEstimate, readyTimeoutSeconds } from "./coldStart";
import { HTTP_SERVICE_SUFFIX } from "./routerRoute";
import { TpuScheduling } from "./tpuScheduling";
import { VllmContainerOptions, endpointPickerContainer, prefixCacheEndpointPickerConfig, vllmContainer, vllmWorkerContainer } from "./vllm";

/**
 * What `pulumi up` waits for: the service serving, its router ready and one replica (or group) ready, not KServe's Ready,
 * which is False through every scale-out of two or three replicas until the new one serves, and indefinitely where the
 * pool gets no TPU capacity: an update during a scale-out would hang, then fail.
 */
const SERVING = JSON.stringify([`condition=${KSERVE.routerReadyCondition}`, `jsonpath=${KSERVE.primaryServingPath}`]);
/**
 * What `pulumi up` waits for on a fleet member, whose service has no route: one replica (or group) ready. Its router is
 * never ready there: KServe marks the pool WaitingForGateway while no Gateway of the cluster accepts it (kserve v0.20.0
 * pkg/controller/v1alpha2/llmisvc/router.go:831-837), and the member has no Gateway.
 */
const SERVING_UNROUTED = JSON.stringify([`jsonpath=${KSERVE.primaryServingPath}`]);

/** How one model service's LLMInferenceService is built, besides its settings. */
export interface LlmInferenceServiceOptions {
    /** The serving namespace. */
    namespace: pulumi.Input<string>;
    /** Where the pods land: the TPU pools' selector and tolerations (through the ComputeClass with several options), and the replica's shape. */
    scheduling: TpuScheduling;
    /**
     * The Gateway the service's HTTPRoute attaches to, on its HTTPS listener; none on a fleet member, where KServe makes
     * the pool and the EPP but no route (the config cluster routes to the pool the member exports).
     */
    gateway?: { name: string; namespace: string };
    /** The service's cold-start estimate: its annotations, the startup probe's budget and how long `pulumi up` waits. */
    coldStart: ColdStartEstimate;
    /** Stopped: KServe removes the pods and keeps the definition; nothing waits for Ready. */
    paused: boolean;
    /** The server's Kubernetes service account, which its Workload Identity grants name. */
    serviceAccountName: pulumi.Input<string>;
    /** The vLLM container's image, weights, compilation cache and Secrets (the token's only where KServe fetches the weights). */
    container: Omit<VllmContainerOptions, "shape" | "startupBudgetSeconds">;
}

/**
 * The LLMInferenceService (KServe's storage version) of `model`: vLLM on the TPU pools, routed by the llm-d EPP (with
 * the prefix-cache config for Pattern 3), attached to the stack's Gateway; across a multi-host slice one LeaderWorkerSet
 * group per replica with a pipeline stage per host.
 */
export function llmInferenceService(model: ModelServiceSettings, options: LlmInferenceServiceOptions) {
    const { scheduling, coldStart } = options;
    const multiHost = scheduling.hostsPerSlice > 1;
    // KServe fetches the weights itself unless the server streams them from Cloud Storage.
    const kserveFetches = options.container.weightsUri === undefined;
    const container: VllmContainerOptions = {
        ...options.container,
        // A server that streams its weights from Cloud Storage never reaches Hugging Face: no token for it.
        hfTokenSecret: kserveFetches ? options.container.hfTokenSecret : undefined,
        shape: scheduling,
        startupBudgetSeconds: coldStart.startupBudgetSeconds,
    };
    // Every pod of the service, leader or worker: on the TPU pool, as the account its grants name.
    const tpuPod = {
        serviceAccountName: options.serviceAccountName,
        nodeSelector: scheduling.nodeSelector,
        tolerations: scheduling.tolerations,
        // The preStop sleep and vLLM's drain both fit in it (see VLLM_SHUTDOWN).
        terminationGracePeriodSeconds: VLLM_SHUTDOWN.terminationGracePeriodSeconds,
    };
    return {
        apiVersion: KSERVE.apiVersion,
        kind: "LLMInferenceService",
        metadata: {
            name: model.name,
            namespace: options.namespace,
            annotations: {
                [COLD_START_ANNOTATION]: String(coldStart.first.total),
                [COLD_START_PESSIMISTIC_ANNOTATION]: String(coldStart.pessimistic.total),
                // KServe copies it to the LeaderWorkerSet: a group takes one node pool, which on GKE is one slice.
                ...(multiHost ? { [TPU_MULTI_HOST.exclusiveTopology.annotation]: TPU_MULTI_HOST.exclusiveTopology.key } : {}),
                ...(options.paused
                    ? { [KSERVE_STOP_ANNOTATION]: "true" }
                    : {
                          "pulumi.com/waitFor": options.gateway !== undefined ? SERVING : SERVING_UNROUTED,
                          "pulumi.com/timeoutSeconds": String(readyTimeoutSeconds(coldStart)),
                      }),
            },
        },
        spec: {
            model: { uri: container.weightsUri ?? model.modelUri, name: model.modelName },
            // KServe v0.20 fetches only pvc, oci, hf and s3 URIs: a streamed gs:// model must skip its storage initializer.
            ...(kserveFetches ? {} : { storageInitializer: { enabled: false } }),
            // An autoscaled service leaves the count to its ScaledObject: KServe then keeps what the Deployment has.
            ...(model.autoscaling === undefined ? { replicas: model.replicas } : {}),
            router: {
                ...(options.gateway !== undefined
                    ? {
                          route: {},
                          // KServe writes these refs over the route template's parentRefs: the listener is named here.
                          gateway: {
                              refs: [
                                  {
                                      name: options.gateway.name,
                                      namespace: options.gateway.namespace,
                                      sectionName: GATEWAY_LISTENERS.https.name,
                                  },
                              ],
                          },
                      }
                    : {}),
                scheduler: {
                    template: { containers: [endpointPickerContainer()] },
                    ...(model.pattern === "pattern3" ? { config: { inline: prefixCacheEndpointPickerConfig() } } : {}),
                },
            },
            template: { ...tpuPod, containers: [vllmContainer(model, container)] },
            // Across a multi-host slice: one LeaderWorkerSet group per replica, a pipeline stage per host.
            ...(multiHost
                ? {
                      parallelism: { pipeline: scheduling.hostsPerSlice, tensor: scheduling.chipsPerVm },
                      worker: { ...tpuPod, containers: [vllmWorkerContainer(container)] },
                  }
                : {}),
        },
    };
}

/** The plain-HTTP Service, named by the stack, of `/v1/models`, `/health` and the other paths the scheduler does not handle (see routerRoute.ts). */
export function httpService(model: Pick<ModelServiceSettings, "name">, namespace: pulumi.Input<string>) {
    return {
        metadata: { name: `${model.name}${HTTP_SERVICE_SUFFIX}`, namespace },
        spec: {
            selector: KSERVE_CHILDREN.workloadLabels(model.name),
            ports: [{ name: "http", port: VLLM_PORT, targetPort: VLLM_PORT, protocol: "TCP", appProtocol: "http" }],
        },
    };
}

/** The PodMonitorings of vLLM (on its serving port) and the EPP, each labelling every series with the service; by component. */
export function podMonitorings(model: Pick<ModelServiceSettings, "name">, namespace: pulumi.Input<string>) {
    const scraped: Array<[string, Record<string, string>, string | number]> = [
        ["vllm", KSERVE_CHILDREN.workloadLabels(model.name), VLLM_PORT],
        ["epp", KSERVE_CHILDREN.schedulerLabels(model.name), METRICS.epp.port],
    ];
    return scraped.map(([component, matchLabels, port]) => ({
        component,
        object: {
            apiVersion: "monitoring.googleapis.com/v1",
            kind: "PodMonitoring",
            metadata: { name: `${model.name}-${component}`, namespace },
            spec: {
                selector: { matchLabels },
                endpoints: [{ port, path: "/metrics", interval: "15s" }],
                targetLabels: { fromPod: [{ from: "app.kubernetes.io/name", to: METRICS.serviceLabel }] },
            },
        },
    }));
}

/** Requests to paste against the service at `baseUrl` (`https://<gateway>/<namespace>/<name>`): its models, and a completion. */
export function serviceCurl(model: Pick<ModelServiceSettings, "modelName">, baseUrl: string): { models: string; completions: string } {
    const completionRequest = JSON.stringify({ model: model.modelName, prompt: "Say hello", max_tokens: 32 });
    return {
        models: authorizedCurl([`${baseUrl}/v1/models`]),
        completions: authorizedCurl([`${baseUrl}/v1/completions`, "-H", "Content-Type: application/json", "-d", completionRequest]),
    };
}
