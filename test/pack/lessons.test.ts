/**
 * Each lesson, caught however a program writes it, and correct programs written the same ways
 * left alone: programs declared with @pulumi/kubernetes and @pulumi/gcp, recorded under the offline
 * preview's mocks, judged by the pack in its own process.
 */
import * as gcp from "@pulumi/gcp";
import * as k8s from "@pulumi/kubernetes";
import { secret as pulumiSecret } from "@pulumi/pulumi";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { stringify } from "yaml";
import { IMAGES } from "@gke-tpu-inference/facts";
import { summary, usePack, verdict } from "./harness";

const pack = usePack();

type Obj = Record<string, unknown>;

const TPU_SELECTOR = { "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "2x2" };
const TPU_TOLERATIONS = [{ key: "google.com/tpu", operator: "Exists", effect: "NoSchedule" }];
const HEALTH = { httpGet: { path: "/health", port: 8000 } };

/** A persistent XLA compilation cache, which every vLLM TPU server here keeps whatever other variables it sets. */
const XLA_CACHE_ENV = { name: "VLLM_XLA_CACHE_PATH", value: "gs://acme-models/xla-cache/qwen/2x2/v0.27.0" };

/** A vLLM server container on a 2x2 TPU v6e VM that breaks no lesson; an `env` override comes after the cache's variable. */
function vllm({
    env = [{ name: "HF_TOKEN", valueFrom: { secretKeyRef: { name: "hf-token", key: "HF_TOKEN" } } }],
    ...overrides
}: Obj = {}): Obj {
    return {
        name: "main",
        image: IMAGES.vllmTpu,
        command: ["vllm", "serve"],
        args: ["Qwen/Qwen2.5-3B-Instruct", "--port=8000", "--tensor-parallel-size=4"],
        env: [XLA_CACHE_ENV, ...(env as Obj[])],
        ports: [{ name: "http", containerPort: 8000 }],
        resources: { requests: { "google.com/tpu": "4" }, limits: { "google.com/tpu": "4" } },
        startupProbe: { ...HEALTH, periodSeconds: 5, failureThreshold: 180 },
        livenessProbe: HEALTH,
        readinessProbe: HEALTH,
        ...overrides,
    };
}

/** The container every pod-location case runs: an unpinned image and a flag vLLM rejects. */
const BROKEN = vllm({ image: "vllm/vllm-tpu:latest", args: ["Qwen/Qwen2.5-3B-Instruct", "--port=8000", "--prefix-cache-block-size=16"] });

function tpuPod(containers: Obj[], scheduling: Obj = { nodeSelector: TPU_SELECTOR }): Obj {
    return { ...scheduling, tolerations: TPU_TOLERATIONS, containers };
}

const LABELS = { app: "qwen" };
const template = (pod: Obj) => ({ metadata: { labels: LABELS }, spec: pod });
const meta = (name = "w", namespace = "models") => ({ name, namespace });

/** A Deployment named `w` whose pods run `container` on TPU, placed by `scheduling`. */
function tpuDeployment(container: Obj, scheduling: Obj = { nodeSelector: TPU_SELECTOR }): k8s.apps.v1.Deployment {
    return new k8s.apps.v1.Deployment("w", {
        metadata: meta(),
        spec: { selector: { matchLabels: LABELS }, template: template(tpuPod([container], scheduling)) as never },
    });
}

function llmService(spec: Obj, name = "qwen"): k8s.apiextensions.CustomResource {
    return new k8s.apiextensions.CustomResource(name, {
        apiVersion: "serving.kserve.io/v1alpha2",
        kind: "LLMInferenceService",
        metadata: meta(name),
        spec: { model: { uri: "hf://Qwen/Qwen2.5-3B-Instruct", name: "Qwen/Qwen2.5-3B-Instruct" }, ...spec },
    });
}

function tempDir(): string {
    return fs.mkdtempSync(path.join(os.tmpdir(), "lessons-"));
}

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

describe("TPU placement written the less common ways", () => {
    const term = (...expressions: Array<[string, string, string[]]>) => ({
        matchExpressions: expressions.map(([key, operator, values]) => ({ key, operator, values })),
    });
    const affinity = (...terms: Obj[]) => ({
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } },
    });
    const ACCELERATOR = "cloud.google.com/gke-tpu-accelerator";
    const TOPOLOGY = "cloud.google.com/gke-tpu-topology";
    const selectorFindings = async (program: () => unknown) =>
        summary((await verdict(pack(), program)).filter((finding) => finding.policy === "require-tpu-selector-matching-pool"));

    test("node affinity terms are alternatives: accelerator and topology in different terms leave either one open", async () => {
        expect(
            await selectorFindings(() =>
                tpuDeployment(vllm(), affinity(term([ACCELERATOR, "In", ["tpu-v6e-slice"]]), term([TOPOLOGY, "In", ["2x2"]]))),
            ),
        ).toEqual(["mandatory require-tpu-selector-matching-pool @w"]);
        expect(
            await selectorFindings(() =>
                tpuDeployment(vllm(), affinity(term([ACCELERATOR, "In", ["tpu-v6e-slice"]], [TOPOLOGY, "In", ["2x2"]]))),
            ),
        ).toEqual([]);
    });

    test("a nodeSelector and a node affinity that contradict each other never schedule", async () => {
        const findings = (
            await verdict(pack(), () =>
                tpuDeployment(vllm(), {
                    nodeSelector: { ...TPU_SELECTOR, [ACCELERATOR]: "tpu-v6e" },
                    ...affinity(term([ACCELERATOR, "In", ["tpu-v6e-slice"]])),
                }),
            )
        ).filter((finding) => finding.policy === "require-tpu-selector-matching-pool");
        expect(findings.map((finding) => finding.message.split("\n")[1])).toEqual([
            "w (spec.template.spec) can never be placed: its nodeSelector and required node affinity allow no common cloud.google.com/gke-tpu-accelerator.",
        ]);
    });

    test("an LLMInferenceService placed by its base config: judged merged, and left alone when the config is elsewhere", async () => {
        const base = (selector: Record<string, string>) =>
            new k8s.apiextensions.CustomResource("base", {
                apiVersion: "serving.kserve.io/v1alpha2",
                kind: "LLMInferenceServiceConfig",
                metadata: meta("tpu-v6e-2x2"),
                spec: { template: { nodeSelector: selector, tolerations: TPU_TOLERATIONS } },
            });
        const service = () => llmService({ baseRefs: [{ name: "tpu-v6e-2x2" }], template: { containers: [vllm()] } });
        expect(
            await selectorFindings(() => {
                base(TPU_SELECTOR);
                service();
            }),
        ).toEqual([]);
        expect(
            await selectorFindings(() => {
                base({ ...TPU_SELECTOR, [ACCELERATOR]: "tpu-v6e" });
                service();
            }),
        ).toEqual(["mandatory require-tpu-selector-matching-pool @qwen"]);
        expect(await selectorFindings(service)).toEqual([]);
    });

    test("a NodePool without nodeLocations takes its cluster's", async () => {
        const stack = (zone: string) => () => {
            new gcp.container.Cluster("c", { name: "inference", location: "europe-west4", nodeLocations: [zone], initialNodeCount: 1 });
            new gcp.container.NodePool("tpu", {
                cluster: "projects/acme/locations/europe-west4/clusters/inference",
                location: "europe-west4",
                nodeConfig: { machineType: "ct6e-standard-4t" },
            });
        };
        const zoneFindings = async (program: () => unknown) =>
            summary((await verdict(pack(), program)).filter((finding) => finding.policy === "require-supported-tpu-zone"));
        expect(await zoneFindings(stack("europe-west4-a"))).toEqual([]);
        expect(await zoneFindings(stack("europe-west4-b"))).toEqual(["mandatory require-supported-tpu-zone @tpu"]);
    });
});

