import { spawn, spawnSync } from "child_process";
import * as fs from "fs";
import * as http from "http";
import { AddressInfo } from "net";
import * as os from "os";
import * as path from "path";
import { formatReport, runModelRouting, runSmoke, servicesFromOutputs, targetsFromOutputs } from "../../scripts/smoke";
import { clusterState, runCliAgainstCluster, writeStackOutputs } from "../fakeCluster";

const MODEL = "Qwen/Qwen2.5-3B-Instruct";
const FAST = { attempts: 4, intervalMs: 10, requestTimeoutMs: 2000 };

type Behaviour = "healthy" | "slow-start" | "failing";

/** A loopback server that answers like vLLM behind the Gateway at /<ns>/<name>, in one of three moods. */
async function fakeVllm(behaviour: Behaviour): Promise<{ baseUrl: string; requests: string[]; close: () => Promise<void> }> {
    const requests: string[] = [];
    const server = http.createServer((req, res) => {
        const route = (req.url ?? "").replace(/^\/llm-inference\/qwen/, "");
        requests.push(`${req.method} ${route}`);
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
            expect(formatReport(results).split("\n").at(-1)).toBe("smoke: 3 passed, 0 failed");
        } finally {
            await server.close();
        }
    });

    test("slow to start: retries until the service answers", async () => {
        const server = await fakeVllm("slow-start");
        try {
            const results = await runSmoke({ qwen: { baseUrl: server.baseUrl, modelName: MODEL } }, FAST);
            expect(results.map((result) => [result.check, result.ok, result.attempts])).toEqual([
                ["/health", true, 3],
                ["/v1/models", true, 3],
                ["/v1/completions", true, 3],
            ]);
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
            expect(formatReport(results)).toContain("FAIL  qwen     /v1/completions  HTTP 500");
        } finally {
            await server.close();
        }
    });

    test("a wrong model name fails the /v1/models check and stops there", async () => {
        const server = await fakeVllm("healthy");
        try {
            const results = await runSmoke({ qwen: { baseUrl: server.baseUrl, modelName: "other/model" } }, { ...FAST, attempts: 1 });
            expect(results.map((result) => [result.check, result.ok])).toEqual([
                ["/health", true],
                ["/v1/models", false],
            ]);
            expect(results[1].detail).toContain('model other/model not listed (got ["Qwen/Qwen2.5-3B-Instruct"])');
        } finally {
            await server.close();
        }
    });

    test("nothing listening: a connection error, retried and reported", async () => {
        const closed = await fakeVllm("healthy");
        await closed.close();
        const results = await runSmoke({ gone: { baseUrl: closed.baseUrl, modelName: MODEL } }, { ...FAST, attempts: 2 });
        expect(results).toEqual([
            { service: "gone", check: "/health", ok: false, attempts: 2, detail: expect.stringContaining("ECONNREFUSED") },
        ]);
    });

    test("npm run smoke with an outputs file: exit 0 on success, 1 on failure, 2 on bad input", async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "smoke-"));
        const healthy = await fakeVllm("healthy");
        const failing = await fakeVllm("failing");
        const run = (outputs: unknown) => {
            const file = path.join(dir, `${Math.random()}.json`);
            fs.writeFileSync(file, JSON.stringify(outputs));
            // spawn, not spawnSync: the fake servers answer from this process's event loop.
            return new Promise<{ status: number | null; stdout: string }>((resolve) => {
                const child = spawn(
                    process.execPath,
                    ["-r", "./scripts/ts-hook.js", "scripts/smoke.ts", "--outputs", file, "--attempts", "2", "--interval", "0"],
                    {
                        cwd: path.resolve(__dirname, "..", ".."),
                    },
                );
                let stdout = "";
                child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
                child.on("close", (status: number | null) => resolve({ status, stdout }));
            });
        };
        try {
            const ok = await run({ models: { qwen: { baseUrl: healthy.baseUrl, modelName: MODEL, pattern: "pattern1" } } });
            expect(ok.status).toBe(0);
            expect(ok.stdout.trim().split("\n").at(-1)).toBe("smoke: 3 passed, 0 failed");
            const bad = await run({ models: { qwen: { baseUrl: failing.baseUrl, modelName: MODEL } } });
            expect(bad.status).toBe(1);
            expect(bad.stdout.trim().split("\n").at(-1)).toBe("smoke: 2 passed, 1 failed");
            const empty = await run({ models: {} });
            expect(empty.status).toBe(2);
        } finally {
            await healthy.close();
            await failing.close();
        }
        const usage = spawnSync(process.execPath, ["-r", "./scripts/ts-hook.js", "scripts/smoke.ts"], {
            cwd: path.resolve(__dirname, "..", ".."),
            encoding: "utf8",
        });
        expect(usage.status).toBe(2);
        expect(usage.stderr).toContain("usage: npm run smoke -- --stack NAME");
    });

    test("npm run smoke reads the cluster through the kubeconfig's named context, only reading, and fails on a rejected route", async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "smoke-cluster-"));
        const vllm = await fakeVllm("healthy");
        const outputs = writeStackOutputs(path.join(dir, "outputs.json"), {
            models: { "qwen2-3b": { baseUrl: vllm.baseUrl, modelName: MODEL } },
        });
        const run = (...overlays: string[]) =>
            runCliAgainstCluster(
                "smoke.ts",
                clusterState(...overlays),
                ["--outputs", outputs, "--context", "gke_acme_europe-west4_tpu-inference-dev", "--attempts", "1", "--interval", "0"],
                { dir, context: "gke_acme_europe-west4_tpu-inference-dev" },
            );
        try {
            const healthy = await run();
            expect(healthy.stdout).toMatch(
                /ok +qwen2-3b +HTTPRoute on inference\.networking\.k8s\.io +InferencePool backends on inference\.networking\.k8s\.io; serving\.kserve\.io\/inference-pool-migrated=v1 \(1 try\)/,
            );
            expect(healthy.stdout.trim().split("\n").at(-1)).toBe("smoke: 7 passed, 0 failed");
            expect(healthy.status).toBe(0);
            expect(healthy.requests.length).toBeGreaterThan(0);
            expect(healthy.requests.every((request) => request.startsWith("GET "))).toBe(true);
            const rejected = await run("route-rejected-timeouts");
            expect(rejected.stdout).toContain("FAIL  qwen2-3b  HTTPRoute accepted");
            expect(rejected.stdout).toContain(
                "Accepted=False (UnsupportedValue: Error GWCER104: HTTPRoute is misconfigured, err: Timeouts are not supported.)",
            );
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
