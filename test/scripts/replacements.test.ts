/**
 * The replace-on catalog (scripts/offline/replacements.ts) as the diff applies it: a case per resource type the shipped
 * stacks (and the guarded program, for the types only its options emit) register, both ways where the type has an input
 * it updates in place; each kind of rule on its own; the provider replacing what it manages; and the catalog checked
 * against the pinned SDKs' own input types.
 */
import * as fs from "fs";
import * as path from "path";
import { readBaseReport } from "../../scripts/offline/baseReport";
import { ResourceChange, diffReports } from "../../scripts/offline/diff";
import { UNKNOWN_VALUE } from "../../scripts/offline/recorder";
import { renderChanges } from "../../scripts/offline/renderDiff";
import { CATALOGUED_TYPES, replaceRules } from "../../scripts/offline/replacements/catalog";
import { PreviewReport, ReportStep, buildReport, displayType } from "../../scripts/offline/report";
import { sharedProgram, shippedRun } from "../shippedStacks";

const ROOT = path.resolve(__dirname, "..", "..");
/** Every stack that ships, as `Pulumi.<stack>.yaml`. */
const STACKS = fs
    .readdirSync(ROOT)
    .flatMap((file) => /^Pulumi\.(.+)\.yaml$/.exec(file)?.[1] ?? [])
    .sort();

type Inputs = Record<string, unknown>;

/** An edit of a resource's inputs: `value` at the dotted `at` (removed when undefined). */
function set(at: string, value: unknown): (inputs: Inputs) => void {
    return (inputs) => {
        const keys = at.split(".");
        const parent = keys.slice(0, -1).reduce<Inputs>((object, key) => {
            object[key] ??= {};
            return object[key] as Inputs;
        }, inputs);
        if (value === undefined) {
            delete parent[keys[keys.length - 1]];
        } else {
            parent[keys[keys.length - 1]] = value;
        }
    };
}

/** Several edits at once. */
const all =
    (...edits: Array<(inputs: Inputs) => void>) =>
    (inputs: Inputs) =>
        edits.forEach((edit) => edit(inputs));

/** A report of `steps` alone. */
function reportOf(steps: ReportStep[]): PreviewReport {
    return {
        project: "p",
        stack: "s",
        config: {},
        steps,
        invokes: [],
        outputs: {},
        summary: { create: steps.length },
        unrenderedCharts: [],
        policyViolations: [],
    };
}

/** The diff between `steps` and the same steps with `edit` applied to the one at `urn`. */
function diffOf(steps: ReportStep[], urn: string, edit: (inputs: Inputs) => void) {
    const head = structuredClone(steps);
    edit(head.find((step) => step.urn === urn)!.newState.inputs);
    return diffReports(readBaseReport(reportOf(steps)), reportOf(head));
}

/** What the diff makes of `edit` on `step` alone: the change (as the JSON has it) and its line in the terminal. */
function changeOf(step: ReportStep, edit: (inputs: Inputs) => void): { change: ResourceChange; line: string } {
    const diff = diffOf([step], step.urn, edit);
    expect(diff.resources).toHaveLength(1);
    return { change: diff.resources[0], line: renderChanges(diff).split("\n")[1] };
}

/** A step as an offline report has it, made up for a rule's own test. */
function stepOf(type: string, inputs: Inputs): ReportStep {
    const urn = `urn:pulumi:s::p::${type}::r`;
    return { op: "create", urn, newState: { type, urn, custom: true, inputs, dependencies: [] } };
}

/** The names a change's line gives: the inputs forcing a replacement, or the paths an update changes. */
function named(step: ReportStep, edit: (inputs: Inputs) => void): [string, string[]] {
    const { change } = changeOf(step, edit);
    return [change.op, change.replaceReasons ?? change.properties.map((property) => property.path)];
}

/** The first resource of each type the shipped stacks register, and of each type only the guarded program does. */
let instances: Map<string, ReportStep>;
beforeAll(async () => {
    // One at a time: a run holds the Pulumi runtime's global state.
    const runs = [];
    // The fleet last: its types are the fleet's own (GKE Hub, the exported pool); for the rest, a single cluster's names.
    for (const stack of [...STACKS].sort((a, b) => Number(a === "fleet") - Number(b === "fleet"))) {
        runs.push(await shippedRun(stack));
    }
    const guarded = buildReport({ ...runs[0], resources: (await sharedProgram("gkeGuarded")).resources }, []);
    instances = new Map();
    for (const step of [...runs.flatMap((run) => buildReport(run, []).steps), ...guarded.steps]) {
        if (!instances.has(step.newState.type)) {
            instances.set(step.newState.type, step);
        }
    }
});

const OTHER_NETWORK = "projects/offline-preview-project/global/networks/other";
const LABELS = set("metadata.labels", { team: "ml" });