describe("LeaderWorkerSet and KServe, however the stack installs them, come before any LLMInferenceService", () => {
    const LWS_CRD = {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: "leaderworkersets.leaderworkerset.x-k8s.io" },
        spec: {
            group: "leaderworkerset.x-k8s.io",
            names: { kind: "LeaderWorkerSet", plural: "leaderworkersets" },
            scope: "Namespaced",
            versions: [],
        },
    };
    const KSERVE_CONTROLLER = {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "llmisvc-controller-manager", namespace: "kserve" },
        spec: {
            selector: { matchLabels: { app: "llmisvc" } },
            template: {
                metadata: { labels: { app: "llmisvc" } },
                spec: { containers: [{ name: "manager", image: "docker.io/kserve/llmisvc-controller:v0.20.0" }] },
            },
        },
    };
    const service = (dependsOn: k8s.yaml.v2.ConfigGroup[] | unknown[]) =>
        new k8s.apiextensions.CustomResource(
            "qwen",
            {
                apiVersion: "serving.kserve.io/v1alpha2",
                kind: "LLMInferenceService",
                metadata: meta("qwen"),
                spec: { model: { uri: "hf://Qwen/Qwen2.5-3B-Instruct" }, template: tpuPod([vllm()]) },
            },
            { dependsOn: dependsOn as never },
        );
    const ways: Array<[string, () => unknown[], Record<string, (args: Obj) => Obj>]> = [
        [
            "helm.v3.Release by chart name with repositoryOpts, and by OCI reference",
            () => [
                new k8s.helm.v3.Release("lws", { chart: "lws", version: "0.7.0", repositoryOpts: { repo: "https://example.com/charts" } }),
                new k8s.helm.v3.Release("kserve", { chart: "oci://ghcr.io/kserve/charts/kserve-llmisvc-resources", version: "v0.20.0" }),
            ],
            {},
        ],
        [
            "helm.v3.Release with the version in the OCI tag",
            () => [new k8s.helm.v3.Release("lws", { chart: "oci://registry.k8s.io/lws/charts/lws:0.7.0" })],
            {},
        ],
        [
            "helm.v3.Chart, whose objects the SDK registers from `helm template`",
            () => [new k8s.helm.v3.Chart("lws", { chart: "lws", version: "0.7.0", fetchOpts: { repo: "https://example.com/charts" } })],
            { "kubernetes:helm:template": () => ({ result: [LWS_CRD] }) },
        ],
        ["manifests in a yaml/v2 ConfigGroup", () => [new k8s.yaml.v2.ConfigGroup("kserve", { objs: [KSERVE_CONTROLLER] })], {}],
        ["manifests in a yaml/v1 ConfigGroup", () => [new k8s.yaml.ConfigGroup("lws", { objs: [LWS_CRD] })], {}],
        [
            "a CustomResourceDefinition declared directly",
            () => [new k8s.apiextensions.v1.CustomResourceDefinition("lws-crd", { metadata: LWS_CRD.metadata, spec: LWS_CRD.spec })],
            {},
        ],
    ];

    test.each(ways)("caught without dependsOn: %s", async (_, install, invokes) => {
        const findings = await verdict(
            pack(),
            () => {
                install();
                service([]);
            },
            { invokes },
        );
        expect(summary(findings)).toEqual(["mandatory require-lws-and-kserve-before-model-services @qwen"]);
    });

    test.each(ways)("passed with dependsOn: %s", async (_, install, invokes) => {
        expect(summary(await verdict(pack(), () => service(install()), { invokes }))).toEqual([]);
    });

    test("a Helm release without an exact version is caught, and one pinned by its OCI tag passes", async () => {
        const findings = await verdict(pack(), () => {
            new k8s.helm.v3.Release("floating", { chart: "lws", repositoryOpts: { repo: "https://example.com/charts" } });
            new k8s.helm.v3.Release("range", { chart: "lws", version: "^0.7.0", repositoryOpts: { repo: "https://example.com/charts" } });
            new k8s.helm.v3.Release("tagged", { chart: "oci://registry.k8s.io/lws/charts/lws:0.7.0" });
        });
        expect(summary(findings)).toEqual([
            "mandatory require-pinned-chart-versions @floating",
            "mandatory require-pinned-chart-versions @range",
        ]);
    });
});

