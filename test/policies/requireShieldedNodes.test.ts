import { requireShieldedNodes as policy } from "../../policies/requireShieldedNodes";
import { cluster, tpuPool } from "./fixtures";
import { UNKNOWN, check, resource } from "./harness";

describe("require-shielded-nodes", () => {
    test("passes shielded nodes with Secure Boot, and GKE's default", async () => {
        expect(await check(policy, [cluster(), cluster({ enableShieldedNodes: undefined }), tpuPool()])).toEqual([]);
    });

    test("fails a cluster turning them off and a pool without Secure Boot", async () => {
        expect(
            await check(policy, [cluster({ enableShieldedNodes: false }), tpuPool({ nodeConfig: { machineType: "ct6e-standard-4t" } })]),
        ).toEqual([
            { level: "mandatory", resource: "gke", message: "Cluster gke turns Shielded GKE nodes off (enableShieldedNodes false)." },
            {
                level: "mandatory",
                resource: "tpu",
                message: "Node pool tpu does not enable Secure Boot (nodeConfig.shieldedInstanceConfig.enableSecureBoot).",
            },
        ]);
    });

    test("not applicable: other resources", async () => {
        expect(await check(policy, [resource("gcp:compute/network:Network", "vpc", {})])).toEqual([]);
    });

    test("preview: an unknown node config is not a violation", async () => {
        expect((await check(policy, [tpuPool({ nodeConfig: UNKNOWN })]))[0].level).toBe("advisory");
    });
});
