import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { CHARTS, IMAGES } from "@gke-tpu-inference/facts";
import { pinnedChartArgs } from "../lib/charts";
import { WebhookGate } from "./webhookGate";

/** Arguments of {@link LeaderWorkerSet}. */
export interface LeaderWorkerSetArgs {
    /** Provider of the target cluster. It must apply server-side: the LeaderWorkerSet CRD is 1.3 MB, over the client-side annotation limit. */
    provider: k8s.Provider;
    /** What the control plane needs to reach the webhook on its pod port (9443 on private nodes): the firewall rule. */
    webhookPrerequisites: pulumi.Input<pulumi.Resource>[];
}

/**
 * LeaderWorkerSet from its pinned chart: KServe checks for its CRD when its controller
 * starts and reconciles multi-host services into LeaderWorkerSets.
 */
export class LeaderWorkerSet extends pulumi.ComponentResource {
    /** The chart; KServe's controller waits for it (it looks for the CRD when it starts). */
    public readonly chart: k8s.helm.v4.Chart;
    /** Passes once LeaderWorkerSet's webhooks answer; model services wait for it, since KServe makes LeaderWorkerSets for them. */
    public readonly webhooksReady: pulumi.Resource;

    constructor(name: string, args: LeaderWorkerSetArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:platform:LeaderWorkerSet", name, {}, opts);
        const childOpts = { parent: this, provider: args.provider };
        const namespace = new k8s.core.v1.Namespace(`${name}-ns`, { metadata: { name: CHARTS.leaderWorkerSet.namespace } }, childOpts);
        this.chart = new k8s.helm.v4.Chart(`${name}-chart`, pinnedChartArgs(CHARTS.leaderWorkerSet, namespace.metadata.name), childOpts);
        // LWS registers its webhook handlers only once its own certificate is mounted and its CA injected; a Ready pod proves neither.
        this.webhooksReady = new WebhookGate(
            `${name}-webhooks`,
            {
                provider: args.provider,
                namespace: namespace.metadata.name,
                probes: [
                    {
                        apiVersion: "leaderworkerset.x-k8s.io/v1",
                        kind: "LeaderWorkerSet",
                        metadata: { name: `${name}-webhook-probe`, namespace: CHARTS.leaderWorkerSet.namespace },
                        spec: {
                            leaderWorkerTemplate: { workerTemplate: { spec: { containers: [{ name: "probe", image: IMAGES.kubectl }] } } },
                        },
                    },
                ],
                resources: [{ apiGroup: "leaderworkerset.x-k8s.io", resources: ["leaderworkersets"] }],
                version: CHARTS.leaderWorkerSet.version,
                dependsOn: [this.chart, ...args.webhookPrerequisites],
            },
            { parent: this },
        ).ready;
        this.registerOutputs({});
    }
}
