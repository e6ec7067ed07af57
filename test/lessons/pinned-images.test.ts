/**
 * Lesson pinned-images, the whole category. Images: in every kind that carries a pod template (custom resources that
 * embed one included) and every form that declares it, a container, init container or ephemeral container whose image
 * has no tag, a moving tag (`latest`, a branch such as `main` or `nightly`, alone or beside a variant or architecture, or a
 * variant alone such as `rocm`), a registry port mistaken for a tag, or a
 * malformed digest is caught; so are a custom resource's lone container, KServe's `oci://` model URIs (modelcars) and
 * the images its inferenceservice-config ConfigMap makes it inject; a version tag or a digest (with or without a tag,
 * behind a registry port) is left alone. Charts: a Helm v3 or v4 Chart or helm.v3.Release without a version, with a partial one,
 * a wildcard or a range, or an OCI reference tagged `latest`, is caught; an exact version, an OCI tag or digest, and a
 * local or packaged chart are left alone.
 */
import * as k8s from "@pulumi/kubernetes";
import { PINNED_IMAGE_MESSAGES as image, disallowUnpinnedImages as imagePolicy } from "../../policies/disallowUnpinnedImages";
import { PINNED_CHART_MESSAGES as chart, requirePinnedChartVersions as chartPolicy } from "../../policies/requirePinnedChartVersions";
import { llmService, vllmContainer } from "../support/fixtures";
import { UNKNOWN, check, kube, resource } from "../support/harness";
import { summary, verdict } from "../support/pack";
import { DECLARING_FORMS, POD_KINDS, podObject } from "../support/podKinds";
import { useWorkerPack } from "../workerPack";

describe("the rule", () => {
    describe("disallow-unpinned-images", () => {
        test("passes version tags and digests", async () => {
            expect(await check(imagePolicy, [llmService()])).toEqual([]);
            expect(await check(imagePolicy, [llmService(vllmContainer({ image: `vllm/vllm-tpu@sha256:${"a".repeat(64)}` }))])).toEqual([]);
        });

        test("fails latest and untagged images, in any container of any workload", async () => {
            expect(await check(imagePolicy, [llmService(vllmContainer({ image: "vllm/vllm-tpu:latest" }))])).toEqual([
                {
                    level: "mandatory",
                    resource: "qwen",
                    message:
                        "qwen spec.template.containers[0] (main) runs image vllm/vllm-tpu:latest, which is not pinned to a version tag or digest.",
                },
            ]);
            const deployment = kube("apps/v1", "Deployment", "epp", {
                metadata: { name: "epp" },
                spec: { template: { spec: { containers: [{ name: "epp", image: "registry.local:5000/epp" }] } } },
            });
            expect((await check(imagePolicy, [deployment])).map((violation) => violation.message)).toEqual([
                "epp spec.template.spec.containers[0] (epp) runs image registry.local:5000/epp, which is not pinned to a version tag or digest.",
            ]);
        });

        test("not applicable: KServe templates and resources without containers", async () => {
            expect(
                await check(imagePolicy, [
                    llmService(vllmContainer({ image: "{{ .Spec.Image }}" })),
                    kube("v1", "Namespace", "ns", { metadata: { name: "ns" } }),
                ]),
            ).toEqual([]);
        });

        test("preview: an unknown image is not a violation", async () => {
            expect((await check(imagePolicy, [llmService(vllmContainer({ image: UNKNOWN }))]))[0].level).toBe("advisory");
        });
    });

    const chart = (version: unknown) =>
        resource("kubernetes:helm.sh/v4:Chart", "cert-manager", {
            chart: "oci://quay.io/jetstack/charts/cert-manager",
            ...(version !== undefined ? { version } : {}),
        });

    describe("require-pinned-chart-versions", () => {
        test("passes an exact version", async () => {
            expect(await check(chartPolicy, [chart("v1.21.1")])).toEqual([]);
        });

        test("fails a missing version and a range", async () => {
            expect(await check(chartPolicy, [chart(undefined)])).toEqual([
                {
                    level: "mandatory",
                    resource: "cert-manager",
                    message:
                        "Helm chart cert-manager (oci://quay.io/jetstack/charts/cert-manager) sets no version, so it installs the newest release; pin an exact release.",
                },
            ]);
            expect((await check(chartPolicy, [chart("^1.21")])).map((violation) => violation.message)).toEqual([
                'Helm chart cert-manager (oci://quay.io/jetstack/charts/cert-manager) has version "^1.21"; pin an exact release.',
            ]);
        });

        test("also reads v3 Charts and Releases; not applicable to other resources", async () => {
            expect(await check(chartPolicy, [resource("kubernetes:helm.sh/v3:Release", "r", { chart: "lws" })])).toHaveLength(1);
            expect(await check(chartPolicy, [resource("gcp:compute/network:Network", "vpc", {})])).toEqual([]);
        });

        test("preview: an unknown version is not a violation", async () => {
            expect((await check(chartPolicy, [chart(UNKNOWN)]))[0].level).toBe("advisory");
        });
    });
});

