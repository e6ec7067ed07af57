/**
 * `npm run smoke -- --stack NAME [--outputs FILE] [--attempts N] [--interval SECONDS]`
 *
 * After `pulumi up`: for every model service in the stack's `models` output, checks through
 * the Gateway that `/health` answers, `/v1/models` lists the model, and a one-token
 * `/v1/completions` succeeds. Each check is retried a bounded number of times (a fresh
 * service may still be loading, or GKE still programming its route). Prints one line per
 * check and exits 0 when all pass, 1 when any fails, 2 on a usage or input error.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import { parseArgs } from "util";

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

/** The outcome of one check. */
export interface CheckResult {
    service: string;
    check: "/health" | "/v1/models" | "/v1/completions";
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
            return expectStatus200(status) ?? (ids.includes(endpoint.modelName) ? undefined : `model ${endpoint.modelName} not listed (got ${JSON.stringify(ids)})`);
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

async function runCheck(service: string, endpoint: ServiceEndpoint, check: Check, options: SmokeOptions): Promise<CheckResult> {
    let detail = "";
    for (let attempt = 1; attempt <= options.attempts; attempt++) {
        const { method, body } = check.request(endpoint);
        try {
            const response = await fetch(`${endpoint.baseUrl}${check.check}`, {
                method,
                body,
                headers: body ? { "Content-Type": "application/json" } : undefined,
                signal: AbortSignal.timeout(options.requestTimeoutMs),
            });
            const text = await response.text();
            const problem = check.verify(response.status, text, endpoint);
            if (problem === undefined) {
                return { service, check: check.check, ok: true, attempts: attempt, detail: `HTTP ${response.status}` };
            }
            detail = `${problem}: ${text.slice(0, 120).replace(/\s+/g, " ")}`;
        } catch (err) {
            detail = (err as Error).name === "TimeoutError" ? `no answer within ${options.requestTimeoutMs} ms` : String((err as Error).cause ?? err);
        }
        if (attempt < options.attempts) {
            await sleep(options.intervalMs);
        }
    }
    return { service, check: check.check, ok: false, attempts: options.attempts, detail };
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

/** One line per check and a closing count. */
export function formatReport(results: CheckResult[]): string {
    const width = Math.max(7, ...results.map((result) => result.service.length));
    const lines = results.map(
        (result) =>
            `${result.ok ? "ok  " : "FAIL"}  ${result.service.padEnd(width)}  ${result.check.padEnd(15)}  ${result.detail} (${result.attempts} ${result.attempts === 1 ? "try" : "tries"})`,
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

async function main(argv: string[]): Promise<number> {
    const usage = "usage: npm run smoke -- --stack NAME [--outputs FILE] [--attempts N] [--interval SECONDS]";
    let values;
    try {
        ({ values } = parseArgs({
            args: argv,
            options: {
                stack: { type: "string" },
                outputs: { type: "string" },
                attempts: { type: "string", default: "30" },
                interval: { type: "string", default: "10" },
            },
            strict: true,
        }));
    } catch (err) {
        process.stderr.write(`error: ${(err as Error).message}\n${usage}\n`);
        return 2;
    }
    const attempts = Number(values.attempts);
    const interval = Number(values.interval);
    if (!Number.isInteger(attempts) || attempts < 1 || !(interval >= 0) || (values.stack === undefined && values.outputs === undefined)) {
        process.stderr.write(`${usage}\n--attempts takes a whole number >= 1, --interval seconds >= 0; give --stack or --outputs\n`);
        return 2;
    }
    let services: Record<string, ServiceEndpoint>;
    try {
        const outputsJson =
            values.outputs !== undefined
                ? fs.readFileSync(values.outputs, "utf8")
                : execFileSync("pulumi", ["stack", "output", "--json", "--stack", values.stack!], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
        services = servicesFromOutputs(JSON.parse(outputsJson));
    } catch (err) {
        process.stderr.write(`error: ${(err as Error).message}\n`);
        return 2;
    }
    const results = await runSmoke(services, { attempts, intervalMs: interval * 1000, requestTimeoutMs: 120_000 });
    process.stdout.write(`${formatReport(results)}\n`);
    return results.every((result) => result.ok) ? 0 : 1;
}

if (require.main === module) {
    main(process.argv.slice(2)).then(
        (code) => process.exit(code),
        (err) => {
            process.stderr.write(`error: ${(err as Error)?.stack ?? String(err)}\n`);
            process.exit(2);
        },
    );
}