/** Each type's cases: an edit, and the marker and names its line shows. */
const CASES: Array<[type: string, edit: (inputs: Inputs) => void, line: string]> = [
    ["gcp:artifactregistry/repository:Repository", set("format", "NPM"), "+- replace  tpu-inference-images  inputs.format"],
    [
        "gcp:artifactregistry/repository:Repository",
        set("remoteRepositoryConfig.dockerRepository.publicRepository", undefined),
        "+- replace  tpu-inference-images  inputs.remoteRepositoryConfig.dockerRepository.publicRepository",
    ],
    ["gcp:artifactregistry/repository:Repository", set("description", "images"), "~ update  tpu-inference-images  inputs.description"],
    [
        "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember",
        set("role", "roles/artifactregistry.writer"),
        "+- replace  tpu-inference-images-reader  inputs.role",
    ],
    [
        "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember",
        set("condition", { expression: "true", title: "always" }),
        "+- replace  tpu-inference-images-reader  inputs.condition",
    ],
    ["gcp:compute/address:Address", set("addressType", "INTERNAL"), "+- replace  inference-address  inputs.addressType"],
    ["gcp:compute/address:Address", set("labels", { team: "ml" }), "~ update  inference-address  inputs.labels"],
    ["gcp:compute/firewall:Firewall", set("direction", "EGRESS"), "+- replace  tpu-inference-webhooks  inputs.direction"],
    // A firewall moves to another network in place.
    ["gcp:compute/firewall:Firewall", set("network", OTHER_NETWORK), "~ update  tpu-inference-webhooks  inputs.network"],
    ["gcp:compute/network:Network", set("autoCreateSubnetworks", true), "+- replace  tpu-inference-vpc  inputs.autoCreateSubnetworks"],
    ["gcp:compute/network:Network", set("routingMode", "GLOBAL"), "~ update  tpu-inference-vpc  inputs.routingMode"],
    [
        "gcp:compute/regionSecurityPolicy:RegionSecurityPolicy",
        set("type", "CLOUD_ARMOR_NETWORK"),
        "+- replace  gateway-access-policy  inputs.type",
    ],
    [
        "gcp:compute/regionSecurityPolicy:RegionSecurityPolicy",
        set("description", "d"),
        "~ update  gateway-access-policy  inputs.description",
    ],
    ["gcp:compute/router:Router", set("network", OTHER_NETWORK), "+- replace  tpu-inference-router  inputs.network"],
    ["gcp:compute/router:Router", set("description", "d"), "~ update  tpu-inference-router  inputs.description"],
    ["gcp:compute/routerNat:RouterNat", set("router", "other"), "+- replace  tpu-inference-nat  inputs.router"],
    ["gcp:compute/routerNat:RouterNat", set("logConfig.filter", "ALL"), "~ update  tpu-inference-nat  inputs.logConfig.filter"],
    // 10.0.0.0/20 shrunk or moved is a new subnetwork; grown, the same one.
    ["gcp:compute/subnetwork:Subnetwork", set("ipCidrRange", "10.0.0.0/21"), "+- replace  tpu-inference-node-subnet  inputs.ipCidrRange"],
    ["gcp:compute/subnetwork:Subnetwork", set("ipCidrRange", "10.1.0.0/20"), "+- replace  tpu-inference-node-subnet  inputs.ipCidrRange"],
    ["gcp:compute/subnetwork:Subnetwork", set("ipCidrRange", "10.0.0.0/19"), "~ update  tpu-inference-node-subnet  inputs.ipCidrRange"],
    [
        "gcp:container/cluster:Cluster",
        set("ipAllocationPolicy.clusterSecondaryRangeName", "pods-2"),
        "+- replace  tpu-inference-cluster  inputs.ipAllocationPolicy.clusterSecondaryRangeName",
    ],
    [
        "gcp:container/cluster:Cluster",
        set("privateClusterConfig.masterIpv4CidrBlock", "172.16.0.16/28"),
        "+- replace  tpu-inference-cluster  inputs.privateClusterConfig.masterIpv4CidrBlock",
    ],
    [
        "gcp:container/cluster:Cluster",
        set("releaseChannel.channel", "RAPID"),
        "~ update  tpu-inference-cluster  inputs.releaseChannel.channel",
    ],
    ["gcp:container/nodePool:NodePool", set("nodeConfig.spot", true), "+- replace  tpu-inference-system  inputs.nodeConfig.spot"],
    // GKE changes a pool's machine type in place.
    [
        "gcp:container/nodePool:NodePool",
        set("nodeConfig.machineType", "e2-standard-8"),
        "~ update  tpu-inference-system  inputs.nodeConfig.machineType",
    ],
    [
        "gcp:monitoring/alertPolicy:AlertPolicy",
        set("project", "other-project"),
        "+- replace  tpu-inference-qwen2-3b-pc-zero-prefix-hits  inputs.project",
    ],
    [
        "gcp:monitoring/alertPolicy:AlertPolicy",
        set("displayName", "d"),
        "~ update  tpu-inference-qwen2-3b-pc-zero-prefix-hits  inputs.displayName",
    ],
    ["gcp:monitoring/dashboard:Dashboard", set("project", "other-project"), "+- replace  tpu-inference-dashboard  inputs.project"],
    ["gcp:monitoring/dashboard:Dashboard", set("dashboardJson", "{}"), "~ update  tpu-inference-dashboard  inputs.dashboardJson"],
    [
        "gcp:projects/iAMMember:IAMMember",
        set("member", "serviceAccount:other@offline-preview-project.iam.gserviceaccount.com"),
        "+- replace  tpu-inference-nodes-container-defaultnodeserviceaccount  inputs.member",
    ],
    [
        "gcp:projects/iAMMember:IAMMember",
        set("project", "other-project"),
        "+- replace  tpu-inference-nodes-container-defaultnodeserviceaccount  inputs.project",
    ],
    ["gcp:projects/service:Service", set("service", "dns.googleapis.com"), "+- replace  tpu-inference-artifactregistry  inputs.service"],
    ["gcp:projects/service:Service", set("disableOnDestroy", true), "~ update  tpu-inference-artifactregistry  inputs.disableOnDestroy"],
    ["gcp:serviceaccount/account:Account", set("accountId", "other"), "+- replace  tpu-inference-nodes  inputs.accountId"],
    ["gcp:serviceaccount/account:Account", set("displayName", "d"), "~ update  tpu-inference-nodes  inputs.displayName"],
    ["gcp:storage/bucket:Bucket", set("location", "EUROPE-WEST1"), "+- replace  tpu-inference-bucket  inputs.location"],
    // The provider upper-cases a bucket's location: another case is the same location.
    ["gcp:storage/bucket:Bucket", set("location", "europe-west4"), "~ update  tpu-inference-bucket  inputs.location"],
    ["gcp:storage/bucket:Bucket", set("storageClass", "NEARLINE"), "~ update  tpu-inference-bucket  inputs.storageClass"],
    [
        "gcp:storage/bucketIAMMember:BucketIAMMember",
        set("condition.title", "t"),
        "+- replace  qwen2-3b-weights-cache  inputs.condition.title",
    ],
    ["gcp:storage/bucketIAMMember:BucketIAMMember", set("bucket", "other"), "+- replace  qwen2-3b-weights-cache  inputs.bucket"],
    ["gcp:iap/webIamMember:WebIamMember", set("role", "roles/viewer"), "+- replace  gateway-access-iap-0  inputs.role"],
    ["gcp:modelarmor/template:Template", set("templateId", "other"), "+- replace  inference-model-armor-template  inputs.templateId"],
    ["gcp:modelarmor/template:Template", set("labels", { team: "ml" }), "~ update  inference-model-armor-template  inputs.labels"],
    [
        "gcp:projects/serviceIdentity:ServiceIdentity",
        set("service", "dns.googleapis.com"),
        "+- replace  tpu-inference-agent  inputs.service",
    ],
    ["gcp:projects/serviceIdentity:ServiceIdentity", set("project", "other-project"), "+- replace  tpu-inference-agent  inputs.project"],
    ["gcp:gkehub/membership:Membership", set("membershipId", "other"), "+- replace  tpu-inference-us-east5  inputs.membershipId"],
    [
        "gcp:gkehub/membership:Membership",
        set("endpoint.gkeCluster.resourceLink", "//container.googleapis.com/other"),
        "+- replace  tpu-inference-us-east5  inputs.endpoint.gkeCluster.resourceLink",
    ],
    ["gcp:gkehub/membership:Membership", set("labels", { team: "ml" }), "~ update  tpu-inference-us-east5  inputs.labels"],
    ["gcp:gkehub/feature:Feature", set("name", "other"), "+- replace  tpu-inference-ingress  inputs.name"],
    [
        "gcp:gkehub/feature:Feature",
        set("spec.multiclusteringress.configMembership", "other"),
        "~ update  tpu-inference-ingress  inputs.spec.multiclusteringress.configMembership",
    ],
    ["random:index/randomPassword:RandomPassword", set("length", 64), "+- replace  serving-api-key  inputs.length"],
    ["random:index/randomPassword:RandomPassword", set("special", true), "+- replace  serving-api-key  inputs.special"],
    [
        "pulumi:providers:kubernetes",
        set("clusterIdentifier", "projects/offline-preview-project/locations/europe-west1/clusters/tpu-inference-dev"),
        "+- replace  tpu-inference-k8s  inputs.clusterIdentifier",
    ],
    ["pulumi:providers:kubernetes", set("enableServerSideApply", "false"), "~ update  tpu-inference-k8s  inputs.enableServerSideApply"],
    // A patch replaces only on its object's identity: a Deployment would on its selector.
    [
        "kubernetes:apps/v1:DeploymentPatch",
        set("metadata.name", "other"),
        "+- replace  body-based-router-availability  inputs.metadata.name",
    ],
    [
        "kubernetes:apps/v1:DeploymentPatch",
        set("spec.selector", { matchLabels: { app: "other" } }),
        "~ update  body-based-router-availability  inputs.spec.selector",
    ],
    [
        "kubernetes:batch/v1:Job",
        set("spec.template.metadata.labels.team", "ml"),
        "+- replace  tpu-inference-webhooks-probe  inputs.spec.template",
    ],
    ["kubernetes:batch/v1:Job", set("spec.parallelism", 2), "+- replace  tpu-inference-webhooks-probe  inputs.spec.parallelism"],
    ["kubernetes:batch/v1:Job", set("spec.backoffLimit", 3), "~ update  tpu-inference-webhooks-probe  inputs.spec.backoffLimit"],
    ["kubernetes:core/v1:ConfigMap", set("data", { "probe-0.yaml": "" }), "+- replace  tpu-inference-webhooks-probes  inputs.data"],
    ["kubernetes:core/v1:ConfigMap", LABELS, "~ update  tpu-inference-webhooks-probes  inputs.metadata.labels"],
    ["kubernetes:core/v1:Namespace", set("metadata.name", "other"), "+- replace  inference-ns  inputs.metadata.name"],
    ["kubernetes:core/v1:Namespace", LABELS, "~ update  inference-ns  inputs.metadata.labels"],
    ["kubernetes:core/v1:Secret", set("type", "kubernetes.io/tls"), "+- replace  serving-api-key  inputs.type"],
    ["kubernetes:core/v1:Secret", set("data", { key: "a2V5" }), "+- replace  serving-api-key  inputs.data"],
    ["kubernetes:core/v1:Secret", LABELS, "~ update  serving-api-key  inputs.metadata.labels"],
    ["kubernetes:core/v1:Service", set("spec.clusterIP", "None"), "+- replace  qwen2-3b-http  inputs.spec.clusterIP"],
    // A Service changes type in place.
    ["kubernetes:core/v1:Service", set("spec.type", "NodePort"), "~ update  qwen2-3b-http  inputs.spec.type"],
    [
        "kubernetes:core/v1:ServiceAccount",
        set("metadata.namespace", "other"),
        "+- replace  tpu-inference-webhooks-probe  inputs.metadata.namespace",
    ],
    ["kubernetes:core/v1:ServiceAccount", LABELS, "~ update  tpu-inference-webhooks-probe  inputs.metadata.labels"],
    // policy/v1, unlike policy/v1beta1, is not in the provider's table: its spec changes in place.
    [
        "kubernetes:policy/v1:PodDisruptionBudget",
        set("spec.minAvailable", 2),
        "~ update  body-based-router-disruption  inputs.spec.minAvailable",
    ],
    [
        "kubernetes:policy/v1:PodDisruptionBudget",
        set("metadata.name", "other"),
        "+- replace  body-based-router-disruption  inputs.metadata.name",
    ],
    [
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding",
        set("roleRef.name", "other"),
        "+- replace  tpu-inference-webhooks-probe  inputs.roleRef",
    ],
    [
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding",
        set("subjects", []),
        "~ update  tpu-inference-webhooks-probe  inputs.subjects[0]",
    ],
    [
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole",
        set("metadata.name", "other"),
        "+- replace  tpu-inference-webhooks-probe  inputs.metadata.name",
    ],
    ["kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", set("rules", []), "~ update  tpu-inference-webhooks-probe  inputs.rules[0]"],
    // Custom resources replace on their identity only.
    ...(
        [
            ["kubernetes:cert-manager.io/v1:Certificate", "inference-certificate"],
            ["kubernetes:cert-manager.io/v1:ClusterIssuer", "tpu-inference-ca-issuer"],
            ["kubernetes:cloud.google.com/v1:ComputeClass", "tpu-inference-tpu-class"],
            ["kubernetes:gateway.networking.k8s.io/v1:Gateway", "inference-gateway"],
            ["kubernetes:gateway.networking.k8s.io/v1:HTTPRoute", "inference-https-redirect"],
            ["kubernetes:inference.networking.k8s.io/v1:InferencePool", "qwen2-3b-us-east5-pool"],
            ["kubernetes:keda.sh/v1alpha1:ClusterTriggerAuthentication", "keda-gmp"],
            ["kubernetes:keda.sh/v1alpha1:ScaledObject", "qwen2-3b-cache-autoscaler"],
            ["kubernetes:monitoring.googleapis.com/v1:PodMonitoring", "qwen2-3b-epp-metrics"],
            ["kubernetes:networking.gke.io/v1:GCPBackendPolicy", "qwen2-3b-http-backend"],
            ["kubernetes:networking.gke.io/v1:GCPRoutingExtension", "body-based-router-extension"],
            ["kubernetes:networking.gke.io/v1:GCPTrafficExtension", "inference-model-armor-extension"],
            ["kubernetes:networking.gke.io/v1:HealthCheckPolicy", "qwen2-3b-http-health"],
            ["kubernetes:networking.istio.io/v1:DestinationRule", "qwen2-3b-pc-epp-tls"],
            ["kubernetes:networking.istio.io/v1alpha3:EnvoyFilter", "inference-access-rate-limit"],
            ["kubernetes:security.istio.io/v1:AuthorizationPolicy", "inference-access-allow"],
            ["kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService", "qwen2-3b-llmisvc"],
            ["kubernetes:serving.kserve.io/v1alpha2:LLMInferenceServiceConfig", "kserve-configs:kserve/kserve-config-llm-decode-template"],
        ] as const
    ).flatMap(([type, name]): typeof CASES => [
        [type, set("metadata.name", "other"), `+- replace  ${name}  inputs.metadata.name`],
        [type, set("spec.example", true), `~ update  ${name}  inputs.spec.example`],
    ]),
    // A chart is a component: the engine diffs its inputs and never replaces it.
    ["kubernetes:helm.sh/v4:Chart", set("version", "v1.22.0"), "~ update  tpu-inference-chart  inputs.version"],
];

