import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
    COLD_START_ANNOTATION,
    COLD_START_PESSIMISTIC_ANNOTATION,
    GATEWAY_LISTENERS,
    INFERENCE_POOL_KIND,
    KSERVE,
    KSERVE_CHILDREN,
    KSERVE_STOP_ANNOTATION,
    METRICS,
    TPU_MULTI_HOST,
    VLLM_PORT,
    VLLM_SHUTDOWN,
} from "@gke-tpu-inference/facts";
import { InstalledGatewayProvider } from "../gateway/provider";
import { ModelStore } from "../infrastructure/modelStore";
import { TpuScheduling } from "../infrastructure/tpuNodePool";
import { authorizedCurl } from "../lib/shell";
import { scaledObject } from "../serving/autoscaling";
import { ColdStartEstimate, estimateColdStart, readyTimeoutSeconds } from "../serving/coldStart";
import { HTTP_SERVICE_SUFFIX } from "../serving/routerRoute";
import {
    endpointPickerContainer,
    prefixCacheEndpointPickerConfig,
    VllmContainerOptions,
    vllmContainer,
    vllmWorkerContainer,
} from "../serving/vllm";
import { ColdStartSettings, ModelServiceSettings } from "../settings/models";
import { ModelWeights } from "./modelWeights";

/** Arguments of {@link ModelService}. */
export interface ModelServiceArgs {
    /** Provider of the target cluster. */
    provider: k8s.Provider;
    /** The serving namespace: it carries the Gateway-access label and the timeout-free route template. */
    namespace: pulumi.Input<string>;
    /** The service as the stack configures it, validated. */
    model: ModelServiceSettings;
    /** Selector, tolerations and chip count of the TPU pools (through the ComputeClass when the plan has several options). */
    scheduling: TpuScheduling;
    /** The Gateway the service's HTTPRoute attaches to. */
    gateway: { name: string; namespace: string };
    /** What serves the Gateway: it adds the objects the service needs behind it, and what the service waits for. */
    gatewayProvider: Pick<InstalledGatewayProvider, "addServiceObjects" | "servicePrerequisites">;
    /** The Gateway's HTTPS URL, for the service's URL and curl examples. */
    gatewayUrl: pulumi.Input<string>;
    /** The Secret of the key vLLM requires of callers. */
    apiKeySecret?: pulumi.Input<string>;
    /** The Hugging Face token's Secret (key HF_TOKEN): the copy Job reads it, or, where KServe downloads, the service's account lists it. */
    hfToken?: { secretName: pulumi.Input<string> };
    /**
     * What KServe needs before this service can reconcile: its webhooks answering and its well-known configs, LeaderWorkerSet's
     * webhooks answering, the namespace's route template (without it the first HTTPRoute would carry `timeouts`), and on a
     * multi-host slice the namespace's pipeline-parallel preset.
     */
    platform: pulumi.Input<pulumi.Resource>[];
    /** Stopped: KServe removes the service's pods and keeps its definition; nothing waits for Ready. */
    paused?: boolean;
    /** Which cold-start parts are on. */
    coldStart: ColdStartSettings;
    /** The stack's bucket and image repository. */
    store: ModelStore;
    /** GCP project, its number and the cluster's workload pool, for the Workload Identity grants. */
    identity: { project: string; projectNumber: pulumi.Input<string>; workloadPool: string };
    /** Slice topology of the TPU pool. */
    topology: string;
    /** KEDA, for a service that autoscales: what its ScaledObject waits for and the authentication it names. */
    keda?: { ready: pulumi.Resource[]; triggerAuthenticationName: pulumi.Input<string> };
}

/**
 * What `pulumi up` waits for: the service serving, its router ready and one replica (or group) ready, not KServe's Ready,
 * which is False through every scale-out of two or three replicas until the new one serves, and indefinitely where the
 * pool gets no TPU capacity: an update during a scale-out would hang, then fail.
 */

const SERVING = JSON.stringify([`condition=${KSERVE.routerReadyCondition}`, `jsonpath=${KSERVE.primaryServingPath}`]);

/**
 * One LLM served on TPU v6e through KServe's LLMInferenceService, routed by the llm-d EPP
 * behind the stack's Gateway, with what the gateway provider adds for it: behind GKE's Gateway
 * the policies the field reports learned it needs (HTTP health checks on /health for both of its
 * backends, a long backend timeout); behind Istio the TLS its ext_proc calls to the EPP need.
 */
