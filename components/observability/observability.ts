import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { METRICS } from "@gke-tpu-inference/facts";
import { ModelServiceSettings } from "../settings/models";

/** Arguments of {@link InferenceObservability}. */
export interface InferenceObservabilityArgs {
    project: string;
    /** Shown in the dashboard's title. */
    stack: string;
    /** The stack's model services; pattern 3 ones get the prefix-cache alert. */
    models: ModelServiceSettings[];
    /** How long a pattern 3 service may serve without a single prefix-cache hit before the alert fires. Default 15 minutes. */
    zeroHitWindow?: string;
    /** What the dashboard and alerts wait for: the Cloud Monitoring API. */
    dependsOn?: pulumi.Input<pulumi.Resource>[];
}

const by = `by (${METRICS.serviceLabel})`;
const { vllm, epp, kubeState } = METRICS;

/** A kube state series of KServe's workload Deployments, labelled with the model service as the vLLM series are. */
function perService(metric: string): string {
    return `sum ${by} (label_replace(${metric}{${kubeState.deploymentLabel}=~".+-kserve"}, "${METRICS.serviceLabel}", "$1", "${kubeState.deploymentLabel}", "(.+)-kserve"))`;
}

/** The dashboard's charts: PromQL over what Managed Prometheus scrapes from vLLM and the EPP. */
export const DASHBOARD_CHARTS: ReadonlyArray<{ title: string; query: string; also?: string }> = [
    {
        title: "Replicas: desired and available",
        query: perService(kubeState.deploymentDesired),
        also: perService(kubeState.deploymentAvailable),
    },
    { title: "Requests per second", query: `sum ${by} (rate(${vllm.requestSuccess}[5m]))` },
    {
        title: "Time to first token, p95 (s)",
        query: `histogram_quantile(0.95, sum by (${METRICS.serviceLabel}, le) (rate(${vllm.timeToFirstTokenBucket}[5m])))`,
    },
    { title: "Generated tokens per second", query: `sum ${by} (rate(${vllm.generationTokens}[5m]))` },
    { title: "Queue depth (waiting requests)", query: `sum ${by} (${vllm.requestsWaiting})` },
    { title: "KV cache usage", query: `avg ${by} (${vllm.kvCacheUsage})` },
    {
        title: "Prefix cache hit rate",
        query: `sum ${by} (rate(${vllm.prefixCacheHits}[5m])) / sum ${by} (rate(${vllm.prefixCacheQueries}[5m]))`,
    },
    {
        title: "EPP scheduling decisions per endpoint",
        query: `sum by (${METRICS.serviceLabel}, ${epp.endpointLabel}, status) (rate(${epp.schedulerAttempts}[5m]))`,
    },
];

/**
 * The prefix-cache failure the field report found only by accident: the service takes
 * prompts but its prefix cache never hits (EPP routing is not prefix-aware, e.g. ext_proc
 * cannot reach a TLS EPP without ALPN h2).
 */
export function zeroPrefixHitQuery(service: string, window: string): string {
    const selector = `{${METRICS.serviceLabel}="${service}"}`;
    return `(sum ${by} (rate(${vllm.prefixCacheHits}${selector}[${window}])) == 0) and (sum ${by} (rate(${vllm.promptTokens}${selector}[${window}])) > 0)`;
}

/** How long the queue of a service at its maximum must grow before the alert fires. */
const QUEUE_GROWTH_WINDOW = "10m";

/**
 * An autoscaled service that cannot grow: its autoscaler at its maximum while the queue keeps growing over `window`.
 */
export function atMaximumQuery(service: string, window: string): string {
    const hpa = `{${kubeState.hpaLabel}="${METRICS.kedaHpaName(service)}"}`;
    return (
        `(max(${kubeState.hpaCurrent}${hpa}) >= max(${kubeState.hpaMax}${hpa})) ` +
        `and (deriv(sum(${vllm.requestsWaiting}{${METRICS.serviceLabel}="${service}"})[${window}:1m]) > 0)`
    );
}

