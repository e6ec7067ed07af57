import * as fs from "fs";
import * as http from "http";
import { AddressInfo } from "net";
import * as os from "os";
import * as path from "path";
import { CliError, renderHelp } from "../../scripts/cli";
import { formatChecks } from "../../scripts/cli/checks";
import { gatewayProvider, gatewayProviderFromOutputs } from "../../scripts/cluster/checks";
import { plainTerminal } from "../../scripts/cli/terminal";
import {
    CheckResult,
    SMOKE_CLI,
    reportedCheck,
    runModelRouting,
    runSmoke,
    servicesFromOutputs,
    smokeChecks,
    smokeOptions,
    smokeTargets,
    targetsFromOutputs,
} from "../../scripts/smoke";
import { runCli } from "../cli";
import { clusterState, runCliAgainstCluster, writeStackOutputs } from "../fakeCluster";

const MODEL = "Qwen/Qwen2.5-3B-Instruct";
const FAST = { attempts: 4, intervalMs: 10, requestTimeoutMs: 2000 };

/** The report a user reads, `width` wide, with the passing checks. */
const report = (results: CheckResult[], width = 100) =>
    formatChecks("smoke", smokeChecks(results).map(reportedCheck), { verbose: true, terminal: plainTerminal(width) });

type Behaviour = "healthy" | "slow-start" | "failing" | "silent";

/** A loopback server that answers like vLLM behind the Gateway at /<ns>/<name>, in one of four moods; `silent` never answers. */
async function fakeVllm(behaviour: Behaviour): Promise<{ baseUrl: string; requests: string[]; close: () => Promise<void> }> {
    const requests: string[] = [];
    const server = http.createServer((req, res) => {
        const route = (req.url ?? "").replace(/^\/llm-inference\/qwen/, "");
        requests.push(`${req.method} ${route}`);
        if (behaviour === "silent") {
            return;
        }
        // A slow start: the first two requests of every path meet a pod that is still compiling.
        if (behaviour === "slow-start" && requests.filter((entry) => entry === `${req.method} ${route}`).length <= 2) {
            res.writeHead(503).end("no healthy upstream");
            return;
        }
        if (route === "/health") {
            res.writeHead(200).end();
        } else if (route === "/v1/models") {
            res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: MODEL }] }));
        } else if (route === "/v1/completions" && behaviour === "failing") {
            res.writeHead(500, { "Content-Type": "application/json" }).end(JSON.stringify({ error: "TPU out of memory" }));
        } else if (route === "/v1/completions") {
            res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ choices: [{ index: 0, text: "!" }] }));
        } else {
            res.writeHead(404).end();
        }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return {
        baseUrl: `http://127.0.0.1:${port}/llm-inference/qwen`,
        requests,
        close: () => new Promise((resolve) => server.close(() => resolve())),
    };
}