describe("each type the shipped stacks register", () => {
    test("each custom type has a case that replaces, and every case is of a type they register", () => {
        const replacing = new Set(CASES.filter(([, , line]) => line.startsWith("+- replace")).map(([type]) => type));
        const custom = [...instances.values()].filter((step) => step.newState.custom).map((step) => step.newState.type);
        expect(custom.filter((type) => !replacing.has(type))).toEqual([]);
        expect(CASES.map(([type]) => type).filter((type) => !instances.has(type))).toEqual([]);
        expect(custom).toHaveLength(53);
    });

    test.each(CASES)("%s: %#", (type, edit, line) => {
        const step = instances.get(type)!;
        const { change, line: shown } = changeOf(step, edit);
        const [marker, name, ...names] = line.split("  ");
        expect(shown).toBe(`    ${marker}  ${displayType(type)}  ${name}  ${names.join("  ")}`);
        expect(change.op).toBe(marker.split(" ")[1]);
        expect(change.replaceReasons).toEqual(change.op === "replace" ? names[0].split(", ") : undefined);
    });

    test("every component, the stack included, is updated, never replaced, whatever its inputs", () => {
        const components = [...instances.values()].filter(
            (step) => !step.newState.custom && step.newState.type !== "kubernetes:helm.sh/v4:Chart",
        );
        expect(components.map((step) => step.newState.type)).toContain("pulumi:pulumi:Stack");
        for (const step of components) {
            expect([step.newState.type, changeOf(step, set("name", "other")).line]).toEqual([
                step.newState.type,
                `    ~ update  ${displayType(step.newState.type)}  ${step.urn.split("::").pop()}  inputs.name`,
            ]);
        }
    });

    test("the Kubernetes provider sets neither enableSecretMutable nor enableConfigMapMutable: Secrets and ConfigMaps replace on their data", () => {
        expect(Object.keys(instances.get("pulumi:providers:kubernetes")!.newState.inputs).sort()).toEqual([
            "clusterIdentifier",
            "enableServerSideApply",
            "kubeconfig",
        ]);
    });

    test("every GCP and random type has its own entry in the catalog, not the generic rule", () => {
        const packaged = [...instances.keys()].filter((type) => /^(gcp|random):/.test(type));
        expect(packaged.filter((type) => !CATALOGUED_TYPES.has(type))).toEqual([]);
        expect(packaged).toHaveLength(24);
    });
});

