import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { stringify } from "yaml";
import { CHARTS } from "@gke-tpu-inference/facts";
import { Expansion, expandComponents } from "../../scripts/offline/expand";
import { record } from "../harness";
import { withSharedDir } from "../shared";

/** Records `program` and expands its components from `programDir`; resources are shown as `type name`, with parent and dependencies by name. */
async function expand(program: () => void, programDir = os.tmpdir()) {
    const graph = await record(program);
    const expansion: Expansion = expandComponents(graph.resources, programDir);
    const all = [...graph.resources, ...expansion.resources];
    const nameOf = (urn: string | undefined) => all.find((resource) => resource.urn === urn)?.name;
    return {
        expansion,
        children: expansion.resources.map((resource) => ({
            resource: `${resource.type} ${resource.name}`,
            parent: nameOf(resource.parent),
            namespace: (resource.inputs.metadata as { namespace?: string }).namespace,
            dependencies: resource.dependencies.map(nameOf),
        })),
    };
}

const namespace = { apiVersion: "v1", kind: "Namespace", metadata: { name: "models" } };
const crd = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: { group: "example.com", names: { kind: "Widget", plural: "widgets" }, scope: "Namespaced", versions: [] },
};
const widget = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "models" } };
const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings" }, data: { a: "b" } };
const clusterRole = { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "reader" }, rules: [] };

describe("expanding yaml/v2 config groups and files as the Kubernetes provider registers them", () => {
    test("types, names (the prefix, the namespace), parent, the default namespace for namespaced kinds only, and the Namespace and CRD edges", async () => {
        const { children, expansion } = await expand(
            () =>
                new k8s.yaml.v2.ConfigGroup("group", {
                    objs: [widget, configMap],
                    yaml: stringify({ apiVersion: "v1", kind: "List", items: [namespace, crd, clusterRole] }),
                }),
        );
        expect(children).toEqual([
            {
                resource: "kubernetes:example.com/v1:Widget group:models/w",
                parent: "group",
                namespace: "models",
                dependencies: ["group:models", "group:widgets.example.com"],
            },
            { resource: "kubernetes:core/v1:ConfigMap group:default/settings", parent: "group", namespace: "default", dependencies: [] },
            { resource: "kubernetes:core/v1:Namespace group:models", parent: "group", namespace: undefined, dependencies: [] },
            {
                resource: "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition group:widgets.example.com",
                parent: "group",
                namespace: undefined,
                dependencies: [],
            },
            {
                resource: "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole group:reader",
                parent: "group",
                namespace: undefined,
                dependencies: [],
            },
        ]);
        expect(expansion.unrendered).toEqual([]);
        expect(expansion.unread).toEqual([]);
    });

    test("files and globs relative to the program, a resourcePrefix; a URL or a missing file is named, not skipped", async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "expand-"));
        fs.mkdirSync(path.join(dir, "manifests"));
        fs.writeFileSync(path.join(dir, "one.yaml"), stringify(configMap));
        fs.writeFileSync(path.join(dir, "manifests", "b.yaml"), `${stringify(namespace)}---\n${stringify(widget)}`);
        fs.writeFileSync(path.join(dir, "manifests", "a.yaml"), stringify(clusterRole));
        fs.writeFileSync(path.join(dir, "manifests", "notes.txt"), "not yaml");
        const { children, expansion } = await expand(() => {
            new k8s.yaml.v2.ConfigFile("file", { file: "one.yaml", resourcePrefix: "app" });
            new k8s.yaml.v2.ConfigGroup("glob", { files: ["manifests/*.yaml", "https://example.com/remote.yaml", "missing.yaml"] });
        }, dir);
        // Components are expanded in the order the program's registrations completed; compare as sets.
        expect(children.map((child) => child.resource).sort()).toEqual([
            "kubernetes:core/v1:ConfigMap app:default/settings",
            "kubernetes:core/v1:Namespace glob:models",
            "kubernetes:example.com/v1:Widget glob:models/w",
            "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole glob:reader",
        ]);
        expect(expansion.unread.map((component) => [component.name, component.reason])).toEqual([
            ["glob", "https://example.com/remote.yaml is fetched over the network, which the offline preview does not do"],
            ["glob", `missing.yaml: ENOENT: no such file or directory, open '${path.join(dir, "missing.yaml")}'`],
        ]);
    });

    test("a wildcard in a directory, and a directory that does not exist, as Go's filepath.Glob reads them", async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "expand-"));
        for (const app of ["a", "b"]) {
            fs.mkdirSync(path.join(dir, "apps", app), { recursive: true });
            fs.writeFileSync(path.join(dir, "apps", app, "deployment.yaml"), stringify({ ...configMap, metadata: { name: app } }));
        }
        const { children, expansion } = await expand(
            () => new k8s.yaml.v2.ConfigGroup("apps", { files: ["apps/*/deployment.yaml", "nowhere/*.yaml"] }),
            dir,
        );
        expect(children.map((child) => child.resource)).toEqual([
            "kubernetes:core/v1:ConfigMap apps:default/a",
            "kubernetes:core/v1:ConfigMap apps:default/b",
        ]);
        expect(expansion.unread).toEqual([]);
    });

    test("objects without a namespace take their provider's default namespace", async () => {
        const { children } = await expand(() => {
            const provider = new k8s.Provider("k8s", { kubeconfig: "{}", namespace: "models" });
            new k8s.yaml.v2.ConfigGroup("group", { objs: [configMap, clusterRole] }, { provider });
        });
        expect(children.map((child) => [child.resource, child.namespace])).toEqual([
            ["kubernetes:core/v1:ConfigMap group:models/settings", "models"],
            ["kubernetes:rbac.authorization.k8s.io/v1:ClusterRole group:reader", undefined],
        ]);
    });
});

