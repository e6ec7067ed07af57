/**
 * Lesson vllm-flag, the whole category: in every kind that carries a pod template and every form that declares it, a
 * flag vLLM rejects on TPU is caught however the container passes it to vLLM: in args or command, `--flag=value` or
 * `--flag value` (two items or one string), with underscores, in a shell script, through the vllm-tpu image's
 * $VLLM_ARGS, or through a `$(VAR)` the kubelet expands from the container's environment. Flags vLLM accepts, words that
 * are not vLLM's, and containers off TPU are left alone.
 */
import * as k8s from "@pulumi/kubernetes";
import * as fs from "fs";
import * as path from "path";
import { stringify } from "yaml";
import { VLLM_FLAG_MESSAGES as say, disallowGpuOnlyVllmFlags as policy } from "../../policies/disallowGpuOnlyVllmFlags";
import { TPU_REJECTED_VLLM_FLAGS } from "../../policies/facts";
import { llmService, vllmContainer } from "../support/fixtures";
import { UNKNOWN, check } from "../support/harness";
import { BROKEN, LABELS, Obj, llmInferenceService, meta, tempDir, template, tpuDeployment, tpuPod, vllm } from "../support/lessonObjects";
import { summary, verdict } from "../support/pack";
import { DECLARING_FORMS, POD_KINDS, podObject } from "../support/podKinds";
import { useWorkerPack } from "../workerPack";

describe("the rule", () => {
    describe("disallow-gpu-only-vllm-flags", () => {
        test("passes TPU-valid flags", async () => {
            expect(await check(policy, [llmService(vllmContainer({ args: ["--enable-prefix-caching", "--max-model-len=2048"] }))])).toEqual(
                [],
            );
        });

        test("fails --prefix-cache-block-size, as an arg or inside a shell line", async () => {
            const message =
                'qwen spec.template.containers[0] (main) passes --prefix-cache-block-size to vLLM on TPU: not a vLLM flag on any platform (vLLM sizes prefix-cache blocks with --block-size); vLLM exits with "unrecognized arguments".';
            expect(await check(policy, [llmService(vllmContainer({ args: ["--prefix-cache-block-size=16"] }))])).toEqual([
                { level: "mandatory", resource: "qwen", message },
            ]);
            const shell = vllmContainer({
                command: ["/bin/bash", "-c"],
                args: ["python3 -m vllm.entrypoints.openai.api_server --model=/mnt/models --prefix-cache-block-size 16"],
            });
            expect((await check(policy, [llmService(shell)])).map((violation) => violation.message)).toEqual([message]);
        });

        test("not applicable: GPU pods may pass it", async () => {
            expect(
                await check(policy, [
                    llmService(vllmContainer({ resources: { limits: { "nvidia.com/gpu": "1" } }, args: ["--prefix-cache-block-size=16"] })),
                ]),
            ).toEqual([]);
        });

        test("preview: unknown args are not a violation", async () => {
            expect((await check(policy, [llmService(vllmContainer({ args: UNKNOWN }))]))[0].level).toBe("advisory");
        });
    });
});

