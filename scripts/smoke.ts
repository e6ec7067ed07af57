/**
 * `npm run smoke -- --stack NAME [--outputs FILE] [--context KUBECONTEXT] [--http-only] [--attempts N] [--interval SECONDS]`
 *
 * After `pulumi up`: for every model service in the stack's `models` output, checks through
 * the Gateway that `/health` answers, `/v1/models` lists the model, and a one-token
 * `/v1/completions` succeeds; then, reading the cluster (kubeconfig as kubectl resolves it),
 * that KServe's HTTPRoute for it moved to the v1 InferencePool group, that the Gateway accepted
 * it with every reference resolved, and that GKE attached its HealthCheckPolicies and its
 * GCPBackendPolicy. Each check is retried a bounded number of times (a fresh service may still
 * be loading, or GKE still programming its route). With Pattern 2 (a `modelRouting` output), every
 * model name is also asked for one token at the Gateway's root `/v1/chat/completions`, and must be
 * answered by the service that serves it. Prints one line per check and exits 0 when all pass, 1 when
 * any fails, 2 on a usage or input error.
 */
import { INFERENCE_POOL_KIND, KSERVE_CHILDREN } from "@gke-tpu-inference/facts";
import { HTTP_SERVICE_SUFFIX } from "../components/routerRoute";
import { Finding, acceptedByGateway, eppTlsRule, gatewayProviderOf, gkePolicyAttached, inferencePoolMigration } from "./cluster/checks";
import type { ObjectReader } from "./cluster/kube";
import { ModelRouting, ROUTED_PATH, modelRoutingFromOutputs, routedToModel } from "./cluster/modelRouting";
import { readStackOutputs } from "./cluster/stackOutputs";
import { parseCliArgs, runCli, usageError } from "./cli";

/** What the smoke test needs of one entry of the stack's `models` output. */
export interface ServiceEndpoint {
    baseUrl: string;
    modelName: string;
}

/** How hard to try. */
export interface SmokeOptions {
    /** Tries per check. */
    attempts: number;
    /** Pause between tries, in milliseconds. */
    intervalMs: number;
    /** Deadline of one request, in milliseconds. */
    requestTimeoutMs: number;
}

/** Where the stack's objects are in the cluster. */
export interface ClusterTargets {
    servingNamespace: string;
    gateway: { namespace: string; name: string };
}

/** What the smoke test checks, from the stack's outputs. */
export interface StackTargets {
    services: Record<string, ServiceEndpoint>;
    /** Absent when the outputs do not say where the objects are: the cluster checks are skipped. */
    cluster?: ClusterTargets;
    /** Pattern 2's one endpoint, when the stack routes by the body's model. */
    modelRouting?: ModelRouting;
}

/** The outcome of one check. */
export interface CheckResult {
    service: string;
    /** An HTTP path through the Gateway, or what a cluster check looks at. */
    check: string;
    ok: boolean;
    attempts: number;
    /** What the last try saw. */
    detail: string;
}

interface Check {
    check: CheckResult["check"];
    request: (endpoint: ServiceEndpoint) => { method: string; body?: string };
    /** A reason the response is wrong, or undefined when it is right. */
    verify: (status: number, body: string, endpoint: ServiceEndpoint) => string | undefined;
}

function expectStatus200(status: number): string | undefined {
    return status === 200 ? undefined : `HTTP ${status}`;
}

function parseJson(body: string): Record<string, unknown> | undefined {
    try {
        return JSON.parse(body) as Record<string, unknown>;
    } catch {
        return undefined;
    }
}

