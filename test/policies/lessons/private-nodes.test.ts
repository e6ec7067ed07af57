/**
 * Lesson private-nodes, the whole category: nodes with public IP addresses are caught however a program gives them:
 * a cluster without private nodes running a default pool, inline pools or Autopilot nodes, a pool (inline or NodePool)
 * opting out with networkConfig.enablePrivateNodes false, a NodePool of a public cluster that does not opt in. Private
 * nodes either way (the cluster's privateClusterConfig, or every pool's networkConfig) are left alone.
 */
import { PRIVATE_NODES_MESSAGES as say, requirePrivateNodes as policy } from "../../../policies/requirePrivateNodes";
import { RecordedResource } from "../../../scripts/offline/recorder";
import { cluster, tpuPool } from "../fixtures";
import { check } from "../harness";

type Obj = Record<string, unknown>;

const verdict = async (...resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);
const PUBLIC = [undefined, {}, { enablePrivateNodes: false }, { enablePrivateEndpoint: false }];
const gke = (props: Obj = {}) => cluster({ name: "gke", ...props });
const pool = (networkConfig?: Obj) => tpuPool({ cluster: "gke", ...(networkConfig ? { networkConfig } : {}) });
const inline = (name: string, networkConfig?: Obj) => ({
    name,
    nodeConfig: { machineType: "e2-standard-4" },
    ...(networkConfig ? { networkConfig } : {}),
});

describe("lesson private-nodes: every way a node gets a public IP address", () => {
    test.each(PUBLIC)(
        "caught: a cluster with privateClusterConfig %p running its default pool, public inline pools or Autopilot",
        async (config) => {
            const open = { privateClusterConfig: config };
            expect(await verdict(gke({ ...open, removeDefaultNodePool: undefined }))).toEqual([say.cluster("gke")]);
            expect(await verdict(gke({ ...open, nodePools: [inline("a", { enablePrivateNodes: true }), inline("b")] }))).toEqual([
                say.cluster("gke"),
            ]);
            expect(await verdict(gke({ ...open, nodePools: [inline("a", { enablePrivateNodes: false })] }))).toEqual([say.cluster("gke")]);
            expect(await verdict(gke({ ...open, enableAutopilot: true, nodePools: [inline("a", { enablePrivateNodes: true })] }))).toEqual([
                say.cluster("gke"),
            ]);
        },
    );

    test("caught: a pool that opts out of a private cluster, inline or a NodePool", async () => {
        expect(await verdict(gke({ nodePools: [inline("a"), inline("b", { enablePrivateNodes: false })] }))).toEqual([
            say.poolOptsOut("Cluster gke nodePools[1] (b)"),
        ]);
        expect(await verdict(gke(), pool({ enablePrivateNodes: false }))).toEqual([say.poolOptsOut("Node pool tpu")]);
        // Even where its cluster is not in the stack.
        expect(await verdict(pool({ enablePrivateNodes: false }))).toEqual([say.poolOptsOut("Node pool tpu")]);
    });

    test("caught: a NodePool of a public cluster that does not opt in, by the cluster's name or id", async () => {
        const open = gke({ privateClusterConfig: undefined });
        expect(await verdict(open, pool())).toEqual([say.cluster("gke"), say.poolOfPublicCluster("Node pool tpu", "gke")]);
        expect(await verdict(open, tpuPool({ cluster: "projects/acme/locations/europe-west4/clusters/gke", networkConfig: {} }))).toEqual([
            say.cluster("gke"),
            say.poolOfPublicCluster("Node pool tpu", "gke"),
        ]);
    });

    test("clean: a private cluster and its pools; a public cluster whose every pool is private by its own networkConfig", async () => {
        expect(await verdict(gke(), pool(), pool({ enablePrivateNodes: true }))).toEqual([]);
        expect(
            await verdict(gke({ removeDefaultNodePool: undefined, nodePools: [inline("a"), inline("b", { enablePrivateNodes: true })] })),
        ).toEqual([]);
        expect(await verdict(gke({ enableAutopilot: true }))).toEqual([]);
        const open = { privateClusterConfig: undefined };
        expect(await verdict(gke({ ...open, removeDefaultNodePool: true }), pool({ enablePrivateNodes: true }))).toEqual([]);
        expect(
            await verdict(gke({ ...open, nodePools: [inline("a", { enablePrivateNodes: true })] }), pool({ enablePrivateNodes: true })),
        ).toEqual([]);
    });
});
