import { requireDeletionProtection as policy } from "../../policies/requireDeletionProtection";
import { cluster, tpuPool } from "./fixtures";
import { UNKNOWN, check } from "./harness";

describe("require-deletion-protection", () => {
    test("passes protection on, and protection off in dev", async () => {
        expect(await check(policy, [cluster()])).toEqual([]);
        expect(await check(policy, [cluster({ deletionProtection: false }, "dev")])).toEqual([]);
    });

    test("fails protection off outside the exempt stacks", async () => {
        expect(await check(policy, [cluster({ deletionProtection: false }, "prod")])).toEqual([
            { level: "mandatory", resource: "gke", message: "Cluster gke turns deletion protection off in stack prod; only dev may." },
        ]);
        expect(
            await check(policy, [cluster({ deletionProtection: false }, "sandbox")], { [policy.name]: { exemptStacks: ["sandbox"] } }),
        ).toEqual([]);
    });

    test("not applicable: node pools", async () => {
        expect(await check(policy, [tpuPool()])).toEqual([]);
    });

    test("preview: an unknown setting is not a violation", async () => {
        expect((await check(policy, [cluster({ deletionProtection: UNKNOWN })]))[0].level).toBe("advisory");
    });
});
