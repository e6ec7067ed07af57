import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { PinnedChart } from "@gke-tpu-inference/facts";

/** Chart arguments for a catalog pin: its reference and exact version, into `namespace`, with `values` when given. */
export function pinnedChartArgs(
    pinned: Pick<PinnedChart, "chart" | "repo" | "version">,
    namespace: pulumi.Input<string>,
    values?: Record<string, unknown>,
): k8s.helm.v4.ChartArgs {
    return {
        chart: pinned.chart,
        version: pinned.version,
        namespace,
        ...(pinned.repo !== undefined ? { repositoryOpts: { repo: pinned.repo } } : {}),
        ...(values ? { values } : {}),
    };
}