describe("every spelling", () => {
    type Obj = Record<string, unknown>;

    const DIGEST = `sha256:${"a".repeat(64)}`;
    const UNPINNED = [
        "vllm/vllm-tpu",
        "vllm/vllm-tpu:latest",
        "docker.io/vllm/vllm-tpu",
        "registry.acme.internal:5000/vllm-tpu",
        "registry.acme.internal:5000/vllm-tpu:latest",
        "localhost:5000/team/vllm-tpu",
        "nginx",
        "vllm/vllm-tpu@sha256:abc",
        "vllm/vllm-tpu:latest@md5:abc",
        "vllm/vllm-openai:nightly",
        "ghcr.io/llm-d/llm-d-inference-scheduler:main",
        "nginx:stable",
        // A branch or channel beside a variant or an architecture, or a variant alone: re-pointed at every push.
        "vllm/vllm-openai:latest-x86_64",
        "vllm/vllm-openai:x86_64",
        "ollama/ollama:rocm",
        "ghcr.io/open-webui/open-webui:main-slim",
        "ghcr.io/berriai/litellm:main-stable",
        "redis:alpine3.19",
    ];
    const PINNED = [
        "docker.io/vllm/vllm-tpu:v0.27.0",
        "nginx:1.27",
        `vllm/vllm-tpu@${DIGEST}`,
        `vllm/vllm-tpu:latest@${DIGEST}`,
        "registry.acme.internal:5000/vllm-tpu:v0.27.0",
        `registry.acme.internal:5000/vllm-tpu@${DIGEST}`,
        "localhost:5000/team/vllm-tpu:2025-01-01",
        "europe-west4-docker.pkg.dev/acme/models/vllm-tpu:v0.27.0",
        // A release beside a variant, an architecture or a channel; a build date; a commit.
        "ollama/ollama:0.5.7-rocm",
        "vllm/vllm-openai:v0.10.1-x86_64",
        "python:3.11-slim",
        "ghcr.io/huggingface/text-generation-inference:3.3.4",
        "vllm/vllm-openai:nightly-0589f9e6a1b2",
        "ghcr.io/acme/server:sha-1a2b3c4",
        // A dated build, as Model Garden tags its releases; PEP 440 post-releases, as vLLM and SGLang tag them.
        "us-docker.pkg.dev/vertex-ai/vertex-vision-model-garden-dockers/pytorch-vllm-serve:20250114_0916_RC00",
        "vllm/vllm-openai:v0.6.3.post1",
        "lmsysorg/sglang:v0.4.6.post1-cu124",
        // A Go template KServe fills in at reconcile time.
        "{{ .Image }}",
    ];

    describe("lesson pinned-images: every way an image or chart is left to move", () => {
        describe.each(POD_KINDS)("an image in %s %s at %s", (apiVersion, kind, body, podPath) => {
            const verdict = async (spec: Obj) =>
                (await check(imagePolicy, [podObject(apiVersion, kind, body, spec)])).map((finding) => finding.message);

            test.each(UNPINNED)("caught: %s, as a container, init container or ephemeral container", async (reference) => {
                expect(await verdict({ containers: [{ name: "main", image: reference }] })).toEqual([
                    image.unpinned("vllm", `${podPath}.containers[0] (main)`, reference),
                ]);
                expect(
                    await verdict({
                        initContainers: [{ name: "fetch", image: reference }],
                        containers: [{ name: "main", image: PINNED[0] }],
                    }),
                ).toEqual([image.unpinned("vllm", `${podPath}.initContainers[0] (fetch)`, reference)]);
                expect(
                    await verdict({
                        containers: [{ name: "main", image: PINNED[0] }],
                        ephemeralContainers: [{ name: "debug", image: reference }],
                    }),
                ).toEqual([image.unpinned("vllm", `${podPath}.ephemeralContainers[0] (debug)`, reference)]);
            });

            test("clean: version tags and digests, behind a registry port or not; a template", async () => {
                for (const reference of PINNED) {
                    expect(
                        await verdict({
                            initContainers: [{ name: "fetch", image: reference }],
                            containers: [{ name: "main", image: reference }],
                            ephemeralContainers: [{ name: "debug", image: reference }],
                        }),
                    ).toEqual([]);
                }
            });
        });

        test.each(DECLARING_FORMS)("an image declared as %s: caught and clean alike", async (_, declare) => {
            const [apiVersion, kind, body, podPath] = POD_KINDS[3];
            const findings = async (reference: string) =>
                (
                    await check(
                        imagePolicy,
                        declare(podObject(apiVersion, kind, body, { containers: [{ name: "main", image: reference }] })),
                    )
                ).map((finding) => finding.message);
            expect(await findings("vllm/vllm-tpu:latest")).toEqual([
                image.unpinned("vllm", `${podPath}.containers[0] (main)`, "vllm/vllm-tpu:latest"),
            ]);
            expect(await findings(PINNED[0])).toEqual([]);
        });

        test.each(["latest", "main", "nightly"])(
            "a moving tag %s pulled Always says so; a version tag pulled Always is clean",
            async (tag) => {
                const pod = (image: string) =>
                    resource("kubernetes:core/v1:Pod", "vllm", {
                        apiVersion: "v1",
                        kind: "Pod",
                        spec: { containers: [{ name: "main", image, imagePullPolicy: "Always" }] },
                    });
                expect((await check(imagePolicy, [pod(`vllm/vllm-openai:${tag}`)])).map((finding) => finding.message)).toEqual([
                    image.pulledAlways("vllm", "spec.containers[0] (main)", `vllm/vllm-openai:${tag}`),
                ]);
                expect(await check(imagePolicy, [pod("vllm/vllm-openai:v0.11.0")])).toEqual([]);
            },
        );

        test("a custom resource's lone container (KServe's ClusterStorageContainer): caught and clean alike", async () => {
            const storage = (reference: string) =>
                resource("kubernetes:serving.kserve.io/v1alpha1:ClusterStorageContainer", "hf", {
                    apiVersion: "serving.kserve.io/v1alpha1",
                    kind: "ClusterStorageContainer",
                    metadata: { name: "hf" },
                    spec: { container: { name: "storage-initializer", image: reference }, supportedUriFormats: [{ prefix: "hf://" }] },
                });
            expect((await check(imagePolicy, [storage("kserve/storage-initializer:latest")])).map((finding) => finding.message)).toEqual([
                image.unpinned("hf", "spec.container (storage-initializer)", "kserve/storage-initializer:latest"),
            ]);
            expect(await check(imagePolicy, [storage("kserve/storage-initializer:v0.20.0")])).toEqual([]);
        });

        test("a custom resource with values a preview does not know yet (an ARN): its pod spec is still judged, and nothing else is said", async () => {
            const nodeClass = (reference: string) =>
                resource("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "gpu", {
                    apiVersion: "karpenter.k8s.aws/v1",
                    kind: "EC2NodeClass",
                    metadata: { name: "gpu" },
                    spec: { role: UNKNOWN, warmup: { template: { spec: { containers: [{ name: "pull", image: reference }] } } } },
                });
            expect(await check(imagePolicy, [nodeClass("vllm/vllm-openai:latest")])).toEqual([
                {
                    level: "mandatory",
                    resource: "gpu",
                    message: image.unpinned("gpu", "spec.warmup.template.spec.containers[0] (pull)", "vllm/vllm-openai:latest"),
                },
            ]);
            expect(await check(imagePolicy, [nodeClass("vllm/vllm-openai:v0.11.0")])).toEqual([]);
        });

        describe("KServe's model images: oci:// model URIs, pulled as modelcars", () => {
            const service = (kind: string, spec: Obj) =>
                resource(`kubernetes:serving.kserve.io/v1alpha2:${kind}`, "qwen", { apiVersion: "serving.kserve.io/v1alpha2", kind, spec });
            test.each([
                ["LLMInferenceService", (uri: string) => ({ model: { uri } }), "spec.model.uri"],
                ["LLMInferenceServiceConfig", (uri: string) => ({ model: { uri } }), "spec.model.uri"],
                [
                    "InferenceService",
                    (uri: string) => ({ predictor: { model: { modelFormat: { name: "vllm" }, storageUri: uri } } }),
                    "spec.predictor.model.storageUri",
                ],
            ] as Array<[string, (uri: string) => Obj, string]>)(
                "%s: a floating tag is caught, a version or digest clean",
                async (kind, spec, at) => {
                    for (const uri of [
                        "oci://123456789012.dkr.ecr.us-east-1.amazonaws.com/kserve-models/qwen:latest",
                        "oci://registry.acme/models/qwen",
                    ]) {
                        expect((await check(imagePolicy, [service(kind, spec(uri))])).map((finding) => finding.message)).toEqual([
                            image.modelcar("qwen", at, uri),
                        ]);
                    }
                    for (const uri of [
                        "oci://registry.acme/models/qwen:v1.0",
                        `oci://registry.acme/models/qwen@${DIGEST}`,
                        "hf://Qwen/Qwen2.5-7B-Instruct",
                        "s3://models/qwen",
                    ]) {
                        expect(await check(imagePolicy, [service(kind, spec(uri))])).toEqual([]);
                    }
                },
            );
        });

        test.each(["model", "huggingface", "sklearn"])(
            "an InferenceService's predictor.%s spec is a container: its image and its runtimeVersion (the runtime image's tag) are judged",
            async (framework) => {
                const isvc = (extension: Obj) =>
                    resource("kubernetes:serving.kserve.io/v1beta1:InferenceService", "qwen", {
                        apiVersion: "serving.kserve.io/v1beta1",
                        kind: "InferenceService",
                        spec: { predictor: { minReplicas: 1, [framework]: { modelFormat: { name: framework }, ...extension } } },
                    });
                const at = `spec.predictor.${framework}`;
                expect((await check(imagePolicy, [isvc({ image: "kserve/huggingfaceserver:latest" })])).map((f) => f.message)).toEqual([
                    image.unpinned("qwen", at, "kserve/huggingfaceserver:latest"),
                ]);
                expect((await check(imagePolicy, [isvc({ runtimeVersion: "latest" })])).map((f) => f.message)).toEqual([
                    image.runtimeVersion("qwen", at, "latest"),
                ]);
                for (const pinned of [{ image: "kserve/huggingfaceserver:v0.15.2" }, { runtimeVersion: "v0.15.2" }, {}]) {
                    expect(await check(imagePolicy, [isvc(pinned)])).toEqual([]);
                }
            },
        );

        test.each(["kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v3:Chart", "kubernetes:helm.sh/v4:Chart"])(
            "a %s's values: an image with a moving tag of its own is caught, a pinned one or one the chart's version fixes is not",
            async (type) => {
                const chart = (values: Obj) => resource(type, "models", { chart: "local-ai", version: "3.2.0", values });
                const found = async (values: Obj) => (await check(imagePolicy, [chart(values)])).map((finding) => finding.message);
                expect(
                    await found({
                        deployment: { image: { repository: "quay.io/go-skynet/local-ai", tag: "latest" } },
                        modelServers: { OLlama: { images: { "amd-gpu": "ollama/ollama:rocm", cpu: "ollama/ollama:0.5.7" } } },
                        sidecarImage: "ghcr.io/open-webui/open-webui:main-slim",
                        ollama: { image: { tag: "latest" } },
                        singleuser: { image: { name: "quay.io/jupyter/scipy-notebook", tag: "latest" } },
                    }),
                ).toEqual([
                    image.chartValues("models", "values.deployment.image.tag", "quay.io/go-skynet/local-ai:latest"),
                    image.chartValues("models", "values.modelServers.OLlama.images.amd-gpu", "ollama/ollama:rocm"),
                    image.chartValues("models", "values.sidecarImage", "ghcr.io/open-webui/open-webui:main-slim"),
                    image.chartValues("models", "values.ollama.image.tag", "the chart's own image at tag latest"),
                    image.chartValues("models", "values.singleuser.image.tag", "quay.io/jupyter/scipy-notebook:latest"),
                ]);
                expect(
                    await found({
                        image: { repository: "quay.io/go-skynet/local-ai", tag: "v2.26.0" },
                        other: { repository: "nginx" },
                        // An empty tag is the chart's default.
                        mirror: { repository: "mirror.example.com/dragonflydb/dragonfly", tag: "" },
                        own: { image: { tag: "v0.5.7" } },
                        templated: { image: "{{ .Values.global.registry }}/app:latest" },
                        replicas: 2,
                        // A value not known until the update (a cluster's endpoint) is read around.
                        clusterEndpoint: UNKNOWN,
                    }),
                ).toEqual([]);
            },
        );

        test.each(["ConfigMap", "ConfigMapPatch"])(
            "KServe's inferenceservice-config as a %s: the images it injects are judged; another ConfigMap is not",
            async (kind) => {
                const config = (name: string, data: Obj) =>
                    resource(`kubernetes:core/v1:${kind}`, name, {
                        apiVersion: "v1",
                        kind,
                        metadata: { name, namespace: "kserve" },
                        data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, JSON.stringify(value)])),
                    });
                const data = {
                    storageInitializer: { image: "kserve/storage-initializer:latest", memoryRequest: "100Mi" },
                    agent: { image: "kserve/agent:v0.20.0" },
                    explainers: { art: { image: "kserve/art-explainer", defaultImageVersion: "latest" } },
                };
                expect((await check(imagePolicy, [config("inferenceservice-config", data)])).map((finding) => finding.message)).toEqual([
                    image.kserveConfig("inferenceservice-config", "data.storageInitializer.image", "kserve/storage-initializer:latest"),
                    image.kserveConfig("inferenceservice-config", "data.explainers.art.image", "kserve/art-explainer:latest"),
                ]);
                const pinned = {
                    storageInitializer: { image: "kserve/storage-initializer:v0.20.0" },
                    explainers: { art: { image: "kserve/art-explainer", defaultImageVersion: "v0.20.0" } },
                    ingress: "not json",
                };
                expect(await check(imagePolicy, [config("inferenceservice-config", pinned)])).toEqual([]);
                expect(await check(imagePolicy, [config("app-settings", data)])).toEqual([]);
            },
        );

        const CHART_TYPES = ["kubernetes:helm.sh/v4:Chart", "kubernetes:helm.sh/v3:Chart", "kubernetes:helm.sh/v3:Release"];
        describe.each(CHART_TYPES)("a chart of %s", (type) => {
            const verdict = async (inputs: Obj) =>
                (await check(chartPolicy, [resource(type, "lws", inputs)])).map((finding) => finding.message);
            const REPO = "oci://registry.k8s.io/lws/charts/lws";

            test("caught: no version, empty, partial, wildcards, ranges, an OCI reference tagged latest", async () => {
                for (const version of [
                    undefined,
                    "",
                    "1.2",
                    "1",
                    "1.2.x",
                    "1.X",
                    "*",
                    "x",
                    "^1.2",
                    "~1.2.0",
                    ">=0.7.0",
                    "<1.0.0",
                    ">0.7.0 <0.8.0",
                    "0.7.0 - 0.8.0",
                    "0.7.0 || 0.8.0",
                    "latest",
                ]) {
                    expect(
                        await verdict({
                            chart: "lws",
                            repositoryOpts: { repo: "https://charts.acme" },
                            ...(version !== undefined ? { version } : {}),
                        }),
                    ).toEqual([chart.unpinned("lws", "lws", version)]);
                    expect(await verdict({ chart: REPO, ...(version !== undefined ? { version } : {}) })).toEqual([
                        chart.unpinned("lws", REPO, version),
                    ]);
                }
                expect(await verdict({ chart: `${REPO}:latest` })).toEqual([chart.unpinned("lws", `${REPO}:latest`, undefined)]);
                expect(await verdict({ chart: "oci://registry.acme.internal:5000/charts/lws" })).toEqual([
                    chart.unpinned("lws", "oci://registry.acme.internal:5000/charts/lws", undefined),
                ]);
            });

            test("clean: exact versions (prerelease, build, v or = before it), OCI tags and digests, local and packaged charts", async () => {
                for (const version of ["0.7.0", "v0.7.0", "=0.7.0", "1.0.0-fix.1", "1.0.0-rc.x", "0.7.0+build.5"]) {
                    expect(await verdict({ chart: "lws", version })).toEqual([]);
                    expect(await verdict({ chart: REPO, version })).toEqual([]);
                }
                for (const reference of [
                    `${REPO}:0.7.0`,
                    `${REPO}@${DIGEST}`,
                    "oci://registry.acme.internal:5000/charts/lws:0.7.0",
                    "./charts/lws",
                    "../platform/charts/lws",
                    "/opt/charts/lws",
                    "./lws-0.10.0.tgz",
                    "https://github.com/kubernetes-sigs/lws/releases/download/v0.10.0/lws-0.10.0.tgz",
                ]) {
                    expect(await verdict({ chart: reference })).toEqual([]);
                }
            });
        });

        test("a helm.v3.Chart's version among its fetch options counts", async () => {
            const v3 = (fetchOpts: Obj) => resource("kubernetes:helm.sh/v3:Chart", "lws", { chart: "lws", fetchOpts });
            expect(await check(chartPolicy, [v3({ repo: "https://charts.acme", version: "0.7.0" })])).toEqual([]);
            expect(
                (await check(chartPolicy, [v3({ repo: "https://charts.acme", version: "~0.7" })])).map((finding) => finding.message),
            ).toEqual([chart.unpinned("lws", "lws", "~0.7")]);
        });
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();

    describe("Helm releases", () => {
        test("a Helm release without an exact version is caught, and one pinned by its OCI tag passes", async () => {
            const findings = await verdict(pack(), () => {
                new k8s.helm.v3.Release("floating", { chart: "lws", repositoryOpts: { repo: "https://example.com/charts" } });
                new k8s.helm.v3.Release("range", {
                    chart: "lws",
                    version: "^0.7.0",
                    repositoryOpts: { repo: "https://example.com/charts" },
                });
                new k8s.helm.v3.Release("tagged", { chart: "oci://registry.k8s.io/lws/charts/lws:0.7.0" });
            });
            expect(summary(findings)).toEqual([
                "mandatory require-pinned-chart-versions @floating",
                "mandatory require-pinned-chart-versions @range",
            ]);
        });
    });
});
