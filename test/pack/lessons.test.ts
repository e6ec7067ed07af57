/**
 * Each lesson, caught however a program writes it, and correct programs written the same ways
 * left alone: programs declared with @pulumi/kubernetes and @pulumi/gcp, recorded under the offline
 * preview's mocks, judged by the pack in its own process.
 */
import * as gcp from "@pulumi/gcp";
import * as k8s from "@pulumi/kubernetes";
import * as fs from "fs";
import * as path from "path";
import { stringify } from "yaml";
import { summary, usePack, verdict } from "./harness";
import { BROKEN, LABELS, Obj, TPU_SELECTOR, llmService, meta, tempDir, template, tpuDeployment, tpuPod, vllm } from "./lessonObjects";

const pack = usePack();

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
                new k8s.batch.v1.Job("w", { metadata: meta(), spec: { template: template({ ...pod, restartPolicy: "Never" }) as never } }),
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
                    spec: { leaderWorkerTemplate: { size: 2, leaderTemplate: template(pod), workerTemplate: template(tpuPod([vllm()])) } },
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
        ["an LLMInferenceService's template", (pod) => llmService({ template: pod }), "qwen"],
        [
            "an LLMInferenceService's worker",
            (pod) => llmService({ template: tpuPod([vllm()]), worker: pod, parallelism: { tensor: 4, data: 2 } }),
            "qwen",
        ],
        [
            "an LLMInferenceService's prefill template",
            (pod) => llmService({ template: tpuPod([vllm()]), prefill: { template: pod } }),
            "qwen",
        ],
        [
            "an LLMInferenceService's prefill worker",
            (pod) => llmService({ template: tpuPod([vllm()]), prefill: { template: tpuPod([vllm()]), worker: pod } }),
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

    test("the EPP in an LLMInferenceService's scheduler template", async () => {
        const findings = await verdict(pack(), () =>
            llmService({
                template: tpuPod([vllm()]),
                router: {
                    scheduler: { template: { containers: [{ name: "main", image: "ghcr.io/llm-d/llm-d-inference-scheduler:v0.4.0" }] } },
                },
            }),
        );
        expect(summary(findings)).toEqual(["mandatory require-fixed-endpoint-picker-image @qwen"]);
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
            { command: ["python3", "-m", "vllm.entrypoints.openai.api_server"], args: ["--model", "m", "--prefix-cache-block-size=16"] },
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

describe("TPU selection: nodeSelector or required node affinity, pools declared or elsewhere", () => {
    const affinity = (accelerator: string[], topology: string[]) => ({
        affinity: {
            nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                    nodeSelectorTerms: [
                        {
                            matchExpressions: [
                                { key: "cloud.google.com/gke-tpu-accelerator", operator: "In", values: accelerator },
                                { key: "cloud.google.com/gke-tpu-topology", operator: "In", values: topology },
                            ],
                        },
                    ],
                },
            },
        },
    });
    const workload =
        (scheduling: Obj, container: Obj = vllm()) =>
        () =>
            tpuDeployment(container, scheduling);
    const nodePool =
        (machineType: string, zone = "europe-west4-a") =>
        () =>
            new gcp.container.NodePool("tpu", {
                cluster: "c",
                location: "europe-west4",
                nodeLocations: [zone],
                nodeConfig: { machineType, serviceAccount: "nodes@acme.iam.gserviceaccount.com" },
            });
    const both =
        (...parts: Array<() => unknown>) =>
        () =>
            parts.forEach((part) => part());
    const onlyPolicy = (name: string) => (findings: Awaited<ReturnType<typeof verdict>>) =>
        summary(findings.filter((finding) => finding.policy === name));

    test.each<[string, () => unknown, string[]]>([
        [
            "the TPU VM API's accelerator name in a nodeSelector",
            workload({ nodeSelector: { ...TPU_SELECTOR, "cloud.google.com/gke-tpu-accelerator": "tpu-v6e" } }),
            ["mandatory require-tpu-selector-matching-pool @w"],
        ],
        [
            "the TPU VM API's accelerator name in a node affinity",
            workload(affinity(["tpu-v6e"], ["2x2"])),
            ["mandatory require-tpu-selector-matching-pool @w"],
        ],
        [
            "a topology the stack's NodePool does not carry",
            both(nodePool("ct6e-standard-8t"), workload(affinity(["tpu-v6e-slice"], ["2x2"]))),
            ["mandatory require-tpu-selector-matching-pool @w"],
        ],
        [
            "a topology the Cluster's inline pool does not carry",
            both(
                () =>
                    new gcp.container.Cluster("c", {
                        location: "europe-west4",
                        nodePools: [{ name: "tpu", nodeLocations: ["europe-west4-a"], nodeConfig: { machineType: "ct6e-standard-8t" } }],
                    }),
                workload({ nodeSelector: TPU_SELECTOR }),
            ),
            ["mandatory require-tpu-selector-matching-pool @w"],
        ],
        [
            "no pool in the stack and a topology v6e has none of",
            workload({ nodeSelector: { ...TPU_SELECTOR, "cloud.google.com/gke-tpu-topology": "2x3" } }),
            ["mandatory require-tpu-selector-matching-pool @w"],
        ],
        [
            "no pool in the stack and no topology at all",
            workload({ nodeSelector: { "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice" } }),
            ["mandatory require-tpu-selector-matching-pool @w"],
        ],
    ])("caught: %s", async (_, program, expected) => {
        expect(onlyPolicy("require-tpu-selector-matching-pool")(await verdict(pack(), program))).toEqual(expected);
    });

    test.each<[string, () => unknown]>([
        ["a node affinity that matches the NodePool", both(nodePool("ct6e-standard-4t"), workload(affinity(["tpu-v6e-slice"], ["2x2"])))],
        [
            "a nodeSelector that matches the Cluster's inline pool",
            both(
                () =>
                    new gcp.container.Cluster("c", {
                        location: "europe-west4-a",
                        nodePools: [{ name: "tpu", nodeConfig: { machineType: "ct6e-standard-4t" } }],
                    }),
                workload({ nodeSelector: TPU_SELECTOR }),
            ),
        ],
        [
            "a workloads-only stack selecting a real v6e shape",
            workload(
                { nodeSelector: { ...TPU_SELECTOR, "cloud.google.com/gke-tpu-topology": "2x4" } },
                vllm({ resources: { limits: { "google.com/tpu": "8" } } }),
            ),
        ],
        [
            "another TPU generation, which is not this pack's to judge",
            workload({
                nodeSelector: {
                    "cloud.google.com/gke-tpu-accelerator": "tpu-v5-lite-podslice",
                    "cloud.google.com/gke-tpu-topology": "2x4",
                },
            }),
        ],
    ])("passed: %s", async (_, program) => {
        expect(onlyPolicy("require-tpu-selector-matching-pool")(await verdict(pack(), program))).toEqual([]);
    });

    test("chips: a limit alone is the request; a request short of the VM's chips, or unequal to the limit, is caught", async () => {
        expect(
            summary(
                await verdict(pack(), workload({ nodeSelector: TPU_SELECTOR }, vllm({ resources: { limits: { "google.com/tpu": "4" } } }))),
            ),
        ).toEqual([]);
        expect(
            summary(
                await verdict(
                    pack(),
                    workload(affinity(["tpu-v6e-slice"], ["2x2"]), vllm({ resources: { limits: { "google.com/tpu": "2" } } })),
                ),
            ),
        ).toEqual(["mandatory require-all-tpu-chips @w"]);
        expect(
            summary(
                await verdict(
                    pack(),
                    workload(
                        { nodeSelector: TPU_SELECTOR },
                        vllm({ resources: { requests: { "google.com/tpu": "4" }, limits: { "google.com/tpu": "8" } } }),
                    ),
                ),
            ),
        ).toEqual(["mandatory require-all-tpu-chips @w"]);
    });

    test("zones: a NodePool or a Cluster's inline pool in a zone without TPU v6e", async () => {
        const findings = await verdict(
            pack(),
            both(
                nodePool("ct6e-standard-4t", "us-central1-a"),
                () =>
                    new gcp.container.Cluster("c", {
                        location: "us-central1",
                        nodePools: [{ name: "tpu", nodeLocations: ["us-central1-f"], nodeConfig: { machineType: "ct6e-standard-4t" } }],
                    }),
            ),
        );
        expect(onlyPolicy("require-supported-tpu-zone")(findings)).toEqual([
            "mandatory require-supported-tpu-zone @c",
            "mandatory require-supported-tpu-zone @tpu",
        ]);
    });
});
