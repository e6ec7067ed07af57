import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { KSERVE } from "./catalog";
import { routerRouteSpec } from "./routerRoute";

/** Label that lets a namespace's HTTPRoutes attach to the inference Gateway. */
export const GATEWAY_ACCESS_LABEL = { "gke-tpu-inference/gateway-access": "true" } as const;

/** Arguments of {@link ServingNamespace}. */
export interface ServingNamespaceArgs {
    /** Provider of the target cluster. */
    provider: k8s.Provider;
    /** Kubernetes name of the namespace. */
    namespace: string;
    /** KServe's controller chart: the LLMInferenceServiceConfig needs its CRD and passes its webhook. */
    kserveController: pulumi.Input<pulumi.Resource>;
}

/**
 * The namespace LLMInferenceServices run in. It carries the label the Gateway admits routes
 * by, and its own `kserve-config-llm-router-route`, which KServe prefers to the one in
 * `kserve`: every service here gets an HTTPRoute without the `timeouts` GKE rejects.
 */
export class ServingNamespace extends pulumi.ComponentResource {
    public readonly namespaceName: pulumi.Output<string>;

    constructor(name: string, args: ServingNamespaceArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:platform:ServingNamespace", name, {}, opts);
        const childOpts = { parent: this, provider: args.provider };
        const namespace = new k8s.core.v1.Namespace(`${name}-ns`, { metadata: { name: args.namespace, labels: { ...GATEWAY_ACCESS_LABEL } } }, childOpts);

        new k8s.apiextensions.CustomResource(
            `${name}-router-route`,
            {
                apiVersion: KSERVE.apiVersion,
                kind: "LLMInferenceServiceConfig",
                metadata: { name: KSERVE.routerRouteConfigName, namespace: namespace.metadata.name },
                spec: { router: { route: { http: { spec: routerRouteSpec() } } } },
            },
            { ...childOpts, dependsOn: [args.kserveController] },
        );

        this.namespaceName = namespace.metadata.name;
        this.registerOutputs({ namespaceName: this.namespaceName });
    }
}
