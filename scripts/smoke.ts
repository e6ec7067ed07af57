/**
 * `npm run smoke -- --stack NAME | --outputs FILE [options]`: after `pulumi up`, checks every model service through the
 * Gateway and, reading the cluster, that its route and policies took. `--help` lists the options and exit codes.
 */
import { INFERENCE_POOL_KIND, KSERVE_CHILDREN } from "@gke-tpu-inference/facts";
import { HTTP_SERVICE_SUFFIX } from "../components/serving/routerRoute";
import {
    Finding,
    GatewayProvider,
    acceptedByGateway,
    eppTlsRule,
    gatewayProvider,
    gatewayProviderFromOutputs,
    gkePolicyAttached,
    inferencePoolMigration,
} from "./cluster/checks";
import type { ClusterReader, ObjectReader } from "./cluster/kube";
import { ModelRouting, ROUTED_PATH, modelRoutingFromOutputs, routedToModel } from "./cluster/modelRouting";
import { OutputsSource, STACK_OUTPUT_OPTIONS, readStackOutputs } from "./cluster/stackOutputs";
import { CliContext, CliError, CliSpec, CliValues, EXIT, runCli, seconds, timeLimitOptions } from "./cli";
import { CheckStatus, ReportedCheck, checksJson, formatChecks } from "./cli/checks";

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
    /** Told of each retry, for the progress line. */
    onRetry?: (text: string) => void;
}