describe("smoke test against a local server playing vLLM", () => {
    test("healthy: three checks pass on the first try", async () => {
        const server = await fakeVllm("healthy");
        try {
            const results = await runSmoke({ qwen: { baseUrl: server.baseUrl, modelName: MODEL } }, FAST);
            expect(results).toEqual([
                { service: "qwen", check: "/health", ok: true, attempts: 1, detail: "HTTP 200" },
                { service: "qwen", check: "/v1/models", ok: true, attempts: 1, detail: "HTTP 200" },
                { service: "qwen", check: "/v1/completions", ok: true, attempts: 1, detail: "HTTP 200" },
            ]);
            expect(server.requests).toEqual(["GET /health", "GET /v1/models", "POST /v1/completions"]);
            expect(report(results).split("\n")).toEqual([
                "qwen",
                "    OK      /health: HTTP 200",
                "    OK      /v1/models: HTTP 200",
                "    OK      /v1/completions: HTTP 200",
                "",
                "smoke: 0 failed, 3 OK",
                "",
            ]);
        } finally {
            await server.close();
        }
    });

    test("slow to start: retries until the service answers, saying so for the progress line", async () => {
        const server = await fakeVllm("slow-start");
        const retries: string[] = [];
        try {
            const results = await runSmoke(
                { qwen: { baseUrl: server.baseUrl, modelName: MODEL } },
                { ...FAST, onRetry: (text) => retries.push(text) },
            );
            expect(results.map((result) => [result.check, result.ok, result.attempts])).toEqual([
                ["/health", true, 3],
                ["/v1/models", true, 3],
                ["/v1/completions", true, 3],
            ]);
            expect(retries.slice(0, 2)).toEqual([
                "qwen: /health: retry 1 of 3 in 0.01 s (HTTP 503: no healthy upstream)",
                "qwen: /health: retry 2 of 3 in 0.01 s (HTTP 503: no healthy upstream)",
            ]);
            expect(retries).toHaveLength(6);
        } finally {
            await server.close();
        }
    });

    test("failing: reports the failure after the bounded tries, with what the server said", async () => {
        const server = await fakeVllm("failing");
        try {
            const results = await runSmoke({ qwen: { baseUrl: server.baseUrl, modelName: MODEL } }, FAST);
            expect(results[2]).toEqual({
                service: "qwen",
                check: "/v1/completions",
                ok: false,
                attempts: 4,
                detail: 'HTTP 500: {"error":"TPU out of memory"}',
            });
            expect(server.requests.filter((request) => request === "POST /v1/completions")).toHaveLength(4);
            // Failures first; a narrow terminal wraps the message under the check.
            expect(report(results, 50).split("\n")).toEqual([
                "qwen",
                "    FAIL    /v1/completions (4 tries): HTTP 500:",
                '            {"error":"TPU out of memory"}',
                "    OK      /health: HTTP 200",
                "    OK      /v1/models: HTTP 200",
                "",
                "smoke: 1 failed, 2 OK",
                "",
            ]);
        } finally {
            await server.close();
        }
    });

    test("a wrong model name fails the /v1/models check and stops there: the completion is not tried, and counted as skipped", async () => {
        const server = await fakeVllm("healthy");
        try {
            const results = await runSmoke({ qwen: { baseUrl: server.baseUrl, modelName: "other/model" } }, { ...FAST, attempts: 1 });
            expect(results.map((result) => [result.check, result.ok, result.skipped])).toEqual([
                ["/health", true, undefined],
                ["/v1/models", false, undefined],
                ["/v1/completions", false, true],
            ]);
            expect(results[1].detail).toContain('model other/model not listed (got ["Qwen/Qwen2.5-3B-Instruct"])');
            expect(server.requests).toEqual(["GET /health", "GET /v1/models"]);
            expect(report(results, 200).split("\n").slice(-6)).toEqual([
                '    FAIL    /v1/models: model other/model not listed (got ["Qwen/Qwen2.5-3B-Instruct"]): {"object":"list","data":[{"id":"Qwen/Qwen2.5-3B-Instruct"}]}',
                "    SKIPPED /v1/completions: not tried: /v1/models failed",
                "    OK      /health: HTTP 200",
                "",
                "smoke: 1 failed, 1 skipped, 1 OK",
                "",
            ]);
        } finally {
            await server.close();
        }
    });

    test("nothing listening: a connection error, retried and reported; the checks after it are skipped, not tried", async () => {
        const closed = await fakeVllm("healthy");
        await closed.close();
        const results = await runSmoke({ gone: { baseUrl: closed.baseUrl, modelName: MODEL } }, { ...FAST, attempts: 2 });
        expect(results).toEqual([
            { service: "gone", check: "/health", ok: false, attempts: 2, detail: expect.stringContaining("ECONNREFUSED") },
            { service: "gone", check: "/v1/models", ok: false, skipped: true, attempts: 0, detail: "not tried: /health failed" },
            { service: "gone", check: "/v1/completions", ok: false, skipped: true, attempts: 0, detail: "not tried: /health failed" },
        ]);
        expect(smokeChecks(results).slice(1)).toEqual([
            { status: "SKIPPED", area: "gone", check: "/v1/models", message: "not tried: /health failed" },
            { status: "SKIPPED", area: "gone", check: "/v1/completions", message: "not tried: /health failed" },
        ]);
    });

    test("npm run smoke with an outputs file: exit 0 on success; on failure exit 1, --json on stdout and each retry on stderr", async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "smoke-"));
        const healthy = await fakeVllm("healthy");
        const failing = await fakeVllm("failing");
        const run = (outputs: unknown, ...args: string[]) => {
            const file = path.join(dir, `${Math.random()}.json`);
            fs.writeFileSync(file, JSON.stringify(outputs));
            return runCli("smoke.ts", ["--outputs", file, "--attempts", "2", "--interval", "0", ...args]);
        };
        try {
            const [ok, bad] = await Promise.all([
                run({ models: { qwen: { baseUrl: healthy.baseUrl, modelName: MODEL, pattern: "pattern1" } } }),
                run({ models: { qwen: { baseUrl: failing.baseUrl, modelName: MODEL } } }, "--json"),
            ]);
            expect([ok.status, ok.stdout]).toEqual([
                0,
                [
                    "cluster",
                    "    SKIPPED cluster checks: the outputs name no servingNamespace and gateway",
                    "",
                    "smoke: 0 failed, 1 skipped, 3 OK",
                    "",
                ].join("\n"),
            ]);
            expect(bad.status).toBe(1);
            expect(JSON.parse(bad.stdout)).toEqual({
                summary: { failed: 1, warnings: 0, skipped: 1, ok: 2 },
                checks: [
                    { status: "OK", area: "qwen", check: "/health", message: "HTTP 200", attempts: 1 },
                    { status: "OK", area: "qwen", check: "/v1/models", message: "HTTP 200", attempts: 1 },
                    {
                        status: "FAIL",
                        area: "qwen",
                        check: "/v1/completions",
                        message: 'HTTP 500: {"error":"TPU out of memory"}',
                        attempts: 2,
                    },
                    {
                        status: "SKIPPED",
                        area: "cluster",
                        check: "cluster checks",
                        message: "the outputs name no servingNamespace and gateway",
                    },
                ],
            });
            expect(bad.stderr).toBe(
                [
                    "checking qwen through the Gateway: /health, /v1/models, /v1/completions",
                    'qwen: /v1/completions: retry 1 of 1 in 0 s (HTTP 500: {"error":"TPU out of memory"})',
                    "",
                ].join("\n"),
            );
        } finally {
            await healthy.close();
            await failing.close();
        }
    });

    test("npm run smoke: a Gateway silent past --request-timeout fails its check with exit 1, as --help says; --http-only's cluster checks count as skipped", async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "smoke-"));
        const silent = await fakeVllm("silent");
        const healthy = await fakeVllm("healthy");
        const run = (outputs: unknown, ...args: string[]) => {
            const file = path.join(dir, `${Math.random()}.json`);
            fs.writeFileSync(file, JSON.stringify(outputs));
            return runCli("smoke.ts", ["--outputs", file, "--attempts", "2", "--interval", "0", ...args]);
        };
        try {
            const [timedOut, httpOnly] = await Promise.all([
                run({ models: { qwen: { baseUrl: silent.baseUrl, modelName: MODEL } } }, "--request-timeout", "0.2"),
                run(
                    {
                        models: { qwen: { baseUrl: healthy.baseUrl, modelName: MODEL } },
                        servingNamespace: "llm-inference",
                        gateway: { namespace: "inference-gateway", name: "inference-gateway" },
                    },
                    "--http-only",
                ),
            ]);
            expect([timedOut.status, timedOut.stdout]).toEqual([
                1,
                [
                    "qwen",
                    "    FAIL    /health (2 tries): no answer within 200 ms",
                    "    SKIPPED /v1/models: not tried: /health failed",
                    "    SKIPPED /v1/completions: not tried: /health failed",
                    "",
                    "cluster",
                    "    SKIPPED cluster checks: the outputs name no servingNamespace and gateway",
                    "",
                    "smoke: 1 failed, 3 skipped, 0 OK",
                    "",
                ].join("\n"),
            ]);
            expect(silent.requests).toEqual(["GET /health", "GET /health"]);
            expect(renderHelp(SMOKE_CLI, 200).split("\n")).toEqual(
                expect.arrayContaining([
                    "  1    a check failed after its tries (a Gateway that did not answer within --request-timeout included)",
                    "  3    the API server did not answer within --request-timeout, or the smoke test did not finish within --deadline",
                ]),
            );
            expect([httpOnly.status, httpOnly.stdout]).toEqual([
                0,
                [
                    "cluster",
                    "    SKIPPED cluster checks: --http-only checks through the Gateway only",
                    "",
                    "smoke: 0 failed, 1 skipped, 3 OK",
                    "",
                ].join("\n"),
            ]);
        } finally {
            await silent.close();
            await healthy.close();
        }
    });

    test("the command line: one of --stack and --outputs, whole tries, and waits that fit in the deadline", async () => {
        await expect(smokeTargets({})).rejects.toThrow(
            new CliError("give --stack NAME or --outputs FILE: the stack's outputs say what to check"),
        );
        const options = (attempts: string, interval: string, deadline = "600") =>
            smokeOptions({ attempts, interval, deadline, "request-timeout": "120" });
        expect(options("30", "10")).toEqual({ attempts: 30, intervalMs: 10_000, requestTimeoutMs: 120_000 });
        expect(() => options("0", "10")).toThrow(new CliError('--attempts "0" is not a whole number of tries above 0'));
        expect(() => options("3", "-1")).toThrow(new CliError('--interval "-1" is not a number of seconds, 0 or more'));
        expect(() => options("30", "10", "120")).toThrow(
            new CliError(
                "--attempts 30 tries --interval 10 s apart wait 290 s, which does not fit in --deadline 120: lower one, or raise --deadline",
            ),
        );
    });

    test("npm run smoke reads the cluster through the kubeconfig's named context, only reading, and fails on a rejected route", async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "smoke-cluster-"));
        const vllm = await fakeVllm("healthy");
        const outputs = writeStackOutputs(path.join(dir, "outputs.json"), {
            models: { "qwen2-3b": { baseUrl: vllm.baseUrl, modelName: MODEL } },
        });
        const run = (overlays: string[], ...args: string[]) =>
            runCliAgainstCluster(
                "smoke.ts",
                clusterState(...overlays),
                [
                    "--outputs",
                    outputs,
                    "--context",
                    "gke_acme_europe-west4_tpu-inference-dev",
                    "--attempts",
                    "1",
                    "--interval",
                    "0",
                    ...args,
                ],
                { dir, context: "gke_acme_europe-west4_tpu-inference-dev", env: { COLUMNS: "100" } },
            );
        try {
            const healthy = await run([], "--verbose");
            expect(healthy.stdout).toContain(
                [
                    "    OK      HTTPRoute on inference.networking.k8s.io: InferencePool backends on",
                    "            inference.networking.k8s.io; serving.kserve.io/inference-pool-migrated=v1",
                ].join("\n"),
            );
            expect(healthy.stdout.trim().split("\n").at(-1)).toBe("smoke: 0 failed, 7 OK");
            expect(healthy.status).toBe(0);
            expect(healthy.requests.length).toBeGreaterThan(0);
            expect(healthy.requests.every((request) => request.startsWith("GET "))).toBe(true);
            const rejected = await run(["route-rejected-timeouts"]);
            expect(rejected.stdout.split("\n").slice(0, 4)).toEqual([
                "qwen2-3b",
                "    FAIL    HTTPRoute accepted: Accepted=False (UnsupportedValue: Error GWCER104: HTTPRoute is",
                "            misconfigured, err: Timeouts are not supported.), ResolvedRefs=True (ResolvedRefs)",
                "",
            ]);
            expect(rejected.status).toBe(1);
        } finally {
            await vllm.close();
        }
    });

    test("the cluster checks need the serving namespace and the Gateway from the outputs", () => {
        const models = { a: { baseUrl: "http://x/ns/a", modelName: "m" } };
        expect(targetsFromOutputs({ models, servingNamespace: "ns", gateway: { namespace: "gw", name: "g" } })).toEqual({
            services: models,
            cluster: { servingNamespace: "ns", gateway: { namespace: "gw", name: "g" } },
        });
        expect(targetsFromOutputs({ models })).toEqual({ services: models });
        // Who programs the Gateway comes from the gatewayProvider output when the stack has one; else from its class.
        expect(
            targetsFromOutputs({ models, servingNamespace: "ns", gateway: { namespace: "gw", name: "g" }, gatewayProvider: "istio" })
                .cluster,
        ).toEqual({ servingNamespace: "ns", gateway: { namespace: "gw", name: "g" }, gatewayProvider: "istio" });
        expect(gatewayProvider("istio", { spec: { gatewayClassName: "gke-l7-regional-external-managed" } })).toBe("istio");
        expect(gatewayProvider(undefined, { spec: { gatewayClassName: "gke-l7-regional-external-managed" } })).toBe("gke");
        expect(gatewayProvider(undefined, { spec: { gatewayClassName: "istio" } })).toBe("istio");
        expect(gatewayProvider(undefined, undefined)).toBe("other");
        expect(gatewayProviderFromOutputs({ gatewayProvider: "gke" })).toBe("gke");
        expect(gatewayProviderFromOutputs({ gatewayProvider: "envoy" })).toBeUndefined();
    });

    test("reads the models output and rejects a stack without one", () => {
        expect(servicesFromOutputs({ models: { a: { baseUrl: "http://x/ns/a", modelName: "m" } } })).toEqual({
            a: { baseUrl: "http://x/ns/a", modelName: "m" },
        });
        expect(() => servicesFromOutputs({ clusterName: "c" })).toThrow("the stack has no model services in its `models` output");
        expect(() => servicesFromOutputs({ models: { a: { baseUrl: "http://x" } } })).toThrow("models.a lacks baseUrl or modelName");
    });

    test("the multimodel outputs give Pattern 2's endpoint; a malformed one is ignored", () => {
        const models = { a: { baseUrl: "http://x/ns/a", modelName: "m" } };
        const modelRouting = { url: "http://x/v1", models: { m: "a", "m-sql": "a" }, curl: "curl …" };
        expect(targetsFromOutputs({ models, modelRouting })).toEqual({
            services: models,
            modelRouting: { url: "http://x/v1", models: { m: "a", "m-sql": "a" } },
        });
        expect(targetsFromOutputs({ models, modelRouting: { models: {} } })).toEqual({ services: models });
    });
});