describe("charts", () => {
    const runtimeConfigs = (enabled: boolean) => () =>
        new k8s.helm.v4.Chart("configs", {
            chart: CHARTS.kserveRuntimeConfigs.chart,
            version: CHARTS.kserveRuntimeConfigs.version,
            namespace: "kserve",
            values: { kserve: { llmisvcConfigs: { enabled } } },
        });

    test("the pinned KServe runtime-configs chart registers its verbatim LLMInferenceServiceConfigs in the release namespace", async () => {
        const { children, expansion } = await expand(runtimeConfigs(true));
        expect(children.map((child) => child.resource)).toEqual(
            [
                "decode-template",
                "decode-worker-data-parallel",
                "prefill-template",
                "prefill-worker-data-parallel",
                "router-route",
                "scheduler",
                "scheduler-latency-predictor",
                "template",
                "tracing",
                "worker-data-parallel",
            ].map((config) => `kubernetes:serving.kserve.io/v1alpha2:LLMInferenceServiceConfig configs:kserve/kserve-config-llm-${config}`),
        );
        expect(new Set(children.map((child) => child.parent))).toEqual(new Set(["configs"]));
        expect(expansion.unrendered).toEqual([]);
    });

    test("with its configs turned off (the chart's default) it renders nothing to judge", async () => {
        const { children, expansion } = await expand(runtimeConfigs(false));
        expect(children).toEqual([]);
        expect(expansion.unrendered).toEqual([]);
    });

    test("without the pinned upstream file it is named as not rendered, with one note giving the command, and no path of this machine", async () => {
        const emptyShared = fs.mkdtempSync(path.join(os.tmpdir(), "shared-"));
        const { children, expansion } = await withSharedDir(emptyShared, () =>
            expand(() => {
                runtimeConfigs(true)();
                new k8s.helm.v4.Chart("more-configs", {
                    chart: CHARTS.kserveRuntimeConfigs.chart,
                    version: CHARTS.kserveRuntimeConfigs.version,
                    values: { kserve: { llmisvcConfigs: { enabled: true } } },
                });
            }),
        );
        expect(children).toEqual([]);
        const missing =
            "its verbatim objects are read from the pinned upstream file reference/kserve-v0.20.0/charts/kserve-runtime-configs.llmisvcconfigs.yaml, which is missing";
        expect(expansion.unrendered.map((chart) => [chart.name, chart.chart, chart.reason]).sort()).toEqual([
            ["configs", CHARTS.kserveRuntimeConfigs.chart, missing],
            ["more-configs", CHARTS.kserveRuntimeConfigs.chart, missing],
        ]);
        expect(expansion.notes).toEqual([
            "the pinned upstream files (CRDs and reference configs) are missing or incomplete (looked in SHARED_DIR, else .shared/, else ../shared, for every file .github/shared-files.tsv lists): run `npm run shared:fetch`, again if one was cut short; until then the chart objects they hold are not checked offline",
        ]);
        // No absolute path anywhere: what the report and the tree show is the same on every machine.
        expect(JSON.stringify(expansion)).not.toMatch(/["\s]\/\w/);
    });

    test("what it cannot see of a verbatim chart is named: values from files, templates its values turn on", async () => {
        const { expansion } = await expand(() => {
            new k8s.helm.v4.Chart("from-files", {
                chart: CHARTS.kserveRuntimeConfigs.chart,
                version: CHARTS.kserveRuntimeConfigs.version,
                valueYamlFiles: [new pulumi.asset.FileAsset("values.yaml")],
            });
            new k8s.helm.v4.Chart("runtimes", {
                chart: CHARTS.kserveRuntimeConfigs.chart,
                version: CHARTS.kserveRuntimeConfigs.version,
                values: { kserve: { servingruntime: { enabled: true } } },
            });
        });
        expect(expansion.unrendered.map((chart) => [chart.name, chart.reason]).sort()).toEqual([
            ["from-files", "its values come partly from valueYamlFiles, which the offline preview does not read"],
            ["runtimes", "its values turn on templates, which the Kubernetes provider renders and the offline preview does not"],
        ]);
    });

    test("every other chart, a v3 chart and a kustomization are named as not rendered", async () => {
        const { children, expansion } = await expand(() => {
            new k8s.helm.v4.Chart("lws", { chart: "oci://registry.k8s.io/lws/charts/lws", version: "0.7.0" });
            new k8s.helm.v4.Chart("other-configs", {
                chart: CHARTS.kserveRuntimeConfigs.chart,
                version: "v0.19.0",
                values: { kserve: { llmisvcConfigs: { enabled: true } } },
            });
            new k8s.helm.v3.Chart("v3", { chart: "nginx", fetchOpts: { repo: "https://example.com/charts" } });
            new k8s.kustomize.v2.Directory("kustomized", { directory: "overlays/prod" });
        });
        expect(children).toEqual([]);
        expect(expansion.unrendered.map((chart) => [chart.type, chart.name, chart.chart ?? null, chart.reason]).sort()).toEqual([
            [
                "kubernetes:helm.sh/v3:Chart",
                "v3",
                null,
                "Helm charts are rendered by the Kubernetes provider, which the offline preview does not run",
            ],
            [
                "kubernetes:helm.sh/v4:Chart",
                "lws",
                "oci://registry.k8s.io/lws/charts/lws",
                "Helm charts are rendered by the Kubernetes provider, which the offline preview does not run",
            ],
            [
                "kubernetes:helm.sh/v4:Chart",
                "other-configs",
                CHARTS.kserveRuntimeConfigs.chart,
                "Helm charts are rendered by the Kubernetes provider, which the offline preview does not run",
            ],
            [
                "kubernetes:kustomize/v2:Directory",
                "kustomized",
                null,
                "kustomizations are rendered by the Kubernetes provider, which the offline preview does not run",
            ],
        ]);
    });
});