/** Where the stack's objects are in the cluster. */
export interface ClusterTargets {
    servingNamespace: string;
    gateway: { namespace: string; name: string };
    /** Who programs the Gateway, from the stack's `gatewayProvider` output; the Gateway's class says when absent. */
    gatewayProvider?: GatewayProvider;
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

/**
 * Tries `attempt` up to `options.attempts` times, `options.intervalMs` apart, until it passes. A failure to read the
 * cluster (a `CliError`) is not the service's state: it ends the run at once.
 */
async function retried(service: string, check: string, options: SmokeOptions, attempt: () => Promise<Finding>): Promise<CheckResult> {
    let finding: Finding = { ok: false, detail: "not tried" };
    for (let tries = 1; tries <= options.attempts; tries++) {
        try {
            finding = await attempt();
        } catch (err) {
            if (err instanceof CliError) {
                throw err;
            }
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
            options.onRetry?.(
                `${service}: ${check}: retry ${tries} of ${options.attempts - 1} in ${options.intervalMs / 1000} s (${finding.detail.slice(0, 80)})`,
            );
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
    const provider = gatewayProvider(targets.gatewayProvider, gateway);
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

/** One check as `--json` prints it. */
export interface SmokeCheck {
    status: CheckStatus;
    /** The model service, or `cluster`. */
    area: string;
    check: string;
    /** What the last try saw. */
    message: string;
    attempts?: number;
}

/** The results as `--json` and the report give them. */
export function smokeChecks(results: CheckResult[]): SmokeCheck[] {
    return results.map((result) => ({
        status: result.ok ? "OK" : "FAIL",
        area: result.service,
        check: result.check,
        message: result.detail,
        attempts: result.attempts,
    }));
}

/** The check the report lists when the outputs do not say where the stack's objects are. */
const CLUSTER_CHECKS_SKIPPED: SmokeCheck = {
    status: "SKIPPED",
    area: "cluster",
    check: "cluster checks",
    message: "the outputs name no servingNamespace and gateway",
};

/** One check as the report shows it: how many tries it took, when more than one, beside the check. */
export function reportedCheck(check: SmokeCheck): ReportedCheck {
    const tries = check.attempts !== undefined && check.attempts > 1 ? ` (${check.attempts} tries)` : "";
    return { status: check.status, area: check.area, subject: `${check.check}${tries}`, message: check.message };
}

/** The `models` output of a stack, as `pulumi stack output --json` prints the stack's outputs. */
export function servicesFromOutputs(outputs: unknown): Record<string, ServiceEndpoint> {
    const models = (outputs as { models?: unknown } | undefined)?.models;
    if (models === null || typeof models !== "object" || Object.keys(models).length === 0) {
        throw new CliError("the stack has no model services in its `models` output");
    }
    for (const [name, service] of Object.entries(models as Record<string, Partial<ServiceEndpoint>>)) {
        if (typeof service.baseUrl !== "string" || typeof service.modelName !== "string") {
            throw new CliError(`models.${name} lacks baseUrl or modelName`);
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
            ? {
                  servingNamespace,
                  gateway: { namespace: gateway.namespace, name: gateway.name },
                  ...(gatewayProviderFromOutputs(outputs) ? { gatewayProvider: gatewayProviderFromOutputs(outputs) } : {}),
              }
            : undefined;
    const modelRouting = modelRoutingFromOutputs(outputs);
    return { services: servicesFromOutputs(outputs), ...(cluster ? { cluster } : {}), ...(modelRouting ? { modelRouting } : {}) };
}

const OPTIONS = {
    ...STACK_OUTPUT_OPTIONS,
    context: { type: "string", value: "KUBECONTEXT", description: "the kubeconfig context to read (its current context by default)" },
    "http-only": { type: "boolean", description: "check through the Gateway only, not the cluster's routes and policies" },
    attempts: { type: "string", value: "N", default: "30", description: "tries per check: a fresh service may still be loading" },
    interval: { type: "string", value: "SECONDS", default: "10", description: "the pause between two tries" },
    verbose: { type: "boolean", short: "v", description: "list the passing checks too" },
    json: { type: "boolean", description: "print one JSON document of every check on stdout instead of the report" },
    ...timeLimitOptions({ requestTimeout: 120, deadline: 600 }),
} as const;

export const SMOKE_CLI: CliSpec<typeof OPTIONS> = {
    script: "smoke",
    synopsis: "--stack NAME | --outputs FILE [options]",
    description:
        "After pulumi up: for every model service in the stack's models output, checks through the Gateway that /health " +
        "answers, /v1/models lists the model and a one-token /v1/completions succeeds; with Pattern 2, that every model name " +
        "at the Gateway's root reaches its own service; then, reading the cluster (kubeconfig as kubectl resolves it), that " +
        "KServe's HTTPRoute moved to the v1 InferencePool group, the Gateway accepted it, and GKE attached its health checks " +
        "and backend policy (Istio: TLS to the EPP). Each check is retried: a fresh service may still be loading.",
    options: OPTIONS,
    examples: ["npm run smoke -- --stack dev", "npm run smoke -- --outputs outputs.json --http-only --attempts 3 --interval 5"],
    exitCodes: [
        [EXIT.ok, "every check passed"],
        [EXIT.failed, "a check failed after its tries"],
        [
            EXIT.usage,
            "a usage error, or the outputs or the cluster could not be read (no Pulumi CLI, no kubeconfig, unreachable, TLS, 401 or 403)",
        ],
        [EXIT.timedOut, "the API server did not answer within --request-timeout, or the smoke test did not finish within --deadline"],
    ],
};

/** How hard to try, from the command line; the waits between tries must fit in the deadline. */
export function smokeOptions(
    values: Pick<CliValues<typeof OPTIONS>, "attempts" | "interval" | "request-timeout" | "deadline">,
): SmokeOptions {
    const attempts = Number(values.attempts);
    const interval = Number(values.interval);
    if (!Number.isInteger(attempts) || attempts < 1) {
        throw new CliError(`--attempts ${JSON.stringify(values.attempts)} is not a whole number of tries above 0`);
    }
    if (!Number.isFinite(interval) || interval < 0) {
        throw new CliError(`--interval ${JSON.stringify(values.interval)} is not a number of seconds, 0 or more`);
    }
    const waits = (attempts - 1) * interval;
    const deadline = seconds("--deadline", values.deadline);
    if (waits >= deadline) {
        throw new CliError(
            `--attempts ${attempts} tries --interval ${interval} s apart wait ${waits} s, which does not fit in --deadline ${deadline}: lower one, or raise --deadline`,
        );
    }
    return { attempts, intervalMs: interval * 1000, requestTimeoutMs: seconds("--request-timeout", values["request-timeout"]) * 1000 };
}

/** What to check, from the stack's outputs: one of `--stack` and `--outputs` is needed. */
export async function smokeTargets(source: OutputsSource, env: NodeJS.ProcessEnv = process.env): Promise<StackTargets> {
    const outputs = await readStackOutputs(source, env);
    if (outputs === undefined) {
        throw new CliError("give --stack NAME or --outputs FILE: the stack's outputs say what to check");
    }
    return targetsFromOutputs(outputs);
}

async function main(values: CliValues<typeof OPTIONS>, cli: CliContext): Promise<number> {
    const options: SmokeOptions = { ...smokeOptions(values), onRetry: (text) => cli.progress.step(text) };
    if (values.stack !== undefined) {
        cli.progress.step(`reading the outputs of stack ${values.stack} (pulumi stack output)`);
    }
    const targets = await smokeTargets(values);
    let reader: ClusterReader | undefined;
    if (!values["http-only"] && targets.cluster) {
        // Loaded here, where it runs: the Kubernetes client is an ES module (see cluster/kube.ts).
        reader = (await import("./cluster/kube")).ClusterReader.fromDefault(values.context, options.requestTimeoutMs / 1000);
    }
    const services = Object.keys(targets.services);
    cli.progress.step(`checking ${services.join(", ")} through the Gateway: /health, /v1/models, /v1/completions`);
    const results = await runSmoke(targets.services, options);
    if (targets.modelRouting) {
        cli.progress.step(`asking each model name at the Gateway's root: ${Object.keys(targets.modelRouting.models).join(", ")}`);
        results.push(...(await runModelRouting(targets.modelRouting, options)));
    }
    if (reader && targets.cluster) {
        cli.progress.step(`reading the routes and policies of ${services.join(", ")} (${reader.server})`);
        results.push(...(await runClusterChecks(reader, services, targets.cluster, options)));
    }
    const checks = [...smokeChecks(results), ...(!values["http-only"] && !targets.cluster ? [CLUSTER_CHECKS_SKIPPED] : [])];
    cli.print(
        values.json
            ? checksJson(checks)
            : formatChecks("smoke", checks.map(reportedCheck), { verbose: Boolean(values.verbose), terminal: cli.stdout }),
    );
    return results.every((result) => result.ok) ? EXIT.ok : EXIT.failed;
}

if (require.main === module) {
    runCli(SMOKE_CLI, main);
}