describe("GKE Gateway backends: health checks, appProtocol, timeouts", () => {
    const gkeGateway = (className = "gke-l7-regional-external-managed") =>
        new k8s.apiextensions.CustomResource("gateway", {
            apiVersion: "gateway.networking.k8s.io/v1",
            kind: "Gateway",
            metadata: meta("inference", "gateway"),
            spec: { gatewayClassName: className, listeners: [{ name: "http", protocol: "HTTP", port: 80 }] },
        });
    const route = (backend: Obj, extra: Obj = {}) =>
        new k8s.apiextensions.CustomResource("route", {
            apiVersion: "gateway.networking.k8s.io/v1",
            kind: "HTTPRoute",
            metadata: meta("completions"),
            spec: {
                parentRefs: [{ name: "inference", namespace: "gateway" }],
                rules: [{ backendRefs: [{ port: 8000, ...backend }], ...extra }],
            },
        });
    const pool = () =>
        new k8s.apiextensions.CustomResource("pool", {
            apiVersion: "inference.networking.k8s.io/v1",
            kind: "InferencePool",
            metadata: meta("qwen-pool"),
            spec: {
                selector: { matchLabels: LABELS },
                targetPorts: [{ number: 8000 }],
                endpointPickerRef: { name: "qwen-epp", port: { number: 9002 } },
            },
        });
    const poolBackend = { group: "inference.networking.k8s.io", kind: "InferencePool", name: "qwen-pool" };
    const healthCheck = (config: Obj, target: Obj = poolBackend) =>
        new k8s.apiextensions.CustomResource("health", {
            apiVersion: "networking.gke.io/v1",
            kind: "HealthCheckPolicy",
            metadata: meta("qwen"),
            spec: { default: { config }, targetRef: target },
        });
    const backendPolicy = (timeoutSec: number, target: Obj = poolBackend) =>
        new k8s.apiextensions.CustomResource("backend", {
            apiVersion: "networking.gke.io/v1",
            kind: "GCPBackendPolicy",
            metadata: meta("qwen"),
            spec: { default: { timeoutSec }, targetRef: target },
        });
    const vllmDeployment = () =>
        new k8s.apps.v1.Deployment("vllm", {
            metadata: meta("vllm"),
            spec: { selector: { matchLabels: LABELS }, template: template(tpuPod([vllm()])) as never },
        });
    const service = (port: Obj) =>
        new k8s.core.v1.Service("svc", {
            metadata: meta("vllm"),
            spec: { selector: LABELS, ports: [{ port: 8000, targetPort: 8000, ...port }] },
        });
    const servedPool =
        (health: Obj | undefined, timeout = 600) =>
        () => {
            gkeGateway();
            pool();
            route(poolBackend);
            backendPolicy(timeout);
            if (health) {
                healthCheck(health);
            }
        };

    test.each<[string, Obj | undefined, string[]]>([
        ["no HealthCheckPolicy for the InferencePool", undefined, ["mandatory require-http-health-check-policy @pool"]],
        ["a TCP check", { type: "TCP", tcpHealthCheck: { port: 8000 } }, ["mandatory require-http-health-check-policy @health"]],
        [
            "an HTTPS check",
            { type: "HTTPS", httpsHealthCheck: { port: 8000, requestPath: "/health" } },
            ["mandatory require-http-health-check-policy @health"],
        ],
        [
            "an HTTP check of GKE's default path",
            { type: "HTTP", httpHealthCheck: { port: 8000 } },
            ["mandatory require-http-health-check-policy @health"],
        ],
        [
            "an HTTP check of another path",
            { type: "HTTP", httpHealthCheck: { port: 8000, requestPath: "/v1/models" } },
            ["mandatory require-http-health-check-policy @health"],
        ],
        [
            "an HTTP check of /health, however the type is cased",
            { type: "http", httpHealthCheck: { port: 8000, requestPath: "/health" } },
            [],
        ],
    ])("%s", async (_, health, expected) => {
        expect(summary(await verdict(pack(), servedPool(health)))).toEqual(expected);
    });

    test("a vLLM Service routed through a GKE Gateway needs its health check too", async () => {
        const findings = await verdict(pack(), () => {
            gkeGateway();
            vllmDeployment();
            service({ name: "http", appProtocol: "HTTP" });
            route({ name: "vllm" });
        });
        expect(summary(findings)).toEqual(["mandatory require-http-health-check-policy @route"]);
    });

    test.each<[string, Obj, string[]]>([
        ["appProtocol HTTPS", { name: "http", appProtocol: "HTTPS" }, ["mandatory disallow-https-app-protocol-to-vllm @svc"]],
        ["appProtocol https", { appProtocol: "https" }, ["mandatory disallow-https-app-protocol-to-vllm @svc"]],
        ["a port named https without appProtocol", { name: "https" }, ["mandatory disallow-https-app-protocol-to-vllm @svc"]],
        ["a port named https with appProtocol http", { name: "https", appProtocol: "http" }, []],
        ["appProtocol http", { name: "http", appProtocol: "http" }, []],
    ])("a Service in front of plain-HTTP vLLM with %s", async (_, port, expected) => {
        const findings = await verdict(pack(), () => {
            vllmDeployment();
            service(port);
        });
        expect(summary(findings)).toEqual(expected);
    });

    test("a short backend timeout on any InferencePool behind a GKE Gateway, KServe-made or not", async () => {
        expect(
            summary(await verdict(pack(), servedPool({ type: "HTTP", httpHealthCheck: { port: 8000, requestPath: "/health" } }, 30))),
        ).toEqual(["advisory require-long-inference-backend-timeout @backend"]);
        const kserveMade = await verdict(pack(), () => {
            gkeGateway();
            llmService({
                template: tpuPod([vllm()]),
                router: {
                    route: { http: { spec: { rules: [{ backendRefs: [{ ...poolBackend, name: "qwen-inference-pool" }] }] } } },
                    gateway: { refs: [{ name: "inference", namespace: "gateway" }] },
                    scheduler: {},
                },
            });
            healthCheck(
                { type: "HTTP", httpHealthCheck: { port: 8000, requestPath: "/health" } },
                { ...poolBackend, name: "qwen-inference-pool" },
            );
        });
        expect(summary(kserveMade)).toEqual(["advisory require-long-inference-backend-timeout @qwen"]);
    });

    test("route timeouts are caught under a GKE Gateway and left alone under another implementation's", async () => {
        const withTimeouts = (className: string) => () => {
            gkeGateway(className);
            pool();
            route(poolBackend, { timeouts: { request: "300s" } });
            backendPolicy(600);
            healthCheck({ type: "HTTP", httpHealthCheck: { port: 8000, requestPath: "/health" } });
        };
        expect(summary(await verdict(pack(), withTimeouts("gke-l7-regional-external-managed")))).toEqual([
            "mandatory disallow-httproute-timeouts-on-gke @route",
        ]);
        expect(summary(await verdict(pack(), withTimeouts("istio")))).toEqual([]);
    });

    test("behind Istio, GKE's health checks and backend timeout are not asked for; behind GKE they are", async () => {
        const bare = (className: string) => () => {
            gkeGateway(className);
            pool();
            route(poolBackend);
        };
        expect(summary(await verdict(pack(), bare("gke-l7-rilb")))).toEqual([
            "advisory require-long-inference-backend-timeout @pool",
            "mandatory require-http-health-check-policy @pool",
        ]);
        expect(summary(await verdict(pack(), bare("istio")))).toEqual([]);
    });
});

