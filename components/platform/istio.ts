import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { CHARTS, ISTIO } from "@gke-tpu-inference/facts";
import { pinnedChartArgs } from "../lib/charts";

/** Arguments of {@link Istio}. */
export interface IstioArgs {
    /** Provider of the target cluster. */
    provider: k8s.Provider;
    /** What lets the control plane reach istiod's webhooks on a private cluster: the firewall rule that opens their port. */
    webhookPrerequisites: pulumi.Input<pulumi.Resource>[];
}

/**
 * Istio from its pinned upstream charts, as the stack's gateway provider: the base chart (CRDs) and istiod with Gateway
 * API Inference Extension support on, so that an HTTPRoute to an InferencePool is programmed with Istio's own ext_proc
 * call to the pool's EPP and no hand-written EnvoyFilter. istiod creates the `istio` GatewayClass itself.
 */
export class Istio extends pulumi.ComponentResource {
    /** Istio's CRDs: what an Istio object (a DestinationRule, an EnvoyFilter) waits for. */
    public readonly crds: k8s.helm.v4.Chart;
    /** istiod: what an `istio` Gateway waits for, since nothing else programs it. */
    public readonly istiod: k8s.helm.v4.Chart;

    constructor(name: string, args: IstioArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:platform:Istio", name, {}, opts);
        const childOpts = { parent: this, provider: args.provider };
        const namespace = new k8s.core.v1.Namespace(`${name}-ns`, { metadata: { name: CHARTS.istiod.namespace } }, childOpts);

        this.crds = new k8s.helm.v4.Chart(`${name}-base`, pinnedChartArgs(CHARTS.istioBase, namespace.metadata.name), childOpts);
        this.istiod = new k8s.helm.v4.Chart(
            `${name}-istiod`,
            pinnedChartArgs(CHARTS.istiod, namespace.metadata.name, {
                pilot: { env: { [ISTIO.inferenceExtensionEnv]: "true" } },
            }),
            // istiod reads its CRDs at start; the API server calls its webhooks once it is installed.
            { ...childOpts, dependsOn: [this.crds, ...args.webhookPrerequisites] },
        );
        this.registerOutputs({});
    }
}
