import * as fs from "fs";
import * as http from "http";
import * as net from "net";
import { AddressInfo } from "net";
import * as os from "os";
import * as path from "path";
import { EXIT } from "../../scripts/cli";
import type { KubeObject } from "../../scripts/cluster/kube";
import { DoctorTargets, runDoctor, targetsFromOutputs } from "../../scripts/doctor/diagnose";
import { lessonById, lessonLink } from "@gke-tpu-inference/facts";
import { prefixCacheCheck, sumSamples } from "../../scripts/doctor/metrics";
import { routerReplicas } from "../../scripts/doctor/modelRouting";
import { jsonCheck } from "../../scripts/doctor/report";
import { runCli } from "../cli";
import { clusterState, closedPort, runCliAgainstCluster, writeKubeconfig, writeStackOutputs } from "../fakeCluster";
import { memoryReader } from "../memoryCluster";
import { NOW, SERVICE, overlaysOf } from "./doctorStates";

/** A loopback HTTP server answering every request with `respond`, and the requests it saw. */
async function loopback(respond: (url: URL) => { status: number; body: string }) {
    const seen: Array<{ url: string; authorization?: string }> = [];
    const server = http.createServer((req, res) => {
        const url = new URL(req.url ?? "/", "http://loopback");
        seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
        const { status, body } = respond(url);
        res.writeHead(status).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const close = () =>
        new Promise<void>((resolve) => {
            server.close(() => resolve());
            // fetch keeps connections alive; close them rather than wait for their idle timeout.
            server.closeAllConnections();
        });
    return { url: `http://127.0.0.1:${port}`, seen, close };
}

/** A Prometheus query API's answer to an instant query: one sample of `value`. */
const promResult = (value: string) =>
    JSON.stringify({ status: "success", data: { resultType: "vector", result: [{ metric: {}, value: [1763630000, value] }] } });

describe("prefix-cache hits from metrics (the prefix-cache lesson's symptom)", () => {
    test("a query API: hits while prompts arrive pass, zero hits fail, no prompts skip; the token goes in the header", async () => {
        const answers: Record<string, string> = {};
        const api = await loopback((url) => {
            const query = url.searchParams.get("query") ?? "";
            return { status: 200, body: promResult(query.includes("hits") ? answers.hits : answers.queries) };
        });
        try {
            const source = { url: `${api.url}/v1/projects/demo/location/global/prometheus`, token: "ya29.secret", window: "15m" };
            Object.assign(answers, { queries: "12800", hits: "0" });
            expect(await prefixCacheCheck(source, "llm-inference", "qwen2-3b")).toEqual({
                status: "FAIL",
                check: "prefix-cache hits while prompts arrive",
                object: SERVICE,
                evidence: "0 hits of 12800 prefix-cache queries over the last 15m",
                lesson: "prefix-cache-zero",
            });
            Object.assign(answers, { queries: "12800", hits: "9216" });
            expect((await prefixCacheCheck(source, "llm-inference", "qwen2-3b")).status).toBe("OK");
            Object.assign(answers, { queries: "0", hits: "0" });
            expect((await prefixCacheCheck(source, "llm-inference", "qwen2-3b")).status).toBe("SKIPPED");
            expect(decodeURIComponent(api.seen[0].url)).toBe(
                '/v1/projects/demo/location/global/prometheus/api/v1/query?query=sum(increase(vllm:prefix_cache_queries_total{namespace="llm-inference",model_service="qwen2-3b"}[15m]))',
            );
            expect(api.seen.every((request) => request.authorization === "Bearer ya29.secret")).toBe(true);
        } finally {
            await api.close();
        }
    });

    test("a vLLM pod's /metrics page: counters summed across label sets; an unreadable endpoint fails without echoing the token", async () => {
        const page = [
            "# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.",
            "# TYPE vllm:prefix_cache_queries_total counter",
            'vllm:prefix_cache_queries_total{engine="0",model_name="Qwen/Qwen2.5-3B-Instruct"} 4096.0',
            'vllm:prefix_cache_queries_total{engine="1",model_name="Qwen/Qwen2.5-3B-Instruct"} 1024.0',
            'vllm:prefix_cache_hits_total{engine="0",model_name="Qwen/Qwen2.5-3B-Instruct"} 0.0',
            "vllm:prefix_cache_hits_total_created 1763630000.0",
        ].join("\n");
        expect(sumSamples(page, "vllm:prefix_cache_queries_total")).toBe(5120);
        expect(sumSamples(page, "vllm:prefix_cache_hits_total")).toBe(0);
        const pod = await loopback((url) =>
            url.pathname === "/metrics" ? { status: 200, body: page } : { status: 401, body: "unauthorized" },
        );
        try {
            expect(await prefixCacheCheck({ url: `${pod.url}/metrics`, window: "15m" }, "llm-inference", "qwen2-3b")).toMatchObject({
                status: "FAIL",
                evidence: "0 hits of 5120 prefix-cache queries since the pod started",
                lesson: "prefix-cache-zero",
            });
            const denied = await prefixCacheCheck(
                { url: `${pod.url}/api`, token: "ya29.secret", window: "15m" },
                "llm-inference",
                "qwen2-3b",
            );
            expect(denied.status).toBe("FAIL");
            expect(denied.evidence).toBe(`metrics unreadable: HTTP 401 from ${pod.url}: unauthorized`);
        } finally {
            await pod.close();
        }
    });
});

describe("the doctor CLI against a loopback API server", () => {
    const CONTEXT = "gke_acme_europe-west4_tpu-inference-dev";
    let dir: string;
    beforeAll(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "doctor-"));
    });

    /** Runs `npm run doctor` (as its script) against a fake cluster of `objects`. */
    const doctor = (objects: KubeObject[], args: string[], env: Record<string, string> = {}) =>
        runCliAgainstCluster("doctor.ts", objects, args, { dir, context: CONTEXT, env });

    /** The doctor's `--json` document. */
    type DoctorJson = { summary: Record<string, number>; checks: Array<ReturnType<typeof jsonCheck>> };

    test("a healthy stack through the real client, read-only: --json on stdout, progress on stderr, exit 0", async () => {
        const gateway = await loopback((url) =>
            url.pathname === "/llm-inference/qwen2-3b/health" ? { status: 200, body: "" } : { status: 404, body: "" },
        );
        const outputs = writeStackOutputs(path.join(dir, "outputs.json"), {
            caIssuerName: "tpu-inference-ca-issuer",
            models: {
                "qwen2-3b": {
                    pattern: "pattern1",
                    baseUrl: `${gateway.url}/llm-inference/qwen2-3b`,
                    modelName: "Qwen/Qwen2.5-3B-Instruct",
                },
            },
        });
        try {
            const run = await doctor(clusterState(), ["--outputs", outputs, "--context", CONTEXT, "--json"]);
            expect(run.status).toBe(0);
            expect(run.requests.every((request) => request.startsWith("GET "))).toBe(true);
            const report = JSON.parse(run.stdout) as DoctorJson;
            expect(report.summary).toEqual({ failed: 0, warnings: 0, skipped: 0, ok: 36 });
            expect(report.checks.find((check) => check.check === "/health through the Gateway")).toEqual({
                status: "OK",
                area: "model service llm-inference/qwen2-3b",
                object: SERVICE,
                check: "/health through the Gateway",
                message: `GET ${gateway.url}/llm-inference/qwen2-3b/health: HTTP 200`,
            });
            // Off a terminal, one line a step, each naming the API server.
            expect(run.stderr.replace(/http:\/\/127\.0\.0\.1:\d+/g, "SERVER")).toBe(
                [
                    "listing nodes and LLMInferenceServices in llm-inference (SERVER)",
                    "checking 1 model service: qwen2-3b (SERVER)",
                    "checking the platform: Gateway, CRDs, controllers, cert-manager, TPU capacity (SERVER)",
                    "",
                ].join("\n"),
            );
        } finally {
            await gateway.close();
        }
    });

    test("a crash-looping vLLM and a TLS-speaking Gateway: the log read through the pod's log subresource, the lessons named, exit 1", async () => {
        const gateway = await loopback(() => ({
            status: 503,
            body: "upstream connect error or disconnect/reset before headers. reset reason: remote connection failure, transport failure reason: TLS_error:|268435703:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER:TLS_error_end",
        }));
        const outputs = path.join(dir, "outputs-tls.json");
        fs.writeFileSync(outputs, JSON.stringify({ models: { "qwen2-3b": { baseUrl: `${gateway.url}/llm-inference/qwen2-3b` } } }));
        try {
            const run = await doctor(clusterState(...overlaysOf("crashloop-unknown-flag")), ["--outputs", outputs, "--json"]);
            expect(run.status).toBe(1);
            const { checks } = JSON.parse(run.stdout) as DoctorJson;
            const failed = (check: string) => checks.find((candidate) => candidate.check === check && candidate.status === "FAIL");
            expect(failed("container running")).toMatchObject({
                message: expect.stringContaining("vLLM rejected a flag: error: unrecognized arguments: --prefix-cache-block-size=16"),
                lesson: { id: "vllm-flag", link: "docs/lessons.md#vllm-flag" },
            });
            expect(failed("/health through the Gateway")).toMatchObject({
                message: expect.stringMatching(/HTTP 503: upstream connect error .*WRONG_VERSION_NUMBER:TLS_error_end$/),
                lesson: { id: "https-app-protocol", link: "docs/lessons.md#https-app-protocol" },
            });
            expect(run.requests).toContain(
                "GET /api/v1/namespaces/llm-inference/pods/qwen2-3b-kserve-6c8f9d7b54-x2x4p/log?container=main&previous=true&tailLines=40",
            );
        } finally {
            await gateway.close();
        }
    });

    test("--metrics on a Pattern 3 service: zero hits while prompts arrive fail with the prefix-cache lesson; the token only in the header", async () => {
        const prometheus = await loopback((url) => ({
            status: 200,
            body: promResult((url.searchParams.get("query") ?? "").includes("hits") ? "0" : "12800"),
        }));
        const outputs = path.join(dir, "outputs-pattern3.json");
        fs.writeFileSync(outputs, JSON.stringify({ servingNamespace: "llm-inference", models: { "qwen2-3b": { pattern: "pattern3" } } }));
        const token = "ya29.doctor-metrics-secret";
        try {
            const run = await doctor(
                clusterState(),
                [
                    "--outputs",
                    outputs,
                    "--metrics",
                    `${prometheus.url}/v1/projects/acme/location/global/prometheus`,
                    "--metrics-window",
                    "30m",
                ],
                { DOCTOR_METRICS_TOKEN: token, COLUMNS: "160" },
            );
            expect(run.status).toBe(1);
            // The report as a user reads it: only the failure, its lesson and next step, then the counts.
            expect(run.stdout.split("\n")).toEqual([
                "model service llm-inference/qwen2-3b",
                `    FAIL    ${SERVICE}: prefix-cache hits while prompts arrive: 0 hits of 12800 prefix-cache queries over the last 30m`,
                `            lesson   : ${lessonById("prefix-cache-zero").title}`,
                `                       (${lessonLink("prefix-cache-zero")})`,
                expect.stringMatching(/^ {12}next step: /),
                ...run.stdout.split("\n").slice(5, -3),
                "",
                "doctor: 1 failed, 36 OK",
                "",
            ]);
            expect(
                run.stdout
                    .split("\n")
                    .slice(5, -3)
                    .every((line) => line.startsWith(" ".repeat(23))),
            ).toBe(true);
            expect(prometheus.seen.map((request) => decodeURIComponent(request.url))).toEqual([
                expect.stringContaining(
                    'sum(increase(vllm:prefix_cache_queries_total{namespace="llm-inference",model_service="qwen2-3b"}[30m]))',
                ),
                expect.stringContaining(
                    'sum(increase(vllm:prefix_cache_hits_total{namespace="llm-inference",model_service="qwen2-3b"}[30m]))',
                ),
            ]);
            expect(prometheus.seen.every((request) => request.authorization === `Bearer ${token}`)).toBe(true);
            expect(run.stdout + run.stderr).not.toContain(token);
        } finally {
            await prometheus.close();
        }
    });

    test("an unknown context is one line naming the ones there are, exit 2; FORCE_COLOR colours it even on a pipe", async () => {
        const unknown = await doctor(clusterState(), ["--context", "nope"], { FORCE_COLOR: "1" });
        expect(unknown.status).toBe(2);
        expect(unknown.stderr).toBe(`\x1b[31merror:\x1b[39m kubeconfig has no context "nope"; it has ${CONTEXT}\n`);
    });

    test("an API server that refuses connections: one line naming it, exit 2, no stack trace; NO_COLOR wins over FORCE_COLOR", async () => {
        const port = await closedPort();
        const kubeconfig = writeKubeconfig(path.join(dir, "refused.yaml"), `http://127.0.0.1:${port}`);
        const run = await runCli("doctor.ts", [], { KUBECONFIG: kubeconfig, FORCE_COLOR: "1", NO_COLOR: "1" });
        expect(run.status).toBe(EXIT.usage);
        expect(run.stderr.split("\n").filter((line) => line.startsWith("error"))).toEqual([
            `error: cannot reach the API server at http://127.0.0.1:${port}: connection refused; check that the cluster is up, or run $(pulumi stack output kubeconfigCommand) if its address changed`,
        ]);
        expect(run.stderr).not.toMatch(/^\s+at /m);
    });

    test("an API server that accepts connections and never answers: the request timeout, or else the deadline, ends it with exit 3", async () => {
        const silent = net.createServer(() => undefined);
        await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
        const server = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
        const kubeconfig = writeKubeconfig(path.join(dir, "silent.yaml"), server);
        const timed = async (args: string[]) => {
            const started = Date.now();
            const run = await runCli("doctor.ts", args, { KUBECONFIG: kubeconfig });
            return { ...run, seconds: (Date.now() - started) / 1000 };
        };
        try {
            const [request, deadline] = await Promise.all([
                timed(["--request-timeout", "0.5", "--deadline", "20"]),
                timed(["--request-timeout", "20", "--deadline", "1"]),
            ]);
            expect([request.status, request.stderr.split("\n").at(-2)]).toEqual([
                EXIT.timedOut,
                `error: the API server at ${server} did not answer within 0.5 s (--request-timeout): check that the cluster is up and reachable from here`,
            ]);
            expect([deadline.status, deadline.stderr.split("\n").at(-2)]).toEqual([
                EXIT.timedOut,
                "error: npm run doctor did not finish within its 1 s deadline; --deadline SECONDS allows longer",
            ]);
            // Each ended by its own limit, well before the other's 20 s; Node's start and the TypeScript hook take seconds on a busy machine.
            expect(request.seconds).toBeLessThan(15);
            expect(deadline.seconds).toBeLessThan(15);
        } finally {
            silent.close();
        }
    });
});

