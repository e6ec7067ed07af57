/**
 * Seed 000's symptom, read from metrics: a prefix-cache service whose vLLM replicas see prompts and never hit their prefix
 * cache. Two sources: a Prometheus-compatible query API (Managed Service for Prometheus, through its frontend or
 * monitoring.googleapis.com), where the stack's PodMonitoring labels every series with the service; or one vLLM pod's own
 * `/metrics` (a port-forward), whose counters run from the pod's start.
 */
import { METRICS } from "@gke-tpu-inference/facts";
import { Diagnosis, objectName } from "./report";

/** Where metrics come from, and the bearer token the endpoint wants (never printed). */
export interface MetricsSource {
    url: string;
    token?: string;
    /** The query window, for a query API. */
    window: string;
}

/** Prefix-cache queries and hits of a service. */
interface PrefixCacheCounts {
    queries: number;
    hits: number;
    /** How the counts were read, for the evidence. */
    over: string;
}

/** Whether the URL is a pod's own metrics page rather than a query API. */
export function isScrapeUrl(url: string): boolean {
    return new URL(url).pathname.replace(/\/+$/, "").endsWith("/metrics");
}

/** The sum of a counter's samples across its label sets, from the Prometheus text format. */
export function sumSamples(text: string, metric: string): number {
    let sum = 0;
    for (const line of text.split("\n")) {
        if (!line.startsWith(metric)) {
            continue;
        }
        const rest = line.slice(metric.length);
        if (rest[0] !== "{" && rest[0] !== " ") {
            continue;
        }
        const value = Number(
            rest
                .slice(rest[0] === "{" ? rest.lastIndexOf("}") + 1 : 0)
                .trim()
                .split(/\s+/)[0],
        );
        sum += Number.isFinite(value) ? value : 0;
    }
    return sum;
}

async function get(url: string, source: MetricsSource): Promise<string> {
    const response = await fetch(url, {
        headers: source.token ? { Authorization: `Bearer ${source.token}` } : undefined,
        signal: AbortSignal.timeout(30_000),
    });
    const body = await response.text();
    if (!response.ok) {
        throw new Error(`HTTP ${response.status} from ${new URL(url).origin}: ${body.slice(0, 160).replace(/\s+/g, " ")}`);
    }
    return body;
}

/** The value of a one-sample PromQL instant query; 0 when it returns no series. */
async function instantQuery(source: MetricsSource, query: string): Promise<number> {
    const base = source.url.replace(/\/+$/, "");
    const body = JSON.parse(await get(`${base}/api/v1/query?query=${encodeURIComponent(query)}`, source)) as {
        status?: string;
        error?: string;
        data?: { result?: Array<{ value?: [number, string] }> };
    };
    if (body.status !== "success") {
        throw new Error(`query failed: ${body.error ?? "no status"}`);
    }
    return Number(body.data?.result?.[0]?.value?.[1] ?? 0);
}

async function prefixCacheCounts(source: MetricsSource, namespace: string, service: string): Promise<PrefixCacheCounts> {
    const { prefixCacheQueries, prefixCacheHits } = METRICS.vllm;
    if (isScrapeUrl(source.url)) {
        const text = await get(source.url, source);
        return { queries: sumSamples(text, prefixCacheQueries), hits: sumSamples(text, prefixCacheHits), over: "since the pod started" };
    }
    const selector = `{namespace="${namespace}",${METRICS.serviceLabel}="${service}"}`;
    const [queries, hits] = await Promise.all(
        [prefixCacheQueries, prefixCacheHits].map((metric) =>
            instantQuery(source, `sum(increase(${metric}${selector}[${source.window}]))`),
        ),
    );
    return { queries, hits, over: `over the last ${source.window}` };
}

/** A prefix-cache service sees prompts and hits its cache; SKIPPED when no prompt arrived. */
export async function prefixCacheCheck(source: MetricsSource, namespace: string, service: string): Promise<Diagnosis> {
    const check = "prefix-cache hits while prompts arrive";
    const object = objectName("LLMInferenceService", service, namespace);
    let counts: PrefixCacheCounts;
    try {
        counts = await prefixCacheCounts(source, namespace, service);
    } catch (err) {
        return {
            status: "FAIL",
            check,
            object,
            evidence: `metrics unreadable: ${(err as Error).message}`,
            fix: "check --metrics (a Prometheus query API or a vLLM /metrics URL) and DOCTOR_METRICS_TOKEN",
        };
    }
    const evidence = `${counts.hits} hits of ${counts.queries} prefix-cache queries ${counts.over}`;
    if (counts.queries === 0) {
        return { status: "SKIPPED", check, object, evidence: `${evidence}: no prompts to judge` };
    }
    return counts.hits > 0
        ? { status: "OK", check, object, evidence }
        : { status: "FAIL", check, object, evidence, lesson: "prefix-cache-zero" };
}