describe("Istio: ext_proc to the EPP written by hand (seed 002)", () => {
    /** Seed 002's EnvoyFilter as its guide writes it, with the ClusterIP its sed step pastes in. */
    const seed002 = () =>
        new k8s.apiextensions.CustomResource("epp-ext-proc-poc", {
            apiVersion: "networking.istio.io/v1alpha3",
            kind: "EnvoyFilter",
            metadata: meta("epp-ext-proc-poc", "llm-d-inference-scheduler"),
            spec: {
                workloadSelector: { labels: { "gateway.networking.k8s.io/gateway-name": "infra-inference-scheduling-inference-gateway" } },
                configPatches: [
                    {
                        applyTo: "HTTP_FILTER",
                        match: {
                            context: "GATEWAY",
                            listener: {
                                filterChain: {
                                    filter: {
                                        name: "envoy.filters.network.http_connection_manager",
                                        subFilter: { name: "envoy.filters.http.ext_proc" },
                                    },
                                },
                            },
                        },
                        patch: {
                            operation: "REPLACE",
                            value: {
                                name: "envoy.filters.http.ext_proc",
                                typed_config: {
                                    "@type": "type.googleapis.com/envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor",
                                    grpc_service: { envoy_grpc: { cluster_name: "epp-cluster" }, timeout: "2s" },
                                    processing_mode: {
                                        request_header_mode: "SKIP",
                                        request_body_mode: "NONE",
                                        response_header_mode: "SKIP",
                                        response_body_mode: "NONE",
                                    },
                                },
                            },
                        },
                    },
                    {
                        applyTo: "CLUSTER",
                        match: { context: "GATEWAY" },
                        patch: {
                            operation: "ADD",
                            value: {
                                name: "epp-cluster",
                                type: "STATIC",
                                connect_timeout: "2s",
                                lb_policy: "ROUND_ROBIN",
                                http2_protocol_options: {},
                                load_assignment: {
                                    cluster_name: "epp-cluster",
                                    endpoints: [
                                        {
                                            lb_endpoints: [
                                                { endpoint: { address: { socket_address: { address: "10.96.41.7", port_value: 9002 } } } },
                                            ],
                                        },
                                    ],
                                },
                            },
                        },
                    },
                ],
            },
        });

    test("a program that repeats seed 002's EnvoyFilter is caught twice: a ClusterIP, and an EPP never called", async () => {
        expect(summary(await verdict(pack(), seed002))).toEqual([
            "mandatory disallow-ext-proc-cluster-by-ip @epp-ext-proc-poc",
            "mandatory require-epp-ext-proc-mode @epp-ext-proc-poc",
        ]);
    });

    test("the same filter sending what the EPP needs to its Service by name passes", async () => {
        const fixed = () =>
            new k8s.apiextensions.CustomResource("epp-ext-proc", {
                apiVersion: "networking.istio.io/v1alpha3",
                kind: "EnvoyFilter",
                metadata: meta("epp-ext-proc", "gateway"),
                spec: {
                    configPatches: [
                        {
                            applyTo: "HTTP_FILTER",
                            match: { context: "GATEWAY" },
                            patch: {
                                operation: "INSERT_FIRST",
                                value: {
                                    name: "envoy.filters.http.ext_proc",
                                    typed_config: {
                                        "@type": "type.googleapis.com/envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor",
                                        grpc_service: {
                                            envoy_grpc: { cluster_name: "outbound|9002||qwen-epp-service.models.svc.cluster.local" },
                                        },
                                        processing_mode: {
                                            request_header_mode: "SEND",
                                            request_body_mode: "FULL_DUPLEX_STREAMED",
                                            request_trailer_mode: "SEND",
                                            response_header_mode: "SEND",
                                            response_body_mode: "FULL_DUPLEX_STREAMED",
                                            response_trailer_mode: "SEND",
                                        },
                                    },
                                },
                            },
                        },
                    ],
                },
            });
        expect(summary(await verdict(pack(), fixed))).toEqual([]);
    });
});

