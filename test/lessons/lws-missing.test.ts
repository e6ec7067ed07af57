/**
 * Lesson lws-missing, the whole category: however a stack installs LeaderWorkerSet and KServe (a Helm v3 or v4 chart, a
 * Helm release, a v1 or v2 ConfigFile or ConfigGroup, a v1 or v2 kustomize Directory), a model service that waits for
 * the installation is left alone and one that does not is caught.
 *
 * Resources are shaped as a real preview registers them. A multi-language component the provider constructs (Helm v4
 * Chart, yaml/v2, kustomize/v2) reaches the pack without inputs, its rendered objects registered as its children, and
 * `dependsOn` on it records the component itself. A component of the Node SDK (Helm v3 Chart, v1 ConfigFile and
 * ConfigGroup, v1 kustomize Directory) registers its objects as its children too, but `dependsOn` on it records the
 * objects registered under it by then, never the component (@pulumi/pulumi runtime/dependsOn.ts). A Helm v3 Release is
 * one resource with its chart in its inputs and renders no children. The mocks of a unit test register none of the
 * rendered objects: a v4 Chart there is recognised by the chart its inputs name.
 */
import * as k8s from "@pulumi/kubernetes";
import { notWaitingMessage, requireLwsAndKServeBeforeModelServices as policy } from "../../policies/requireLwsAndKServeBeforeModelServices";
import { RecordedResource } from "../../scripts/offline/recorder";
import { llmService, vllmContainer } from "../support/fixtures";
import { check, kube, resource } from "../support/harness";
import { Obj, meta, tpuPod, vllm } from "../support/lessonObjects";
import { summary, verdict } from "../support/pack";
import { useWorkerPack } from "../workerPack";

describe("the rule", () => {
    const lws = resource("kubernetes:helm.sh/v4:Chart", "lws", { chart: "oci://registry.k8s.io/lws/charts/lws", version: "0.10.0" });
    const kserve = resource("kubernetes:helm.sh/v4:Chart", "kserve", {
        chart: "oci://ghcr.io/kserve/charts/kserve-llmisvc-resources",
        version: "v0.20.0",
    });
    const configs = resource(
        "kubernetes:helm.sh/v4:Chart",
        "configs",
        { chart: "oci://ghcr.io/kserve/charts/kserve-runtime-configs", version: "v0.20.0" },
        { dependencies: [kserve] },
    );

    describe("require-lws-and-kserve-before-model-services", () => {
        test("passes a service that waits for both, directly or through KServe's configs", async () => {
            expect(await check(policy, [lws, kserve, configs, llmService(vllmContainer(), { dependencies: [lws, configs] })])).toEqual([]);
        });

        test("fails a service that waits for neither", async () => {
            expect(await check(policy, [lws, kserve, llmService()])).toEqual([
                {
                    level: "mandatory",
                    resource: "qwen",
                    message:
                        "LLMInferenceService qwen does not depend on the LeaderWorkerSet and KServe installations of this stack, so it can be created before their CRDs and controllers exist.",
                },
            ]);
        });

        test("fails a service that waits for KServe only", async () => {
            expect(
                (await check(policy, [lws, kserve, llmService(vllmContainer(), { dependencies: [kserve] })])).map(
                    (violation) => violation.message,
                ),
            ).toEqual([
                "LLMInferenceService qwen does not depend on the LeaderWorkerSet installation of this stack, so it can be created before their CRDs and controllers exist.",
            ]);
        });

        test("not applicable: KServe and LWS installed outside the stack", async () => {
            expect(await check(policy, [llmService()])).toEqual([]);
        });
    });
});

