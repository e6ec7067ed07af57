/**
 * What a real preview registers that the mocks cannot: the objects inside components the Kubernetes
 * provider constructs. `yaml/v2` ConfigGroups and ConfigFiles are plain YAML, so they are parsed here
 * and each object registered as the provider registers it (pulumi-kubernetes
 * provider/pkg/provider/yaml/v2/yaml.go: type `kubernetes:<apiVersion>:<kind>`, name
 * `<prefix>:<namespace>/<name>` with the component's name as the prefix, the component as parent, the
 * default namespace for namespaced kinds without one). Helm charts cannot be rendered offline: the
 * objects a pinned chart ships verbatim are registered from upstream's own files, and every other chart
 * is reported as not rendered, so that no verdict passes over objects nobody looked at.
 */
import * as fs from "fs";
import * as path from "path";
import { parseAllDocuments } from "yaml";
import { CHARTS } from "@gke-tpu-inference/facts";
import { SHARED_FILES_MISSING, resolveSharedDir } from "../sharedDir";
import { RecordedResource } from "./recorder";

type KubeObject = { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown; namespace?: unknown }; items?: unknown } & Record<
    string,
    unknown
>;

/** Kinds Kubernetes serves cluster-wide: they never get a default namespace. */
const CLUSTER_SCOPED_KINDS = new Set([
    "Namespace",
    "Node",
    "PersistentVolume",
    "ClusterRole",
    "ClusterRoleBinding",
    "CustomResourceDefinition",
    "StorageClass",
    "PriorityClass",
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "APIService",
    "IngressClass",
    "RuntimeClass",
    "CSIDriver",
    "VolumeAttachment",
    "ClusterIssuer",
    "GatewayClass",
]);

/** The namespace the provider uses when neither the object nor the component sets one (no kubeconfig namespace offline). */
const PROVIDER_DEFAULT_NAMESPACE = "default";

/** Components the Kubernetes provider constructs and fills with the objects it renders, each registered as their child. */
export const PROVIDER_RENDERED_TYPES: ReadonlySet<string> = new Set([
    "kubernetes:helm.sh/v4:Chart",
    "kubernetes:yaml/v2:ConfigGroup",
    "kubernetes:yaml/v2:ConfigFile",
]);

/**
 * The Kubernetes SDK's v1 components whose objects the program renders through a provider function the offline preview
 * answers with none (invokes.ts: `kubernetes:helm:template`, `kubernetes:kustomize:directory`).
 */
export const INVOKE_RENDERED_TYPES: ReadonlySet<string> = new Set(["kubernetes:helm.sh/v3:Chart", "kubernetes:kustomize:Directory"]);

/** A chart whose objects the preview could not render. */
export interface UnrenderedChart {
    urn: string;
    type: string;
    name: string;
    /** The chart reference, when the program gave one. */
    chart?: string;
    /** Why its objects are missing. */
    reason: string;
}

/** A chart whose objects upstream ships verbatim (Helm's `.Files.Get` of a file that is not a template), and where to find that file. */
interface VerbatimChart {
    chart: string;
    version: string;
    /** Whether the chart's values turn the verbatim objects on. */
    enabled: (values: Record<string, unknown>) => boolean;
    /** Whether the values also turn on templates, whose objects cannot be rendered offline. */
    rendersTemplates: (values: Record<string, unknown>) => boolean;
    /** Its path in the shared folder (scripts/sharedDir.ts). */
    file: string;
}

/**
 * kserve/kserve v0.20.0 charts/kserve-runtime-configs: templates/llmisvcconfigs/resources.yaml is
 * `{{ .Files.Get "files/llmisvcconfigs/resources.yaml" }}` when `kserve.llmisvcConfigs.enabled`; templates/runtimes
 * renders ClusterServingRuntimes from templates when `kserve.servingruntime.enabled` (values.yaml: both false).
 */
