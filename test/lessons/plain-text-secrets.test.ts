/**
 * Lesson plain-text-secrets, the whole category: in every kind that carries a pod template and every form that
 * declares it, a credential in plain text is caught wherever a container gets it: a literal env value under a
 * credential's name (tokens, secrets, passwords, keys, in any case), a ConfigMap key read by valueFrom or loaded whole
 * by envFrom, a flag or assignment on the command line (`--api-key=…`, `--hf-token …`, `HF_TOKEN=… vllm serve`, the
 * vllm-tpu image's $VLLM_ARGS). Credentials from Secrets, references resolved at run time, mounted files, empty values
 * and names that merely contain a credential's word (MAX_TOKENS) are left alone.
 */
import * as k8s from "@pulumi/kubernetes";
import { secret as pulumiSecret } from "@pulumi/pulumi";
import { PLAIN_TEXT_SECRET_MESSAGES as say, disallowPlainTextSecretEnv as policy } from "../../policies/disallowPlainTextSecretEnv";
import { llmService, vllmContainer } from "../support/fixtures";
import { UNKNOWN, check, kube } from "../support/harness";
import { Obj, meta, tpuDeployment, vllm } from "../support/lessonObjects";
import { summary, verdict } from "../support/pack";
import { DECLARING_FORMS, POD_KINDS, podObject } from "../support/podKinds";
import { useWorkerPack } from "../workerPack";

describe("the rule", () => {
    function configMap(name: string, data: Record<string, string>, namespace = "models") {
        return kube("v1", "ConfigMap", name, { metadata: { name, namespace }, data });
    }

    describe("disallow-plain-text-secret-env", () => {
        test("passes a token read from a Secret", async () => {
            const env = [
                { name: "HF_TOKEN", valueFrom: { secretKeyRef: { name: "hf-token", key: "HF_TOKEN" } } },
                { name: "HOME", value: "/home" },
            ];
            expect(await check(policy, [llmService(vllmContainer({ env }))])).toEqual([]);
        });

        test("fails a literal token", async () => {
            expect(await check(policy, [llmService(vllmContainer({ env: [{ name: "HF_TOKEN", value: "hf_abc" }] }))])).toEqual([
                {
                    level: "mandatory",
                    resource: "qwen",
                    message:
                        "qwen spec.template.containers[0] (main) sets HF_TOKEN as a plain value in the pod spec (env value), where anyone who can read the object sees it; read it from a Secret with valueFrom.secretKeyRef.",
                },
            ]);
            expect(await check(policy, [llmService(vllmContainer({ env: [{ name: "AWS_SECRET_ACCESS_KEY", value: "x" }] }))])).toHaveLength(
                1,
            );
        });

        test("a token read from a ConfigMap, by key or loaded whole with envFrom, is plain text too", async () => {
            const byKey = [{ name: "HF_TOKEN", valueFrom: { configMapKeyRef: { name: "settings", key: "token" } } }];
            expect(await check(policy, [llmService(vllmContainer({ env: byKey }))])).toEqual([
                {
                    level: "mandatory",
                    resource: "qwen",
                    message:
                        "qwen spec.template.containers[0] (main) reads HF_TOKEN from ConfigMap settings, where it sits in plain text; read it from a Secret with valueFrom.secretKeyRef.",
                },
            ]);
            const loaded = llmService(vllmContainer({ env: [], envFrom: [{ configMapRef: { name: "settings" } }] }));
            expect(await check(policy, [configMap("settings", { HF_TOKEN: "hf_abc", MODEL: "qwen" }), loaded])).toEqual([
                {
                    level: "mandatory",
                    resource: "settings",
                    message:
                        "ConfigMap settings holds HF_TOKEN in plain text, and qwen spec.template.containers[0] (main) loads it into its environment with envFrom; keep credentials in a Secret (envFrom.secretRef).",
                },
            ]);
            // The same name in another namespace is another ConfigMap.
            expect(await check(policy, [configMap("settings", { HF_TOKEN: "hf_abc" }, "elsewhere"), loaded])).toEqual([]);
        });

        test("a ConfigMap nobody loads into an environment is settings, whatever its keys (KServe's inferenceservice-config has `credentials`)", async () => {
            expect(
                await check(policy, [
                    configMap("inferenceservice-config", { credentials: '{"storageSpecSecretName": "storage-config"}' }, "kserve"),
                ]),
            ).toEqual([]);
        });

        test("credentials on a command line, and what is not one: a reference or a file path", async () => {
            const literal = await check(policy, [
                llmService(vllmContainer({ command: ["sh", "-c", "HF_TOKEN=hf_abc vllm serve /mnt/models --api-key sk-123"], args: [] })),
            ]);
            expect(literal.map((violation) => violation.message)).toEqual([
                "qwen spec.template.containers[0] (main) passes HF_TOKEN literally on its command line, where anyone who can read the object sees it; read it from a Secret-backed variable.",
                "qwen spec.template.containers[0] (main) passes --api-key literally on its command line, where anyone who can read the object sees it; read it from a Secret-backed variable.",
            ]);
            const references = vllmContainer({
                args: ["/mnt/models", "--api-key", "$(VLLM_API_KEY)"],
                env: [{ name: "GOOGLE_APPLICATION_CREDENTIALS", value: "/var/secrets/google/key.json" }],
            });
            expect(await check(policy, [llmService(references)])).toEqual([]);
        });

        test("not applicable: ordinary variables", async () => {
            expect(
                await check(policy, [
                    llmService(
                        vllmContainer({
                            env: [
                                { name: "VLLM_LOGGING_LEVEL", value: "INFO" },
                                { name: "TOKENIZERS_PARALLELISM", value: "false" },
                            ],
                        }),
                    ),
                ]),
            ).toEqual([]);
        });

        test("preview: an env list or value not known until the update comes from another resource, not the program: no violation", async () => {
            expect(await check(policy, [llmService(vllmContainer({ env: UNKNOWN }))])).toEqual([]);
            expect(await check(policy, [llmService(vllmContainer({ env: [{ name: "HF_TOKEN", value: UNKNOWN }] }))])).toEqual([]);
        });
    });
});