/** A loopback Gateway root playing the body-based router in front of two vLLM services; `mixUp` routes every name to Qwen. */
async function fakeRoutedGateway(mixUp: boolean): Promise<{ url: string; close: () => Promise<void> }> {
    const served: Record<string, string[]> = { qwen: [MODEL, "qwen-sql"], phi: ["microsoft/Phi-3-mini-4k-instruct"] };
    const server = http.createServer((req, res) => {
        let body = "";
        req.on("data", (chunk) => (body += chunk));
        req.on("end", () => {
            const model = (JSON.parse(body || "{}") as { model?: string }).model ?? "";
            const service = mixUp ? "qwen" : Object.keys(served).find((name) => served[name].includes(model));
            if (req.url !== "/v1/chat/completions" || service === undefined) {
                res.writeHead(404).end("fault filter abort");
            } else if (!served[service].includes(model)) {
                res.writeHead(404, { "Content-Type": "application/json" }).end(
                    JSON.stringify({ error: `The model \`${model}\` does not exist.` }),
                );
            } else {
                res.writeHead(200, { "Content-Type": "application/json" }).end(
                    JSON.stringify({ model, choices: [{ message: { content: "!" } }] }),
                );
            }
        });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/v1`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe("Pattern 2 smoke: every model name at the Gateway's root reaches its own service", () => {
    const routing = (url: string) => ({
        url,
        models: { [MODEL]: "qwen", "qwen-sql": "qwen", "microsoft/Phi-3-mini-4k-instruct": "phi" },
    });

    test("each name, adapters included, is answered by the service that serves it", async () => {
        const gateway = await fakeRoutedGateway(false);
        try {
            const results = await runModelRouting(routing(gateway.url), FAST);
            expect(results.map((result) => [result.service, result.check, result.ok, result.detail])).toEqual([
                ["qwen", `"${MODEL}" at /v1/chat/completions`, true, `POST ${gateway.url}/chat/completions: HTTP 200 from ${MODEL}`],
                ["qwen", '"qwen-sql" at /v1/chat/completions', true, `POST ${gateway.url}/chat/completions: HTTP 200 from qwen-sql`],
                [
                    "phi",
                    '"microsoft/Phi-3-mini-4k-instruct" at /v1/chat/completions',
                    true,
                    `POST ${gateway.url}/chat/completions: HTTP 200 from microsoft/Phi-3-mini-4k-instruct`,
                ],
            ]);
        } finally {
            await gateway.close();
        }
    });

    test("a name routed to the wrong service fails with what vLLM said", async () => {
        const gateway = await fakeRoutedGateway(true);
        try {
            const results = await runModelRouting(routing(gateway.url), { ...FAST, attempts: 2 });
            expect(results.filter((result) => !result.ok).map((result) => [result.service, result.attempts, result.detail])).toEqual([
                [
                    "phi",
                    2,
                    `POST ${gateway.url}/chat/completions: HTTP 404: {"error":"The model \`microsoft/Phi-3-mini-4k-instruct\` does not exist."}`,
                ],
            ]);
        } finally {
            await gateway.close();
        }
    });
});