describe("services on KServe's default Gateway, objects without a namespace, sidecar ports", () => {
    const gkeGateway = (namespace: string, name: string) =>
        new k8s.apiextensions.CustomResource("gateway", {
            apiVersion: "gateway.networking.k8s.io/v1",
            kind: "Gateway",
            metadata: { name, namespace },
            spec: { gatewayClassName: "gke-l7-regional-external-managed", listeners: [{ name: "http", protocol: "HTTP", port: 80 }] },
        });
    const routedService = () => llmService({ template: tpuPod([vllm()]), router: { route: {}, scheduler: {} } });
    const lessons = (findings: Awaited<ReturnType<typeof verdict>>) =>
        [...new Set(findings.map((finding) => `${finding.level} ${finding.policy}`))].sort();

    test("a service that names no Gateway attaches to KServe's default, as the controller's ConfigMap or the chart's default says", async () => {
        const expected = [
            "advisory require-long-inference-backend-timeout",
            "mandatory disallow-httproute-timeouts-on-gke",
            "mandatory require-http-health-check-policy",
        ];
        expect(
            lessons(
                await verdict(pack(), () => {
                    gkeGateway("kserve", "kserve-ingress-gateway");
                    routedService();
                }),
            ),
        ).toEqual(expected);
        expect(
            lessons(
                await verdict(pack(), () => {
                    gkeGateway("gateway", "inference");
                    new k8s.core.v1.ConfigMap("kserve-settings", {
                        metadata: { name: "inferenceservice-config", namespace: "kserve" },
                        data: { ingress: JSON.stringify({ kserveIngressGateway: "gateway/inference" }) },
                    });
                    routedService();
                }),
            ),
        ).toEqual(expected);
        // Another default Gateway, outside the stack: nothing here to judge against.
        expect(
            lessons(
                await verdict(pack(), () => {
                    gkeGateway("gateway", "inference");
                    routedService();
                }),
            ),
        ).toEqual([]);
    });

    test("objects without a namespace share the provider's default namespace", async () => {
        const findings = await verdict(pack(), () => {
            const provider = new k8s.Provider("k8s", { kubeconfig: "{}", namespace: "models" });
            new k8s.apiextensions.CustomResource(
                "gateway",
                {
                    apiVersion: "gateway.networking.k8s.io/v1",
                    kind: "Gateway",
                    metadata: { name: "inference" },
                    spec: {
                        gatewayClassName: "gke-l7-regional-external-managed",
                        listeners: [{ name: "http", protocol: "HTTP", port: 80 }],
                    },
                },
                { provider },
            );
            new k8s.apiextensions.CustomResource(
                "route-config",
                {
                    apiVersion: "serving.kserve.io/v1alpha2",
                    kind: "LLMInferenceServiceConfig",
                    metadata: { name: "kserve-config-llm-router-route" },
                    spec: {
                        router: {
                            route: {
                                http: {
                                    spec: {
                                        rules: [
                                            {
                                                backendRefs: [
                                                    {
                                                        group: "inference.networking.k8s.io",
                                                        kind: "InferencePool",
                                                        name: "qwen-inference-pool",
                                                    },
                                                ],
                                            },
                                        ],
                                    },
                                },
                            },
                        },
                    },
                },
                { provider },
            );
            new k8s.apiextensions.CustomResource(
                "qwen",
                {
                    apiVersion: "serving.kserve.io/v1alpha2",
                    kind: "LLMInferenceService",
                    metadata: { name: "qwen" },
                    spec: {
                        model: { uri: "hf://Qwen/Qwen2.5-3B-Instruct" },
                        template: tpuPod([vllm()]),
                        router: { route: {}, gateway: { refs: [{ name: "inference" }] }, scheduler: {} },
                    },
                },
                { provider },
            );
        });
        expect(findings.filter((finding) => finding.policy === "disallow-httproute-timeouts-on-gke")).toEqual([]);
    });

    test("an HTTPS port to a sidecar is not an HTTPS port to vLLM", async () => {
        const pod =
            (...ports: Obj[]) =>
            () => {
                new k8s.apps.v1.Deployment("w", {
                    metadata: meta(),
                    spec: {
                        selector: { matchLabels: LABELS },
                        template: template(
                            tpuPod([
                                vllm(),
                                {
                                    name: "proxy",
                                    image: "quay.io/brancz/kube-rbac-proxy:v0.18.1",
                                    ports: [{ name: "https-metrics", containerPort: 8443 }],
                                },
                            ]),
                        ) as never,
                    },
                });
                new k8s.core.v1.Service("svc", { metadata: meta("vllm"), spec: { selector: LABELS, ports: ports as never } });
            };
        expect(
            summary(
                await verdict(
                    pack(),
                    pod(
                        { name: "http", port: 8000, targetPort: "http", appProtocol: "HTTP" },
                        { name: "https-metrics", port: 8443, targetPort: "https-metrics", appProtocol: "HTTPS" },
                    ),
                ),
            ),
        ).toEqual([]);
        expect(summary(await verdict(pack(), pod({ name: "http", port: 8000, targetPort: 8000, appProtocol: "HTTPS" })))).toEqual([
            "mandatory disallow-https-app-protocol-to-vllm @svc",
        ]);
    });
});