export class ModelService extends pulumi.ComponentResource {
    /** `https://<gateway>/<namespace>/<name>`: append `/v1/...`. */
    public readonly baseUrl: pulumi.Output<string>;
    /** Ready-to-paste requests. */
    public readonly curl: pulumi.Output<{ models: string; completions: string }>;
    /** The estimated first and warm start, per phase, and the startup budget derived from it. */
    public readonly coldStart: ColdStartEstimate;

    constructor(name: string, args: ModelServiceArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:workloads:ModelService", name, {}, opts);
        const { model, scheduling } = args;
        const childOpts = { parent: this, provider: args.provider };
        const inferencePool = { ...INFERENCE_POOL_KIND, name: `${model.name}${KSERVE_CHILDREN.inferencePoolSuffix}` };
        const httpServiceName = `${model.name}${HTTP_SERVICE_SUFFIX}`;
        this.coldStart = estimateColdStart(model, args.coldStart, scheduling.hostsPerSlice);
        const image = args.store.imageFor(model.image);
        const weights = new ModelWeights(
            `${name}-weights`,
            {
                provider: args.provider,
                ...args.identity,
                namespace: args.namespace,
                model,
                topology: args.topology,
                coldStart: args.coldStart,
                bucketName: args.store.bucketName,
                bucketId: args.store.bucketId,
                image,
                imagePullable: args.store.imagePullable,
                hfTokenSecret: args.hfToken?.secretName,
            },
            { parent: this },
        );
        // KServe fetches the weights itself unless the server streams them from Cloud Storage.
        const kserveFetches = weights.weightsUri === undefined;

        // The backend of /v1/models, /health and other non-inference paths (see routerRoute.ts): plain HTTP, named by us.
        new k8s.core.v1.Service(
            `${name}-http`,
            {
                metadata: { name: httpServiceName, namespace: args.namespace },
                spec: {
                    selector: KSERVE_CHILDREN.workloadLabels(model.name),
                    ports: [{ name: "http", port: VLLM_PORT, targetPort: VLLM_PORT, protocol: "TCP", appProtocol: "http" }],
                },
            },
            childOpts,
        );

        const backendAccess = args.gatewayProvider.addServiceObjects(
            name,
            {
                namespace: args.namespace,
                inferencePool,
                httpServiceName,
                eppServiceName: `${model.name}${KSERVE_CHILDREN.eppServiceSuffix}`,
            },
            childOpts,
        );

        // Managed Prometheus scrapes vLLM (on its serving port) and the EPP, labelling every series with the service.
        const scraped: Array<[string, Record<string, string>, string | number]> = [
            ["vllm", KSERVE_CHILDREN.workloadLabels(model.name), VLLM_PORT],
            ["epp", KSERVE_CHILDREN.schedulerLabels(model.name), METRICS.epp.port],
        ];
        for (const [component, matchLabels, port] of scraped) {
            new k8s.apiextensions.CustomResource(
                `${name}-${component}-metrics`,
                {
                    apiVersion: "monitoring.googleapis.com/v1",
                    kind: "PodMonitoring",
                    metadata: { name: `${model.name}-${component}`, namespace: args.namespace },
                    spec: {
                        selector: { matchLabels },
                        endpoints: [{ port, path: "/metrics", interval: "15s" }],
                        targetLabels: { fromPod: [{ from: "app.kubernetes.io/name", to: METRICS.serviceLabel }] },
                    },
                },
                childOpts,
            );
        }

        const multiHost = scheduling.hostsPerSlice > 1;
        const container: VllmContainerOptions = {
            shape: scheduling,
            image,
            startupBudgetSeconds: this.coldStart.startupBudgetSeconds,
            weightsUri: weights.weightsUri,
            compilationCacheUri: weights.cacheUri,
            hfTokenSecret: kserveFetches ? args.hfToken?.secretName : undefined,
            apiKeySecret: args.apiKeySecret,
        };
        // Every pod of the service, leader or worker: on the TPU pool, as the account its grants name.
        const tpuPod = {
            serviceAccountName: weights.serviceAccountName,
            nodeSelector: scheduling.nodeSelector,
            tolerations: scheduling.tolerations,
            // The preStop sleep and vLLM's drain both fit in it (see VLLM_SHUTDOWN).
            terminationGracePeriodSeconds: VLLM_SHUTDOWN.terminationGracePeriodSeconds,
        };
        const llmisvc = new k8s.apiextensions.CustomResource(
            `${name}-llmisvc`,
            {
                apiVersion: KSERVE.apiVersion,
                kind: "LLMInferenceService",
                metadata: {
                    name: model.name,
                    namespace: args.namespace,
                    annotations: {
                        [COLD_START_ANNOTATION]: String(this.coldStart.first.total),
                        [COLD_START_PESSIMISTIC_ANNOTATION]: String(this.coldStart.pessimistic.total),
                        // KServe copies it to the LeaderWorkerSet: a group takes one node pool, which on GKE is one slice.
                        ...(multiHost ? { [TPU_MULTI_HOST.exclusiveTopology.annotation]: TPU_MULTI_HOST.exclusiveTopology.key } : {}),
                        ...(args.paused
                            ? { [KSERVE_STOP_ANNOTATION]: "true" }
                            : {
                                  "pulumi.com/waitFor": SERVING,
                                  "pulumi.com/timeoutSeconds": String(readyTimeoutSeconds(this.coldStart)),
                              }),
                    },
                },
                spec: {
                    model: { uri: weights.weightsUri ?? model.modelUri, name: model.modelName },
                    // KServe v0.20 fetches only pvc, oci, hf and s3 URIs: a streamed gs:// model must skip its storage initializer.
                    ...(kserveFetches ? {} : { storageInitializer: { enabled: false } }),
                    // An autoscaled service leaves the count to its ScaledObject: KServe then keeps what the Deployment has.
                    ...(model.autoscaling === undefined ? { replicas: model.replicas } : {}),
                    router: {
                        route: {},
                        // KServe writes these refs over the route template's parentRefs: the listener is named here.
                        gateway: {
                            refs: [
                                { name: args.gateway.name, namespace: args.gateway.namespace, sectionName: GATEWAY_LISTENERS.https.name },
                            ],
                        },
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
            },
            // The weights staged and the grants in place before the server starts; the image pullable through the repository.
            {
                ...childOpts,
                // Its backends' access control in place before KServe creates the route that reaches them.
                dependsOn: [
                    ...args.platform,
                    ...args.gatewayProvider.servicePrerequisites,
                    ...backendAccess,
                    ...weights.ready,
                    ...args.store.imagePullable,
                ],
            },
        );

        if (model.autoscaling !== undefined) {
            if (args.keda === undefined) {
                throw new Error(`model service ${model.name} autoscales, but the stack passed no KEDA`);
            }
            const keda = args.keda;
            const autoscaler = pulumi.all([args.namespace, keda.triggerAuthenticationName]).apply(([namespace, triggerAuthentication]) =>
                scaledObject(model.name, model.autoscaling!, {
                    namespace,
                    project: args.identity.project,
                    startupBudgetSeconds: this.coldStart.startupBudgetSeconds,
                    triggerAuthentication,
                    paused: args.paused ?? false,
                }),
            );
            new k8s.apiextensions.CustomResource(
                `${name}-autoscaler`,
                { apiVersion: "keda.sh/v1alpha1", kind: "ScaledObject", metadata: autoscaler.metadata, spec: autoscaler.spec },
                // KServe's Deployment exists once the service is; KEDA's CRDs, operator and credentials before.
                { ...childOpts, dependsOn: [llmisvc, ...keda.ready] },
            );
        }

        this.baseUrl = pulumi.interpolate`${args.gatewayUrl}/${args.namespace}/${model.name}`;
        const completionRequest = JSON.stringify({ model: model.modelName, prompt: "Say hello", max_tokens: 32 });
        this.curl = this.baseUrl.apply((baseUrl) => ({
            models: authorizedCurl([`${baseUrl}/v1/models`]),
            completions: authorizedCurl([`${baseUrl}/v1/completions`, "-H", "Content-Type: application/json", "-d", completionRequest]),
        }));
        this.registerOutputs({ baseUrl: this.baseUrl, curl: this.curl, coldStart: this.coldStart });
    }
}
