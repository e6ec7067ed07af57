/**
 * Lesson workload-identity, the whole category: a Standard cluster without a workload pool (once, for it and every pool
 * that inherits it), and any node pool that names a mode other than the GKE metadata server (a NodePool, a pool inline
 * in a Cluster, the cluster's default pool) is caught; GKE_METADATA, or no mode in a cluster with Workload Identity
 * (GKE gives a new pool the GKE metadata server there), an Autopilot cluster, and a removed default pool are left alone.
 */
import { WORKLOAD_IDENTITY_MESSAGES as say, requireWorkloadIdentity as policy } from "../../policies/requireWorkloadIdentity";
import { RecordedResource } from "../../scripts/offline/recorder";
import { cluster, tpuPool } from "../support/fixtures";
import { check, resource } from "../support/harness";

describe("every spelling", () => {
    type Obj = Record<string, unknown>;

    const verdict = async (...resources: RecordedResource[]) =>
        (await check(policy, resources)).map((finding) => `${finding.resource}: ${finding.message}`);
    const UNSET = [{ mode: "MODE_UNSPECIFIED" }, {}, undefined];
    const nodes = (metadata: Obj | undefined) => ({
        machineType: "e2-standard-4",
        ...(metadata ? { workloadMetadataConfig: metadata } : {}),
    });
    const pool = (metadata: Obj | undefined, props: Obj = {}) => tpuPool({ cluster: "gke", nodeConfig: nodes(metadata), ...props });

    describe("lesson workload-identity: every way pods can reach the node's credentials", () => {
        test("caught once, on the cluster: a cluster without a workload pool, however many pools inherit it", async () => {
            for (const config of [undefined, {}, { workloadPool: "" }]) {
                const open = cluster({ name: "gke", workloadIdentityConfig: config, removeDefaultNodePool: undefined });
                expect(await verdict(open)).toEqual([`gke: ${say.cluster("gke")}`]);
                expect(await verdict(open, pool(undefined), pool({ mode: "GCE_METADATA" }))).toEqual([`gke: ${say.cluster("gke")}`]);
                expect(
                    await verdict(
                        cluster({ name: "gke", workloadIdentityConfig: config, nodePools: [{ name: "a", nodeConfig: nodes(undefined) }] }),
                    ),
                ).toEqual([`gke: ${say.cluster("gke")}`]);
            }
        });

        test("caught: a NodePool, an inline pool or the default pool naming GCE_METADATA", async () => {
            const gce = { mode: "GCE_METADATA" };
            expect(await verdict(cluster({ name: "gke" }), pool(gce))).toEqual([`tpu: ${say.pool("Node pool tpu", "GCE_METADATA")}`]);
            expect(
                await verdict(
                    cluster({
                        nodePools: [
                            { name: "cpu", nodeConfig: nodes({ mode: "GKE_METADATA" }) },
                            { name: "tpu", nodeConfig: nodes(gce) },
                        ],
                    }),
                ),
            ).toEqual([`gke: ${say.pool("Cluster gke nodePools[1] (tpu)", "GCE_METADATA")}`]);
            expect(await verdict(cluster({ removeDefaultNodePool: undefined, nodeConfig: nodes(gce) }))).toEqual([
                `gke: ${say.pool("Cluster gke default node pool (nodeConfig)", "GCE_METADATA")}`,
            ]);
            // Its cluster in another stack: its own mode still says so.
            expect(await verdict(pool(gce))).toEqual([`tpu: ${say.pool("Node pool tpu", "GCE_METADATA")}`]);
        });

        test.each(UNSET)(
            "clean: a pool with workloadMetadataConfig %p in a cluster with Workload Identity, by name, id or dependency",
            async (metadata) => {
                const gke = cluster({ name: "gke" });
                expect(await verdict(gke, pool(metadata))).toEqual([]);
                expect(await verdict(gke, pool(metadata, { cluster: "projects/acme/locations/europe-west4/clusters/gke" }))).toEqual([]);
                const awaiting = resource(
                    "gcp:container/nodePool:NodePool",
                    "cpu",
                    { cluster: "unknown-at-preview", nodeConfig: nodes(metadata) },
                    { dependencies: [gke] },
                );
                expect(await verdict(gke, awaiting)).toEqual([]);
                expect(await verdict(cluster({ nodePools: [{ name: "tpu", nodeConfig: nodes(metadata) }] }))).toEqual([]);
                expect(await verdict(cluster({ removeDefaultNodePool: undefined, nodeConfig: nodes(metadata) }))).toEqual([]);
                // Its cluster in another stack: nothing shows a mode other than GKE's.
                expect(await verdict(pool(metadata))).toEqual([]);
            },
        );

        test("clean: GKE_METADATA everywhere, a removed default pool whatever its nodeConfig, Autopilot", async () => {
            expect(await verdict(cluster(), tpuPool())).toEqual([]);
            expect(await verdict(cluster({ removeDefaultNodePool: true, nodeConfig: nodes({ mode: "GCE_METADATA" }) }))).toEqual([]);
            expect(await verdict(cluster({ enableAutopilot: true, workloadIdentityConfig: undefined, nodeConfig: undefined }))).toEqual([]);
        });
    });
});