describe("a provider's own switches", () => {
    test("enableConfigMapMutable and enableSecretMutable let their provider update data in place, unless the object is immutable", () => {
        const providerUrn = "urn:pulumi:s::p::pulumi:providers:kubernetes::k8s";
        const provider = (flags: Inputs): ReportStep => ({
            op: "create",
            urn: providerUrn,
            newState: { type: "pulumi:providers:kubernetes", urn: providerUrn, custom: true, inputs: flags, dependencies: [] },
        });
        const object = (kind: string, inputs: Inputs): ReportStep => {
            const step = stepOf(`kubernetes:core/v1:${kind}`, { apiVersion: "v1", kind, metadata: { name: "settings" }, ...inputs });
            return { ...step, newState: { ...step.newState, provider: `${providerUrn}::k8s-id` } };
        };
        const opOf = (flags: Inputs, kind: string, inputs: Inputs) => {
            const target = object(kind, inputs);
            const diff = diffOf([provider(flags), target], target.urn, (edited) => {
                (edited as { data: Record<string, string> }).data = { mode: "b" };
            });
            return diff.resources.map((change) => [change.op, change.replaceReasons ?? []]);
        };
        const data = { data: { mode: "a" } };
        expect(opOf({}, "ConfigMap", data)).toEqual([["replace", ["inputs.data"]]]);
        expect(opOf({ enableConfigMapMutable: true }, "ConfigMap", data)).toEqual([["update", []]]);
        expect(opOf({ enableConfigMapMutable: true }, "ConfigMap", { ...data, immutable: true })).toEqual([["replace", ["inputs.data"]]]);
        expect(opOf({ enableSecretMutable: true }, "Secret", data)).toEqual([["update", []]]);
        // As the SDK sends it: JSON text.
        expect(opOf({ enableConfigMapMutable: "true" }, "ConfigMap", data)).toEqual([["update", []]]);
        expect(opOf({ enableConfigMapMutable: true }, "Secret", data)).toEqual([["replace", ["inputs.data"]]]);
    });
});

