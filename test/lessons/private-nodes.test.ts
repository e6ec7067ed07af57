/**
 * Lesson private-nodes, the whole category: nodes with public IP addresses are caught however a program gives them,
 * each cause once where its fix goes: a cluster without private nodes running a default pool, pools that make no choice
 * (inline or NodePools), Autopilot nodes or pools declared elsewhere, on the cluster, naming those pools; a pool (inline
 * or NodePool) opting out with networkConfig.enablePrivateNodes false, on the pool. Private nodes either way (the
 * cluster's privateClusterConfig, or every pool's networkConfig) are left alone.
 */
import { PRIVATE_NODES_MESSAGES as say, requirePrivateNodes as policy } from "../../policies/requirePrivateNodes";
import { RecordedResource } from "../../scripts/offline/recorder";
import { cluster, tpuPool } from "../support/fixtures";
import { UNKNOWN, check } from "../support/harness";

describe("every spelling", () => {
    type Obj = Record<string, unknown>;

    const verdict = async (...resources: RecordedResource[]) =>
        (await check(policy, resources)).map((finding) => `${finding.resource}: ${finding.message}`);
    const PUBLIC = [undefined, {}, { enablePrivateNodes: false }, { enablePrivateEndpoint: false }];
    const gke = (props: Obj = {}) => cluster({ name: "gke", ...props });
    const pool = (networkConfig?: Obj) => tpuPool({ cluster: "gke", ...(networkConfig ? { networkConfig } : {}) });
    const inline = (name: string, networkConfig?: Obj) => ({
        name,
        nodeConfig: { machineType: "e2-standard-4" },
        ...(networkConfig ? { networkConfig } : {}),
    });

    describe("lesson private-nodes: every way a node gets a public IP address", () => {
        test("the cluster's message names the pools it gives public addresses, or none", () => {
            expect(say.cluster("gke", [])).toBe(
                "Cluster gke does not use private nodes (privateClusterConfig.enablePrivateNodes); set it, or networkConfig.enablePrivateNodes true on every pool and no default pool.",
            );
            expect(say.cluster("gke", ["its default node pool (nodeConfig)", "node pool tpu"])).toBe(
                "Cluster gke does not use private nodes (privateClusterConfig.enablePrivateNodes), so these pools get public IP addresses: its default node pool (nodeConfig), node pool tpu; set it, or networkConfig.enablePrivateNodes true on every pool and no default pool.",
            );
        });

        test.each(PUBLIC)("caught once, on the cluster: privateClusterConfig %p with pools that inherit it", async (config) => {
            const open = { privateClusterConfig: config };
            expect(await verdict(gke({ ...open, removeDefaultNodePool: undefined }))).toEqual([
                `gke: ${say.cluster("gke", ["its default node pool (nodeConfig)"])}`,
            ]);
            expect(await verdict(gke({ ...open, nodePools: [inline("a", { enablePrivateNodes: true }), inline("b")] }))).toEqual([
                `gke: ${say.cluster("gke", ["its nodePools[1] (b)"])}`,
            ]);
            // A NodePool that makes no choice: one report, on the cluster, by the pool's cluster name, id or dependency.
            expect(await verdict(gke(open), pool())).toEqual([`gke: ${say.cluster("gke", ["node pool tpu"])}`]);
            expect(
                await verdict(gke(open), tpuPool({ cluster: "projects/acme/locations/europe-west4/clusters/gke", networkConfig: {} })),
            ).toEqual([`gke: ${say.cluster("gke", ["node pool tpu"])}`]);
            // Autopilot's nodes, and pools the stack does not declare.
            expect(await verdict(gke({ ...open, enableAutopilot: true }))).toEqual([`gke: ${say.cluster("gke", [])}`]);
            expect(await verdict(gke({ ...open, removeDefaultNodePool: true }))).toEqual([`gke: ${say.cluster("gke", [])}`]);
        });

        test("caught on the pool: one that opts out, of a private or a public cluster, inline or a NodePool", async () => {
            expect(await verdict(gke({ nodePools: [inline("a"), inline("b", { enablePrivateNodes: false })] }))).toEqual([
                `gke: ${say.poolOptsOut("Cluster gke nodePools[1] (b)")}`,
            ]);
            expect(await verdict(gke(), pool({ enablePrivateNodes: false }))).toEqual([`tpu: ${say.poolOptsOut("Node pool tpu")}`]);
            // Its cluster public too, but with no pool of its own that inherits: the pool's choice is the one cause.
            expect(await verdict(gke({ privateClusterConfig: undefined }), pool({ enablePrivateNodes: false }))).toEqual([
                `tpu: ${say.poolOptsOut("Node pool tpu")}`,
            ]);
            expect(
                await verdict(gke({ privateClusterConfig: undefined, nodePools: [inline("a", { enablePrivateNodes: false })] })),
            ).toEqual([`gke: ${say.poolOptsOut("Cluster gke nodePools[0] (a)")}`]);
            // Even where its cluster is not in the stack.
            expect(await verdict(pool({ enablePrivateNodes: false }))).toEqual([`tpu: ${say.poolOptsOut("Node pool tpu")}`]);
        });

        test("clean: a private cluster and its pools; a public cluster whose every pool is private by its own networkConfig", async () => {
            expect(await verdict(gke(), pool(), pool({ enablePrivateNodes: true }))).toEqual([]);
            expect(
                await verdict(
                    gke({ removeDefaultNodePool: undefined, nodePools: [inline("a"), inline("b", { enablePrivateNodes: true })] }),
                ),
            ).toEqual([]);
            expect(await verdict(gke({ enableAutopilot: true }))).toEqual([]);
            const open = { privateClusterConfig: undefined };
            expect(await verdict(gke({ ...open, removeDefaultNodePool: true }), pool({ enablePrivateNodes: true }))).toEqual([]);
            expect(
                await verdict(gke({ ...open, nodePools: [inline("a", { enablePrivateNodes: true })] }), pool({ enablePrivateNodes: true })),
            ).toEqual([]);
            // A pool of a cluster in another stack that makes no choice: nothing shows a public address.
            expect(await verdict(pool())).toEqual([]);
        });

        test("preview: a private config unknown until the cluster exists is the SDK's advisory note, no violation", async () => {
            expect((await check(policy, [cluster({ privateClusterConfig: UNKNOWN })])).map((finding) => finding.level)).toEqual([
                "advisory",
            ]);
        });
    });
});
