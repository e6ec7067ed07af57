/**
 * Lesson vllm-flag, the whole category: in every kind that carries a pod template and every form that declares it, a
 * flag vLLM rejects on TPU is caught however the container passes it to vLLM: in args or command, `--flag=value` or
 * `--flag value` (two items or one string), with underscores, in a shell script, through the vllm-tpu image's
 * $VLLM_ARGS, or through a `$(VAR)` the kubelet expands from the container's environment. Flags vLLM accepts, words that
 * are not vLLM's, and containers off TPU are left alone.
 */
import { VLLM_FLAG_MESSAGES as say, disallowGpuOnlyVllmFlags as policy } from "../../../policies/disallowGpuOnlyVllmFlags";
import { TPU_REJECTED_VLLM_FLAGS } from "../../../policies/facts";
import { vllmContainer } from "../fixtures";
import { check } from "../harness";
import { DECLARING_FORMS, POD_KINDS, podObject } from "./podKinds";

type Obj = Record<string, unknown>;

const FLAG = "--prefix-cache-block-size";
const REASON = TPU_REJECTED_VLLM_FLAGS[FLAG];
const SERVE = ["vllm", "serve", "/mnt/models"];

/** Ways of passing the flag, each with what the finding shows of it. */
const SPELLINGS: Array<[label: string, container: Obj, shown: string]> = [
    ["args --flag=value", { args: ["/mnt/models", `${FLAG}=16`] }, FLAG],
    ["args --flag value", { args: ["/mnt/models", FLAG, "16"] }, FLAG],
    ["one args string", { args: [`/mnt/models ${FLAG} 16`] }, FLAG],
    ["underscores", { args: ["/mnt/models", "--prefix_cache_block_size=16"] }, `--prefix_cache_block_size=16 (${FLAG})`],
    ["the command, no args", { command: [...SERVE, `${FLAG}=16`], args: undefined }, FLAG],
    ["python -m", { command: ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model=/mnt/models", FLAG, "16"], args: [] }, FLAG],
    ["a shell script", { command: ["sh", "-c"], args: [`exec vllm serve /mnt/models \\\n  ${FLAG}=16`] }, FLAG],
    [
        "the vllm-tpu image's $VLLM_ARGS",
        { command: undefined, args: undefined, env: [{ name: "VLLM_ARGS", value: `--model=/mnt/models ${FLAG}=16` }] },
        FLAG,
    ],
    [
        "the vllm-openai image's args",
        { image: "vllm/vllm-openai:v0.11.0", command: undefined, args: ["--model=/mnt/models", `${FLAG}=16`] },
        FLAG,
    ],
    ["$(VAR) from env", { args: ["/mnt/models", "$(EXTRA)"], env: [{ name: "EXTRA", value: `${FLAG}=16` }] }, FLAG],
];

const SAFE: Array<[label: string, container: Obj]> = [
    ["the flag vLLM has", { args: ["/mnt/models", "--block-size=16"] }],
    ["the project's server", {}],
    ["the flag's text before vLLM starts", { command: ["sh", "-c"], args: [`echo ${FLAG}; exec vllm serve /mnt/models`] }],
    [
        "$(VAR) from a Secret (unknown)",
        { args: ["/mnt/models", "$(EXTRA)"], env: [{ name: "EXTRA", valueFrom: { secretKeyRef: { name: "x", key: "y" } } }] },
    ],
    ["$$(VAR), escaped", { args: ["/mnt/models", "$$(EXTRA)"], env: [{ name: "EXTRA", value: `${FLAG}=16` }] }],
];

describe("lesson vllm-flag: every way a TPU container can hand vLLM a flag it rejects", () => {
    describe.each(POD_KINDS)("%s %s at %s", (apiVersion, kind, body, podPath) => {
        const verdict = async (container: Obj) =>
            (await check(policy, [podObject(apiVersion, kind, body, { containers: [vllmContainer(container)] })])).map(
                (finding) => finding.message,
            );
        const main = `${podPath}.containers[0] (main)`;

        test.each(SPELLINGS)("caught: %s", async (_, container, shown) => {
            expect(await verdict(container)).toEqual([say.rejected("vllm", main, shown, REASON)]);
        });

        test("clean: flags vLLM accepts, words that are not vLLM's, a reference the pack cannot read, a server off TPU", async () => {
            for (const [, container] of SAFE) {
                expect(await verdict(container)).toEqual([]);
            }
            expect(await verdict({ ...SPELLINGS[0][1], resources: { limits: { cpu: "8" } } })).toEqual([]);
        });
    });

    test("an init container on TPU is read as well", async () => {
        const [apiVersion, kind, body, podPath] = POD_KINDS[3];
        const init = vllmContainer({ name: "warm", args: ["/mnt/models", `${FLAG}=16`] });
        expect(
            (await check(policy, [podObject(apiVersion, kind, body, { initContainers: [init], containers: [vllmContainer()] })])).map(
                (finding) => finding.message,
            ),
        ).toEqual([say.rejected("vllm", `${podPath}.initContainers[0] (warm)`, FLAG, REASON)]);
    });

    test.each(DECLARING_FORMS)("declared as %s: caught and clean alike", async (_, declare) => {
        const [apiVersion, kind, body, podPath] = POD_KINDS[3];
        const findings = async (container: Obj) =>
            (await check(policy, declare(podObject(apiVersion, kind, body, { containers: [vllmContainer(container)] })))).map(
                (finding) => finding.message,
            );
        expect(await findings(SPELLINGS[1][1])).toEqual([say.rejected("vllm", `${podPath}.containers[0] (main)`, FLAG, REASON)]);
        expect(await findings(SAFE[0][1])).toEqual([]);
    });
});