describe("every spelling", () => {
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
        [
            "python -m",
            { command: ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model=/mnt/models", FLAG, "16"], args: [] },
            FLAG,
        ],
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
});

describe("through the pack", () => {
    const pack = useWorkerPack();

    describe("pods hide in many places: every container policy finds them", () => {
        const deployment = (pod: Obj) => ({
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: meta(),
            spec: { selector: { matchLabels: LABELS }, template: template(pod) },
        });
        const places: Array<[string, (pod: Obj) => void, string]> = [
            ["a Pod", (pod) => new k8s.core.v1.Pod("w", { metadata: meta(), spec: pod as never }), "w"],
            ["a Deployment", (pod) => new k8s.apps.v1.Deployment("w", deployment(pod) as never), "w"],
            [
                "a StatefulSet",
                (pod) =>
                    new k8s.apps.v1.StatefulSet("w", {
                        metadata: meta(),
                        spec: { serviceName: "w", selector: { matchLabels: LABELS }, template: template(pod) as never },
                    }),
                "w",
            ],
            [
                "a DaemonSet",
                (pod) =>
                    new k8s.apps.v1.DaemonSet("w", {
                        metadata: meta(),
                        spec: { selector: { matchLabels: LABELS }, template: template(pod) as never },
                    }),
                "w",
            ],
            [
                "a ReplicaSet",
                (pod) =>
                    new k8s.apps.v1.ReplicaSet("w", {
                        metadata: meta(),
                        spec: { selector: { matchLabels: LABELS }, template: template(pod) as never },
                    }),
                "w",
            ],
            [
                "a Job",
                (pod) =>
                    new k8s.batch.v1.Job("w", {
                        metadata: meta(),
                        spec: { template: template({ ...pod, restartPolicy: "Never" }) as never },
                    }),
                "w",
            ],
            [
                "a CronJob",
                (pod) =>
                    new k8s.batch.v1.CronJob("w", {
                        metadata: meta(),
                        spec: {
                            schedule: "0 * * * *",
                            jobTemplate: { spec: { template: template({ ...pod, restartPolicy: "Never" }) as never } },
                        },
                    }),
                "w",
            ],
            [
                "a ReplicationController",
                (pod) =>
                    new k8s.core.v1.ReplicationController("w", {
                        metadata: meta(),
                        spec: { selector: LABELS, template: template(pod) as never },
                    }),
                "w",
            ],
            ["a PodTemplate", (pod) => new k8s.core.v1.PodTemplate("w", { metadata: meta(), template: template(pod) as never }), "w"],
            [
                "a server-side-apply DeploymentPatch",
                (pod) => new k8s.apps.v1.DeploymentPatch("w", { metadata: meta(), spec: { template: { spec: pod as never } } }),
                "w",
            ],
            [
                "a LeaderWorkerSet's leader template",
                (pod) =>
                    new k8s.apiextensions.CustomResource("w", {
                        apiVersion: "leaderworkerset.x-k8s.io/v1",
                        kind: "LeaderWorkerSet",
                        metadata: meta(),
                        spec: {
                            leaderWorkerTemplate: { size: 2, leaderTemplate: template(pod), workerTemplate: template(tpuPod([vllm()])) },
                        },
                    }),
                "w",
            ],
            [
                "a LeaderWorkerSet's worker template",
                (pod) =>
                    new k8s.apiextensions.CustomResource("w", {
                        apiVersion: "leaderworkerset.x-k8s.io/v1",
                        kind: "LeaderWorkerSet",
                        metadata: meta(),
                        spec: { leaderWorkerTemplate: { size: 2, workerTemplate: template(pod) } },
                    }),
                "w",
            ],
            ["an LLMInferenceService's template", (pod) => llmInferenceService({ template: pod }), "qwen"],
            [
                "an LLMInferenceService's worker",
                (pod) => llmInferenceService({ template: tpuPod([vllm()]), worker: pod, parallelism: { tensor: 4, data: 2 } }),
                "qwen",
            ],
            [
                "an LLMInferenceService's prefill template",
                (pod) => llmInferenceService({ template: tpuPod([vllm()]), prefill: { template: pod } }),
                "qwen",
            ],
            [
                "an LLMInferenceService's prefill worker",
                (pod) => llmInferenceService({ template: tpuPod([vllm()]), prefill: { template: tpuPod([vllm()]), worker: pod } }),
                "qwen",
            ],
            [
                "an LLMInferenceServiceConfig's template",
                (pod) =>
                    new k8s.apiextensions.CustomResource("w", {
                        apiVersion: "serving.kserve.io/v1alpha2",
                        kind: "LLMInferenceServiceConfig",
                        metadata: meta(),
                        spec: { template: pod },
                    }),
                "w",
            ],
            ["a yaml/v2 ConfigGroup's objs", (pod) => new k8s.yaml.v2.ConfigGroup("w", { objs: [deployment(pod)] }), "w:models/w"],
            [
                "a yaml/v2 ConfigGroup's YAML text",
                (pod) => new k8s.yaml.v2.ConfigGroup("w", { yaml: stringify(deployment(pod)) }),
                "w:models/w",
            ],
            ["a yaml/v1 ConfigGroup's objs", (pod) => new k8s.yaml.ConfigGroup("w", { objs: [deployment(pod)] }), "models/w"],
            ["a yaml/v1 ConfigGroup's YAML text", (pod) => new k8s.yaml.ConfigGroup("w", { yaml: stringify(deployment(pod)) }), "models/w"],
        ];

        test.each(places)("in %s", async (_, declare, resource) => {
            const findings = await verdict(pack(), () => declare(tpuPod([BROKEN])));
            expect(summary(findings)).toEqual([
                `mandatory disallow-gpu-only-vllm-flags @${resource}`,
                `mandatory disallow-unpinned-images @${resource}`,
            ]);
        });

        test.each(places)("and nothing in %s when the container is right", async (_, declare) => {
            expect(summary(await verdict(pack(), () => declare(tpuPod([vllm()]))))).toEqual([]);
        });

        test("in the files of a yaml/v2 ConfigFile and of a ConfigGroup's glob, read relative to the program", async () => {
            const dir = tempDir();
            fs.mkdirSync(path.join(dir, "manifests"));
            fs.writeFileSync(path.join(dir, "serving.yaml"), stringify(deployment(tpuPod([BROKEN]))));
            fs.writeFileSync(path.join(dir, "manifests", "a.yaml"), stringify({ ...deployment(tpuPod([BROKEN])), metadata: meta("a") }));
            fs.writeFileSync(path.join(dir, "manifests", "b.yml"), stringify({ ...deployment(tpuPod([BROKEN])), metadata: meta("b") }));
            const findings = await verdict(
                pack(),
                () => {
                    new k8s.yaml.v2.ConfigFile("file", { file: "serving.yaml" });
                    new k8s.yaml.v2.ConfigGroup("glob", { files: ["manifests/*.yaml"] });
                },
                { programDir: dir },
            );
            expect(summary(findings)).toEqual([
                "mandatory disallow-gpu-only-vllm-flags @file:models/w",
                "mandatory disallow-gpu-only-vllm-flags @glob:models/a",
                "mandatory disallow-unpinned-images @file:models/w",
                "mandatory disallow-unpinned-images @glob:models/a",
            ]);
        });
    });

    describe("vLLM flags in every spelling vLLM's parser accepts", () => {
        const spellings: Array<[string, Obj]> = [
            ["--flag value", { args: ["m", "--prefix-cache-block-size", "16"] }],
            ["--flag=value", { args: ["m", "--prefix-cache-block-size=16"] }],
            ["one string holding flag and value", { args: ["m", "--prefix-cache-block-size 16"] }],
            ["underscores for dashes", { args: ["m", "--prefix_cache_block_size=16"] }],
            ["a sh -c script", { command: ["sh", "-c"], args: ["vllm serve m --port 8000 --prefix-cache-block-size 16"] }],
            [
                "python3 -m vllm.entrypoints.openai.api_server",
                {
                    command: ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                    args: ["--model", "m", "--prefix-cache-block-size=16"],
                },
            ],
            [
                "a bash -c script that does more first",
                {
                    command: [
                        "/bin/bash",
                        "-c",
                        "pip list && exec python3 -m vllm.entrypoints.openai.api_server --model m \\\n  --prefix_cache_block_size 16",
                    ],
                },
            ],
        ];

        test.each(spellings)("%s", async (_, spelling) => {
            const findings = await verdict(pack(), () => tpuDeployment(vllm(spelling)));
            expect(summary(findings)).toEqual(["mandatory disallow-gpu-only-vllm-flags @w"]);
        });

        test("short aliases and their values are not mistaken for other flags", async () => {
            const findings = await verdict(pack(), () => tpuDeployment(vllm({ args: ["m", "-tp", "4", "-q", "fp8"] })));
            expect(summary(findings)).toEqual([]);
        });
    });

    describe("vLLM started by its image's entrypoint", () => {
        const openai = "docker.io/vllm/vllm-openai:v0.11.0";
        test.each<[string, Obj, string[]]>([
            [
                "vllm-openai with args only: the args are the server's flags",
                { image: openai, command: undefined, args: ["m", "--prefix-cache-block-size=16"] },
                ["mandatory disallow-gpu-only-vllm-flags @w"],
            ],
            [
                "vllm-openai with args only, probed over HTTPS",
                {
                    image: openai,
                    command: undefined,
                    args: ["m"],
                    readinessProbe: { httpGet: { path: "/health", port: 8000, scheme: "HTTPS" } },
                },
                ["mandatory require-http-probes-for-vllm @w"],
            ],
            [
                "vllm-tpu without args: the flags in VLLM_ARGS",
                { command: undefined, args: undefined, env: [{ name: "VLLM_ARGS", value: "--model=m --prefix-cache-block-size=16" }] },
                ["mandatory disallow-gpu-only-vllm-flags @w"],
            ],
            [
                "vllm-tpu with args: they are the command, VLLM_ARGS is not read",
                { command: undefined, args: ["vllm", "serve", "m"], env: [{ name: "VLLM_ARGS", value: "--prefix-cache-block-size=16" }] },
                [],
            ],
            [
                "python3 -m vllm.entrypoints.cli.main serve, what the vllm command runs",
                { command: ["python3", "-m", "vllm.entrypoints.cli.main", "serve", "m", "--prefix_cache_block_size", "16"], args: [] },
                ["mandatory disallow-gpu-only-vllm-flags @w"],
            ],
        ])("%s", async (_, container, expected) => {
            expect(summary(await verdict(pack(), () => tpuDeployment(vllm(container))))).toEqual(expected);
        });
    });

    describe("no false positives on correct programs", () => {
        test("vLLM on GPUs with GPU flags: the TPU policies do not apply", async () => {
            const findings = await verdict(
                pack(),
                () =>
                    new k8s.apps.v1.Deployment("gpu", {
                        metadata: meta("gpu"),
                        spec: {
                            selector: { matchLabels: LABELS },
                            template: template({
                                nodeSelector: { "cloud.google.com/gke-accelerator": "nvidia-l4" },
                                containers: [
                                    vllm({
                                        image: "docker.io/vllm/vllm-openai:v0.11.0",
                                        args: ["m", "--gpu-memory-utilization=0.9", "--prefix-cache-block-size=16"],
                                        resources: { limits: { "nvidia.com/gpu": "1" } },
                                    }),
                                ],
                            }) as never,
                        },
                    }),
            );
            expect(summary(findings)).toEqual([]);
        });
    });
});
