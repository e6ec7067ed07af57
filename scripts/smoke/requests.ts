/**
 * The requests `npm run smoke` sends through the Gateway: each model service's health, model list and a completion, and
 * with Pattern 2 every model name at the Gateway's root; each tried until it passes or the tries run out.
 */
import { CliError } from "../cli";
import type { Finding } from "../cluster/checks";
import { GatewayClient, TRUST_THE_STACK_CA, gatewayRequest, isTlsVerificationError } from "../cluster/gatewayRequest";
import { ModelRouting, ROUTED_PATH, routedToModel } from "../cluster/modelRouting";

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
    /** The CA the Gateway's certificate is trusted by, and the credentials a caller presents. */
    client?: GatewayClient;
}

/** The outcome of one check. */
export interface CheckResult {
    service: string;
    /** An HTTP path through the Gateway, or what a cluster check looks at. */
    check: string;
    ok: boolean;
    /** Not tried, because an earlier check of its service failed: not passed (`ok` false), yet not a failure of its own. */
    skipped?: true;
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
 * cluster (a `CliError`) is not the service's state: it ends the run at once; so does a certificate that the CA given
 * with `--cacert` does not verify, which no later try would verify either.
 */
export async function retried(
    service: string,
    check: string,
    options: SmokeOptions,
    attempt: () => Promise<Finding>,
): Promise<CheckResult> {
    let finding: Finding = { ok: false, detail: "not tried" };
    for (let tries = 1; tries <= options.attempts; tries++) {
        try {
            finding = await attempt();
        } catch (err) {
            if (err instanceof CliError) {
                throw err;
            }
            if (isTlsVerificationError(err) && options.client?.ca !== undefined) {
                throw new CliError(
                    `${service}: ${check}: the CA given with --cacert does not verify the Gateway's certificate (${(err as Error).message}): give the CA that signed it`,
                );
            }
            finding = {
                ok: false,
                detail:
                    (err as Error).name === "TimeoutError"
                        ? `no answer within ${options.requestTimeoutMs} ms`
                        : isTlsVerificationError(err)
                          ? `${(err as Error).message}: ${TRUST_THE_STACK_CA}`
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
        const response = await gatewayRequest(
            `${endpoint.baseUrl}${check.check}`,
            check.request(endpoint),
            options.client ?? { credentials: {} },
            options.requestTimeoutMs,
        );
        const { text } = response;
        const problem = check.verify(response.status, text, endpoint);
        return problem === undefined
            ? { ok: true, detail: `HTTP ${response.status}` }
            : { ok: false, detail: `${problem}: ${text.slice(0, 120).replace(/\s+/g, " ")}` };
    });
}

/** Runs every check against every service; after a service's first failure, its later checks are listed as skipped. */
export async function runSmoke(services: Record<string, ServiceEndpoint>, options: SmokeOptions): Promise<CheckResult[]> {
    const perService = await Promise.all(
        Object.entries(services).map(async ([service, endpoint]) => {
            const results: CheckResult[] = [];
            let failed: string | undefined;
            for (const check of CHECKS) {
                if (failed !== undefined) {
                    results.push({
                        service,
                        check: check.check,
                        ok: false,
                        skipped: true,
                        attempts: 0,
                        detail: `not tried: ${failed} failed`,
                    });
                    continue;
                }
                const result = await runCheck(service, endpoint, check, options);
                results.push(result);
                if (!result.ok) {
                    failed = check.check;
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
                routedToModel(routing.url, modelName, options.requestTimeoutMs, options.client),
            ),
        ),
    );
}
