import * as fs from "fs";
import * as https from "https";
import { AddressInfo } from "net";
import * as path from "path";
import { TRUST_THE_STACK_CA } from "../../scripts/cluster/gatewayRequest";
import type { KubeObject } from "../../scripts/cluster/kube";
import { doctorPlan } from "../../scripts/doctor";
import { runDoctor } from "../../scripts/doctor/diagnose";
import { gatewayHealth } from "../../scripts/doctor/services";
import { runOutsideChecks, runSmoke, smokeClient } from "../../scripts/smoke";
import { memoryReader } from "../memoryCluster";

const TLS = path.join(__dirname, "..", "fixtures", "tls");
const CA = fs.readFileSync(path.join(TLS, "ca.crt"), "utf8");
const FAST = { attempts: 1, intervalMs: 10, requestTimeoutMs: 2000 };
const MODEL = "Qwen/Qwen2.5-1.5B-Instruct";
const CA_COMMAND = "kubectl get secret -n inference-gateway inference-gateway-tls -o jsonpath='{.data.ca\\.crt}' | base64 -d > ca.crt";

/** A loopback Gateway serving HTTPS with a certificate the test CA signed, as the stack's CA signs the Gateway's; it records each request's Authorization. */
let server: https.Server;
let base: string;
const authorizations: Array<string | undefined> = [];