describe("how a rule reads a change", () => {
    const POOL = "gcp:container/nodePool:NodePool";
    const pool = () =>
        stepOf(POOL, {
            cluster: "c",
            project: "p",
            nodeConfig: { machineType: "ct6e-standard-4t", guestAccelerators: [{ type: "tpu", count: 4 }] },
        });

    test("a block added or removed names the block; a field inside it that changes names the field", () => {
        const affinity = { consumeReservationType: "SPECIFIC_RESERVATION", key: "compute.googleapis.com/reservation-name", values: ["a"] };
        const reserved = stepOf(POOL, { nodeConfig: { reservationAffinity: affinity } });
        expect(named(pool(), set("nodeConfig.reservationAffinity", affinity))).toEqual([
            "replace",
            ["inputs.nodeConfig.reservationAffinity"],
        ]);
        expect(named(reserved, set("nodeConfig.reservationAffinity", undefined))).toEqual([
            "replace",
            ["inputs.nodeConfig.reservationAffinity"],
        ]);
        expect(named(reserved, set("nodeConfig.reservationAffinity.values", ["b"]))).toEqual([
            "replace",
            ["inputs.nodeConfig.reservationAffinity.values"],
        ]);
    });

    test("in a list of blocks, each element's fields; another element is a different length", () => {
        expect(named(pool(), (inputs) => ((inputs.nodeConfig as { guestAccelerators: Inputs[] }).guestAccelerators[0].count = 8))).toEqual([
            "replace",
            ["inputs.nodeConfig.guestAccelerators[].count"],
        ]);
        expect(
            named(pool(), (inputs) =>
                (inputs.nodeConfig as { guestAccelerators: Inputs[] }).guestAccelerators.push({ type: "tpu", count: 4 }),
            ),
        ).toEqual(["replace", ["inputs.nodeConfig.guestAccelerators"]]);
    });

    test("an Optional and Computed input left unset keeps the provider's value: no replacement, though the input changes", () => {
        expect(named(pool(), set("project", undefined))).toEqual(["update", ["inputs.project"]]);
        expect(named(pool(), set("nodeConfig", undefined))).toEqual(["update", ["inputs.nodeConfig"]]);
        // Cluster is Required: removing it is a change like any other.
        expect(named(pool(), set("cluster", undefined))).toEqual(["replace", ["inputs.cluster"]]);
    });

    test("a value the head does not know replaces; one the base did not know is no change", () => {
        expect(named(pool(), set("cluster", UNKNOWN_VALUE))).toEqual(["replace", ["inputs.cluster"]]);
        expect(named(pool(), set("nodeConfig", UNKNOWN_VALUE))).toEqual(["replace", ["inputs.nodeConfig"]]);
        const unknown = stepOf(POOL, { cluster: UNKNOWN_VALUE, nodeConfig: UNKNOWN_VALUE });
        const diff = diffOf([unknown], unknown.urn, all(set("cluster", "c"), set("nodeConfig", { spot: true })));
        expect(diff.resources).toEqual([]);
        expect(diff.unknownInBase.map((resource) => resource.properties.map((property) => property.path))).toEqual([
            ["inputs.cluster", "inputs.nodeConfig"],
        ]);
    });

    test("a provider's own conditions: a setting that cannot be turned off, an Autopilot DNS domain, a beta API removed", () => {
        const cluster = (inputs: Inputs) => stepOf("gcp:container/cluster:Cluster", { name: "c", ...inputs });
        expect(named(cluster({ enableL4IlbSubsetting: true }), set("enableL4IlbSubsetting", false))).toEqual([
            "replace",
            ["inputs.enableL4IlbSubsetting"],
        ]);
        expect(named(cluster({ enableFqdnNetworkPolicy: true }), set("enableFqdnNetworkPolicy", undefined))).toEqual([
            "replace",
            ["inputs.enableFqdnNetworkPolicy"],
        ]);
        expect(named(cluster({}), set("enableL4IlbSubsetting", true))).toEqual(["update", ["inputs.enableL4IlbSubsetting"]]);
        const domain = set("dnsConfig.additiveVpcScopeDnsDomain", "b.example");
        expect(named(cluster({ enableAutopilot: true, dnsConfig: { additiveVpcScopeDnsDomain: "a.example" } }), domain)).toEqual([
            "replace",
            ["inputs.dnsConfig.additiveVpcScopeDnsDomain"],
        ]);
        expect(named(cluster({ dnsConfig: { additiveVpcScopeDnsDomain: "a.example" } }), domain)).toEqual([
            "update",
            ["inputs.dnsConfig.additiveVpcScopeDnsDomain"],
        ]);
        const apis = cluster({ enableK8sBetaApis: { enabledApis: ["a/v1beta1/x"] } });
        expect(named(apis, set("enableK8sBetaApis.enabledApis", ["b/v1beta1/y"]))).toEqual([
            "replace",
            ["inputs.enableK8sBetaApis.enabledApis"],
        ]);
        expect(named(apis, set("enableK8sBetaApis.enabledApis", ["a/v1beta1/x", "b/v1beta1/y"]))).toEqual([
            "update",
            ["inputs.enableK8sBetaApis.enabledApis[1]"],
        ]);
        const bucket = stepOf("gcp:storage/bucket:Bucket", {
            name: "b",
            location: "EU",
            retentionPolicy: { isLocked: true, retentionPeriod: 60 },
        });
        expect(named(bucket, set("retentionPolicy.isLocked", false))).toEqual(["replace", ["inputs.retentionPolicy.isLocked"]]);
        expect(named(bucket, set("retentionPolicy.retentionPeriod", 120))).toEqual(["update", ["inputs.retentionPolicy.retentionPeriod"]]);
        const password = stepOf("random:index/randomPassword:RandomPassword", { length: 16, overrideSpecial: "" });
        expect(named(password, set("overrideSpecial", undefined))).toEqual(["update", ["inputs.overrideSpecial"]]);
        expect(named(password, set("overrideSpecial", "!"))).toEqual(["replace", ["inputs.overrideSpecial"]]);
    });

    test("Kubernetes: a change at or under an immutable field, or above it where it is set; removing its parent is none", () => {
        const job = stepOf("kubernetes:batch/v1:Job", {
            apiVersion: "batch/v1",
            kind: "Job",
            metadata: { name: "j" },
            spec: { backoffLimit: 2, template: { spec: { restartPolicy: "Never" } } },
        });
        expect(named(job, set("spec.template", undefined))).toEqual(["replace", ["inputs.spec.template"]]);
        expect(named(job, set("spec", undefined))).toEqual(["update", ["inputs.spec"]]);
        expect(named(job, set("spec", { template: {} }))).toEqual(["replace", ["inputs.spec.template"]]);
        // An unset namespace is `default`.
        expect(named(job, set("metadata.namespace", "default"))).toEqual(["update", ["inputs.metadata.namespace"]]);
        expect(named(job, set("metadata.namespace", "jobs"))).toEqual(["replace", ["inputs.metadata.namespace"]]);
    });

    test("a type the catalog does not list: Kubernetes by identity, GCP by project, name and location, any other never", () => {
        const deployment = stepOf("kubernetes:apps/v1:Deployment", {
            metadata: { name: "d" },
            spec: { replicas: 1, selector: { matchLabels: { a: "b" } } },
        });
        expect(named(deployment, set("spec.selector.matchLabels.a", "c"))).toEqual(["replace", ["inputs.spec.selector"]]);
        expect(named(deployment, set("spec.replicas", 2))).toEqual(["update", ["inputs.spec.replicas"]]);
        const instance = stepOf("gcp:compute/instance:Instance", { name: "i", machineType: "e2-small" });
        expect(replaceRules("gcp:compute/instance:Instance", true).map((rule) => rule.path)).toEqual(["project", "name", "location"]);
        expect(named(instance, set("name", "j"))).toEqual(["replace", ["inputs.name"]]);
        expect(named(instance, set("machineType", "e2-medium"))).toEqual(["update", ["inputs.machineType"]]);
        const bucket = stepOf("aws:s3/bucket:Bucket", { bucket: "b" });
        expect(named(bucket, set("bucket", "c"))).toEqual(["update", ["inputs.bucket"]]);
    });
});

