import { disallowPlainTextSecretEnv as policy } from "../../policies/disallowPlainTextSecretEnv";
import { llmService, vllmContainer } from "./fixtures";
import { UNKNOWN, check, kube } from "./harness";

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
                    "qwen spec.template.containers[0] (main) sets HF_TOKEN to a literal value; read it from a Secret with valueFrom.secretKeyRef.",
            },
        ]);
        expect(await check(policy, [llmService(vllmContainer({ env: [{ name: "AWS_SECRET_ACCESS_KEY", value: "x" }] }))])).toHaveLength(1);
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

    test("preview: an unknown env list is not a violation", async () => {
        expect((await check(policy, [llmService(vllmContainer({ env: UNKNOWN }))]))[0].level).toBe("advisory");
    });
});
