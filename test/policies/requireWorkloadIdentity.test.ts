import { requireWorkloadIdentity as policy } from "../../policies/requireWorkloadIdentity";
import { cluster, tpuPool } from "./fixtures";
import { UNKNOWN, check, resource } from "./harness";

describe("require-workload-identity", () => {
    test("passes a cluster with a workload pool and pools on the GKE metadata server", async () => {
        expect(await check(policy, [cluster(), tpuPool()])).toEqual([]);
    });

    test("fails the cluster and the pool separately", async () => {
        expect(
            await check(policy, [
                cluster({ workloadIdentityConfig: undefined }),
                tpuPool({ nodeConfig: { machineType: "ct6e-standard-4t" } }),
            ]),
        ).toEqual([
            {
                level: "mandatory",
                resource: "gke",
                message: "Cluster gke does not enable Workload Identity (workloadIdentityConfig.workloadPool).",
            },
            {
                level: "mandatory",
                resource: "tpu",
                message: "Node pool tpu does not run the GKE metadata server (nodeConfig.workloadMetadataConfig.mode GKE_METADATA).",
            },
        ]);
    });

    test("not applicable: other resources", async () => {
        expect(await check(policy, [resource("gcp:compute/network:Network", "vpc", {})])).toEqual([]);
    });

    test("preview: an unknown workload pool is not a violation", async () => {
        expect((await check(policy, [cluster({ workloadIdentityConfig: UNKNOWN })]))[0].level).toBe("advisory");
    });
});
