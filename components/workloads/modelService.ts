import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { INFERENCE_POOL_KIND, KSERVE_CHILDREN } from "@gke-tpu-inference/facts";
import { InstalledGatewayProvider } from "../gateway/provider";
import { ModelStore } from "../infrastructure/modelStore";
import { scaledObject } from "../serving/autoscaling";
import { ColdStartEstimate, estimateColdStart } from "../serving/coldStart";
import { httpService, llmInferenceService, podMonitorings, serviceCurl } from "../serving/modelServiceSpecs";
import { TpuScheduling } from "../serving/tpuScheduling";
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
    /**
     * The Gateway the service's HTTPRoute attaches to, and what serves it (the objects the service needs behind it, what
     * it waits for); none on a fleet member, whose pool the config cluster's Gateway reaches through the member's export.
     */
    front?: {
        gateway: { name: string; namespace: string };
        gatewayProvider: Pick<InstalledGatewayProvider, "addServiceObjects" | "servicePrerequisites">;
    };
    /** The HTTPS URL callers use (the stack's Gateway, or the fleet's), for the service's URL and curl examples. */
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
        const { model, scheduling, keda } = args;
        if (model.autoscaling !== undefined && keda === undefined) {
            throw new Error(`model service ${model.name} autoscales, but the stack passed no KEDA`);
        }
        const childOpts = { parent: this, provider: args.provider };
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

        const http = httpService(model, args.namespace);
        new k8s.core.v1.Service(`${name}-http`, http, childOpts);
        const backendAccess =
            args.front?.gatewayProvider.addServiceObjects(
                name,
                {
                    namespace: args.namespace,
                    inferencePool: { ...INFERENCE_POOL_KIND, name: `${model.name}${KSERVE_CHILDREN.inferencePoolSuffix}` },
                    httpServiceName: http.metadata.name,
                    eppServiceName: `${model.name}${KSERVE_CHILDREN.eppServiceSuffix}`,
                },
                childOpts,
            ) ?? [];
        for (const { component, object } of podMonitorings(model, args.namespace)) {
            new k8s.apiextensions.CustomResource(`${name}-${component}-metrics`, object, childOpts);
        }

        const llmisvc = new k8s.apiextensions.CustomResource(
            `${name}-llmisvc`,
            llmInferenceService(model, {
                namespace: args.namespace,
                scheduling,
                gateway: args.front?.gateway,
                coldStart: this.coldStart,
                paused: args.paused ?? false,
                serviceAccountName: weights.serviceAccountName,
                container: {
                    image,
                    weightsUri: weights.weightsUri,
                    compilationCacheUri: weights.cacheUri,
                    hfTokenSecret: args.hfToken?.secretName,
                    apiKeySecret: args.apiKeySecret,
                },
            }),
            // The weights staged and the grants in place before the server starts; the image pullable through the repository.
            {
                ...childOpts,
                // Its backends' access control in place before KServe creates the route that reaches them.
                dependsOn: [
                    ...args.platform,
                    ...(args.front?.gatewayProvider.servicePrerequisites ?? []),
                    ...backendAccess,
                    ...weights.ready,
                    ...args.store.imagePullable,
                ],
            },
        );

        if (model.autoscaling !== undefined && keda !== undefined) {
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
        this.curl = this.baseUrl.apply((baseUrl) => serviceCurl(model, baseUrl));
        this.registerOutputs({ baseUrl: this.baseUrl, curl: this.curl, coldStart: this.coldStart });
    }
}
