/**
 * Lesson workload-identity, the whole category: a Standard cluster without a workload pool, and any node pool that
 * does not run the GKE metadata server (a NodePool or a pool inline in a Cluster naming GCE_METADATA, MODE_UNSPECIFIED
 * or no mode; the cluster's default pool naming another mode) is caught; GKE_METADATA everywhere, a default pool that
 * takes Workload Identity from its cluster, and an Autopilot cluster are left alone.
 */
import { WORKLOAD_IDENTITY_MESSAGES as say, requireWorkloadIdentity as policy } from "../../../policies/requireWorkloadIdentity";
import { RecordedResource } from "../../../scripts/offline/recorder";
import { cluster, tpuPool } from "../fixtures";
import { check } from "../harness";

type Obj = Record<string, unknown>;

const verdict = async (...resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);
const NOT_GKE = [{ mode: "GCE_METADATA" }, { mode: "MODE_UNSPECIFIED" }, {}, undefined];
const nodes = (metadata: Obj | undefined) => ({ machineType: "e2-standard-4", ...(metadata ? { workloadMetadataConfig: metadata } : {}) });

describe("lesson workload-identity: every way pods can reach the node's credentials", () => {
    test("caught: a cluster without a workload pool", async () => {
        for (const config of [undefined, {}, { workloadPool: "" }]) {
            expect(await verdict(cluster({ workloadIdentityConfig: config }))).toEqual([say.cluster("gke")]);
        }
    });

    test("caught: a NodePool, an inline pool or the default pool not on the GKE metadata server", async () => {
        for (const metadata of NOT_GKE) {
            expect(await verdict(tpuPool({ nodeConfig: nodes(metadata) }))).toEqual([say.pool("Node pool tpu")]);
            expect(
                await verdict(
                    cluster({
                        nodePools: [
                            { name: "cpu", nodeConfig: nodes({ mode: "GKE_METADATA" }) },
                            { name: "tpu", nodeConfig: nodes(metadata) },
                        ],
                    }),
                ),
            ).toEqual([say.pool("Cluster gke nodePools[1] (tpu)")]);
            expect(await verdict(cluster({ nodePools: [{ nodeConfig: nodes(metadata) }] }))).toEqual([
                say.pool("Cluster gke nodePools[0]"),
            ]);
        }
        expect(await verdict(tpuPool({ nodeConfig: undefined }))).toEqual([say.pool("Node pool tpu")]);
        for (const mode of ["GCE_METADATA", "MODE_UNSPECIFIED"]) {
            expect(await verdict(cluster({ removeDefaultNodePool: undefined, nodeConfig: nodes({ mode }) }))).toEqual([
                say.pool("Cluster gke default node pool (nodeConfig)"),
            ]);
        }
    });

    test("clean: GKE_METADATA everywhere, a default pool that takes it from its cluster or is removed, Autopilot", async () => {
        expect(await verdict(cluster(), tpuPool())).toEqual([]);
        expect(await verdict(cluster({ nodePools: [{ name: "tpu", nodeConfig: nodes({ mode: "GKE_METADATA" }) }] }))).toEqual([]);
        expect(await verdict(cluster({ removeDefaultNodePool: undefined, nodeConfig: nodes(undefined) }))).toEqual([]);
        expect(await verdict(cluster({ removeDefaultNodePool: undefined, nodeConfig: nodes({ mode: "GKE_METADATA" }) }))).toEqual([]);
        expect(await verdict(cluster({ nodeConfig: nodes({ mode: "GCE_METADATA" }) }))).toEqual([]);
        expect(await verdict(cluster({ enableAutopilot: true, workloadIdentityConfig: undefined, nodeConfig: undefined }))).toEqual([]);
    });
});