const CHECKS: Check[] = [
    { check: "/health", request: () => ({ method: "GET" }), verify: (status) => expectStatus200(status) },
    {
        check: "/v1/models",
        request: () => ({ method: "GET" }),
        verify: (status, body, endpoint) => {
            const ids = ((parseJson(body)?.data as Array<{ id?: unknown }> | undefined) ?? []).map((model) => model.id);
            return (
                expectStatus200(status) ??
                (ids.includes(endpoint.modelName) ? undefined : `model ${endpoint.modelName} not listed (got ${JSON.stringify(ids)})`)
            );
        },
    },
    {
        check: "/v1/completions",
        request: (endpoint) => ({ method: "POST", body: JSON.stringify({ model: endpoint.modelName, prompt: "Hello", max_tokens: 1 }) }),
        verify: (status, body) => {
            const choices = parseJson(body)?.choices as Array<{ text?: unknown }> | undefined;
            return expectStatus200(status) ?? (typeof choices?.[0]?.text === "string" ? undefined : "no completion in the response");
        },
    },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Tries `attempt` up to `options.attempts` times, `options.intervalMs` apart, until it passes. */
async function retried(service: string, check: string, options: SmokeOptions, attempt: () => Promise<Finding>): Promise<CheckResult> {
    let finding: Finding = { ok: false, detail: "not tried" };
    for (let tries = 1; tries <= options.attempts; tries++) {
        try {
            finding = await attempt();
        } catch (err) {
            finding = {
                ok: false,
                detail:
                    (err as Error).name === "TimeoutError"
                        ? `no answer within ${options.requestTimeoutMs} ms`
                        : String((err as Error).cause ?? (err as Error).message ?? err),
            };
        }
        if (finding.ok) {
            return { service, check, ok: true, attempts: tries, detail: finding.detail };
        }
        if (tries < options.attempts) {
            await sleep(options.intervalMs);
        }
    }
    return { service, check, ok: false, attempts: options.attempts, detail: finding.detail };
}

function runCheck(service: string, endpoint: ServiceEndpoint, check: Check, options: SmokeOptions): Promise<CheckResult> {
    return retried(service, check.check, options, async () => {
        const { method, body } = check.request(endpoint);
        const response = await fetch(`${endpoint.baseUrl}${check.check}`, {
            method,
            body,
            headers: body ? { "Content-Type": "application/json" } : undefined,
            signal: AbortSignal.timeout(options.requestTimeoutMs),
        });
        const text = await response.text();
        const problem = check.verify(response.status, text, endpoint);
        return problem === undefined
            ? { ok: true, detail: `HTTP ${response.status}` }
            : { ok: false, detail: `${problem}: ${text.slice(0, 120).replace(/\s+/g, " ")}` };
    });
}

/** Runs every check against every service; a service's checks stop at its first failure. */
export async function runSmoke(services: Record<string, ServiceEndpoint>, options: SmokeOptions): Promise<CheckResult[]> {
    const perService = await Promise.all(
        Object.entries(services).map(async ([service, endpoint]) => {
            const results: CheckResult[] = [];
            for (const check of CHECKS) {
                const result = await runCheck(service, endpoint, check, options);
                results.push(result);
                if (!result.ok) {
                    break;
                }
            }
            return results;
        }),
    );
    return perService.flat();
}

/** Pattern 2: every model name, at the Gateway's root, answered by its own service. */
export function runModelRouting(routing: ModelRouting, options: SmokeOptions): Promise<CheckResult[]> {
    return Promise.all(
        Object.entries(routing.models).map(([modelName, service]) =>
            retried(service, `${JSON.stringify(modelName)} at /v1${ROUTED_PATH}`, options, () =>
                routedToModel(routing.url, modelName, options.requestTimeoutMs),
            ),
        ),
    );
}

/**
 * The cluster side of each service: KServe's HTTPRoute on the v1 InferencePool group, accepted by the Gateway
 * with every reference resolved, and, by who programs the Gateway, GKE's health checks and backend policy attached
 * to its backends, or Istio's TLS to its EPP.
 */
export async function runClusterChecks(
    reader: ObjectReader,
    services: string[],
    targets: ClusterTargets,
    options: SmokeOptions,
): Promise<CheckResult[]> {
    const namespace = targets.servingNamespace;
    const gateway = await reader.get({ apiVersion: "gateway.networking.k8s.io/v1", kind: "Gateway", ...targets.gateway });
    const provider = gatewayProviderOf((gateway?.spec as { gatewayClassName?: unknown } | undefined)?.gatewayClassName);
    const perService = await Promise.all(
        services.map(async (service) => {
            const route = () =>
                reader.get({
                    apiVersion: "gateway.networking.k8s.io/v1",
                    kind: "HTTPRoute",
                    namespace,
                    name: `${service}${KSERVE_CHILDREN.routeSuffix}`,
                });
            const policy = (kind: string, name: string) => reader.get({ apiVersion: "networking.gke.io/v1", kind, namespace, name });
            const pool = `${service}${KSERVE_CHILDREN.inferencePoolSuffix}`;
            const missingRoute = { ok: false, detail: `HTTPRoute ${namespace}/${service}${KSERVE_CHILDREN.routeSuffix} does not exist` };
            const providerChecks =
                provider === "istio"
                    ? [
                          retried(service, "EPP reached over TLS", options, async () =>
                              eppTlsRule(await reader.list("networking.istio.io/v1", "DestinationRule", namespace), namespace, service),
                          ),
                      ]
                    : provider === "gke"
                      ? [
                            retried(service, "health checks attached", options, async () => {
                                const findings = await Promise.all(
                                    [pool, `${service}${HTTP_SERVICE_SUFFIX}`].map(async (name) =>
                                        gkePolicyAttached(await policy("HealthCheckPolicy", name), `HealthCheckPolicy ${name}`),
                                    ),
                                );
                                return {
                                    ok: findings.every((finding) => finding.ok),
                                    detail: findings.map((finding) => finding.detail).join("; "),
                                };
                            }),
                            retried(service, "backend policy attached", options, async () =>
                                gkePolicyAttached(await policy("GCPBackendPolicy", pool), `GCPBackendPolicy ${pool}`),
                            ),
                        ]
                      : [];
            return Promise.all([
                retried(service, `HTTPRoute on ${INFERENCE_POOL_KIND.group}`, options, async () => {
                    const found = await route();
                    return found ? inferencePoolMigration(found) : missingRoute;
                }),
                retried(service, "HTTPRoute accepted", options, async () => {
                    const found = await route();
                    return found ? acceptedByGateway(found, targets.gateway) : missingRoute;
                }),
                ...providerChecks,
            ]);
        }),
    );
    return perService.flat();
}

/** One line per check and a closing count. */
export function formatReport(results: CheckResult[]): string {
    const width = Math.max(7, ...results.map((result) => result.service.length));
    const checkWidth = Math.max(15, ...results.map((result) => result.check.length));
    const lines = results.map(
        (result) =>
            `${result.ok ? "ok  " : "FAIL"}  ${result.service.padEnd(width)}  ${result.check.padEnd(checkWidth)}  ${result.detail} (${result.attempts} ${result.attempts === 1 ? "try" : "tries"})`,
    );
    const failed = results.filter((result) => !result.ok).length;
    return [...lines, `smoke: ${results.length - failed} passed, ${failed} failed`].join("\n");
}

/** The `models` output of a stack, as `pulumi stack output --json` prints the stack's outputs. */
export function servicesFromOutputs(outputs: unknown): Record<string, ServiceEndpoint> {
    const models = (outputs as { models?: unknown } | undefined)?.models;
    if (models === null || typeof models !== "object" || Object.keys(models).length === 0) {
        throw new Error("the stack has no model services in its `models` output");
    }
    for (const [name, service] of Object.entries(models as Record<string, Partial<ServiceEndpoint>>)) {
        if (typeof service.baseUrl !== "string" || typeof service.modelName !== "string") {
            throw new Error(`models.${name} lacks baseUrl or modelName`);
        }
    }
    return models as Record<string, ServiceEndpoint>;
}

/** What to check, from the stack's outputs: the services, and where their objects are when the outputs say. */
export function targetsFromOutputs(outputs: unknown): StackTargets {
    const { servingNamespace, gateway } = (outputs ?? {}) as {
        servingNamespace?: unknown;
        gateway?: { namespace?: unknown; name?: unknown };
    };
    const cluster =
        typeof servingNamespace === "string" && typeof gateway?.namespace === "string" && typeof gateway?.name === "string"
            ? { servingNamespace, gateway: { namespace: gateway.namespace, name: gateway.name } }
            : undefined;
    const modelRouting = modelRoutingFromOutputs(outputs);
    return { services: servicesFromOutputs(outputs), ...(cluster ? { cluster } : {}), ...(modelRouting ? { modelRouting } : {}) };
}

async function main(argv: string[]): Promise<number> {
    const usage =
        "usage: npm run smoke -- --stack NAME [--outputs FILE] [--context KUBECONTEXT] [--http-only] [--attempts N] [--interval SECONDS]";
    const values = parseCliArgs(
        argv,
        {
            stack: { type: "string" },
            outputs: { type: "string" },
            context: { type: "string" },
            "http-only": { type: "boolean", default: false },
            attempts: { type: "string", default: "30" },
            interval: { type: "string", default: "10" },
        },
        usage,
    );
    if (!values) {
        return 2;
    }
    const attempts = Number(values.attempts);
    const interval = Number(values.interval);
    if (!Number.isInteger(attempts) || attempts < 1 || !(interval >= 0) || (values.stack === undefined && values.outputs === undefined)) {
        return usageError("--attempts takes a whole number >= 1, --interval seconds >= 0; give --stack or --outputs", usage);
    }
    let targets: StackTargets;
    let reader: ObjectReader | undefined;
    try {
        targets = targetsFromOutputs(readStackOutputs({ stack: values.stack, file: values.outputs }));
        if (!values["http-only"] && targets.cluster) {
            // Loaded here, where it runs: the Kubernetes client is an ES module (see cluster/kube.ts).
            const { ClusterReader } = await import("./cluster/kube");
            reader = ClusterReader.fromDefault(values.context);
        }
    } catch (err) {
        process.stderr.write(`error: ${(err as Error).message}\n`);
        return 2;
    }
    const options = { attempts, intervalMs: interval * 1000, requestTimeoutMs: 120_000 };
    const results = await runSmoke(targets.services, options);
    if (targets.modelRouting) {
        results.push(...(await runModelRouting(targets.modelRouting, options)));
    }
    if (reader && targets.cluster) {
        results.push(...(await runClusterChecks(reader, Object.keys(targets.services), targets.cluster, options)));
    } else if (!values["http-only"]) {
        process.stdout.write("note: the outputs name no servingNamespace and gateway, so the cluster checks are skipped\n");
    }
    process.stdout.write(`${formatReport(results)}\n`);
    return results.every((result) => result.ok) ? 0 : 1;
}

if (require.main === module) {
    runCli(main);
}
