import * as gcp from "@pulumi/gcp";
import { TpuNodePool, tpuPoolName } from "../../../components/infrastructure/tpuNodePool";
import { TpuCapacityRung } from "../../../components/settings/capacity";
import { parseSettings } from "../../../components/settings/stack";
import { PROJECT, record } from "../../harness";

const CLUSTER_ID = "projects/acme-inference/locations/europe-west4/clusters/gke";
const SERVICE_ACCOUNT = "gke-nodes@acme-inference.iam.gserviceaccount.com";
/** The stack's own zone, where pools keep the names they had before plans had zones. */
const HOME = "us-east5-a";

/** Records a TPU pool built from `config` the way the stack builds its first option's pool, or the option given. */
async function poolFor(config: Record<string, string>, rung?: { capacity: TpuCapacityRung; minNodes: number; computeClass?: string }) {
    const settings = parseSettings(PROJECT, (key) => config[key], "acme-inference");
    let pool: TpuNodePool | undefined;
    const graph = await record(() => {
        pool = new TpuNodePool("tpu", {
            project: settings.project,
            clusterId: CLUSTER_ID,
            region: settings.region,
            zone: settings.zone,
            tpu: settings.tpu,
            capacity: rung?.capacity ?? settings.tpu.capacity[0],
            minNodes: rung?.minNodes ?? settings.tpu.minNodes,
            computeClass: rung?.computeClass,
            serviceAccountEmail: SERVICE_ACCOUNT,
            paused: settings.paused,
            imageStreaming: settings.coldStart.imageStreaming,
            dependsOn: [
                new gcp.projects.IAMMember("node-role", {
                    project: "acme-inference",
                    role: "roles/container.defaultNodeServiceAccount",
                    member: `serviceAccount:${SERVICE_ACCOUNT}`,
                }),
            ],
        });
    });
    return { resource: graph.get("gcp:container/nodePool:NodePool", "tpu-pool"), pool: pool!, graph };
}

