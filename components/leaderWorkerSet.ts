import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { CHARTS } from "./catalog";
import { pinnedChartArgs } from "./charts";

/** Arguments of {@link LeaderWorkerSet}. */
export interface LeaderWorkerSetArgs {
    /** Provider of the target cluster. It must apply server-side: the LeaderWorkerSet CRD is 1.3 MB, over the client-side annotation limit. */
    provider: k8s.Provider;
}

/**
 * LeaderWorkerSet from its pinned chart: KServe checks for its CRD when its controller
 * starts and reconciles multi-host services into LeaderWorkerSets.
 */
export class LeaderWorkerSet extends pulumi.ComponentResource {
    /** The chart; KServe waits for it. */
    public readonly chart: k8s.helm.v4.Chart;

    constructor(name: string, args: LeaderWorkerSetArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:platform:LeaderWorkerSet", name, {}, opts);
        const childOpts = { parent: this, provider: args.provider };
        const namespace = new k8s.core.v1.Namespace(`${name}-ns`, { metadata: { name: CHARTS.leaderWorkerSet.namespace } }, childOpts);
        this.chart = new k8s.helm.v4.Chart(`${name}-chart`, pinnedChartArgs(CHARTS.leaderWorkerSet, namespace.metadata.name), childOpts);
        this.registerOutputs({});
    }
}
