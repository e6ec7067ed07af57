import { requirePrivateNodes as policy } from "../../policies/requirePrivateNodes";
import { cluster, tpuPool } from "./fixtures";
import { UNKNOWN, check } from "./harness";

describe("require-private-nodes", () => {
    test("passes private nodes", async () => {
        expect(await check(policy, [cluster()])).toEqual([]);
    });

    test("fails public nodes", async () => {
        expect(await check(policy, [cluster({ privateClusterConfig: undefined })])).toEqual([
            {
                level: "mandatory",
                resource: "gke",
                message: "Cluster gke does not use private nodes (privateClusterConfig.enablePrivateNodes).",
            },
        ]);
    });

    test("not applicable: node pools", async () => {
        expect(await check(policy, [tpuPool()])).toEqual([]);
    });

    test("preview: an unknown private config is not a violation", async () => {
        expect((await check(policy, [cluster({ privateClusterConfig: UNKNOWN })]))[0].level).toBe("advisory");
    });
});