describe("TpuNodePool", () => {
    test("waits for what it is given: the node account's role grant, so TPU nodes never boot without it", async () => {
        const { resource, graph } = await poolFor({});
        expect(graph.dependencyNames(resource)).toEqual(["gcp:projects/iAMMember:IAMMember node-role"]);
    });

    test("the default single-host v6e-4 pool: zone, machine type, autoscaling from zero, no placement policy", async () => {
        const { resource } = await poolFor({});
        expect(resource.inputs).toEqual({
            // The name the provider gives a pool that sets none (the offline preview's, as the engine hands the pack).
            name: "tpu-pool-a5c362f",
            project: "acme-inference",
            location: "europe-west4",
            cluster: CLUSTER_ID,
            nodeLocations: ["europe-west4-a"],
            initialNodeCount: 0,
            autoscaling: { minNodeCount: 0, maxNodeCount: 3 },
            management: { autoRepair: true, autoUpgrade: true },
            nodeConfig: {
                serviceAccount: SERVICE_ACCOUNT,
                oauthScopes: ["https://www.googleapis.com/auth/cloud-platform"],
                shieldedInstanceConfig: { enableSecureBoot: true, enableIntegrityMonitoring: true },
                workloadMetadataConfig: { mode: "GKE_METADATA" },
                machineType: "ct6e-standard-4t",
                spot: false,
                labels: { "gke-tpu-inference/pool": "tpu" },
                gcfsConfig: { enabled: true },
            },
        });
        expect((await poolFor({ imageStreaming: "false" })).resource.inputs.nodeConfig).not.toHaveProperty("gcfsConfig");
        expect(resource.options).toEqual({
            ignoreChanges: ["initialNodeCount"],
            customTimeouts: { create: "90m", update: "90m", delete: "60m" },
        });
    });

    test("declares neither GKE's TPU labels nor its google.com/tpu taint, which GKE sets itself", async () => {
        const { resource } = await poolFor({ tpuTopology: "4x4", tpuMaxNodes: "4" });
        const nodeConfig = resource.inputs.nodeConfig as { labels: Record<string, string>; taints?: unknown };
        expect(Object.keys(nodeConfig.labels).filter((key) => key.startsWith("cloud.google.com/"))).toEqual([]);
        expect(nodeConfig.taints).toBeUndefined();
    });

    test("a multi-host slice gets COMPACT placement with its topology and scales as one slice", async () => {
        const { resource } = await poolFor({ tpuTopology: "4x4", tpuMinNodes: "4", tpuMaxNodes: "4" });
        expect(resource.inputs).toEqual(
            expect.objectContaining({
                placementPolicy: { type: "COMPACT", tpuTopology: "4x4" },
                initialNodeCount: 4,
                autoscaling: { minNodeCount: 4, maxNodeCount: 4 },
            }),
        );
    });

    test("paused: the autoscaler floor drops to 0 and the pool publishes the bounds it set", async () => {
        const running = await poolFor({ tpuMinNodes: "1" });
        expect(running.resource.inputs.autoscaling).toEqual({ minNodeCount: 1, maxNodeCount: 3 });
        expect(running.pool.autoscaling).toEqual({ minNodes: 1, maxNodes: 3 });
        const paused = await poolFor({ tpuMinNodes: "1", paused: "true" });
        expect(paused.resource.inputs.autoscaling).toEqual({ minNodeCount: 0, maxNodeCount: 3 });
        expect(paused.pool.autoscaling).toEqual({ minNodes: 0, maxNodes: 3 });
    });

    test("spot capacity", async () => {
        const { resource } = await poolFor({ tpuProvisioning: "spot" });
        expect((resource.inputs.nodeConfig as Record<string, unknown>).spot).toBe(true);
        expect(resource.inputs.nodeConfig).not.toHaveProperty("reservationAffinity");
    });

    test("a specific reservation", async () => {
        const { resource } = await poolFor({ tpuProvisioning: "reservation", tpuReservation: "trillium-eu" });
        expect(resource.inputs.nodeConfig).toEqual(
            expect.objectContaining({
                spot: false,
                reservationAffinity: {
                    consumeReservationType: "SPECIFIC_RESERVATION",
                    key: "compute.googleapis.com/reservation-name",
                    values: ["trillium-eu"],
                },
            }),
        );
    });

    test("publishes the selector, toleration and chip count a pod needs, from the catalog", async () => {
        const { pool } = await poolFor({ tpuMachineType: "ct6e-standard-8t", zone: "us-east5-a" });
        expect(pool.scheduling).toEqual({
            nodeSelector: { "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "2x4" },
            tolerations: [{ key: "google.com/tpu", operator: "Equal", value: "present", effect: "NoSchedule" }],
            chipsPerVm: 8,
            hostsPerSlice: 1,
        });
    });

    test("a multi-host pool publishes its slice's hosts: the pods one replica spans", async () => {
        const { pool } = await poolFor({ tpuTopology: "4x8", tpuMaxNodes: "8" });
        expect(pool.scheduling).toEqual(expect.objectContaining({ chipsPerVm: 4, hostsPerSlice: 8 }));
    });

    describe("an option of a capacity plan, in a ComputeClass", () => {
        const NODE_CONFIG = {
            serviceAccount: SERVICE_ACCOUNT,
            oauthScopes: ["https://www.googleapis.com/auth/cloud-platform"],
            shieldedInstanceConfig: { enableSecureBoot: true, enableIntegrityMonitoring: true },
            workloadMetadataConfig: { mode: "GKE_METADATA" },
            machineType: "ct6e-standard-4t",
            gcfsConfig: { enabled: true },
        };
        const CLASS_TAINT = [{ key: "cloud.google.com/compute-class", value: "tpu-inference-tpu", effect: "NO_SCHEDULE" }];
        const labels = (capacity: string) => ({
            "gke-tpu-inference/pool": "tpu",
            "cloud.google.com/compute-class": "tpu-inference-tpu",
            "gke-tpu-inference/capacity": capacity,
        });

        test("flex-start: flexStart, its run limit, no reservation, not spot, no auto-repair, from zero; upgrades left to GKE", async () => {
            const { resource, pool } = await poolFor(
                { zone: "us-east5-a" },
                { capacity: { type: "flex-start", maxRunDurationSeconds: 86400 }, minNodes: 0, computeClass: "tpu-inference-tpu" },
            );
            expect(resource.inputs).toEqual({
                name: "tpu-pool-a5c362f",
                project: "acme-inference",
                location: "us-east5",
                cluster: CLUSTER_ID,
                nodeLocations: ["us-east5-a"],
                initialNodeCount: 0,
                autoscaling: { minNodeCount: 0, maxNodeCount: 3 },
                management: { autoRepair: false, autoUpgrade: true },
                nodeConfig: {
                    ...NODE_CONFIG,
                    spot: false,
                    flexStart: true,
                    maxRunDuration: "86400s",
                    reservationAffinity: { consumeReservationType: "NO_RESERVATION" },
                    labels: labels("flex-start"),
                    taints: CLASS_TAINT,
                },
            });
            expect(resource.options).toEqual({
                ignoreChanges: ["initialNodeCount", "upgradeSettings"],
                customTimeouts: { create: "90m", update: "90m", delete: "60m" },
            });
            expect(pool.autoscaling).toEqual({ minNodes: 0, maxNodes: 3 });
        });

        test("spot: spot VMs, no reservation affinity, auto-repair on, the class's label and taint", async () => {
            const { resource } = await poolFor({}, { capacity: { type: "spot" }, minNodes: 0, computeClass: "tpu-inference-tpu" });
            expect(resource.inputs.management).toEqual({ autoRepair: true, autoUpgrade: true });
            expect(resource.inputs.nodeConfig).toEqual({ ...NODE_CONFIG, spot: true, labels: labels("spot"), taints: CLASS_TAINT });
            expect(resource.options.ignoreChanges).toEqual(["initialNodeCount"]);
        });

        test("a specific reservation holds the floor it is given", async () => {
            const { resource } = await poolFor(
                { tpuMinNodes: "1" },
                { capacity: { type: "reservation", name: "trillium-eu" }, minNodes: 1, computeClass: "tpu-inference-tpu" },
            );
            expect(resource.inputs.autoscaling).toEqual({ minNodeCount: 1, maxNodeCount: 3 });
            expect(resource.inputs.initialNodeCount).toBe(1);
            expect(resource.inputs.nodeConfig).toEqual({
                ...NODE_CONFIG,
                spot: false,
                reservationAffinity: {
                    consumeReservationType: "SPECIFIC_RESERVATION",
                    key: "compute.googleapis.com/reservation-name",
                    values: ["trillium-eu"],
                },
                labels: labels("reservation"),
                taints: CLASS_TAINT,
            });
        });

        test("any reservation: fails over to the next option instead of buying on-demand VMs in its own pool", async () => {
            const { resource } = await poolFor(
                {},
                { capacity: { type: "any-reservation" }, minNodes: 0, computeClass: "tpu-inference-tpu" },
            );
            expect(resource.inputs.nodeConfig).toEqual({
                ...NODE_CONFIG,
                spot: false,
                reservationAffinity: { consumeReservationType: "ANY_RESERVATION_THEN_FAIL" },
                labels: labels("any-reservation"),
                taints: CLASS_TAINT,
            });
        });

        test("on-demand in a plan: no affinity, as the one-option pool has, so an existing pool is not replaced", async () => {
            const { resource } = await poolFor({}, { capacity: { type: "on-demand" }, minNodes: 0, computeClass: "tpu-inference-tpu" });
            expect(resource.inputs.nodeConfig).toEqual({ ...NODE_CONFIG, spot: false, labels: labels("on-demand"), taints: CLASS_TAINT });
        });

        test("a multi-host spot option: COMPACT placement and the slice's hosts, from zero", async () => {
            const { resource } = await poolFor(
                { tpuTopology: "4x4", tpuMaxNodes: "4" },
                { capacity: { type: "spot" }, minNodes: 0, computeClass: "tpu-inference-tpu" },
            );
            expect(resource.inputs).toEqual(
                expect.objectContaining({
                    placementPolicy: { type: "COMPACT", tpuTopology: "4x4" },
                    initialNodeCount: 0,
                    autoscaling: { minNodeCount: 0, maxNodeCount: 4 },
                }),
            );
            expect((resource.inputs.nodeConfig as Record<string, unknown>).spot).toBe(true);
        });
    });

    test("pool names: the first option keeps the stack's one TPU pool's name; the others by a short word for their option", () => {
        expect(tpuPoolName("tpu-inference", { type: "spot" }, 0, HOME, HOME)).toBe("tpu-inference-tpu");
        expect(
            [
                { type: "reservation", name: "a-very-long-reservation-name-of-sixty-characters-or-so-xxxxx" } as const,
                { type: "any-reservation" } as const,
                { type: "on-demand" } as const,
                { type: "flex-start", maxRunDurationSeconds: 3600 } as const,
                { type: "spot" } as const,
            ].map((capacity, index) => tpuPoolName("tpu-inference", capacity, index + 1, HOME, HOME)),
        ).toEqual([
            "tpu-inference-res-99c27a",
            "tpu-inference-anyres",
            "tpu-inference-ondemand",
            "tpu-inference-flex",
            "tpu-inference-spot",
        ]);
    });

    test("a reservation's pool is named by its reservation, not its place: an option added before it keeps its pool", () => {
        const trillium = { type: "reservation", name: "trillium" } as const;
        const spare = { type: "reservation", name: "v6e-spare" } as const;
        expect([tpuPoolName("tpu-inference", trillium, 1, HOME, HOME), tpuPoolName("tpu-inference", spare, 2, HOME, HOME)]).toEqual([
            "tpu-inference-res-882b3b",
            "tpu-inference-res-21e972",
        ]);
        // [on-demand, trillium, spare] -> [on-demand, flex-start, spare, trillium]: both reservations keep their pools.
        expect([tpuPoolName("tpu-inference", spare, 2, HOME, HOME), tpuPoolName("tpu-inference", trillium, 3, HOME, HOME)]).toEqual([
            "tpu-inference-res-21e972",
            "tpu-inference-res-882b3b",
        ]);
        // GKE pool names are at most 40 characters: Pulumi adds "-pool" and a 7-character suffix.
        expect(`${tpuPoolName("tpu-inference", trillium, 1, HOME, HOME)}-pool-1234567`.length).toBeLessThanOrEqual(40);
    });

    test("a pool in another zone than the stack's ends with the zone's letter; in the stack's zone it keeps its name", () => {
        const trillium = { type: "reservation", name: "trillium" } as const;
        expect([
            tpuPoolName("tpu-inference", { type: "on-demand" }, 0, HOME, HOME),
            tpuPoolName("tpu-inference", { type: "on-demand" }, 0, "us-east5-b", HOME),
            tpuPoolName("tpu-inference", { type: "spot" }, 1, "us-east5-b", HOME),
            tpuPoolName("tpu-inference", trillium, 2, "us-east5-b", HOME),
            tpuPoolName("tpu-inference", trillium, 2, "us-east5-a", "us-east5-b"),
        ]).toEqual([
            "tpu-inference-tpu",
            "tpu-inference-tpu-b",
            "tpu-inference-spot-b",
            "tpu-inference-res-882b3b-b",
            "tpu-inference-res-882b3b-a",
        ]);
        // The longest, a reservation's pool in another zone, is still a GKE pool name.
        expect(`${tpuPoolName("tpu-inference", trillium, 2, "us-east5-b", HOME)}-pool-1234567`.length).toBeLessThanOrEqual(40);
    });
});
