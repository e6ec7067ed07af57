import * as gcp from "@pulumi/gcp";
import { TpuNodePool } from "../../../components/infrastructure/tpuNodePool";
import { parseSettings } from "../../../components/settings/stack";
import { PROJECT, record } from "../../harness";

const CLUSTER_ID = "projects/acme-inference/locations/europe-west4/clusters/gke";
const SERVICE_ACCOUNT = "gke-nodes@acme-inference.iam.gserviceaccount.com";

/** Records a TPU pool built from `config` the way the stack builds it. */
async function poolFor(config: Record<string, string>) {
    const settings = parseSettings(PROJECT, (key) => config[key], "acme-inference");
    let pool: TpuNodePool | undefined;
    const graph = await record(() => {
        pool = new TpuNodePool("tpu", {
            project: settings.project,
            clusterId: CLUSTER_ID,
            region: settings.region,
            zone: settings.zone,
            tpu: settings.tpu,
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
            toleration: { key: "google.com/tpu", operator: "Equal", value: "present", effect: "NoSchedule" },
            chipsPerVm: 8,
            hostsPerSlice: 1,
        });
    });

    test("a multi-host pool publishes its slice's hosts: the pods one replica spans", async () => {
        const { pool } = await poolFor({ tpuTopology: "4x8", tpuMaxNodes: "8" });
        expect(pool.scheduling).toEqual(expect.objectContaining({ chipsPerVm: 4, hostsPerSlice: 8 }));
    });
});
