/**
 * Lesson http-probes, the whole category: in every kind that carries a pod template and every form that declares it, a
 * vLLM server that serves plain HTTP probed over HTTPS (by its startup, liveness or readiness probe, in any case) is
 * caught; HTTP probes (the scheme named or left to its default), probes of other handlers (exec, tcpSocket, grpc), a
 * scheme KServe fills in at reconcile time, a server that serves TLS itself, and a KServe container that sets no command
 * (KServe's template starts vLLM, with TLS as KServe's global setting says, which the program does not show) are left
 * alone.
 *
 * And a vLLM server that requires an API key (--api-key in either spelling, on its command line, in a shell script or in
 * vllm-tpu's VLLM_ARGS; VLLM_API_KEY literal or from a Secret's or ConfigMap's key) whose httpGet probe gets a path
 * under /v1, /v2 or /inference is caught, by every probe; /health, /metrics, /ping, a path that only contains "v1",
 * other handlers, a probe that sends its own Authorization header and a server without a key are left alone. A key
 * that could only come from envFrom is not visible in the object, so a container that sets none itself counts as
 * requiring none: envFrom of a Secret or ConfigMap is clean.
 */
import { HTTP_PROBE_MESSAGES as say, requireHttpProbesForVllm as policy } from "../../policies/requireHttpProbesForVllm";
import { llmService, vllmContainer } from "../support/fixtures";
import { UNKNOWN, check, kube } from "../support/harness";
import { tpuDeployment, vllm } from "../support/lessonObjects";
import { summary, verdict } from "../support/pack";
import { DECLARING_FORMS, POD_KINDS, podObject } from "../support/podKinds";
import { useWorkerPack } from "../workerPack";

describe("the rule", () => {
    const httpsReadiness = { httpGet: { path: "/v1/models", port: 8000, scheme: "HTTPS" } };

    describe("require-http-probes-for-vllm", () => {
        test("passes HTTP probes", async () => {
            expect(await check(policy, [llmService()])).toEqual([]);
        });

        test("fails an HTTPS probe on an HTTP vLLM", async () => {
            expect(await check(policy, [llmService(vllmContainer({ readinessProbe: httpsReadiness }))])).toEqual([
                {
                    level: "mandatory",
                    resource: "qwen",
                    message: "qwen spec.template.containers[0] (main) readinessProbe uses scheme HTTPS, but vLLM serves plain HTTP.",
                },
            ]);
        });

        test("not applicable: vLLM serving TLS, KServe's templated schemes, and the scheduler", async () => {
            const tls = vllmContainer({
                readinessProbe: httpsReadiness,
                args: ["--ssl-certfile", "/tls/tls.crt", "--ssl-keyfile", "/tls/tls.key"],
            });
            expect(await check(policy, [llmService(tls)])).toEqual([]);
            expect(
                await check(policy, [
                    llmService(
                        vllmContainer({
                            readinessProbe: { httpGet: { scheme: "{{ if .GlobalConfig.EnableTLS }}HTTPS{{else}}HTTP{{- end }}" } },
                        }),
                    ),
                ]),
            ).toEqual([]);
        });

        test("preview: an unknown probe is not a violation", async () => {
            expect((await check(policy, [llmService(vllmContainer({ readinessProbe: UNKNOWN }))]))[0].level).toBe("advisory");
        });
    });
});

