import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { TpuCapacity } from "../../../components/platform/tpuCapacity";
import { Settings, parseSettings } from "../../../components/settings/stack";
import { CrdValidator } from "../../crds";
import { Graph, PROJECT, record, testProvider } from "../../harness";

const CLUSTER_ID = "projects/acme-inference/locations/europe-west4/clusters/gke";
const SERVICE_ACCOUNT = "gke-nodes@acme-inference.iam.gserviceaccount.com";
const POOL = "gcp:container/nodePool:NodePool";
const CLASS = "kubernetes:cloud.google.com/v1:ComputeClass";

/** What the program registers for one resource, as a transformation sees it: where it is parented and what it aliases. */
interface Registration {
    type: string;
    name: string;
    aliases?: pulumi.ResourceOptions["aliases"];
}

/** Records the TpuCapacity of `config` under the stack, with a stand-in cluster and stand-in APIs, and every registration below it. */
async function capacityFor(config: Record<string, string>) {
    const settings: Settings = parseSettings(PROJECT, (key) => config[key], "acme-inference");
    const registrations: Registration[] = [];
    let capacity: TpuCapacity | undefined;
    const graph = await record(() => {
        const grant = (name: string) =>
            new gcp.projects.IAMMember(name, {
                project: "acme-inference",
                role: `roles/${name}`,
                member: `serviceAccount:${SERVICE_ACCOUNT}`,
            });
        const apis = new Map<string, gcp.projects.Service>();
        const api = (name: string) =>
            apis.get(name) ??
            apis.set(name, new gcp.projects.Service(`api-${name}`, { project: "acme-inference", service: name })).get(name)!;
        capacity = new TpuCapacity(
            "tpu-inference",
            {
                settings,
                cluster: {
                    clusterId: pulumi.output(CLUSTER_ID),
                    provider: testProvider(),
                    nodeServiceAccountEmail: pulumi.output(SERVICE_ACCOUNT),
                    nodeRoleGrants: [grant("node-role")],
                    imageStreamingGrants: config.imageStreaming === "false" ? [] : [grant("streaming-role")],
                },
                preflight: { prerequisites: (name) => [api(name)] },
            },
            // A transformation sees each resource's options as the SDK sends them, and runs for every descendant.
            { transformations: [({ type, name, opts }) => void registrations.push({ type, name, aliases: opts.aliases })] },
        );
    });
    return { graph, capacity: capacity!, registrations };
}

/** The aliases of `registration` that name a former parent (the Kubernetes SDK's own aliases name former API versions' types). */
function formerParentAliases(registration: Registration): pulumi.Alias[] {
    return (registration.aliases ?? []).filter((alias): alias is pulumi.Alias => typeof alias === "object" && "parent" in alias);
}

/** An Output's value, once known. */
function resolved<T>(output: pulumi.Output<T>): Promise<T> {
    return new Promise((resolve) => output.apply(resolve));
}

/**
 * The URN in the stack's state that the engine matches `urn` with: for a resource with the alias `{ parent:
 * rootStackResource }`, its type and name under no parent (pulumi/pulumi@v3.259.0 pkg/resource/deploy/step_generator.go:
 * 545-584 `collapseAliasToUrn`, `NoParent`); for a child of a resource matched that way, the child's type and name under
 * the parent's matched URN (:590-619 `inheritedChildAlias`, :639-641, and :703, which records what each matched); any
 * other resource by its own URN.
 */
function matchedUrn(graph: Graph, registrations: Registration[], urn: string): string {
    const resource = graph.resources.find((candidate) => candidate.urn === urn)!;
    const [prefix, project] = urn.split("::");
    const registration = registrations.find((candidate) => candidate.type === resource.type && candidate.name === resource.name);
    if (registration !== undefined && formerParentAliases(registration).some((alias) => alias.parent === pulumi.rootStackResource)) {
        return [prefix, project, resource.type, resource.name].join("::");
    }
    if (resource.parent === undefined || resource.parent.endsWith(`::${PROJECT}-test`)) {
        return urn;
    }
    const parentMatched = matchedUrn(graph, registrations, resource.parent);
    return parentMatched === resource.parent
        ? urn
        : [prefix, project, `${parentMatched.split("::")[2]}$${resource.type}`, resource.name].join("::");
}

