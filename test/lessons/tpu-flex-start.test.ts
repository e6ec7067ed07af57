/**
 * Lesson tpu-flex-start, the whole category: a flex-start node pool (nodeConfig.flexStart), standalone or inline in a
 * Cluster, without what GKE requires of one is caught, each missing requirement in its own words and every spelling of
 * it; a pool as GKE wants it, the stack's own flex-start pool and pools that are not flex-start are left alone.
 */
import { TpuNodePool } from "../../components/infrastructure/tpuNodePool";
import { parseSettings } from "../../components/settings/stack";
import { requireFlexStartPoolSettings as policy } from "../../policies/requireFlexStartPoolSettings";
import { RecordedResource } from "../../scripts/offline/recorder";
import { PROJECT, record } from "../harness";
import { check, resource } from "../support/harness";

describe("every spelling", () => {
    type Obj = Record<string, unknown>;

    /** A flex-start pool as GKE requires it, with `change` merged over it (nodeConfig merged key by key). */
    function flexPool(change: Obj = {}, nodeConfig: Obj = {}): RecordedResource {
        return resource("gcp:container/nodePool:NodePool", "flex", {
            location: "us-east5",
            nodeLocations: ["us-east5-a"],
            initialNodeCount: 0,
            autoscaling: { minNodeCount: 0, maxNodeCount: 3 },
            management: { autoRepair: false, autoUpgrade: true },
            nodeConfig: {
                machineType: "ct6e-standard-4t",
                flexStart: true,
                maxRunDuration: "86400s",
                reservationAffinity: { consumeReservationType: "NO_RESERVATION" },
                ...nodeConfig,
            },
            ...change,
        });
    }

    const verdict = async (resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);
    const SUBJECT = "Node pool flex is a flex-start pool (nodeConfig.flexStart)";

    describe("lesson tpu-flex-start: what GKE requires of a flex-start node pool", () => {
        test.each<[string, Obj, Obj, string]>([
            [
                "auto-repair on",
                { management: { autoRepair: true, autoUpgrade: true } },
                {},
                "with management.autoRepair true; GKE requires auto-repair off",
            ],
            [
                "auto-repair left unset",
                { management: { autoUpgrade: true } },
                {},
                "with management.autoRepair unset; GKE requires auto-repair off",
            ],
            ["no management block", { management: undefined }, {}, "with management.autoRepair unset"],
            [
                "any reservation",
                {},
                { reservationAffinity: { consumeReservationType: "ANY_RESERVATION" } },
                "consumeReservationType ANY_RESERVATION; a flex-start pool must consume no reservation: set it to NO_RESERVATION.",
            ],
            [
                "a specific reservation",
                {},
                {
                    reservationAffinity: {
                        consumeReservationType: "SPECIFIC_RESERVATION",
                        key: "compute.googleapis.com/reservation-name",
                        values: ["r"],
                    },
                },
                "consumeReservationType SPECIFIC_RESERVATION",
            ],
            ["no reservation affinity", {}, { reservationAffinity: undefined }, "consumeReservationType unset"],
            [
                "spot",
                {},
                { spot: true },
                "and spot (nodeConfig.spot); flex-start is incompatible with spot and preemptible VMs: drop nodeConfig.spot.",
            ],
            [
                "preemptible",
                {},
                { preemptible: true },
                "and preemptible (nodeConfig.preemptible); flex-start is incompatible with spot and preemptible VMs: drop nodeConfig.preemptible.",
            ],
            [
                "a fixed node count",
                { nodeCount: 2, autoscaling: undefined },
                {},
                "with a fixed nodeCount of 2; a flex-start pool is sized by the autoscaler alone",
            ],
            [
                "no autoscaling",
                { autoscaling: undefined },
                {},
                "without autoscaling; a flex-start pool is sized by the autoscaler alone: set autoscaling with a minimum of 0.",
            ],
            [
                "a per-zone floor",
                { autoscaling: { minNodeCount: 1, maxNodeCount: 3 } },
                {},
                "that keeps at least 1 node (autoscaling.minNodeCount or totalMinNodeCount); a flex-start pool scales from 0",
            ],
            ["a total floor", { autoscaling: { totalMinNodeCount: 2, totalMaxNodeCount: 3 } }, {}, "that keeps at least 2 nodes"],
            [
                "a run limit of 0",
                {},
                { maxRunDuration: "0s" },
                'with nodeConfig.maxRunDuration "0s"; a flex-start node runs "1s" to "604800s"',
            ],
            ["a run limit over seven days", {}, { maxRunDuration: "604801s" }, 'with nodeConfig.maxRunDuration "604801s"'],
            ["a run limit without its unit", {}, { maxRunDuration: "3600" }, 'with nodeConfig.maxRunDuration "3600"'],
            ["a run limit in hours", {}, { maxRunDuration: "24h" }, 'with nodeConfig.maxRunDuration "24h"'],
        ])("%s is caught, alone", async (_, change, nodeConfig, message) => {
            const messages = await verdict([flexPool(change, nodeConfig)]);
            expect(messages).toEqual([expect.stringContaining(message)]);
            expect(messages[0].startsWith(SUBJECT)).toBe(true);
        });

        test("every requirement missing at once: one violation each", async () => {
            const messages = await verdict([
                flexPool(
                    { management: { autoRepair: true }, nodeCount: 1, autoscaling: { minNodeCount: 1 } },
                    { spot: true, reservationAffinity: { consumeReservationType: "ANY_RESERVATION" }, maxRunDuration: undefined },
                ),
            ]);
            expect(messages.map((message) => message.slice(SUBJECT.length + 1).split(";")[0])).toEqual([
                "with management.autoRepair true",
                "with nodeConfig.reservationAffinity.consumeReservationType ANY_RESERVATION",
                "and spot (nodeConfig.spot)",
                "with a fixed nodeCount of 1",
                "that keeps at least 1 node (autoscaling.minNodeCount or totalMinNodeCount)",
            ]);
        });

        test("no run limit is GKE's default of seven days, a choice rather than an error: left alone", async () => {
            expect(await verdict([flexPool({}, { maxRunDuration: undefined })])).toEqual([]);
        });

        test("a flex-start pool inline in a Cluster is judged the same way", async () => {
            const cluster = resource("gcp:container/cluster:Cluster", "gke", {
                location: "us-east5",
                nodePools: [
                    { name: "system", nodeConfig: { machineType: "e2-standard-4" } },
                    {
                        name: "flex",
                        nodeConfig: {
                            machineType: "ct6e-standard-4t",
                            flexStart: true,
                            reservationAffinity: { consumeReservationType: "NO_RESERVATION" },
                            maxRunDuration: "3600s",
                        },
                        autoscaling: { minNodeCount: 0, maxNodeCount: 2 },
                    },
                ],
            });
            expect(await verdict([cluster])).toEqual([
                "Cluster gke (nodePools[1] flex) is a flex-start pool (nodeConfig.flexStart) with management.autoRepair unset; GKE requires auto-repair off on a flex-start pool: set management.autoRepair false.",
            ]);
        });

        describe("left alone", () => {
            test.each<[string, Obj, Obj]>([
                ["as GKE requires it", {}, {}],
                ["a run limit of one second", {}, { maxRunDuration: "1s" }],
                ["a run limit of seven days", {}, { maxRunDuration: "604800s" }],
                ["total bounds from 0", { autoscaling: { totalMinNodeCount: 0, totalMaxNodeCount: 4, locationPolicy: "ANY" } }, {}],
                ["spot spelled false", {}, { spot: false }],
            ])("a flex-start pool %s", async (_, change, nodeConfig) => {
                expect(await verdict([flexPool(change, nodeConfig)])).toEqual([]);
            });

            test("pools that are not flex-start, whatever their repair, reservation, spot and size", async () => {
                expect(
                    await verdict([
                        flexPool(
                            { management: { autoRepair: true }, nodeCount: 3, autoscaling: undefined },
                            { flexStart: false, spot: true, maxRunDuration: undefined },
                        ),
                        resource("gcp:container/nodePool:NodePool", "plain", {
                            nodeCount: 1,
                            nodeConfig: { machineType: "ct6e-standard-4t" },
                        }),
                    ]),
                ).toEqual([]);
            });

            test("the stack's own flex-start pool (tpuCapacity with a flex-start option)", async () => {
                const settings = parseSettings(PROJECT, (key) => ({ region: "us-east5", zone: "us-east5-a" })[key], "acme-inference");
                const graph = await record(() => {
                    new TpuNodePool("tpu", {
                        project: settings.project,
                        clusterId: "projects/acme-inference/locations/us-east5/clusters/gke",
                        region: "us-east5",
                        zone: "us-east5-a",
                        tpu: settings.tpu,
                        capacity: { type: "flex-start", maxRunDurationSeconds: 86400 },
                        minNodes: 0,
                        computeClass: "tpu-inference-tpu",
                        serviceAccountEmail: "gke-nodes@acme-inference.iam.gserviceaccount.com",
                        imageStreaming: true,
                        dependsOn: [],
                    });
                });
                const pool = graph.get("gcp:container/nodePool:NodePool", "tpu-pool");
                expect((pool.inputs.nodeConfig as Obj).flexStart).toBe(true);
                expect(await verdict([pool])).toEqual([]);
            });
        });
    });
});