describe("the XLA compilation cache outlives the pod", () => {
    /** A Deployment whose vLLM container keeps its cache at `cachePath`, /cache mounted from `volume`. */
    const cachedAt = (cachePath: string | undefined, volume: Obj) => () =>
        new k8s.apps.v1.Deployment("w", {
            metadata: meta(),
            spec: {
                selector: { matchLabels: LABELS },
                template: template({
                    ...tpuPod([
                        {
                            ...vllm({ env: [] }),
                            env: cachePath === undefined ? [] : [{ name: "VLLM_XLA_CACHE_PATH", value: cachePath }],
                            volumeMounts: [{ name: "cache", mountPath: "/cache" }],
                        },
                    ]),
                    volumes: [{ name: "cache", ...volume }],
                }) as never,
            },
        });

    test.each<[string, () => unknown, string[]]>([
        ["unset: vLLM's default in the container", cachedAt(undefined, { emptyDir: {} }), ["advisory require-persistent-xla-cache @w"]],
        ["on an emptyDir", cachedAt("/cache/xla", { emptyDir: {} }), ["advisory require-persistent-xla-cache @w"]],
        ["on a persistent volume", cachedAt("/cache/xla", { persistentVolumeClaim: { claimName: "xla" } }), []],
        ["in Cloud Storage", cachedAt("gs://acme-models/xla-cache", { emptyDir: {} }), []],
    ])("%s", async (_, program, expected) => {
        expect(summary(await verdict(pack(), program))).toEqual(expected);
    });
});