describe("Pattern 2: the body-based router, its extension, what it knows, and each name through the Gateway's root", () => {
    const GATEWAY = { namespace: "inference-gateway", name: "inference-gateway" };
    const routerObjects = (options: { labelled?: boolean; extension?: boolean } = {}): KubeObject[] => [
        {
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name: "body-based-router", namespace: GATEWAY.namespace },
            spec: { replicas: 2 },
            status: { readyReplicas: 2, conditions: [{ type: "Available", status: "True", reason: "MinimumReplicasAvailable" }] },
        },
        ...(options.extension === false
            ? []
            : [
                  {
                      apiVersion: "networking.gke.io/v1",
                      kind: "GCPRoutingExtension",
                      metadata: { name: "body-based-router", namespace: GATEWAY.namespace },
                      spec: { targetRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: GATEWAY.name }] },
                  },
              ]),
        {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: {
                name: "qwen2-3b-models",
                namespace: GATEWAY.namespace,
                labels: options.labelled === false ? {} : { "inference.networking.k8s.io/bbr-managed": "true" },
            },
            data: { baseModel: "Qwen/Qwen2.5-3B-Instruct", adapters: '- "qwen-sql"\n' },
        },
    ];

    /** A Gateway root whose router and services answer every name correctly. */
    async function routedRoot(): Promise<{ url: string; close: () => Promise<void> }> {
        const server = http.createServer((req, res) => {
            let body = "";
            req.on("data", (chunk) => (body += chunk));
            req.on("end", () => {
                const { model } = JSON.parse(body) as { model: string };
                res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ model }));
            });
        });
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        const { port } = server.address() as AddressInfo;
        return { url: `http://127.0.0.1:${port}/v1`, close: () => new Promise((resolve) => server.close(() => resolve())) };
    }

    test("the outputs' modelRouting turns the checks on; a healthy router passes each, names reached by their service", async () => {
        const root = await routedRoot();
        try {
            const targets = targetsFromOutputs({
                servingNamespace: "llm-inference",
                gateway: GATEWAY,
                models: { "qwen2-3b": { pattern: "pattern1" } },
                modelRouting: { url: root.url, models: { "Qwen/Qwen2.5-3B-Instruct": "qwen2-3b", "qwen-sql": "qwen2-3b" }, curl: "…" },
            });
            expect(targets.modelRouting).toEqual({
                url: root.url,
                models: { "Qwen/Qwen2.5-3B-Instruct": "qwen2-3b", "qwen-sql": "qwen2-3b" },
            });
            const diagnoses = await runDoctor(memoryReader([...clusterState(), ...routerObjects()]), targets, NOW);
            expect(
                diagnoses
                    .filter((diagnosis) => /router|extension|reaches/.test(diagnosis.check))
                    .map((d) => [d.status, d.object, d.check, d.evidence]),
            ).toEqual([
                ["OK", "Deployment inference-gateway/body-based-router", "body-based router ready replicas", "2 of 2 ready"],
                [
                    "OK",
                    "GCPRoutingExtension inference-gateway/body-based-router",
                    "routing extension on the Gateway",
                    "targets Gateway inference-gateway",
                ],
                [
                    "OK",
                    "ConfigMap inference-gateway/qwen2-3b-models",
                    "router knows the service's models",
                    "Qwen/Qwen2.5-3B-Instruct, qwen-sql",
                ],
                [
                    "OK",
                    "LLMInferenceService qwen2-3b",
                    "model name reaches its service",
                    `"Qwen/Qwen2.5-3B-Instruct" at /v1/chat/completions: POST ${root.url}/chat/completions: HTTP 200 from Qwen/Qwen2.5-3B-Instruct`,
                ],
                [
                    "OK",
                    "LLMInferenceService qwen2-3b",
                    "model name reaches its service",
                    `"qwen-sql" at /v1/chat/completions: POST ${root.url}/chat/completions: HTTP 200 from qwen-sql`,
                ],
            ]);
        } finally {
            await root.close();
        }
    });

    test("a router with one replica of two ready warns, with none ready fails: the root's requests all pass through it", () => {
        const router = (readyReplicas?: number): KubeObject => ({
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name: "body-based-router", namespace: GATEWAY.namespace },
            spec: { replicas: 2 },
            status: readyReplicas === undefined ? {} : { readyReplicas },
        });
        const why = "kubectl -n inference-gateway describe deployment body-based-router and its pods say why";
        expect(routerReplicas(router(1), GATEWAY.namespace)).toEqual({
            status: "WARN",
            check: "body-based router ready replicas",
            object: "Deployment inference-gateway/body-based-router",
            evidence: "1 of 2 ready: one more restart or drain and requests at the Gateway's root fail",
            fix: why,
        });
        expect(routerReplicas(router(), GATEWAY.namespace)).toMatchObject({
            status: "FAIL",
            evidence: "0 of 2 ready: every request at the Gateway's root fails",
            fix: why,
        });
        expect(routerReplicas(undefined, GATEWAY.namespace)).toMatchObject({ status: "FAIL", evidence: "not found" });
    });

    test("no extension and an unlabelled ConfigMap fail, each saying what GKE or the router then does", async () => {
        // A port that was just free: nothing listens there, so the request fails too, naming why.
        const closed = await routedRoot();
        await closed.close();
        const targets: DoctorTargets = {
            namespaces: ["llm-inference"],
            gateway: GATEWAY,
            modelRouting: { url: closed.url, models: { "Qwen/Qwen2.5-3B-Instruct": "qwen2-3b" } },
        };
        const diagnoses = await runDoctor(
            memoryReader([...clusterState(), ...routerObjects({ labelled: false, extension: false })]),
            targets,
            NOW,
        );
        expect(
            diagnoses
                .filter((diagnosis) => /router|extension|reaches/.test(diagnosis.check) && diagnosis.status !== "OK")
                .map((d) => [d.check, d.evidence, d.fix]),
        ).toEqual([
            [
                "routing extension on the Gateway",
                "not found",
                "without it GKE never calls the router and no request at the Gateway's root matches a route; run `pulumi up`",
            ],
            [
                "router knows the service's models",
                "no inference.networking.k8s.io/bbr-managed=true label: the router ignores it",
                "the router sets an empty base-model header for a name no ConfigMap lists, and the Gateway answers 404; run `pulumi up`",
            ],
            [
                "model name reaches its service",
                expect.stringMatching(/^"Qwen\/Qwen2.5-3B-Instruct" at \/v1\/chat\/completions: .*ECONNREFUSED/),
                "check the Gateway's address and that this machine may reach it",
            ],
        ]);
    });
});