/**
 * A Cloud Monitoring dashboard for the stack's model services (request rate, time to first
 * token, tokens per second, queue depth, KV cache usage, prefix-cache hit rate, EPP
 * scheduling decisions, replicas desired and available) and, per prefix-cache (pattern 3) service, an alert that
 * fires when it serves traffic without prefix-cache hits; per autoscaled service, one when it sits at its maximum
 * while its queue grows.
 */
export class InferenceObservability extends pulumi.ComponentResource {
    /** The dashboard in the Cloud console. */
    public readonly dashboardUrl: pulumi.Output<string>;

    constructor(name: string, args: InferenceObservabilityArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:observability:InferenceObservability", name, {}, opts);
        const window = args.zeroHitWindow ?? "15m";

        const dashboard = new gcp.monitoring.Dashboard(
            `${name}-dashboard`,
            {
                project: args.project,
                dashboardJson: JSON.stringify({
                    displayName: `LLM inference on TPU (${args.stack})`,
                    gridLayout: {
                        columns: "2",
                        widgets: DASHBOARD_CHARTS.map(({ title, query, also }) => ({
                            title,
                            xyChart: {
                                dataSets: [query, ...(also !== undefined ? [also] : [])].map((prometheusQuery) => ({
                                    timeSeriesQuery: { prometheusQuery },
                                    plotType: "LINE",
                                })),
                            },
                        })),
                    },
                }),
            },
            { parent: this, dependsOn: args.dependsOn },
        );

        for (const model of args.models.filter((candidate) => candidate.pattern === "pattern3")) {
            new gcp.monitoring.AlertPolicy(
                `${name}-${model.name}-zero-prefix-hits`,
                {
                    project: args.project,
                    displayName: `${model.name}: serving without prefix-cache hits (${args.stack})`,
                    combiner: "OR",
                    conditions: [
                        {
                            displayName: `${model.name} prefix-cache hit rate stays at zero while prompts arrive`,
                            conditionPrometheusQueryLanguage: {
                                query: zeroPrefixHitQuery(model.name, window),
                                duration: "0s",
                                evaluationInterval: "60s",
                            },
                        },
                    ],
                    documentation: {
                        mimeType: "text/markdown",
                        content:
                            `Service ${model.name} uses prefix-cache-aware routing but its vLLM replicas report no prefix-cache hits over ${window} while prompts arrive. ` +
                            "Check that the EPP receives requests (its scheduling-decisions chart), that its image offers ALPN h2 over TLS, and that vLLM runs with --enable-prefix-caching.",
                    },
                },
                { parent: this, dependsOn: args.dependsOn },
            );
        }

        for (const model of args.models.filter((candidate) => candidate.autoscaling !== undefined)) {
            new gcp.monitoring.AlertPolicy(
                `${name}-${model.name}-at-maximum`,
                {
                    project: args.project,
                    displayName: `${model.name}: at its maximum replicas with a growing queue (${args.stack})`,
                    combiner: "OR",
                    conditions: [
                        {
                            displayName: `${model.name} runs ${model.autoscaling!.maxReplicas} replicas and its queue still grows`,
                            conditionPrometheusQueryLanguage: {
                                query: atMaximumQuery(model.name, QUEUE_GROWTH_WINDOW),
                                duration: "0s",
                                evaluationInterval: "60s",
                            },
                        },
                    ],
                    documentation: {
                        mimeType: "text/markdown",
                        content:
                            `Service ${model.name} is at its maxReplicas (${model.autoscaling!.maxReplicas}) and requests keep queueing over ${QUEUE_GROWTH_WINDOW}: ` +
                            "raise its autoscaling.maxReplicas (and tpuMaxNodes), or shed load.",
                    },
                },
                { parent: this, dependsOn: args.dependsOn },
            );
        }

        this.dashboardUrl = pulumi.interpolate`https://console.cloud.google.com/monitoring/dashboards/builder/${dashboard.id.apply((id) => id.split("/").pop())}?project=${args.project}`;
        this.registerOutputs({ dashboardUrl: this.dashboardUrl });
    }
}