const VERBATIM_CHARTS: readonly VerbatimChart[] = [
    {
        chart: CHARTS.kserveRuntimeConfigs.chart,
        version: CHARTS.kserveRuntimeConfigs.version,
        enabled: (values) => (values.kserve as { llmisvcConfigs?: { enabled?: unknown } } | undefined)?.llmisvcConfigs?.enabled === true,
        rendersTemplates: (values) =>
            (values.kserve as { servingruntime?: { enabled?: unknown } } | undefined)?.servingruntime?.enabled === true,
        file: "reference/kserve-v0.20.0/charts/kserve-runtime-configs.llmisvcconfigs.yaml",
    },
];

/** The objects in YAML text, with `List`s flattened. */
export function parseObjects(text: string): KubeObject[] {
    const objects = parseAllDocuments(text)
        .map((document) => document.toJSON() as KubeObject | null)
        .filter((object): object is KubeObject => object !== null && typeof object === "object");
    return objects.flatMap((object) =>
        typeof object.kind === "string" && object.kind.endsWith("List") && Array.isArray(object.items)
            ? (object.items as KubeObject[])
            : [object],
    );
}

/** The URN a child gets under `parent`: its type qualified by the parent's. */
function childUrn(parent: RecordedResource, type: string, name: string): string {
    const [prefix, project, parentType] = parent.urn.split("::");
    return [prefix, project, `${parentType}$${type}`, name].join("::");
}

/** A kind's API group: `apps` of `apps/v1`, `""` of `v1`. */
function groupOf(apiVersion: string): string {
    return apiVersion.includes("/") ? apiVersion.split("/")[0] : "";
}

/**
 * `objects` registered as children of `component`, as the provider registers them, each depending on the objects of
 * the same set it needs first: its Namespace and the CRD of its kind (cli-utils' dependency graph, which
 * pulumi-kubernetes provider/pkg/provider/yaml/v2/yaml.go `Register` orders and wires dependsOn by).
 */
export function children(component: RecordedResource, objects: KubeObject[], prefix: string, defaultNamespace: string): RecordedResource[] {
    const registered = objects.map((object) => {
        const kind = String(object.kind);
        const metadata = { ...(object.metadata ?? {}) };
        if (!metadata.namespace && !CLUSTER_SCOPED_KINDS.has(kind)) {
            metadata.namespace = defaultNamespace;
        }
        const body: KubeObject = { ...object, metadata };
        const apiVersion = String(object.apiVersion);
        const type = `kubernetes:${apiVersion.includes("/") ? apiVersion : `core/${apiVersion}`}:${kind}`;
        const name = `${prefix}:${metadata.namespace ? `${metadata.namespace}/` : ""}${metadata.name}`;
        return { object: body, kind, group: groupOf(apiVersion), resource: { type, urn: childUrn(component, type, name), name } };
    });
    const namespaces = new Map(
        registered.filter(({ kind }) => kind === "Namespace").map(({ object, resource }) => [object.metadata?.name, resource.urn]),
    );
    const crds = new Map(
        registered
            .filter(({ kind }) => kind === "CustomResourceDefinition")
            .map(({ object, resource }) => {
                const spec = (object.spec ?? {}) as { group?: unknown; names?: { kind?: unknown } };
                return [`${spec.group}/${spec.names?.kind}`, resource.urn];
            }),
    );
    return registered.map(({ object, kind, group, resource }) => ({
        ...resource,
        custom: true,
        parent: component.urn,
        ...(component.provider ? { provider: component.provider } : {}),
        inputs: object,
        wire: { inputs: object, outputs: object },
        dependencies: [namespaces.get(object.metadata?.namespace), crds.get(`${group}/${kind}`)].filter(
            (urn): urn is string => urn !== undefined,
        ),
        options: {},
    }));
}

/** Reads `file` relative to the program, or says why it cannot. */
function readProgramFile(programDir: string, file: string): string | { reason: string } {
    if (/^https?:\/\//.test(file)) {
        return { reason: `${file} is fetched over the network, which the offline preview does not do` };
    }
    try {
        return fs.readFileSync(path.resolve(programDir, file), "utf8");
    } catch (err) {
        return { reason: `${file}: ${(err as Error).message}` };
    }
}

