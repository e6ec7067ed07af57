/**
 * Lesson tpu-zones, the whole category: every way a program can place a TPU v6e node pool (a NodePool's nodeLocations
 * or zonal location, the zones it takes from its cluster, a pool inline in a Cluster with its own or the cluster's
 * nodeLocations or the cluster's zonal location) outside GKE's TPU v6e zones, or nowhere in particular, is caught, and
 * every placement in a supported zone is left alone.
 */
import { TPU_ZONE_MESSAGES as say, requireSupportedTpuZone as policy } from "../../../policies/requireSupportedTpuZone";
import { GKE_TPU_V6E_ZONES as SUPPORTED } from "../../../policies/facts";
import { RecordedResource } from "../../../scripts/offline/recorder";
import { cluster, tpuPool } from "../fixtures";
import { check, resource } from "../harness";

type Obj = Record<string, unknown>;

const OFFERED = "europe-west4-a";
const UNOFFERED = "us-central1-a";
const TPU_NODES = { machineType: "ct6e-standard-4t" };

const verdict = async (resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);
/** A standalone TPU pool with `placement` instead of the fixture's, in cluster `gke`. */
const pool = (placement: Obj) => tpuPool({ location: undefined, nodeLocations: undefined, cluster: "gke", ...placement });
/** Cluster `gke` placed by `placement`, with `pools` inline. */
const gke = (placement: Obj, pools: Obj[] = []) =>
    cluster({ name: "gke", location: "europe-west4", ...placement, ...(pools.length > 0 ? { nodePools: pools } : {}) });

describe("lesson tpu-zones: every way a TPU v6e node pool lands outside GKE's TPU v6e zones", () => {
    describe("a NodePool", () => {
        test("caught: nodeLocations outside the zones (each one), a zonal location outside them, no zone at all", async () => {
            expect(await verdict([pool({ nodeLocations: [UNOFFERED] })])).toEqual([
                say.unsupported("TPU node pool tpu", UNOFFERED, SUPPORTED),
            ]);
            expect(await verdict([pool({ nodeLocations: [OFFERED, UNOFFERED, "us-east1-b"] })])).toEqual([
                say.unsupported("TPU node pool tpu", UNOFFERED, SUPPORTED),
                say.unsupported("TPU node pool tpu", "us-east1-b", SUPPORTED),
            ]);
            expect(await verdict([pool({ location: UNOFFERED })])).toEqual([say.unsupported("TPU node pool tpu", UNOFFERED, SUPPORTED)]);
            expect(await verdict([pool({ location: "europe-west4" })])).toEqual([say.noZone("TPU node pool tpu", SUPPORTED)]);
            expect(await verdict([pool({ location: "europe-west4", nodeLocations: [] })])).toEqual([
                say.noZone("TPU node pool tpu", SUPPORTED),
            ]);
        });

        test("caught: a pool without zones of its own takes its cluster's (nodeLocations, zonal location), by name or id", async () => {
            for (const ref of ["gke", "projects/acme/locations/europe-west4/clusters/gke"]) {
                expect(await verdict([gke({ nodeLocations: [UNOFFERED] }), pool({ location: "us-central1", cluster: ref })])).toEqual([
                    say.unsupported("TPU node pool tpu", UNOFFERED, SUPPORTED),
                ]);
            }
            expect(await verdict([gke({ location: UNOFFERED }), pool({ location: UNOFFERED.slice(0, -2) })])).toEqual([
                say.unsupported("TPU node pool tpu", UNOFFERED, SUPPORTED),
            ]);
            expect(await verdict([gke({}), pool({ location: "europe-west4" })])).toEqual([say.noZone("TPU node pool tpu", SUPPORTED)]);
        });

        test("clean: every supported zone, by nodeLocations, zonal location or the cluster's; its own zones over the cluster's", async () => {
            for (const zone of SUPPORTED) {
                expect(await verdict([pool({ nodeLocations: [zone] })])).toEqual([]);
                expect(await verdict([pool({ location: zone })])).toEqual([]);
                expect(await verdict([gke({ nodeLocations: [zone] }), pool({ location: zone.slice(0, -2) })])).toEqual([]);
            }
            expect(await verdict([gke({ nodeLocations: [UNOFFERED] }), pool({ nodeLocations: [OFFERED] })])).toEqual([]);
            expect(await verdict([gke({ location: OFFERED }), pool({ location: "europe-west4" })])).toEqual([]);
        });
    });

    describe("a pool inline in a Cluster (nodePools)", () => {
        const inline = (placement: Obj = {}) => ({ name: "tpu", nodeConfig: TPU_NODES, ...placement });
        const where = "TPU node pool gke (nodePools[1])";

        test("caught: its own nodeLocations, the cluster's nodeLocations, the cluster's zonal location, no zone at all", async () => {
            const cpu = { name: "cpu", nodeConfig: { machineType: "e2-standard-4" } };
            expect(await verdict([gke({}, [cpu, inline({ nodeLocations: [UNOFFERED] })])])).toEqual([
                say.unsupported(where, UNOFFERED, SUPPORTED),
            ]);
            expect(await verdict([gke({ nodeLocations: [UNOFFERED] }, [cpu, inline()])])).toEqual([
                say.unsupported(where, UNOFFERED, SUPPORTED),
            ]);
            expect(await verdict([gke({ location: UNOFFERED }, [cpu, inline()])])).toEqual([say.unsupported(where, UNOFFERED, SUPPORTED)]);
            expect(await verdict([gke({}, [cpu, inline()])])).toEqual([say.noZone(where, SUPPORTED)]);
        });

        test("clean: a supported zone by any of them; its own nodeLocations over the cluster's", async () => {
            expect(await verdict([gke({}, [inline({ nodeLocations: [OFFERED] })])])).toEqual([]);
            expect(await verdict([gke({ nodeLocations: [OFFERED] }, [inline()])])).toEqual([]);
            expect(await verdict([gke({ location: OFFERED }, [inline()])])).toEqual([]);
            expect(await verdict([gke({ nodeLocations: [UNOFFERED] }, [inline({ nodeLocations: [OFFERED] })])])).toEqual([]);
        });
    });

    test("pools off TPU v6e are not this lesson's, wherever they are", async () => {
        const cpu = resource("gcp:container/nodePool:NodePool", "cpu", {
            location: UNOFFERED,
            nodeConfig: { machineType: "e2-standard-4" },
        });
        expect(await verdict([gke({ nodeLocations: [UNOFFERED] }, [{ nodeConfig: { machineType: "ct5lp-hightpu-4t" } }]), cpu])).toEqual(
            [],
        );
    });
});
