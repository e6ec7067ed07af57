import {
    DASHBOARD_CHARTS,
    InferenceObservability,
    atMaximumQuery,
    zeroPrefixHitQuery,
} from "../../../components/observability/observability";
import { record } from "../../harness";
import { MODELS, parse } from "../settings/parse";

describe("InferenceObservability", () => {
    test("a dashboard of every chart, an alert per prefix-cache service, and the console URL", async () => {
        let url: string | undefined;
        const graph = await record(() => {
            const observability = new InferenceObservability("obs", {
                project: "acme-inference",
                stack: "prod",
                models: parse({ models: MODELS, tpuMaxNodes: "3" }).models,
            });
            observability.dashboardUrl.apply((value) => (url = value));
        });
        const dashboard = JSON.parse(graph.get("gcp:monitoring/dashboard:Dashboard", "obs-dashboard").inputs.dashboardJson as string);
        expect(dashboard.displayName).toBe("LLM inference on TPU (prod)");
        expect(dashboard.gridLayout.widgets.map((widget: { title: string }) => widget.title)).toEqual([
            "Replicas: desired and available",
            "Requests per second",
            "Time to first token, p95 (s)",
            "Generated tokens per second",
            "Queue depth (waiting requests)",
            "KV cache usage",
            "Prefix cache hit rate",
            "EPP scheduling decisions per endpoint",
        ]);
        // Desired and available replicas of KServe's Deployments, per service as the vLLM series are labelled.
        expect(
            dashboard.gridLayout.widgets[0].xyChart.dataSets.map(
                (set: { timeSeriesQuery: { prometheusQuery: string } }) => set.timeSeriesQuery.prometheusQuery,
            ),
        ).toEqual([
            'sum by (model_service) (label_replace(kube_deployment_spec_replicas{deployment=~".+-kserve"}, "model_service", "$1", "deployment", "(.+)-kserve"))',
            'sum by (model_service) (label_replace(kube_deployment_status_replicas_available{deployment=~".+-kserve"}, "model_service", "$1", "deployment", "(.+)-kserve"))',
        ]);
        expect(dashboard.gridLayout.widgets[6].xyChart.dataSets[0].timeSeriesQuery.prometheusQuery).toBe(
            "sum by (model_service) (rate(vllm:prefix_cache_hits_total[5m])) / sum by (model_service) (rate(vllm:prefix_cache_queries_total[5m]))",
        );
        expect(DASHBOARD_CHARTS[7].query).toBe(
            "sum by (model_service, endpoint_name, status) (rate(llm_d_epp_scheduler_attempts_total[5m]))",
        );

        const alerts = graph.ofType("gcp:monitoring/alertPolicy:AlertPolicy");
        expect(alerts.map((alert) => alert.name)).toEqual(["obs-qwen-cache-zero-prefix-hits"]);
        expect(
            (alerts[0].inputs.conditions as Array<{ conditionPrometheusQueryLanguage: unknown }>)[0].conditionPrometheusQueryLanguage,
        ).toEqual({
            query: zeroPrefixHitQuery("qwen-cache", "15m"),
            duration: "0s",
            evaluationInterval: "60s",
        });
        expect(zeroPrefixHitQuery("qwen-cache", "15m")).toBe(
            '(sum by (model_service) (rate(vllm:prefix_cache_hits_total{model_service="qwen-cache"}[15m])) == 0) and (sum by (model_service) (rate(vllm:prompt_tokens_total{model_service="qwen-cache"}[15m])) > 0)',
        );
        expect(url).toMatch(
            /^https:\/\/console\.cloud\.google\.com\/monitoring\/dashboards\/builder\/[0-9a-f]{7}\?project=acme-inference$/,
        );
    });
});

describe("InferenceObservability with an autoscaled service", () => {
    test("an alert when the service sits at its maximum while its queue grows", async () => {
        const graph = await record(() => {
            new InferenceObservability("obs", {
                project: "acme-inference",
                stack: "prod",
                models: parse({
                    models: JSON.stringify([{ name: "qwen-cache", pattern: "pattern3", autoscaling: { minReplicas: 2, maxReplicas: 3 } }]),
                }).models,
            });
        });
        const alert = graph.get("gcp:monitoring/alertPolicy:AlertPolicy", "obs-qwen-cache-at-maximum");
        expect(
            (alert.inputs.conditions as Array<{ conditionPrometheusQueryLanguage: unknown }>)[0].conditionPrometheusQueryLanguage,
        ).toEqual({
            query: atMaximumQuery("qwen-cache", "10m"),
            duration: "0s",
            evaluationInterval: "60s",
        });
        // KEDA's HPA for the service's ScaledObject, at its ceiling, and the service's queue rising.
        expect(atMaximumQuery("qwen-cache", "10m")).toBe(
            '(max(kube_horizontalpodautoscaler_status_current_replicas{horizontalpodautoscaler="keda-hpa-qwen-cache"}) >= max(kube_horizontalpodautoscaler_spec_max_replicas{horizontalpodautoscaler="keda-hpa-qwen-cache"})) and (deriv(sum(vllm:num_requests_waiting{model_service="qwen-cache"})[10m:1m]) > 0)',
        );
        expect(graph.ofType("gcp:monitoring/alertPolicy:AlertPolicy").map((policy) => policy.name)).toEqual([
            "obs-qwen-cache-zero-prefix-hits",
            "obs-qwen-cache-at-maximum",
        ]);
    });
});
