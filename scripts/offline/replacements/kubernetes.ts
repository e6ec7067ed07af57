/** The Kubernetes objects' and the Kubernetes provider's replacement rules, as pulumi-kubernetes diffs them (the pin: index.ts). */
import { parse } from "yaml";
import { UNKNOWN_VALUE } from "../recorder";
import { Inputs, ReplaceRule, lineOf, when } from "./rules";

const K8S_DIFF = lineOf("pulumi/pulumi-kubernetes@94977969d6:provider/pkg/provider/diff.go");
const K8S_PROVIDER = lineOf("pulumi/pulumi-kubernetes@94977969d6:provider/pkg/provider/provider.go");

/** A change of a Kubernetes field, in the patch sense (see ReplaceOn). */
const immutable = (path: string, source: string): ReplaceRule => ({ path, on: "patch", source });

/**
 * Identity, for every Kubernetes object (provider.go:1560, diff.go:207-212). A namespaced kind's unset namespace is
 * `default` (provider.go:1511-1514); a cluster-scoped kind has none to change.
 */
export const KUBERNETES_IDENTITY: ReplaceRule[] = [
    immutable("metadata.name", K8S_DIFF(209)),
    when("metadata.namespace", (before, after) => (before ?? "default") !== (after ?? "default"), K8S_DIFF(210)),
];

/** `.spec.selector`, under which lie the label selector's own paths the provider lists too (diff.go:243-251). */
const selector = (source: string) => immutable("spec.selector", source);

/**
 * A Secret's or ConfigMap's data: replaced on a change unless its provider sets `flag` and the object is not marked
 * `immutable` (provider.go:696-726: the flag lets the provider update it in place).
 */
const dataUnlessMutable = (path: string, flag: string, source: string): ReplaceRule =>
    when(
        path,
        (before, after, { after: inputs, provider }) =>
            // The SDK sends the provider's switches as JSON text ("true"), as it does all its inputs (@pulumi/kubernetes provider.js).
            JSON.stringify(before) !== JSON.stringify(after) && !(String(provider?.[flag]) === "true" && inputs?.immutable !== true),
        `${source}; ${K8S_PROVIDER(696)}`,
    );

/** The containers' fields a Pod replaces on (diff.go:214-241), `env.value` lying under `env`. */
const CONTAINER_FIELDS = [
    "args",
    "command",
    "env",
    "image",
    "imagePullPolicy",
    "lifecycle",
    "livenessProbe",
    "ports",
    "readinessProbe",
    "resources",
    "securityContext",
    "stdin",
    "stdinOnce",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "tty",
    "volumeDevices",
    "volumeMounts",
    "workingDir",
];

/** The provider's table of kinds that replace on more than their identity (diff.go:45-205), as `group/version:Kind`. */
const KUBERNETES_KINDS: Array<{ group: string; versions: string[]; kinds: string[]; rules: ReplaceRule[] }> = [
    {
        group: "apps",
        versions: ["v1beta1", "v1beta2", "v1"],
        kinds: ["StatefulSet"],
        rules: [
            ...["spec.podManagementPolicy", "spec.revisionHistoryLimit", "spec.serviceName", "spec.volumeClaimTemplates"].map((path) =>
                immutable(path, K8S_DIFF(196)),
            ),
            selector(K8S_DIFF(196)),
        ],
    },
    { group: "apps", versions: ["v1beta2", "v1"], kinds: ["DaemonSet"], rules: [selector(K8S_DIFF(164))] },
    { group: "apps", versions: ["v1beta2", "v1"], kinds: ["Deployment"], rules: [selector(K8S_DIFF(171))] },
    {
        group: "batch",
        versions: ["v1beta1", "v1", "v2alpha1"],
        kinds: ["Job"],
        rules: ["spec.completions", "spec.parallelism", "spec.selector", "spec.template"].map((path) => immutable(path, K8S_DIFF(178))),
    },
    {
        group: "core",
        versions: ["v1"],
        kinds: ["PersistentVolume"],
        rules: [
            "awsElasticBlockStore",
            "azureDisk",
            "azureFile",
            "cephfs",
            "cinder",
            "csi",
            "fc",
            "flexVolume",
            "flocker",
            "gcePersistentDisk",
            "glusterfs",
            "hostPath",
            "iscsi",
            "local",
            "nfs",
            "photonPersistentDisk",
            "portworxVolume",
            "quobyte",
            "rbd",
            "scaleIO",
            "storageos",
            "vsphereVolume",
        ].map((source) => immutable(`spec.${source}`, K8S_DIFF(87))),
    },
    {
        group: "core",
        versions: ["v1"],
        kinds: ["PersistentVolumeClaim"],
        rules: ["spec.accessModes", "spec.selector", "spec.storageClassName", "spec.volumeName"].map((path) =>
            immutable(path, K8S_DIFF(111)),
        ),
    },
    {
        group: "core",
        versions: ["v1"],
        kinds: ["Pod"],
        rules: [
            ...[
                "affinity",
                "automountServiceAccountToken",
                "dnsConfig",
                "dnsPolicy",
                "enableServiceLinks",
                "hostAliases",
                "hostIPC",
                "hostNetwork",
                "hostPID",
                "hostname",
                "imagePullSecrets",
                "nodeName",
                "nodeSelector",
                "overhead",
                "preemptionPolicy",
                "priority",
                "priorityClassName",
                "readinessGates",
                "restartPolicy",
                "runtimeClassName",
                "schedulerName",
                "securityContext",
                "serviceAccount",
                "serviceAccountName",
                "shareProcessNamespace",
                "subdomain",
                "terminationGracePeriodSeconds",
                "volumes",
            ].map((path) => immutable(`spec.${path}`, K8S_DIFF(119))),
            ...["containers", "initContainers"].flatMap((list) =>
                CONTAINER_FIELDS.map((path) => immutable(`spec.${list}[].${path}`, K8S_DIFF(214))),
            ),
        ],
    },
    { group: "core", versions: ["v1"], kinds: ["ResourceQuota"], rules: [immutable("spec.scopes", K8S_DIFF(152))] },
    // With enableSecretMutable unset (provider.go:712-726), a Secret replaces on its data too (diff.go:28-29).
    {
        group: "core",
        versions: ["v1"],
        kinds: ["Secret"],
        rules: [
            immutable("type", K8S_DIFF(29)),
            ...["stringData", "data"].map((path) => dataUnlessMutable(path, "enableSecretMutable", K8S_DIFF(29))),
        ],
    },
    // With enableConfigMapMutable unset (provider.go:696-710), a ConfigMap replaces on its data (diff.go:32-33).
    {
        group: "core",
        versions: ["v1"],
        kinds: ["ConfigMap"],
        rules: ["binaryData", "data"].map((path) => dataUnlessMutable(path, "enableConfigMapMutable", K8S_DIFF(33))),
    },
    { group: "core", versions: ["v1"], kinds: ["Service"], rules: [immutable("spec.clusterIP", K8S_DIFF(159))] },
    // policy/v1's PodDisruptionBudget is not in the table: only its identity replaces.
    { group: "policy", versions: ["v1beta1"], kinds: ["PodDisruptionBudget"], rules: [immutable("spec", K8S_DIFF(189))] },
    {
        group: "rbac.authorization.k8s.io",
        versions: ["v1alpha1", "v1beta1", "v1"],
        kinds: ["ClusterRoleBinding", "RoleBinding"],
        rules: [immutable("roleRef", K8S_DIFF(193))],
    },
    {
        group: "storage.k8s.io",
        versions: ["v1"],
        kinds: ["StorageClass"],
        rules: ["parameters", "provisioner"].map((path) => immutable(path, K8S_DIFF(73))),
    },
];