describe("every spelling", () => {
    type Obj = Record<string, unknown>;

    const MODEL_ARGS = ["/mnt/models", "--port=8000", "--tensor-parallel-size=4"];
    const fromSecret = { secretKeyRef: { name: "vllm-api-key", key: "VLLM_API_KEY" } };
    /** Every way a container makes vLLM require a key, as the container's own fields. */
    const KEYED: Array<[label: string, container: Obj]> = [
        ["--api-key KEY", { args: [...MODEL_ARGS, "--api-key", "sk-local"] }],
        ["--api-key=KEY", { args: [...MODEL_ARGS, "--api-key=sk-local"] }],
        [
            "--api_key KEY in a shell script",
            { command: ["sh", "-c", "exec vllm serve /mnt/models --port 8000 --api_key sk-local"], args: [] },
        ],
        [
            "--api-key=$(KEY), KEY from a Secret",
            { args: [...MODEL_ARGS, "--api-key=$(KEY)"], env: [{ name: "KEY", valueFrom: fromSecret }] },
        ],
        [
            "--api-key in vllm-tpu's VLLM_ARGS",
            { command: undefined, args: undefined, env: [{ name: "VLLM_ARGS", value: "--model=/mnt/models --api-key=sk-local" }] },
        ],
        ["VLLM_API_KEY literal", { env: [{ name: "VLLM_API_KEY", value: "sk-local" }] }],
        ["VLLM_API_KEY from a Secret", { env: [{ name: "VLLM_API_KEY", valueFrom: fromSecret }] }],
        [
            "VLLM_API_KEY from a ConfigMap",
            { env: [{ name: "VLLM_API_KEY", valueFrom: { configMapKeyRef: { name: "vllm", key: "key" } } }] },
        ],
        [
            "VLLM_API_KEY set after an empty entry (the last one counts)",
            {
                env: [
                    { name: "VLLM_API_KEY", value: "" },
                    { name: "VLLM_API_KEY", valueFrom: fromSecret },
                ],
            },
        ],
    ];
    /** Containers that require no key vLLM would check, or none the object shows. */
    const UNKEYED: Array<[label: string, container: Obj]> = [
        ["no key", {}],
        ["--api-key= empty", { args: [...MODEL_ARGS, "--api-key="] }],
        ["VLLM_API_KEY empty", { env: [{ name: "VLLM_API_KEY", value: "" }] }],
        ["another variable", { env: [{ name: "OPENAI_API_KEY", valueFrom: fromSecret }] }],
        ["envFrom of a Secret (its keys unseen)", { envFrom: [{ secretRef: { name: "vllm-api-key" } }] }],
        ["envFrom of a ConfigMap (its keys unseen)", { envFrom: [{ configMapRef: { name: "vllm" } }] }],
    ];
    const GUARDED_PATHS = ["/v1/models", "/v2/health/ready", "/inference/v1/generate", "v1/models", "/v1/models?ready=1"];
    const UNGUARDED_PATHS = ["/health", "/metrics", "/ping", "/healthv1", "/health?v=/v1", "/"];
    const probed = (path: string, extra: Obj = {}) => ({ httpGet: { path, port: 8000, scheme: "HTTP", ...extra }, periodSeconds: 5 });

    const PROBES = ["startupProbe", "livenessProbe", "readinessProbe"] as const;
    /** `probe` as the startup, liveness and readiness probe alike. */
    const allProbes = (probe: Obj) => Object.fromEntries(PROBES.map((name) => [name, probe]));
    const http = (scheme?: string) => ({
        httpGet: { path: "/health", port: 8000, ...(scheme !== undefined ? { scheme } : {}) },
        periodSeconds: 5,
    });
    const SAFE_PROBES: Array<[label: string, probe: Obj]> = [
        ["HTTP", http("HTTP")],
        ["no scheme (HTTP)", http()],
        ["exec", { exec: { command: ["curl", "-sf", "https://localhost:8000/health"] } }],
        ["tcpSocket", { tcpSocket: { port: 8000 } }],
        ["grpc", { grpc: { port: 9000 } }],
        ["a KServe template", http("{{ if .Spec.Router }}HTTPS{{ else }}HTTP{{ end }}")],
    ];

    describe("lesson http-probes: every way a probe speaks TLS to vLLM's plain HTTP", () => {
        describe.each(POD_KINDS)("%s %s at %s", (apiVersion, kind, body, podPath) => {
            const verdict = async (container: Obj) =>
                (await check(policy, [podObject(apiVersion, kind, body, { containers: [vllmContainer(container)] })])).map(
                    (finding) => finding.message,
                );
            const main = `${podPath}.containers[0] (main)`;

            test.each(PROBES)("caught: %s over HTTPS, in either case; all three at once", async (probe) => {
                for (const scheme of ["HTTPS", "https"]) {
                    expect(await verdict({ [probe]: http(scheme) })).toEqual([say.wrongScheme("vllm", main, probe, scheme)]);
                }
            });

            test("caught: every probe over HTTPS, each reported", async () => {
                expect(await verdict(Object.fromEntries(PROBES.map((probe) => [probe, http("HTTPS")])))).toEqual(
                    PROBES.map((probe) => say.wrongScheme("vllm", main, probe, "HTTPS")),
                );
            });

            test("clean: HTTP or no scheme, other handlers, KServe's templates, a server serving TLS itself", async () => {
                for (const [, probe] of SAFE_PROBES) {
                    expect(await verdict(Object.fromEntries(PROBES.map((name) => [name, probe])))).toEqual([]);
                }
                const tls = { args: ["/mnt/models", "--ssl-certfile=/certs/tls.crt", "--ssl-keyfile=/certs/tls.key"] };
                expect(await verdict({ ...tls, readinessProbe: http("HTTPS") })).toEqual([]);
                // A container that is not a vLLM server is not this lesson's.
                expect(
                    (
                        await check(policy, [
                            podObject(apiVersion, kind, body, {
                                containers: [{ name: "proxy", image: "envoyproxy/envoy:v1.33.0", readinessProbe: http("HTTPS") }],
                            }),
                        ])
                    ).map((finding) => finding.message),
                ).toEqual([]);
            });
        });

        test.each(DECLARING_FORMS)("declared as %s: caught and clean alike", async (_, declare) => {
            const [apiVersion, kind, body, podPath] = POD_KINDS[3];
            const findings = async (container: Obj) =>
                (await check(policy, declare(podObject(apiVersion, kind, body, { containers: [vllmContainer(container)] })))).map(
                    (finding) => finding.message,
                );
            expect(await findings({ livenessProbe: http("HTTPS") })).toEqual([
                say.wrongScheme("vllm", `${podPath}.containers[0] (main)`, "livenessProbe", "HTTPS"),
            ]);
            expect(await findings({ livenessProbe: http() })).toEqual([]);
        });
    });

    describe("lesson http-probes: every probe a keyed vLLM refuses for want of the key", () => {
        describe.each(POD_KINDS)("%s %s at %s", (apiVersion, kind, body, podPath) => {
            const verdict = async (container: Obj) =>
                (await check(policy, [podObject(apiVersion, kind, body, { containers: [vllmContainer(container)] })])).map(
                    (finding) => finding.message,
                );
            const main = `${podPath}.containers[0] (main)`;

            test.each(KEYED)("caught: key by %s, every probe on every guarded path", async (_, keyed) => {
                for (const path of GUARDED_PATHS) {
                    expect(await verdict({ ...keyed, ...allProbes(probed(path)) })).toEqual(
                        PROBES.map((probe) => say.guardedPath("vllm", main, probe, path)),
                    );
                }
            });

            test.each(PROBES)("caught: %s alone on /v1/models, the others on /health", async (probe) => {
                expect(await verdict({ ...KEYED[6][1], ...allProbes(probed("/health")), [probe]: probed("/v1/models") })).toEqual([
                    say.guardedPath("vllm", main, probe, "/v1/models"),
                ]);
            });

            test("caught: over HTTPS and on /v1 both, each reported; a server serving TLS only for the path", async () => {
                const https = probed("/v1/models", { scheme: "HTTPS" });
                expect(await verdict({ ...KEYED[6][1], ...allProbes(probed("/health")), readinessProbe: https })).toEqual([
                    say.wrongScheme("vllm", main, "readinessProbe", "HTTPS"),
                    say.guardedPath("vllm", main, "readinessProbe", "/v1/models"),
                ]);
                const tls = [...MODEL_ARGS, "--api-key=sk-local", "--ssl-certfile=/certs/tls.crt", "--ssl-keyfile=/certs/tls.key"];
                expect(await verdict({ args: tls, ...allProbes(probed("/health")), readinessProbe: https })).toEqual([
                    say.guardedPath("vllm", main, "readinessProbe", "/v1/models"),
                ]);
            });

            test.each(KEYED)("clean: key by %s, probes on unguarded paths or of other handlers", async (_, keyed) => {
                for (const path of UNGUARDED_PATHS) {
                    expect(await verdict({ ...keyed, ...allProbes(probed(path)) })).toEqual([]);
                }
                for (const probe of [
                    { exec: { command: ["curl", "-sf", "http://localhost:8000/v1/models"] } },
                    { tcpSocket: { port: 8000 } },
                    { grpc: { port: 9000 } },
                    // It sends a key itself (whether one belongs in the pod spec is lesson plain-text-secrets').
                    probed("/v1/models", { httpHeaders: [{ name: "authorization", value: "Bearer $(KEY)" }] }),
                ]) {
                    expect(await verdict({ ...keyed, ...allProbes(probe) })).toEqual([]);
                }
            });

            test.each(UNKEYED)("clean: %s, every probe on /v1/models", async (_, unkeyed) => {
                expect(await verdict({ ...unkeyed, ...allProbes(probed("/v1/models")) })).toEqual([]);
            });

            test("clean: a container that is not a vLLM server, with a key and a probe of /v1", async () => {
                const proxy = {
                    name: "proxy",
                    image: "envoyproxy/envoy:v1.33.0",
                    env: [{ name: "VLLM_API_KEY", valueFrom: fromSecret }],
                    readinessProbe: probed("/v1/models"),
                };
                expect((await check(policy, [podObject(apiVersion, kind, body, { containers: [proxy] })])).map((f) => f.message)).toEqual(
                    [],
                );
            });
        });

        test.each(DECLARING_FORMS)("declared as %s: caught and clean alike", async (_, declare) => {
            const [apiVersion, kind, body, podPath] = POD_KINDS[12];
            const findings = async (container: Obj) =>
                (await check(policy, declare(podObject(apiVersion, kind, body, { containers: [vllmContainer(container)] })))).map(
                    (finding) => finding.message,
                );
            const keyed = { env: [{ name: "VLLM_API_KEY", valueFrom: fromSecret }] };
            expect(await findings({ ...keyed, ...allProbes(probed("/health")), startupProbe: probed("/v1/models") })).toEqual([
                say.guardedPath("vllm", `${podPath}.containers[0] (main)`, "startupProbe", "/v1/models"),
            ]);
            expect(await findings({ ...keyed, ...allProbes(probed("/health")) })).toEqual([]);
        });

        test.each(["LLMInferenceService", "LLMInferenceServiceConfig"])(
            "a KServe %s container without a command runs KServe's template, whose TLS the program does not show: an HTTPS probe is not judged; with its own command it is",
            async (kind) => {
                const https = { httpGet: { path: "/health", port: 8000, scheme: "HTTPS" } };
                const service = (container: Obj) =>
                    kube("serving.kserve.io/v1alpha2", kind, "qwen", {
                        metadata: { name: "qwen", namespace: "models" },
                        spec: {
                            template: {
                                containers: [{ name: "main", args: ["--max_model_len=8192"], livenessProbe: https, ...container }],
                            },
                        },
                    });
                expect(await check(policy, [service({})])).toEqual([]);
                expect(
                    (await check(policy, [service({ command: ["vllm", "serve", "/mnt/models"] })])).map((finding) => finding.message),
                ).toEqual([say.wrongScheme("qwen", "spec.template.containers[0] (main)", "livenessProbe", "HTTPS")]);
            },
        );
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();

    describe("vLLM's probes, whatever starts it", () => {
        test("vLLM probed over HTTPS, whatever starts it", async () => {
            const findings = await verdict(pack(), () =>
                tpuDeployment(
                    vllm({
                        image: "us-docker.pkg.dev/acme/serving/runtime:1.2.3",
                        command: ["sh", "-c", "python3 -m vllm.entrypoints.openai.api_server --model m"],
                        args: [],
                        readinessProbe: { httpGet: { path: "/health", port: 8000, scheme: "https" } },
                    }),
                ),
            );
            expect(summary(findings)).toEqual(["mandatory require-http-probes-for-vllm @w"]);
        });

        test("vLLM serving TLS itself may be probed over HTTPS", async () => {
            const findings = await verdict(pack(), () =>
                tpuDeployment(
                    vllm({
                        args: ["m", "--ssl_certfile=/tls/tls.crt", "--ssl-keyfile", "/tls/tls.key"],
                        readinessProbe: { httpGet: { path: "/health", port: 8000, scheme: "HTTPS" } },
                    }),
                ),
            );
            expect(summary(findings)).toEqual([]);
        });
    });
});
