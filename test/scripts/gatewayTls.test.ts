import { X509Certificate } from "crypto";
import * as fs from "fs";
import * as https from "https";
import { AddressInfo } from "net";
import * as os from "os";
import * as path from "path";
import * as tls from "tls";
import { CliError } from "../../scripts/cli";
import { TRUST_THE_STACK_CA, readCaFile } from "../../scripts/cluster/gatewayRequest";
import type { KubeObject } from "../../scripts/cluster/kube";
import { doctorPlan } from "../../scripts/doctor";
import { runDoctor } from "../../scripts/doctor/diagnose";
import { gatewayHealth } from "../../scripts/doctor/services";
import { runOutsideChecks, runSmoke, smokeClient } from "../../scripts/smoke";
import { runCli } from "../cli";
import { memoryReader } from "../memoryCluster";

const TLS = path.join(__dirname, "..", "fixtures", "tls");
const CA = fs.readFileSync(path.join(TLS, "ca.crt"), "utf8");
const FAST = { attempts: 1, intervalMs: 10, requestTimeoutMs: 2000 };
const MODEL = "Qwen/Qwen2.5-1.5B-Instruct";
/** A real root CA, which did not sign the test Gateway's certificate: a wrong --cacert. */
const OTHER_CA = tls.rootCertificates[0];
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

    test("without --cacert, a certificate not trusted here is retried like a service still starting, with the step that trusts the stack's CA", async () => {
        const retries: string[] = [];
        const results = await runSmoke(
            { qwen: { baseUrl: base, modelName: MODEL } },
            { ...FAST, attempts: 2, onRetry: (text) => retries.push(text), client: { credentials: { apiKey: "k" } } },
        );
        expect(results[0]).toEqual({
            service: "qwen",
            check: "/health",
            ok: false,
            attempts: 2,
            detail: `unable to verify the first certificate: ${TRUST_THE_STACK_CA}`,
        });
        expect(retries).toHaveLength(1);
    });

    test("with a --cacert that does not verify the Gateway's certificate, the run stops at the first try, saying so", async () => {
        const retries: string[] = [];
        const options = { attempts: 30, intervalMs: 10_000, requestTimeoutMs: 2000, onRetry: (text: string) => retries.push(text) };
        const wrong = { ...options, client: { ca: OTHER_CA, credentials: { apiKey: "k" } } };
        const stopped = new CliError(
            "qwen: /health: the CA given with --cacert does not verify the Gateway's certificate (unable to verify the first certificate): give the CA that signed it",
        );
        await expect(runSmoke({ qwen: { baseUrl: base, modelName: MODEL } }, wrong)).rejects.toThrow(stopped);
        await expect(runOutsideChecks({ qwen: { baseUrl: base, modelName: MODEL } }, wrong)).rejects.toThrow(
            "qwen: refused outside the allowed ranges: the CA given with --cacert does not verify the Gateway's certificate (unable to verify the first certificate): give the CA that signed it",
        );
        expect(retries).toEqual([]);
    });

    test("--cacert is read first: a file that cannot be read, or holds no PEM certificate, is one line and exit 2 before anything else", async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cacert-"));
        const write = (name: string, text: string | Buffer) => {
            fs.writeFileSync(path.join(dir, name), text);
            return path.join(dir, name);
        };
        const der = write("ca.der", new X509Certificate(CA).raw);
        const broken = write("broken.crt", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
        expect(readCaFile(path.join(TLS, "ca.crt"))).toBe(CA);
        expect(() => readCaFile(path.join(dir, "missing.crt"))).toThrow(
            new CliError(`--cacert ${dir}/missing.crt: ENOENT: no such file or directory, open '${dir}/missing.crt'`),
        );
        expect(() => readCaFile(der)).toThrow(
            new CliError(
                `--cacert ${der} holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the CA's certificate in PEM, as the stack's caCertificateCommand output writes it`,
            ),
        );
        expect(() => readCaFile(broken)).toThrow(
            /^--cacert .*broken\.crt holds a certificate that does not parse \(.+\): write the CA's PEM again$/,
        );

        // Before the outputs are read (no Pulumi CLI here), and before any request.
        const outputs = write("outputs.json", JSON.stringify({ models: { qwen: { baseUrl: base, modelName: MODEL } } }));
        const [notPem, wrongCa] = await Promise.all([
            runCli("smoke.ts", ["--stack", "dev", "--cacert", der]),
            runCli("smoke.ts", ["--outputs", outputs, "--cacert", write("other.crt", OTHER_CA)]),
        ]);
        expect(notPem).toEqual({
            status: 2,
            stdout: "",
            stderr: `error: --cacert ${der} holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the CA's certificate in PEM, as the stack's caCertificateCommand output writes it\n`,
        });
        // 30 tries 10 s apart by default: stopped at the first.
        expect(wrongCa.status).toBe(2);
        expect(wrongCa.stderr.split("\n").slice(-2)).toEqual([
            "error: qwen: /health: the CA given with --cacert does not verify the Gateway's certificate (unable to verify the first certificate): give the CA that signed it",
            "",
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
