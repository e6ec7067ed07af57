/**
 * Lesson tpu-zones, the whole category: every way a program can place a TPU v6e node pool (a NodePool's nodeLocations
 * or zonal location, the zones it takes from its cluster, a pool inline in a Cluster with its own or the cluster's
 * nodeLocations or the cluster's zonal location) outside GKE's TPU v6e zones, or nowhere in particular, is caught, and
 * every placement in a supported zone is left alone.
 */
import * as gcp from "@pulumi/gcp";
import { GKE_TPU_V6E_ZONES as SUPPORTED } from "../../policies/facts";
import { TPU_ZONE_MESSAGES as say, requireSupportedTpuZone as policy } from "../../policies/requireSupportedTpuZone";
import { RecordedResource } from "../../scripts/offline/recorder";
import { cluster, tpuPool } from "../support/fixtures";
import { UNKNOWN, check, resource } from "../support/harness";
import { programOf, tpuNodePool } from "../support/lessonObjects";
import { summary, summaryOf, verdict } from "../support/pack";
import { useWorkerPack } from "../workerPack";

describe("the rule", () => {
    describe("require-supported-tpu-zone", () => {
        test("passes a v6e pool in europe-west4-a", async () => {
            expect(await check(policy, [tpuPool()])).toEqual([]);
        });

        test("fails a v6e pool in a TPU VM zone that GKE does not offer", async () => {
            expect(await check(policy, [tpuPool({ nodeLocations: ["us-central1-a"] })])).toEqual([
                {
                    level: "mandatory",
                    resource: "tpu",
                    message:
                        "TPU node pool tpu is placed in us-central1-a, where GKE offers no TPU v6e node pools; allowed: europe-west4-a, us-central1-b, us-east1-d, us-east5-a, us-east5-b, us-south1-a, us-south1-b.",
                },
            ]);
        });

        test("fails a regional v6e pool without node locations", async () => {
            expect((await check(policy, [tpuPool({ nodeLocations: undefined })])).map((violation) => violation.message)).toEqual([
                "TPU node pool tpu names no zone; a regional pool spreads over zones without GKE TPU v6e support. Set nodeLocations to one of europe-west4-a, us-central1-b, us-east1-d, us-east5-a, us-east5-b, us-south1-a, us-south1-b.",
            ]);
        });

        test("takes the zone list from pack config", async () => {
            expect(
                await check(policy, [tpuPool({ nodeLocations: ["asia-northeast1-b"] })], {
                    [policy.name]: { supportedZones: ["asia-northeast1-b"] },
                }),
            ).toEqual([]);
        });

        test("not applicable: CPU pools", async () => {
            expect(
                await check(policy, [
                    resource("gcp:container/nodePool:NodePool", "cpu", {
                        nodeLocations: ["us-central1-a"],
                        nodeConfig: { machineType: "e2-standard-4" },
                    }),
                ]),
            ).toEqual([]);
        });

        test("preview: unknown node locations are not a violation", async () => {
            expect((await check(policy, [tpuPool({ nodeLocations: UNKNOWN })]))[0]).toEqual(
                expect.objectContaining({ level: "advisory", message: expect.stringContaining("can't be known during preview") }),
            );
        });
    });
});

describe("every spelling", () => {
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
                expect(await verdict([pool({ location: UNOFFERED })])).toEqual([
                    say.unsupported("TPU node pool tpu", UNOFFERED, SUPPORTED),
                ]);
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
                expect(await verdict([gke({ location: UNOFFERED }, [cpu, inline()])])).toEqual([
                    say.unsupported(where, UNOFFERED, SUPPORTED),
                ]);
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
            expect(
                await verdict([gke({ nodeLocations: [UNOFFERED] }, [{ nodeConfig: { machineType: "ct5lp-hightpu-4t" } }]), cpu]),
            ).toEqual([]);
        });
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();

    describe("zones: a pool's own, its cluster's, or inline in a Cluster", () => {
        test("zones: a NodePool or a Cluster's inline pool in a zone without TPU v6e", async () => {
            const findings = await verdict(
                pack(),
                programOf(
                    tpuNodePool("ct6e-standard-4t", "us-central1-a"),
                    () =>
                        new gcp.container.Cluster("c", {
                            location: "us-central1",
                            nodePools: [{ name: "tpu", nodeLocations: ["us-central1-f"], nodeConfig: { machineType: "ct6e-standard-4t" } }],
                        }),
                ),
            );
            expect(summaryOf("require-supported-tpu-zone", findings)).toEqual([
                "mandatory require-supported-tpu-zone @c",
                "mandatory require-supported-tpu-zone @tpu",
            ]);
        });

        test("a NodePool without nodeLocations takes its cluster's", async () => {
            const stack = (zone: string) => () => {
                new gcp.container.Cluster("c", { name: "inference", location: "europe-west4", nodeLocations: [zone], initialNodeCount: 1 });
                new gcp.container.NodePool("tpu", {
                    cluster: "projects/acme/locations/europe-west4/clusters/inference",
                    location: "europe-west4",
                    nodeConfig: { machineType: "ct6e-standard-4t" },
                });
            };
            const zoneFindings = async (program: () => unknown) =>
                summary((await verdict(pack(), program)).filter((finding) => finding.policy === "require-supported-tpu-zone"));
            expect(await zoneFindings(stack("europe-west4-a"))).toEqual([]);
            expect(await zoneFindings(stack("europe-west4-b"))).toEqual(["mandatory require-supported-tpu-zone @tpu"]);
        });
    });
});