describe("every spelling", () => {
    /** What each installation renders: its CRD and its controller's Deployment. */
    const RENDERS = {
        LeaderWorkerSet: {
            crd: "leaderworkersets.leaderworkerset.x-k8s.io",
            controller: "lws-controller-manager",
            namespace: "lws-system",
        },
        KServe: { crd: "llminferenceservices.serving.kserve.io", controller: "llmisvc-controller-manager", namespace: "kserve" },
    };
    type Label = keyof typeof RENDERS;

    /** Components the Kubernetes provider constructs: `dependsOn` records the component. */
    const REMOTE_COMPONENTS = [
        "kubernetes:helm.sh/v4:Chart",
        "kubernetes:yaml/v2:ConfigFile",
        "kubernetes:yaml/v2:ConfigGroup",
        "kubernetes:kustomize/v2:Directory",
    ];
    /** Components of the Node SDK: `dependsOn` records their registered objects. */
    const LOCAL_COMPONENTS = [
        "kubernetes:helm.sh/v3:Chart",
        "kubernetes:yaml:ConfigFile",
        "kubernetes:yaml:ConfigGroup",
        "kubernetes:kustomize:Directory",
    ];

    /** An installation as a preview registers it: the resources, and what a service's `dependsOn` on it records. */
    interface Installed {
        resources: RecordedResource[];
        waitedFor: RecordedResource[];
    }

    /** `label` installed by a component of `type`, its rendered objects its children. */
    function component(type: string, label: Label): Installed {
        const what = RENDERS[label];
        const name = label.toLowerCase();
        const parent = resource(type, name, {});
        const crd = kube(
            "apiextensions.k8s.io/v1",
            "CustomResourceDefinition",
            `${name}:${what.crd}`,
            { metadata: { name: what.crd } },
            { parent },
        );
        const controller = kube(
            "apps/v1",
            "Deployment",
            `${name}:${what.namespace}/${what.controller}`,
            { metadata: { name: what.controller, namespace: what.namespace } },
            { parent },
        );
        const account = kube("v1", "ServiceAccount", `${name}:${what.namespace}/${what.controller}`, {
            metadata: { name: what.controller, namespace: what.namespace },
        });
        const children = [crd, controller, { ...account, parent: parent.urn }];
        return { resources: [parent, ...children], waitedFor: REMOTE_COMPONENTS.includes(type) ? [parent] : children };
    }

    /** `label` installed by a Helm v3 Release of `chart`. */
    function release(chart: string, label: Label): Installed {
        const installed = resource("kubernetes:helm.sh/v3:Release", label.toLowerCase(), { chart, version: "0.10.0" });
        return { resources: [installed], waitedFor: [installed] };
    }

    /** The chart each installs, as a Helm release or chart reference names it. */
    const CHARTS: Record<Label, string[]> = {
        LeaderWorkerSet: [
            "lws",
            "oci://registry.k8s.io/lws/charts/lws",
            "oci://registry.k8s.io/lws/charts/lws:0.10.0",
            "./charts/lws-0.10.0.tgz",
        ],
        KServe: [
            "kserve-llmisvc-resources",
            "oci://ghcr.io/kserve/charts/kserve-llmisvc-resources",
            "https://github.com/kserve/kserve/releases/download/v0.20.0/kserve-llmisvc-resources-v0.20.0.tgz",
        ],
    };

    /** The model service, waiting for `waitsFor`. */
    const service = (waitsFor: RecordedResource[]) => llmService(vllmContainer(), { dependencies: waitsFor });

    const verdict = async (resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);

    describe("lesson lws-missing: every way a stack installs LeaderWorkerSet and KServe", () => {
        describe.each([...REMOTE_COMPONENTS, ...LOCAL_COMPONENTS])("%s (its rendered objects its children)", (type) => {
            const lws = component(type, "LeaderWorkerSet");
            const kserve = component(type, "KServe");
            const installs = [...lws.resources, ...kserve.resources];

            test("a service waiting for both is clean; waiting for one or neither is caught", async () => {
                expect(await verdict([...installs, service([...lws.waitedFor, ...kserve.waitedFor])])).toEqual([]);
                expect(await verdict([...installs, service(kserve.waitedFor)])).toEqual([notWaitingMessage("qwen", ["LeaderWorkerSet"])]);
                expect(await verdict([...installs, service(lws.waitedFor)])).toEqual([notWaitingMessage("qwen", ["KServe"])]);
                // A v1 component's objects registered after the service: dependsOn recorded nothing, and nothing waits.
                expect(await verdict([...installs, service([])])).toEqual([notWaitingMessage("qwen", ["LeaderWorkerSet", "KServe"])]);
            });

            test("waiting through something that waits for the installation is waiting", async () => {
                const configs = resource(
                    "kubernetes:helm.sh/v4:Chart",
                    "configs",
                    {},
                    { dependencies: [...lws.waitedFor, ...kserve.waitedFor] },
                );
                expect(await verdict([...installs, configs, service([configs])])).toEqual([]);
            });

            test("one installation of the pair in the stack: only it is required", async () => {
                expect(await verdict([...lws.resources, service(lws.waitedFor)])).toEqual([]);
                expect(await verdict([...lws.resources, service([])])).toEqual([notWaitingMessage("qwen", ["LeaderWorkerSet"])]);
            });
        });

        describe("kubernetes:helm.sh/v3:Release (its chart in its inputs, no children)", () => {
            test.each(CHARTS.LeaderWorkerSet.map((lwsChart, index) => [lwsChart, CHARTS.KServe[index % CHARTS.KServe.length]]))(
                "charts %s and %s: waiting is clean, not waiting caught",
                async (lwsChart, kserveChart) => {
                    const lws = release(lwsChart, "LeaderWorkerSet");
                    const kserve = release(kserveChart, "KServe");
                    const installs = [...lws.resources, ...kserve.resources];
                    expect(await verdict([...installs, service([...lws.waitedFor, ...kserve.waitedFor])])).toEqual([]);
                    expect(await verdict([...installs, service(kserve.waitedFor)])).toEqual([
                        notWaitingMessage("qwen", ["LeaderWorkerSet"]),
                    ]);
                    expect(await verdict([...installs, service([])])).toEqual([notWaitingMessage("qwen", ["LeaderWorkerSet", "KServe"])]);
                },
            );
        });

        test("mixed spellings: LeaderWorkerSet's manifests by a yaml/v2 ConfigFile, KServe by a Helm release", async () => {
            const lws = component("kubernetes:yaml/v2:ConfigFile", "LeaderWorkerSet");
            const kserve = release("oci://ghcr.io/kserve/charts/kserve-llmisvc-resources", "KServe");
            const installs = [...lws.resources, ...kserve.resources];
            expect(await verdict([...installs, service([...lws.waitedFor, ...kserve.waitedFor])])).toEqual([]);
            expect(await verdict([...installs, service(lws.waitedFor)])).toEqual([notWaitingMessage("qwen", ["KServe"])]);
        });

        test.each(["kubernetes:yaml:ConfigFile", "kubernetes:yaml/v2:ConfigFile", "kubernetes:yaml:ConfigGroup"])(
            "LeaderWorkerSet from its release manifest URL by a %s whose objects were not rendered: waiting for KServe alone is caught",
            async (type) => {
                const url = "https://github.com/kubernetes-sigs/lws/releases/download/v0.10.0/manifests.yaml";
                const lws = resource(type, "lws", type.endsWith("ConfigGroup") ? { files: [url] } : { file: url });
                const kserve = release("oci://ghcr.io/kserve/charts/kserve-llmisvc-resources", "KServe");
                expect(await verdict([lws, ...kserve.resources, service(kserve.waitedFor)])).toEqual([
                    notWaitingMessage("qwen", ["LeaderWorkerSet"]),
                ]);
                expect(await verdict([lws, ...kserve.resources, service([lws, ...kserve.waitedFor])])).toEqual([]);
                // Another project's manifests are not LeaderWorkerSet's.
                const other = resource(type, "sandbox", {
                    file: "https://github.com/kubernetes-sigs/agent-sandbox/releases/download/v0.1.1/manifest.yaml",
                });
                expect(await verdict([other, ...kserve.resources, service(kserve.waitedFor)])).toEqual([]);
            },
        );

        test("the mocks' Helm v4 Chart (inputs, no children) is recognised by its chart", async () => {
            const lws = resource("kubernetes:helm.sh/v4:Chart", "lws", {
                chart: "oci://registry.k8s.io/lws/charts/lws",
                version: "0.10.0",
            });
            const kserve = resource("kubernetes:helm.sh/v4:Chart", "kserve", {
                chart: "oci://ghcr.io/kserve/charts/kserve-llmisvc-resources",
            });
            expect(await verdict([lws, kserve, service([lws, kserve])])).toEqual([]);
            expect(await verdict([lws, kserve, service([kserve])])).toEqual([notWaitingMessage("qwen", ["LeaderWorkerSet"])]);
        });

        test("not this lesson's: installations outside the stack, and other charts", async () => {
            expect(await verdict([service([])])).toEqual([]);
            const other = resource("kubernetes:helm.sh/v3:Release", "cert-manager", { chart: "cert-manager", version: "v1.19.1" });
            expect(await verdict([other, service([])])).toEqual([]);
        });
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();

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
                    new k8s.helm.v3.Release("lws", {
                        chart: "lws",
                        version: "0.7.0",
                        repositoryOpts: { repo: "https://example.com/charts" },
                    }),
                    new k8s.helm.v3.Release("kserve", {
                        chart: "oci://ghcr.io/kserve/charts/kserve-llmisvc-resources",
                        version: "v0.20.0",
                    }),
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
    });
});
