import { requireSupportedTpuZone as policy } from "../../policies/requireSupportedTpuZone";
import { tpuPool } from "./fixtures";
import { UNKNOWN, check, resource } from "./harness";

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