beforeAll(async () => {
    server = https.createServer(
        { key: fs.readFileSync(path.join(TLS, "gateway.key")), cert: fs.readFileSync(path.join(TLS, "gateway.crt")) },
        (req, res) => {
            authorizations.push(req.headers.authorization);
            if (req.url?.endsWith("/health")) {
                res.writeHead(200).end();
            } else if (req.headers.authorization !== "Bearer k") {
                res.writeHead(401).end("Unauthorized");
            } else if (req.url?.endsWith("/v1/models")) {
                res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ data: [{ id: MODEL }] }));
            } else {
                res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ choices: [{ text: "!" }] }));
            }
        },
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}/llm-inference/qwen`;
});

afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
});

describe("smoke trusts the stack's CA", () => {
    test("with --cacert, every check passes over HTTPS with the key", async () => {
        const results = await runSmoke(
            { qwen: { baseUrl: base, modelName: MODEL } },
            { ...FAST, client: { ca: CA, credentials: { apiKey: "k" } } },
        );
        expect(results.map(({ check, ok }) => ({ check, ok }))).toEqual([
            { check: "/health", ok: true },
            { check: "/v1/models", ok: true },
            { check: "/v1/completions", ok: true },
        ]);
    });

    test("a stack whose own CA signs the Gateway's certificate needs --cacert, before any request", () => {
        const targets = {
            services: { qwen: { baseUrl: base, modelName: MODEL } },
            credentials: { apiKey: "k" },
            caCertificateCommand: CA_COMMAND,
        };
        expect(() => smokeClient(targets, undefined)).toThrow(
            `the stack's own CA signs the Gateway's certificate, which no system trusts: run ${CA_COMMAND}, then pass --cacert ca.crt`,
        );
        expect(smokeClient(targets, CA)).toEqual({ ca: CA, credentials: { apiKey: "k" } });
        expect(smokeClient({ services: targets.services }, undefined)).toEqual({ credentials: {} });
    });

    test("--outside: a Gateway that answers with a certificate this machine does not trust is not a refusal", async () => {
        const [result] = await runOutsideChecks(
            { qwen: { baseUrl: base, modelName: MODEL } },
            { ...FAST, client: { credentials: { apiKey: "k" } } },
        );
        expect(result.ok).toBe(false);
        expect(result.detail).toBe(
            `GET ${base}/v1/models: the Gateway answered, with a certificate not trusted here (unable to verify the first certificate); ${TRUST_THE_STACK_CA}`,
        );
    });

    test("--outside: a Gateway that answers 200 to a trusted request is not refused either", async () => {
        const [result] = await runOutsideChecks(
            { qwen: { baseUrl: base, modelName: MODEL } },
            { ...FAST, client: { ca: CA, credentials: { apiKey: "k" } } },
        );
        expect(result).toEqual(
            expect.objectContaining({ ok: false, detail: `GET ${base}/v1/models from outside the allowed ranges: HTTP 200, not 403` }),
        );
    });
});

describe("the doctor trusts the stack's CA and presents the caller's credentials", () => {
    test("/health through the Gateway over HTTPS: OK with the CA, a FAIL that says to trust it without", async () => {
        expect(await gatewayHealth(base, "llm-inference", "qwen", { ca: CA, credentials: {} })).toEqual({
            status: "OK",
            check: "/health through the Gateway",
            object: "LLMInferenceService llm-inference/qwen",
            evidence: `GET ${base}/health: HTTP 200`,
        });
        expect(await gatewayHealth(base, "llm-inference", "qwen")).toEqual({
            status: "FAIL",
            check: "/health through the Gateway",
            object: "LLMInferenceService llm-inference/qwen",
            evidence: `GET ${base}/health: unable to verify the first certificate`,
            fix: TRUST_THE_STACK_CA,
        });
    });

    test("doctorPlan: --cacert, API_KEY and ID_TOKEN, else the key in outputs read with their secrets; never a masked one", () => {
        const values = { "metrics-window": "15m", cacert: path.join(TLS, "ca.crt") };
        expect(doctorPlan(values, { access: { apiKey: "[secret]" } }, { API_KEY: "k", ID_TOKEN: "t" }).gatewayClient).toEqual({
            ca: CA,
            credentials: { apiKey: "k", idToken: "t" },
        });
        expect(doctorPlan({ "metrics-window": "15m" }, { access: { apiKey: "from-outputs" } }, {}).gatewayClient).toEqual({
            credentials: { apiKey: "from-outputs" },
        });
        expect(doctorPlan({ "metrics-window": "15m" }, { access: { apiKey: "[secret]" } }, {}).gatewayClient).toEqual({ credentials: {} });
        expect(() => doctorPlan({ "metrics-window": "15m", cacert: "/nonexistent/ca.crt" }, undefined, {})).toThrow(
            "--cacert /nonexistent/ca.crt: ENOENT: no such file or directory, open '/nonexistent/ca.crt'",
        );
    });

    test("without --cacert, a stack with caCertificateCommand is checked trusting the CA its HTTPS listener's Secret carries", async () => {
        const gateway: KubeObject = {
            apiVersion: "gateway.networking.k8s.io/v1",
            kind: "Gateway",
            metadata: { name: "inference-gateway", namespace: "inference-gateway" },
            spec: {
                gatewayClassName: "gke-l7-regional-external-managed",
                listeners: [{ name: "https", protocol: "HTTPS", port: 443, tls: { certificateRefs: [{ name: "inference-gateway-tls" }] } }],
            },
        } as KubeObject;
        const secret = {
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name: "inference-gateway-tls", namespace: "inference-gateway" },
            data: { "ca.crt": Buffer.from(CA).toString("base64") },
        } as KubeObject;
        const service = {
            apiVersion: "serving.kserve.io/v1alpha2",
            kind: "LLMInferenceService",
            metadata: { name: "qwen", namespace: "llm-inference" },
            spec: { router: { route: {} } },
        } as KubeObject;
        const targets = {
            namespaces: ["llm-inference"],
            gateway: { namespace: "inference-gateway", name: "inference-gateway" },
            services: { qwen: { baseUrl: base } },
            ownCa: true,
        };
        const health = async (objects: KubeObject[]) =>
            (await runDoctor(memoryReader(objects), targets)).find((diagnosis) => diagnosis.check === "/health through the Gateway");
        expect(await health([gateway, secret, service])).toEqual(
            expect.objectContaining({ status: "OK", evidence: `GET ${base}/health: HTTP 200` }),
        );
        expect(await health([gateway, service])).toEqual(expect.objectContaining({ status: "FAIL", fix: TRUST_THE_STACK_CA }));
    });
});