/**
 * Files a glob names, relative to `programDir`, in order: `*` and `?` in any path segment (Go's filepath.Glob, which
 * the provider uses); a pattern without them is the file itself; a directory that does not exist matches nothing.
 */
function expandGlob(programDir: string, pattern: string): string[] {
    if (!/[*?[]/.test(pattern)) {
        return [pattern];
    }
    const matcher = (segment: string) =>
        new RegExp(
            `^${segment
                .replace(/[.+^${}()|\\]/g, "\\$&")
                .replace(/\*/g, "[^/]*")
                .replace(/\?/g, "[^/]")}$`,
        );
    const segments = pattern.split("/");
    let paths = [path.isAbsolute(pattern) ? "/" : ""];
    for (const [index, segment] of segments.entries()) {
        if (segment === "" && index === 0) {
            continue;
        }
        if (!/[*?[]/.test(segment)) {
            paths = paths.map((prefix) => path.join(prefix, segment));
            continue;
        }
        const test = matcher(segment);
        paths = paths.flatMap((prefix) => {
            const directory = path.resolve(programDir, prefix);
            const entries = fs.existsSync(directory) && fs.statSync(directory).isDirectory() ? fs.readdirSync(directory) : [];
            return entries
                .filter((entry) => test.test(entry))
                .sort()
                .map((entry) => path.join(prefix, entry));
        });
    }
    return paths.filter((file) => fs.existsSync(path.resolve(programDir, file)) && fs.statSync(path.resolve(programDir, file)).isFile());
}

/** The result of expanding a run's components. */
export interface Expansion {
    /** The children registered, to append to the run's resources. */
    resources: RecordedResource[];
    unrendered: UnrenderedChart[];
    /** Components whose YAML could not be read (a URL, a missing file): reported like unrendered charts. */
    unread: UnrenderedChart[];
    /** What the user can do to see more, for the run's notes. */
    notes: string[];
}

/** The note when a verbatim chart's upstream file is missing: the command that fetches it. */
const SHARED_FILES_NOTE = `${SHARED_FILES_MISSING}; until then the chart objects they hold are not checked offline`;

/** The default namespace of a component's Kubernetes provider: its `namespace` input, else `default` (no kubeconfig context offline). */
function providerNamespace(component: RecordedResource, byUrn: Map<string, RecordedResource>): string {
    const provider = component.provider ? byUrn.get(component.provider.split("::").slice(0, -1).join("::")) : undefined;
    return typeof provider?.inputs.namespace === "string" ? provider.inputs.namespace : PROVIDER_DEFAULT_NAMESPACE;
}

/** Registers the children of every yaml/v2 component and verbatim chart among `resources`, and names the charts it cannot render. */
export function expandComponents(resources: readonly RecordedResource[], programDir: string): Expansion {
    const out: Expansion = { resources: [], unrendered: [], unread: [], notes: [] };
    const hasChildren = new Set(resources.map((resource) => resource.parent));
    const byUrn = new Map(resources.map((resource) => [resource.urn, resource]));
    for (const component of resources) {
        const inputs = component.inputs as Record<string, unknown>;
        const prefix = typeof inputs.resourcePrefix === "string" ? inputs.resourcePrefix : component.name;
        const describe = (reason: string, chart?: string): UnrenderedChart => ({
            urn: component.urn,
            type: component.type,
            name: component.name,
            ...(chart ? { chart } : {}),
            reason,
        });
        switch (component.type) {
            case "kubernetes:yaml/v2:ConfigGroup":
            case "kubernetes:yaml/v2:ConfigFile": {
                const texts: string[] = [];
                const objects: KubeObject[] = Array.isArray(inputs.objs) ? (inputs.objs as KubeObject[]) : [];
                const yamls = typeof inputs.yaml === "string" ? [inputs.yaml] : Array.isArray(inputs.yaml) ? (inputs.yaml as string[]) : [];
                texts.push(...yamls);
                const files = component.type.endsWith("ConfigFile")
                    ? [String(inputs.file)]
                    : Array.isArray(inputs.files)
                      ? (inputs.files as string[])
                      : [];
                for (const file of files.flatMap((pattern) => expandGlob(programDir, pattern))) {
                    const text = readProgramFile(programDir, file);
                    if (typeof text === "string") {
                        texts.push(text);
                    } else {
                        out.unread.push(describe(text.reason));
                    }
                }
                objects.push(...texts.flatMap(parseObjects));
                out.resources.push(...children(component, objects, prefix, providerNamespace(component, byUrn)));
                break;
            }
            case "kubernetes:helm.sh/v4:Chart": {
                // A chart from an HTTPS repository is named as Helm names it there: the repository's URL, then the chart.
                const repo = (inputs.repositoryOpts as { repo?: unknown } | undefined)?.repo;
                const chart =
                    typeof inputs.chart !== "string"
                        ? undefined
                        : typeof repo === "string"
                          ? `${repo.replace(/\/$/, "")}/${inputs.chart}`
                          : inputs.chart;
                const verbatim = VERBATIM_CHARTS.find((candidate) => candidate.chart === chart && candidate.version === inputs.version);
                const values = (inputs.values as Record<string, unknown> | undefined) ?? {};
                if (!verbatim) {
                    out.unrendered.push(
                        describe("Helm charts are rendered by the Kubernetes provider, which the offline preview does not run", chart),
                    );
                    break;
                }
                if (Array.isArray(inputs.valueYamlFiles) && inputs.valueYamlFiles.length > 0) {
                    out.unrendered.push(
                        describe("its values come partly from valueYamlFiles, which the offline preview does not read", chart),
                    );
                    break;
                }
                if (verbatim.rendersTemplates(values)) {
                    out.unrendered.push(
                        describe(
                            "its values turn on templates, which the Kubernetes provider renders and the offline preview does not",
                            chart,
                        ),
                    );
                }
                if (!verbatim.enabled(values)) {
                    // The chart's values turn its verbatim objects off: nothing of them to register.
                    break;
                }
                const sharedDir = resolveSharedDir();
                const file = sharedDir && path.join(sharedDir, verbatim.file);
                if (!file || !fs.existsSync(file)) {
                    // Named by its place in the shared folder: the report and the tree carry no path of this machine.
                    out.unrendered.push(
                        describe(`its verbatim objects are read from the pinned upstream file ${verbatim.file}, which is missing`, chart),
                    );
                    if (!out.notes.includes(SHARED_FILES_NOTE)) {
                        out.notes.push(SHARED_FILES_NOTE);
                    }
                } else {
                    const namespace = typeof inputs.namespace === "string" ? inputs.namespace : providerNamespace(component, byUrn);
                    out.resources.push(...children(component, parseObjects(fs.readFileSync(file, "utf8")), prefix, namespace));
                }
                break;
            }
            case "kubernetes:helm.sh/v3:Chart":
            case "kubernetes:kustomize/v2:Directory":
            case "kubernetes:kustomize:Directory":
                // The Node SDK registers a v3 chart's objects itself, from a `helm template` the offline preview cannot run.
                if (!hasChildren.has(component.urn)) {
                    out.unrendered.push(
                        describe(
                            `${component.type.includes("kustomize") ? "kustomizations" : "Helm charts"} are rendered by the Kubernetes provider, which the offline preview does not run`,
                        ),
                    );
                }
                break;
            case "kubernetes:helm.sh/v3:Release":
                // The provider installs a release as one resource: its objects are never registered, by any preview.
                out.unrendered.push(
                    describe(
                        "a Helm release is installed as one resource: no preview, pulumi's or this one, shows the pack the objects its chart makes",
                        typeof inputs.chart === "string" ? inputs.chart : undefined,
                    ),
                );
                break;
            default:
                // Any other multi-language component (an EKS cluster, an awsx VPC): its provider constructs its children.
                if (component.remote) {
                    out.unrendered.push(
                        describe(
                            "a multi-language component: its provider constructs its resources, which the offline preview does not run",
                        ),
                    );
                }
        }
    }
    return out;
}