describe("every spelling", () => {
    type Obj = Record<string, unknown>;

    const NAMES = [
        "HF_TOKEN",
        "HUGGING_FACE_HUB_TOKEN",
        "hf_token",
        "VLLM_API_KEY",
        "OPENAI_APIKEY",
        "AWS_SECRET_ACCESS_KEY",
        "CLIENT_SECRET",
        "DB_PASSWORD",
        "DB_PASS",
        "SECRET_KEY",
        "SIGNING_KEY",
        "SERVICE_ACCOUNT_KEY",
        "GOOGLE_CREDENTIALS",
        // Model gateways' and providers' keys (LiteLLM's deploy docs set the first two).
        "LITELLM_MASTER_KEY",
        "LITELLM_SALT_KEY",
        "AZURE_OPENAI_KEY",
        "ANTHROPIC_KEY",
    ];
    const NOT_CREDENTIALS = ["MAX_TOKENS", "VLLM_MAX_NUM_BATCHED_TOKENS", "TOKENIZER", "CACHE_KEY", "PASSTHROUGH", "SECRET_NAME", "BYPASS"];
    const SECRET_REF = { valueFrom: { secretKeyRef: { name: "hf", key: "token" } } };
    const COMMAND_LINES: Array<[label: string, container: Obj, flag: string]> = [
        ["--api-key=value", { args: ["/mnt/models", "--api-key=sk-123"] }, "--api-key"],
        ["--api-key value", { args: ["/mnt/models", "--api-key", "sk-123"] }, "--api-key"],
        ["--hf-token in one string", { args: ["/mnt/models --hf-token hf_abc"] }, "--hf-token"],
        ["an assignment in a shell script", { command: ["sh", "-c", "HF_TOKEN=hf_abc exec vllm serve /mnt/models"], args: [] }, "HF_TOKEN"],
        [
            "the vllm-tpu image's $VLLM_ARGS",
            { command: undefined, args: undefined, env: [{ name: "VLLM_ARGS", value: "--model=/mnt/models --api-key sk-123" }] },
            "--api-key",
        ],
    ];

    describe("lesson plain-text-secrets: every way a credential lands in plain text", () => {
        describe.each(POD_KINDS)("%s %s at %s", (apiVersion, kind, body, podPath) => {
            const main = `${podPath}.containers[0] (main)`;
            const verdict = async (container: Obj, extra: ReturnType<typeof kube>[] = []) =>
                (await check(policy, [podObject(apiVersion, kind, body, { containers: [vllmContainer(container)] }), ...extra])).map(
                    (finding) => finding.message,
                );

            test("caught: a literal env value under every credential's name, each reported", async () => {
                expect(await verdict({ env: NAMES.map((name) => ({ name, value: "hf_abc123" })) })).toEqual(
                    NAMES.map((name) => say.literal("vllm", main, name)),
                );
            });

            test("caught: a ConfigMap key read with valueFrom, a ConfigMap with a credential loaded by envFrom", async () => {
                expect(
                    await verdict({ env: [{ name: "HF_TOKEN", valueFrom: { configMapKeyRef: { name: "settings", key: "hf" } } }] }),
                ).toEqual([say.fromConfigMap("vllm", main, "HF_TOKEN", "settings")]);
                const settings = kube("v1", "ConfigMap", "settings", {
                    metadata: { name: "settings", namespace: "models" },
                    data: { MODEL: "qwen", HF_TOKEN: "hf_abc", VLLM_API_KEY: "sk" },
                });
                expect(await verdict({ envFrom: [{ configMapRef: { name: "settings" } }] }, [settings])).toEqual([
                    say.configMapLoaded("settings", ["HF_TOKEN", "VLLM_API_KEY"], "vllm", main),
                ]);
            });

            test("caught: a credential on the command line", async () => {
                const [, container, flag] = COMMAND_LINES[0];
                expect(await verdict(container)).toEqual([say.commandLine("vllm", main, flag)]);
            });

            test("clean: Secrets, references, mounted files, empty values, names that are not credentials", async () => {
                for (const safe of [SECRET_REF, { value: "" }, { value: "/var/run/secrets/hf/token" }, { value: "$(HF_SECRET)" }]) {
                    expect(await verdict({ env: NAMES.map((name) => ({ name, ...safe })) })).toEqual([]);
                }
                expect(await verdict({ env: NOT_CREDENTIALS.map((name) => ({ name, value: "2048" })) })).toEqual([]);
                expect(await verdict({ envFrom: [{ secretRef: { name: "hf" } }] })).toEqual([]);
                const settings = kube("v1", "ConfigMap", "settings", {
                    metadata: { name: "settings", namespace: "models" },
                    data: { MODEL: "qwen" },
                });
                expect(await verdict({ envFrom: [{ configMapRef: { name: "settings" } }] }, [settings])).toEqual([]);
                for (const args of [
                    ["/mnt/models", "--api-key=$(VLLM_API_KEY)"],
                    ["/mnt/models", "--api-key", "$(VLLM_API_KEY)"],
                    ["/mnt/models", "--hf-token=/var/run/secrets/hf/token"],
                    ["/mnt/models", "--max-num-batched-tokens=8192"],
                ]) {
                    expect(await verdict({ args, env: [{ name: "VLLM_API_KEY", ...SECRET_REF }] })).toEqual([]);
                }
            });
        });

        test.each(COMMAND_LINES)("caught: %s on the command line", async (_, container, flag) => {
            const [apiVersion, kind, body, podPath] = POD_KINDS[3];
            expect(
                (await check(policy, [podObject(apiVersion, kind, body, { containers: [vllmContainer(container)] })])).map(
                    (finding) => finding.message,
                ),
            ).toEqual([say.commandLine("vllm", `${podPath}.containers[0] (main)`, flag)]);
        });

        test("a connection URL with a password in it, whatever the variable is called; one whose password is a reference is clean", async () => {
            const [apiVersion, kind, body, podPath] = POD_KINDS[3];
            const found = async (value: string) =>
                (
                    await check(policy, [
                        podObject(apiVersion, kind, body, { containers: [vllmContainer({ env: [{ name: "DATABASE_URL", value }] })] }),
                    ])
                ).map((finding) => finding.message);
            expect(await found("postgresql://litellm:Sup3rS3cret@db.internal:5432/litellm")).toEqual([
                say.literal("vllm", `${podPath}.containers[0] (main)`, "DATABASE_URL"),
            ]);
            for (const clean of [
                "postgresql://litellm:$(DB_PASSWORD)@db.internal/litellm",
                "postgresql://db.internal/litellm",
                "https://example.com/a:b@c",
            ]) {
                expect(await found(clean)).toEqual([]);
            }
        });

        test("an init container is read as well", async () => {
            const [apiVersion, kind, body, podPath] = POD_KINDS[3];
            const init = { name: "download", image: "python:3.12", env: [{ name: "HF_TOKEN", value: "hf_abc" }] };
            expect(
                (await check(policy, [podObject(apiVersion, kind, body, { initContainers: [init], containers: [vllmContainer()] })])).map(
                    (finding) => finding.message,
                ),
            ).toEqual([say.literal("vllm", `${podPath}.initContainers[0] (download)`, "HF_TOKEN")]);
        });

        test.each(DECLARING_FORMS)("declared as %s: caught and clean alike", async (_, declare) => {
            const [apiVersion, kind, body, podPath] = POD_KINDS[3];
            const findings = async (container: Obj) =>
                (await check(policy, declare(podObject(apiVersion, kind, body, { containers: [vllmContainer(container)] })))).map(
                    (finding) => finding.message,
                );
            expect(await findings({ env: [{ name: "HF_TOKEN", value: "hf_abc" }] })).toEqual([
                say.literal("vllm", `${podPath}.containers[0] (main)`, "HF_TOKEN"),
            ]);
            expect(await findings({ env: [{ name: "HF_TOKEN", ...SECRET_REF }] })).toEqual([]);
        });
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();

    describe("credentials in plain text", () => {
        const workload = (container: Obj) => () => tpuDeployment(container);

        test.each<[string, () => unknown, string[]]>([
            [
                "a literal env value",
                workload(vllm({ env: [{ name: "HF_TOKEN", value: "hf_abc" }] })),
                ["mandatory disallow-plain-text-secret-env @w"],
            ],
            [
                "a Pulumi secret written into an env value, which lands in the spec in plain text",
                workload(vllm({ env: [{ name: "HUGGING_FACE_HUB_TOKEN", value: pulumiSecret("hf_abc") }] })),
                ["mandatory disallow-plain-text-secret-env @w"],
            ],
            [
                "a ConfigMap that envFrom loads",
                () => {
                    new k8s.core.v1.ConfigMap("env", { metadata: meta("env"), data: { HF_TOKEN: "hf_abc", MODEL: "qwen" } });
                    workload(vllm({ env: [], envFrom: [{ configMapRef: { name: "env" } }] }))();
                },
                ["mandatory disallow-plain-text-secret-env @env"],
            ],
            [
                "a flag on the command line",
                workload(vllm({ args: ["m", "--api-key", "sk-123"] })),
                ["mandatory disallow-plain-text-secret-env @w"],
            ],
            [
                "an assignment in a shell script",
                workload(vllm({ command: ["sh", "-c", "HF_TOKEN=hf_abc vllm serve m"], args: [] })),
                ["mandatory disallow-plain-text-secret-env @w"],
            ],
            [
                "a variable read from a ConfigMap outside the stack",
                workload(vllm({ env: [{ name: "HF_TOKEN", valueFrom: { configMapKeyRef: { name: "settings", key: "token" } } }] })),
                ["mandatory disallow-plain-text-secret-env @w"],
            ],
            ["a variable from a Secret", workload(vllm()), []],
            [
                "the path of a key file mounted from a Secret",
                workload(vllm({ env: [{ name: "GOOGLE_APPLICATION_CREDENTIALS", value: "/var/secrets/google/key.json" }] })),
                [],
            ],
            [
                "a ConfigMap of settings nobody loads into an environment",
                () => new k8s.core.v1.ConfigMap("settings", { metadata: meta("settings"), data: { credentials: "{}" } }),
                [],
            ],
            ["envFrom a Secret", workload(vllm({ env: [], envFrom: [{ secretRef: { name: "hf-token" } }] })), []],
            ["a flag that expands a Secret-backed variable", workload(vllm({ args: ["m", "--api-key", "$(VLLM_API_KEY)"] })), []],
        ])("%s", async (_, program, expected) => {
            expect(summary(await verdict(pack(), program))).toEqual(expected);
        });
    });
});