export const KUBERNETES: Record<string, ReplaceRule[]> = Object.fromEntries(
    KUBERNETES_KINDS.flatMap(({ group, versions, kinds, rules }) =>
        versions.flatMap((version) => kinds.map((kind) => [`kubernetes:${group}/${version}:${kind}`, [...KUBERNETES_IDENTITY, ...rules]])),
    ),
);

/** The cluster a kubeconfig's current context (or the `context` and `cluster` inputs) points at, as `getActiveClusterFromConfig`. */
function activeCluster(inputs: Inputs): unknown {
    let config: unknown;
    try {
        config = typeof inputs?.kubeconfig === "string" ? parse(inputs.kubeconfig) : inputs?.kubeconfig;
    } catch {
        return undefined;
    }
    const named = (list: unknown, name: unknown) =>
        Array.isArray(list)
            ? (list.find((entry: { name?: unknown }) => entry?.name === name) as Record<string, unknown> | undefined)
            : undefined;
    const kubeconfig = (config ?? {}) as Record<string, unknown>;
    const context = named(kubeconfig.contexts, inputs?.context ?? kubeconfig["current-context"])?.context as
        { cluster?: unknown } | undefined;
    return context && named(kubeconfig.clusters, inputs?.cluster ?? context.cluster)?.cluster;
}

/**
 * The Kubernetes provider's DiffConfig (provider.go:454-569): it replaces when `clusterIdentifier` changes, and never
 * while it stays set and the same; otherwise when the kubeconfig, context or cluster is unknown (L504-516), the active
 * cluster changes (L539-560, util.go:201-226), or the render directory changes (L533-535).
 */
export function kubernetesProvider(): ReplaceRule[] {
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    const pinned = ({ before, after }: { before: Inputs; after: Inputs }) =>
        after?.clusterIdentifier !== undefined && same(before?.clusterIdentifier, after.clusterIdentifier);
    const cluster = (path: string) =>
        when(
            path,
            (before, after, inputs) => {
                if (pinned(inputs)) {
                    return false;
                }
                if (after === UNKNOWN_VALUE) {
                    return true;
                }
                const [old, next] = [activeCluster(inputs.before), activeCluster(inputs.after)];
                return !same(before, after) && old !== undefined && next !== undefined && !same(old, next);
            },
            `${K8S_PROVIDER(506)}, 553`,
        );
    return [
        when(
            "clusterIdentifier",
            (before, after) => before !== undefined && after !== undefined && !same(before, after),
            K8S_PROVIDER(490),
        ),
        cluster("kubeconfig"),
        cluster("context"),
        cluster("cluster"),
        when("renderYamlToDirectory", (before, after, inputs) => !pinned(inputs) && !same(before, after), K8S_PROVIDER(535)),
    ];
}