describe("TpuCapacity", () => {
    const FALLBACK = { tpuCapacity: JSON.stringify([{ type: "on-demand" }, { type: "spot" }]) };

    test("a plan of one option: one pool under the stack's old name, no ComputeClass; pods need the pool's scheduling and wait for nothing", async () => {
        const { graph, capacity } = await capacityFor({});
        expect(graph.ofType(POOL).map((pool) => pool.name)).toEqual(["tpu-inference-tpu-pool"]);
        expect(graph.ofType(CLASS)).toEqual([]);
        expect(capacity.pools).toHaveLength(1);
        expect(capacity.scheduling).toBe(capacity.pools[0].scheduling);
        expect(capacity.ready).toEqual([]);
        expect(capacity.plan.computeClass).toBeUndefined();
    });

    test("a plan of two: a pool per option in its order, the class naming them in that order; pods select the class and wait for it", async () => {
        const { graph, capacity } = await capacityFor(FALLBACK);
        const [first, spot] = ["tpu-inference-tpu-pool", "tpu-inference-spot-pool"].map((name) => graph.get(POOL, name));
        expect([first.inputs.autoscaling, spot.inputs.autoscaling]).toEqual([
            { minNodeCount: 0, maxNodeCount: 3 },
            { minNodeCount: 0, maxNodeCount: 3 },
        ]);
        const computeClass = graph.get(CLASS, "tpu-inference-tpu-class");
        const poolNames = await Promise.all(capacity.pools.map((pool) => resolved(pool.nodePoolName)));
        expect(poolNames).toEqual([expect.stringMatching(/^tpu-inference-tpu-pool-/), expect.stringMatching(/^tpu-inference-spot-pool-/)]);
        expect((computeClass.inputs.spec as { priorities: unknown }).priorities).toEqual(poolNames.map((pool) => ({ nodepools: [pool] })));
        expect(capacity.scheduling.nodeSelector).toEqual({
            "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
            "cloud.google.com/gke-tpu-topology": "2x2",
            "cloud.google.com/compute-class": "tpu-inference-tpu",
        });
        expect(capacity.ready).toHaveLength(1);
        expect(await resolved(capacity.ready[0].urn)).toBe(computeClass.urn);
        // Each option of the plan paired with its own pool.
        expect(capacity.plan.options.map((option) => option.option)).toEqual(["on-demand", "spot"]);
        expect(capacity.plan.options.map((option) => option.nodePool)).toEqual(capacity.pools.map((pool) => pool.nodePoolName));
        expect(capacity.plan.computeClass).toBe("tpu-inference-tpu");
    });

    describe("two options in two zones: a pool per option and zone", () => {
        const TWO_BY_TWO = {
            zone: "us-east5-a",
            tpuMinNodes: "1",
            tpuCapacity: JSON.stringify([
                { type: "reservation", name: "r1", zones: ["us-east5-a", "us-east5-b"] },
                { type: "on-demand", zones: ["us-east5-a", "us-east5-b"] },
            ]),
        };

        test.each([
            [
                "option-first",
                ["tpu-inference-tpu", "tpu-inference-tpu-b", "tpu-inference-ondemand", "tpu-inference-ondemand-b"],
                ["us-east5-a", "us-east5-b", "us-east5-a", "us-east5-b"],
            ],
            [
                "zone-first",
                ["tpu-inference-tpu", "tpu-inference-ondemand", "tpu-inference-tpu-b", "tpu-inference-ondemand-b"],
                ["us-east5-a", "us-east5-a", "us-east5-b", "us-east5-b"],
            ],
        ])(
            "%s: the pools in that order, each in its zone; the stack's zone keeps the old names; the class's priorities follow",
            async (order, names, zones) => {
                const { graph, capacity } = await capacityFor({ ...TWO_BY_TWO, tpuCapacityOrder: order });
                const pools = names.map((name) => graph.get(POOL, `${name}-pool`).inputs);
                expect(pools.map((pool) => pool.nodeLocations)).toEqual(zones.map((zone) => [zone]));
                expect(pools.map((pool) => pool.location)).toEqual(names.map(() => "us-east5"));
                // The first pool holds the floor.
                expect(pools.map((pool) => (pool.autoscaling as { minNodeCount: number }).minNodeCount)).toEqual([1, 0, 0, 0]);
                const affinities = pools.map(
                    (pool) => (pool.nodeConfig as { reservationAffinity?: { values?: string[] } }).reservationAffinity?.values,
                );
                expect(affinities).toEqual(names.map((name) => (name.startsWith("tpu-inference-tpu") ? ["r1"] : undefined)));
                expect(graph.ofType(POOL)).toHaveLength(4);

                const poolNames = await Promise.all(capacity.pools.map((pool) => resolved(pool.nodePoolName)));
                expect(poolNames).toEqual(names.map((name) => expect.stringMatching(new RegExp(`^${name}-pool-[0-9a-f]{7}$`))));
                const computeClass = graph.get(CLASS, "tpu-inference-tpu-class");
                expect((computeClass.inputs.spec as { priorities: unknown }).priorities).toEqual(
                    poolNames.map((pool) => ({ nodepools: [pool] })),
                );
                expect(new CrdValidator().errors(computeClass.inputs)).toEqual([]);
                expect(capacity.plan.options.map((option) => [option.option, option.zone, option.minNodes])).toEqual(
                    names.map((name, index) => [
                        name.startsWith("tpu-inference-tpu") ? "reservation" : "on-demand",
                        zones[index],
                        index === 0 ? 1 : 0,
                    ]),
                );
                expect(capacity.plan.options.map((option) => option.nodePool)).toEqual(capacity.pools.map((pool) => pool.nodePoolName));
                expect(capacity.plan.ceilingNodes).toBe(12);
            },
        );

        test("one option in two zones is two pools, ordered by a ComputeClass that the pods select", async () => {
            const { graph, capacity } = await capacityFor({
                zone: "us-east5-a",
                tpuCapacity: JSON.stringify([{ type: "on-demand", zones: ["us-east5-b", "us-east5-a"] }]),
            });
            expect(graph.ofType(POOL).map((pool) => [pool.name, pool.inputs.nodeLocations])).toEqual([
                ["tpu-inference-tpu-b-pool", ["us-east5-b"]],
                ["tpu-inference-tpu-pool", ["us-east5-a"]],
            ]);
            expect(capacity.plan.computeClass).toBe("tpu-inference-tpu");
            expect(capacity.scheduling.nodeSelector["cloud.google.com/compute-class"]).toBe("tpu-inference-tpu");
        });
    });

    test.each([
        [
            "with image streaming, the Container File System API and the account's use of it too",
            {},
            [
                "gcp:projects/iAMMember:IAMMember node-role",
                "gcp:projects/iAMMember:IAMMember streaming-role",
                "gcp:projects/service:Service api-compute",
                "gcp:projects/service:Service api-containerFilesystem",
            ],
        ],
        [
            "without it, the node account's roles and the Compute Engine API only",
            { imageStreaming: "false" },
            ["gcp:projects/iAMMember:IAMMember node-role", "gcp:projects/service:Service api-compute"],
        ],
    ])("every pool waits for its prerequisites: %s", async (_case, config, expected) => {
        const { graph } = await capacityFor({ ...FALLBACK, ...config });
        for (const pool of graph.ofType(POOL)) {
            expect(graph.dependencyNames(pool).filter((name) => !name.startsWith("gcp:container/nodePool"))).toEqual(expected);
        }
    });

    test("the pools and the class, once the stack's own children, are aliased to their URNs under the stack, and their children follow", async () => {
        const { graph, registrations } = await capacityFor(FALLBACK);
        const component = graph.get("gke-tpu-inference:platform:TpuCapacity", "tpu-inference");
        const below = graph.resources.filter((resource) => resource.urn.includes("gke-tpu-inference:platform:TpuCapacity$"));
        // Only the component's own children name a former parent; the engine derives their children's aliases.
        expect(
            registrations
                .filter((registration) => formerParentAliases(registration).length > 0)
                .map(({ type, name }) => `${type} ${name}`)
                .sort(),
        ).toEqual([
            "gke-tpu-inference:platform:TpuComputeClass tpu-inference-tpu",
            "gke-tpu-inference:tpu:TpuNodePool tpu-inference-spot",
            "gke-tpu-inference:tpu:TpuNodePool tpu-inference-tpu",
        ]);
        expect(graph.resources.filter((resource) => resource.parent === component.urn)).toHaveLength(3);
        const stack = "urn:pulumi:test::gke-tpu-inference::";
        expect(below.map((resource) => matchedUrn(graph, registrations, resource.urn)).sort()).toEqual(
            [
                "gke-tpu-inference:platform:TpuComputeClass::tpu-inference-tpu",
                "gke-tpu-inference:platform:TpuComputeClass$gke-tpu-inference:platform:WebhookGate::tpu-inference-tpu-served",
                "gke-tpu-inference:platform:TpuComputeClass$gke-tpu-inference:platform:WebhookGate$kubernetes:batch/v1:Job::tpu-inference-tpu-served-probe",
                "gke-tpu-inference:platform:TpuComputeClass$gke-tpu-inference:platform:WebhookGate$kubernetes:core/v1:ConfigMap::tpu-inference-tpu-served-probes",
                "gke-tpu-inference:platform:TpuComputeClass$gke-tpu-inference:platform:WebhookGate$kubernetes:core/v1:ServiceAccount::tpu-inference-tpu-served-probe",
                "gke-tpu-inference:platform:TpuComputeClass$gke-tpu-inference:platform:WebhookGate$kubernetes:rbac.authorization.k8s.io/v1:ClusterRole::tpu-inference-tpu-served-probe",
                "gke-tpu-inference:platform:TpuComputeClass$gke-tpu-inference:platform:WebhookGate$kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding::tpu-inference-tpu-served-probe",
                "gke-tpu-inference:platform:TpuComputeClass$kubernetes:cloud.google.com/v1:ComputeClass::tpu-inference-tpu-class",
                "gke-tpu-inference:tpu:TpuNodePool$gcp:container/nodePool:NodePool::tpu-inference-spot-pool",
                "gke-tpu-inference:tpu:TpuNodePool$gcp:container/nodePool:NodePool::tpu-inference-tpu-pool",
                "gke-tpu-inference:tpu:TpuNodePool::tpu-inference-spot",
                "gke-tpu-inference:tpu:TpuNodePool::tpu-inference-tpu",
            ]
                .map((urn) => `${stack}${urn}`)
                .sort(),
        );
        // The component itself is new: nothing in the state matches it.
        expect(matchedUrn(graph, registrations, component.urn)).toBe(component.urn);
    });

    test("refuses a plan without an option, which the settings never give", async () => {
        const settings = parseSettings(PROJECT, () => undefined, "acme-inference");
        await expect(
            record(
                () =>
                    new TpuCapacity("tpu-inference", {
                        settings: { ...settings, tpu: { ...settings.tpu, capacity: [] } },
                        cluster: {
                            clusterId: pulumi.output(CLUSTER_ID),
                            provider: testProvider(),
                            nodeServiceAccountEmail: pulumi.output(SERVICE_ACCOUNT),
                            nodeRoleGrants: [],
                            imageStreamingGrants: [],
                        },
                        preflight: { prerequisites: () => [] },
                    }),
            ),
        ).rejects.toThrow("TpuCapacity tpu-inference has no capacity option; the settings give at least one");
    });
});