describe("the provider replacing what it manages", () => {
    const KUBECONFIG = (server: string, user = "u") =>
        JSON.stringify({
            clusters: [{ name: "c", cluster: { server } }],
            contexts: [
                { name: "a", context: { cluster: "c", user } },
                { name: "b", context: { cluster: "d", user } },
            ],
            "current-context": "a",
            users: [{ name: user, user: {} }],
        });
    const provider = (name: string, inputs: Inputs) => {
        const step = stepOf("pulumi:providers:kubernetes", inputs);
        const urn = step.urn.replace(/::r$/, `::${name}`);
        return { ...step, urn, newState: { ...step.newState, urn } };
    };
    const managed = (providerUrn: string): ReportStep => {
        const step = stepOf("kubernetes:core/v1:Namespace", { apiVersion: "v1", kind: "Namespace", metadata: { name: "n" } });
        return { ...step, newState: { ...step.newState, provider: `${providerUrn}::id` } };
    };

    test("a provider the engine replaces replaces each resource it manages, naming `provider`; one it updates, none", () => {
        const k8s = provider("k8s", { clusterIdentifier: "projects/p/locations/a/clusters/c", kubeconfig: KUBECONFIG("https://a") });
        const steps = [k8s, managed(k8s.urn)];
        const moved = diffOf(steps, k8s.urn, set("clusterIdentifier", "projects/p/locations/b/clusters/c"));
        expect(moved.resources.map((change) => [change.op, change.name, change.replaceReasons])).toEqual([
            ["replace", "k8s", ["inputs.clusterIdentifier"]],
            ["replace", "r", ["provider"]],
        ]);
        expect(renderChanges(moved).split("\n")[2]).toBe("    +- replace  kubernetes:core/v1:Namespace  r  provider");
        // The same cluster identified: a new endpoint is an update.
        const updated = diffOf(steps, k8s.urn, set("kubeconfig", KUBECONFIG("https://b")));
        expect(updated.resources.map((change) => [change.op, change.name])).toEqual([["update", "k8s"]]);
    });

    test("moving to another provider replaces when that provider's DiffConfig would, against the old one", () => {
        const [a, b, c] = ["a", "b", "c"].map((name) => provider(name, { clusterIdentifier: name === "c" ? "other" : "same" }));
        const steps = [a, b, c, managed(a.urn)];
        const onto = (target: string) => {
            const head = structuredClone(steps);
            head[3].newState.provider = `${target}::id`;
            return diffReports(readBaseReport(reportOf(steps)), reportOf(head)).resources.map((change) => [
                change.op,
                change.replaceReasons,
            ]);
        };
        expect(onto(b.urn)).toEqual([["update", undefined]]);
        expect(onto(c.urn)).toEqual([["replace", ["provider"]]]);
    });

    test("without a cluster identifier: a kubeconfig whose active cluster changes, or one not known yet, replaces", () => {
        const k8s = provider("k8s", { kubeconfig: KUBECONFIG("https://a") });
        expect(named(k8s, set("kubeconfig", KUBECONFIG("https://b")))).toEqual(["replace", ["inputs.kubeconfig"]]);
        expect(named(k8s, set("kubeconfig", KUBECONFIG("https://a", "v")))).toEqual(["update", ["inputs.kubeconfig"]]);
        expect(named(k8s, set("kubeconfig", UNKNOWN_VALUE))).toEqual(["replace", ["inputs.kubeconfig"]]);
        // Context b points at a cluster the kubeconfig does not have: the provider cannot tell, so no replacement.
        expect(named(k8s, set("context", "b"))).toEqual(["update", ["inputs.context"]]);
        expect(named(k8s, set("renderYamlToDirectory", "out"))).toEqual(["replace", ["inputs.renderYamlToDirectory"]]);
    });
});

