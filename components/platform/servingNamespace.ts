import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { KSERVE } from "@gke-tpu-inference/facts";
import { routerRouteSpec } from "../serving/routerRoute";
import { multiHostPresetSpec } from "../serving/vllm";

/** Label that lets a namespace's HTTPRoutes attach to the inference Gateway. */
export const GATEWAY_ACCESS_LABEL = { "gke-tpu-inference/gateway-access": "true" } as const;

/** Arguments of {@link ServingNamespace}. */
export interface ServingNamespaceArgs {
    /** Provider of the target cluster. */
    provider: k8s.Provider;
    /** Kubernetes name of the namespace. */
    namespace: string;
    /** KServe's webhooks answering: the LLMInferenceServiceConfig needs its CRD and passes its validating webhook. */
    kserveWebhooks: pulumi.Input<pulumi.Resource>;
    /** Hugging Face token for gated models, a Pulumi secret; omit it for public models. */
    hfToken?: pulumi.Input<string>;
    /** Pattern 2: the services' routes also match the body-based router's base-model header. */
    bodyBasedRouting: boolean;
    /** Model services span multi-host slices: the namespace carries the preset KServe merges under them. */
    multiHost: boolean;
    /** Labels beside the Gateway-access one that the gateway provider asks of the namespace (behind Istio: out of its mesh). */
    gatewayProviderLabels: Readonly<Record<string, string>>;
}

/** Name of the token Secret. */
const HF_TOKEN_SECRET = "hf-token";

/**
 * The namespace LLMInferenceServices run in. It carries the label the Gateway admits routes
 * by, and its own `kserve-config-llm-router-route`, which KServe prefers to the one in
 * `kserve`: every service here gets an HTTPRoute without the `timeouts` GKE rejects. On a multi-host
 * pool it also holds the pipeline-parallel preset KServe looks for first here and does not ship.
 */
export class ServingNamespace extends pulumi.ComponentResource {
    public readonly namespaceName: pulumi.Output<string>;
    /** The namespace's route template; model services wait for it so that their first HTTPRoute is already right. */
    public readonly routerRouteConfig: k8s.apiextensions.CustomResource;
    /** The pipeline-parallel preset, on a multi-host pool: KServe cannot reconcile a multi-host service without it. */
    public readonly multiHostPreset?: k8s.apiextensions.CustomResource;
    /** Where model services find the Hugging Face token, when one is configured. */
    public readonly hfToken?: { secretName: pulumi.Output<string> };

    constructor(name: string, args: ServingNamespaceArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:platform:ServingNamespace", name, {}, opts);
        const childOpts = { parent: this, provider: args.provider };
        const namespace = new k8s.core.v1.Namespace(
            `${name}-ns`,
            {
                metadata: {
                    name: args.namespace,
                    labels: { ...GATEWAY_ACCESS_LABEL, ...args.gatewayProviderLabels },
                },
            },
            childOpts,
        );

        this.routerRouteConfig = new k8s.apiextensions.CustomResource(
            `${name}-router-route`,
            {
                apiVersion: KSERVE.apiVersion,
                kind: "LLMInferenceServiceConfig",
                metadata: { name: KSERVE.routerRouteConfigName, namespace: namespace.metadata.name },
                spec: { router: { route: { http: { spec: routerRouteSpec(args.bodyBasedRouting) } } } },
            },
            { ...childOpts, dependsOn: [args.kserveWebhooks] },
        );

        if (args.multiHost) {
            this.multiHostPreset = new k8s.apiextensions.CustomResource(
                `${name}-multi-host`,
                {
                    apiVersion: KSERVE.apiVersion,
                    kind: "LLMInferenceServiceConfig",
                    metadata: { name: KSERVE.pipelineParallelConfigName, namespace: namespace.metadata.name },
                    spec: multiHostPresetSpec(),
                },
                { ...childOpts, dependsOn: [args.kserveWebhooks] },
            );
        }

        if (args.hfToken !== undefined) {
            const secret = new k8s.core.v1.Secret(
                `${name}-hf-token`,
                {
                    metadata: { name: HF_TOKEN_SECRET, namespace: namespace.metadata.name },
                    type: "Opaque",
                    // The key KServe's credential builder looks for.
                    stringData: { HF_TOKEN: pulumi.secret(args.hfToken) },
                },
                childOpts,
            );
            this.hfToken = { secretName: secret.metadata.name };
        }

        this.namespaceName = namespace.metadata.name;
        this.registerOutputs({ namespaceName: this.namespaceName });
    }
}
