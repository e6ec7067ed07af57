import { disallowPlainTextSecretEnv as policy } from "../../policies/disallowPlainTextSecretEnv";
import { llmService, vllmContainer } from "./fixtures";
import { UNKNOWN, check } from "./harness";

describe("disallow-plain-text-secret-env", () => {
    test("passes a token read from a Secret", async () => {
        const env = [{ name: "HF_TOKEN", valueFrom: { secretKeyRef: { name: "hf-token", key: "HF_TOKEN" } } }, { name: "HOME", value: "/home" }];
        expect(await check(policy, [llmService(vllmContainer({ env }))])).toEqual([]);
    });

    test("fails a literal token", async () => {
        expect(await check(policy, [llmService(vllmContainer({ env: [{ name: "HF_TOKEN", value: "hf_abc" }] }))])).toEqual([
            { level: "mandatory", resource: "qwen", message: "qwen spec.template.containers[0] (main) sets HF_TOKEN to a literal value; read it from a Secret with valueFrom.secretKeyRef." },
        ]);
        expect(await check(policy, [llmService(vllmContainer({ env: [{ name: "AWS_SECRET_ACCESS_KEY", value: "x" }] }))])).toHaveLength(1);
    });

    test("not applicable: ordinary variables", async () => {
        expect(await check(policy, [llmService(vllmContainer({ env: [{ name: "VLLM_LOGGING_LEVEL", value: "INFO" }, { name: "TOKENIZERS_PARALLELISM", value: "false" }] }))])).toEqual([]);
    });

    test("preview: an unknown env list is not a violation", async () => {
        expect((await check(policy, [llmService(vllmContainer({ env: UNKNOWN }))]))[0].level).toBe("advisory");
    });
});
