import { disallowDefaultComputeServiceAccount as policy } from "../../policies/disallowDefaultComputeServiceAccount";
import { cluster, tpuPool } from "./fixtures";
import { UNKNOWN, check, resource } from "./harness";

describe("disallow-default-compute-service-account", () => {
    test("passes a dedicated account on the cluster and its pools", async () => {
        expect(await check(policy, [cluster(), tpuPool()])).toEqual([]);
    });

    test("fails no account, `default` and the Compute Engine default account", async () => {
        expect(await check(policy, [cluster({ nodeConfig: undefined })])).toEqual([
            {
                level: "mandatory",
                resource: "gke",
                message:
                    "Cluster gke runs its nodes as the Compute Engine default service account; set nodeConfig.serviceAccount to a dedicated one.",
            },
        ]);
        for (const serviceAccount of ["default", "123456789-compute@developer.gserviceaccount.com"]) {
            expect(
                (await check(policy, [tpuPool({ nodeConfig: { machineType: "ct6e-standard-4t", serviceAccount } })])).map(
                    (violation) => violation.message,
                ),
            ).toEqual([
                "Node pool tpu runs its nodes as the Compute Engine default service account; set nodeConfig.serviceAccount to a dedicated one.",
            ]);
        }
    });

    test("not applicable: Autopilot and other resources", async () => {
        expect(
            await check(policy, [
                cluster({ enableAutopilot: true, nodeConfig: undefined }),
                resource("gcp:compute/network:Network", "vpc", {}),
            ]),
        ).toEqual([]);
    });

    test("preview: an account not yet known (created in the same update) is not a violation", async () => {
        expect(
            (await check(policy, [tpuPool({ nodeConfig: { machineType: "ct6e-standard-4t", serviceAccount: UNKNOWN } })]))[0].level,
        ).toBe("advisory");
    });
});