/**
 * The pinned SDKs' input types, read from their declarations: each interface's properties, with the interface a
 * property holds (`inputs.<ns>.<Name>`) and whether it is a list.
 */
function sdkInputs(pkg: string): Map<string, Map<string, { ref?: string; list: boolean }>> {
    const interfaces = new Map<string, Map<string, { ref?: string; list: boolean }>>();
    const file = path.join(ROOT, "node_modules", "@pulumi", pkg, "types", "input.d.ts");
    let namespace = "";
    let current: Map<string, { ref?: string; list: boolean }> | undefined;
    for (const line of fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n") : []) {
        const opened = /^export declare namespace (\w+) \{/.exec(line) ?? /^ {4}interface (\w+) \{/.exec(line);
        if (opened) {
            if (line.startsWith("export")) {
                namespace = opened[1];
            } else {
                current = new Map();
                interfaces.set(`${namespace}.${opened[1]}`, current);
            }
            continue;
        }
        const property = /^ {8}(\w+)\??: (.*)$/.exec(line);
        if (property && current) {
            current.set(property[1], { ref: /inputs\.(\w+\.\w+)/.exec(property[2])?.[1], list: property[2].includes(">[]") });
        }
    }
    return interfaces;
}

/** A resource's `Args` properties, from its module's declaration. */
function resourceArgs(type: string): Map<string, { ref?: string; list: boolean }> {
    const [pkg, module, name] = type.split(":");
    // A module's file is named as its token, but for case (projects/iAMMember is projects/iammember.d.ts).
    const modulePath = path.join(ROOT, "node_modules", "@pulumi", pkg, module.replace(/^index\//, ""));
    const folder = path.dirname(modulePath);
    const file = path.join(
        folder,
        fs.readdirSync(folder).find((entry) => entry.toLowerCase() === `${path.basename(modulePath).toLowerCase()}.d.ts`)!,
    );
    const args = new RegExp(`^export interface ${name}Args \\{([\\s\\S]*?)^\\}`, "m").exec(fs.readFileSync(file, "utf8"))![1];
    return new Map(
        [...args.matchAll(/^ {4}(\w+)\??: (.*)$/gm)].map(([, key, text]) => [
            key,
            { ref: /inputs\.(\w+\.\w+)/.exec(text)?.[1], list: text.includes(">[]") },
        ]),
    );
}

describe("the catalog against the pinned SDKs", () => {
    const packaged = [...CATALOGUED_TYPES].filter((type) => /^(gcp|random):/.test(type));
    const inputs = { gcp: sdkInputs("gcp"), random: sdkInputs("random") };

    test.each(packaged)("every path of %s is an input of the SDK, a list where it says []", (type) => {
        const missing = replaceRules(type, true).flatMap(({ path: rulePath }) => {
            let properties = resourceArgs(type);
            let list = false;
            for (const segment of rulePath.replace(/\[\]/g, ".[]").split(".")) {
                if (segment === "[]") {
                    if (!list) {
                        return [rulePath];
                    }
                    list = false;
                    continue;
                }
                if (list) {
                    return [rulePath];
                }
                const property = properties.get(segment);
                if (!property) {
                    return [rulePath];
                }
                properties = (property.ref && inputs[type.split(":")[0] as "gcp" | "random"].get(property.ref)) || new Map();
                list = property.list;
            }
            return [];
        });
        expect(missing).toEqual([]);
    });

    test("every catalogued GCP type with a name or a location replaces on it, as the generic rule assumes", () => {
        const lacking = packaged
            .filter((type) => type.startsWith("gcp:"))
            .flatMap((type) =>
                ["name", "location"]
                    .filter((key) => resourceArgs(type).has(key) && !replaceRules(type, true).some((rule) => rule.path === key))
                    .map((key) => `${type} ${key}`),
            );
        expect(lacking).toEqual([]);
    });
});