describe("autoscalers on TPU servers wait out a start", () => {
    /**
     * A TPU Deployment `w` and a ScaledObject on it holding scale-down for `window` seconds (none: Kubernetes' 300 s), from
     * one replica (or `minReplicaCount`: none is KEDA's 0, a scale to zero after its 300 s cooldownPeriod).
     */
    const scaled =
        (window?: number, minReplicaCount: number | null = 1) =>
        () => {
            tpuDeployment(vllm());
            new k8s.apiextensions.CustomResource("w-scaler", {
                apiVersion: "keda.sh/v1alpha1",
                kind: "ScaledObject",
                metadata: meta("w-scaler"),
                spec: {
                    scaleTargetRef: { name: "w" },
                    ...(minReplicaCount === null ? {} : { minReplicaCount }),
                    maxReplicaCount: 2,
                    triggers: [
                        { type: "prometheus", metadata: { serverAddress: "http://prometheus:9090", query: "sum(x)", threshold: "5" } },
                    ],
                    ...(window === undefined
                        ? {}
                        : {
                              advanced: {
                                  horizontalPodAutoscalerConfig: { behavior: { scaleDown: { stabilizationWindowSeconds: window } } },
                              },
                          }),
                },
            });
        };

    test.each<[string, () => unknown, string[]]>([
        ["Kubernetes' default scale-down window", scaled(), ["advisory require-tpu-aware-autoscaling @w-scaler"]],
        ["a window shorter than the startup budget", scaled(120), ["advisory require-tpu-aware-autoscaling @w-scaler"]],
        ["a window of the whole budget", scaled(600), []],
        [
            "a window of the whole budget, but a scale to zero after KEDA's default cooldown",
            scaled(600, null),
            ["advisory require-tpu-aware-autoscaling @w-scaler"],
        ],
    ])("%s", async (_, program, expected) => {
        expect(summary(await verdict(pack(), program))).toEqual(expected);
    });
});

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

describe("no false positives on correct programs", () => {
    test("an EPP image pinned by digest alone", async () => {
        const findings = await verdict(pack(), () =>
            llmService({
                template: tpuPod([vllm()]),
                router: {
                    scheduler: {
                        template: {
                            containers: [{ name: "main", image: `ghcr.io/llm-d/llm-d-router-endpoint-picker@sha256:${"a".repeat(64)}` }],
                        },
                    },
                },
            }),
        );
        expect(summary(findings)).toEqual([]);
    });

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
