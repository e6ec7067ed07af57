import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { CHARTS, KSERVE } from "@gke-tpu-inference/facts";
import { pinnedChartArgs } from "../lib/charts";
import { WebhookGate } from "./webhookGate";

/** Arguments of {@link KServe}. */
export interface KServeArgs {
    /** Provider of the target cluster. */
    provider: k8s.Provider;
    /** The Gateway KServe attaches HTTPRoutes to by default, as `namespace/name`. Plain strings, so KServe does not wait for the load balancer. */
    gateway: { namespace: string; name: string };
    /**
     * What the controller needs before it starts: cert-manager's webhook answering (the chart creates its own Issuer and
     * Certificate for the webhook), LeaderWorkerSet (the controller looks for the CRD once, at start) and the firewall rule that
     * lets the control plane call its webhook.
     */
    prerequisites: pulumi.Input<pulumi.Resource>[];
}

/**
 * KServe's LLMInferenceService controller from the pinned release's three charts: the CRDs,
 * the controller with its webhooks, and the well-known LLMInferenceServiceConfigs. GKE manages
 * the InferencePool CRD itself, so KServe's copies stay out.
 */
export class KServe extends pulumi.ComponentResource {
    /** The chart whose controller and webhooks every LLMInferenceService and LLMInferenceServiceConfig needs. */
    public readonly controller: k8s.helm.v4.Chart;
    /** Passes once KServe's webhooks answer; every LLMInferenceService and LLMInferenceServiceConfig waits for it. */
    public readonly webhooksReady: pulumi.Resource;
    /** The well-known configs the controller merges into every service. */
    public readonly configs: k8s.helm.v4.Chart;

    constructor(name: string, args: KServeArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:platform:KServe", name, {}, opts);
        const childOpts = { parent: this, provider: args.provider };
        const namespace = new k8s.core.v1.Namespace(
            `${name}-ns`,
            { metadata: { name: CHARTS.kserveLlmisvcResources.namespace } },
            childOpts,
        );

        const crds = new k8s.helm.v4.Chart(`${name}-crd`, pinnedChartArgs(CHARTS.kserveLlmisvcCrd, namespace.metadata.name), childOpts);

        this.controller = new k8s.helm.v4.Chart(
            `${name}-controller`,
            pinnedChartArgs(CHARTS.kserveLlmisvcResources, namespace.metadata.name, {
                kserve: {
                    // Skips the chart's InferencePool CRDs (GKE owns inference.networking.k8s.io) and llm-d's
                    // InferenceObjective/InferenceModelRewrite CRDs, which the controller and the EPP treat as optional.
                    llmisvc: { createGIECRDs: false },
                    controller: {
                        gateway: {
                            ingressGateway: { enableGatewayApi: true, kserveGateway: `${args.gateway.namespace}/${args.gateway.name}` },
                        },
                    },
                },
            }),
            // The controller's objects need the LLMInferenceService CRDs, and the controller needs its prerequisites at start.
            { ...childOpts, dependsOn: [crds, ...args.prerequisites] },
        );

        // The controller's Ready probe is a plain ping; its webhooks answer once cert-manager's cainjector has put the CA in them.
        this.webhooksReady = new WebhookGate(
            `${name}-webhooks`,
            {
                provider: args.provider,
                namespace: namespace.metadata.name,
                probes: [
                    {
                        apiVersion: KSERVE.apiVersion,
                        kind: "LLMInferenceServiceConfig",
                        metadata: { name: `${name}-webhook-probe`, namespace: CHARTS.kserveLlmisvcResources.namespace },
                        spec: {},
                    },
                    {
                        apiVersion: KSERVE.apiVersion,
                        kind: "LLMInferenceService",
                        metadata: { name: `${name}-webhook-probe`, namespace: CHARTS.kserveLlmisvcResources.namespace },
                        spec: { model: { uri: "hf://webhook-probe/webhook-probe" } },
                    },
                ],
                resources: [
                    { apiGroup: KSERVE.apiVersion.split("/")[0], resources: ["llminferenceserviceconfigs", "llminferenceservices"] },
                ],
                version: CHARTS.kserveLlmisvcResources.version,
                dependsOn: [this.controller],
            },
            { parent: this },
        ).ready;

        this.configs = new k8s.helm.v4.Chart(
            `${name}-configs`,
            // Both switches default to off: the chart installs nothing unless asked. ServingRuntimes belong to the
            // InferenceService API, whose CRDs this stack does not install.
            pinnedChartArgs(CHARTS.kserveRuntimeConfigs, namespace.metadata.name, {
                kserve: { llmisvcConfigs: { enabled: true }, servingruntime: { enabled: false } },
            }),
            // LLMInferenceServiceConfigs pass through the controller's validating webhook.
            { ...childOpts, dependsOn: [this.webhooksReady] },
        );

        this.registerOutputs({});
    }
}
