/**
 * Lesson deletion-protection, the whole category: a cluster outside the throwaway stacks that `pulumi destroy` or a
 * replacement can take (deletionProtection false without Pulumi's `protect`) is caught; the
 * provider's default, deletionProtection true, Pulumi's own protection and throwaway stacks (the default `dev`, or the
 * configured ones) are left alone.
 */
import { DELETION_PROTECTION_MESSAGES as say, requireDeletionProtection as policy } from "../../policies/requireDeletionProtection";
import { cluster, tpuPool } from "../support/fixtures";
import { UNKNOWN, check } from "../support/harness";

describe("the rule", () => {
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
});

describe("every spelling", () => {
    type Obj = Record<string, unknown>;

    const withOptions = (props: Obj, options: Obj, stack = "prod") => ({ ...cluster(props, stack), options });
    const verdict = async (props: Obj, options: Obj = {}, stack = "prod", config = {}) =>
        (await check(policy, [withOptions(props, options, stack)], config)).map((finding) => finding.message);

    describe("lesson deletion-protection: every way the cluster can go with a destroy or a replacement", () => {
        test.each(["prod", "staging", "multihost"])(
            "caught in stack %s: deletionProtection false, with or without other options",
            async (stack) => {
                expect(await verdict({ deletionProtection: false }, {}, stack)).toEqual([say.off("gke", stack, ["dev"])]);
                expect(await verdict({ deletionProtection: false }, { protect: false }, stack)).toEqual([say.off("gke", stack, ["dev"])]);
                expect(await verdict({ deletionProtection: false }, {}, stack, { [policy.name]: { exemptStacks: ["sandbox"] } })).toEqual([
                    say.off("gke", stack, ["sandbox"]),
                ]);
            },
        );

        test("clean: the provider's default, true, Pulumi's protect, throwaway stacks", async () => {
            expect(await verdict({ deletionProtection: undefined })).toEqual([]);
            expect(await verdict({ deletionProtection: true })).toEqual([]);
            expect(await verdict({ deletionProtection: false }, { protect: true })).toEqual([]);
            expect(await verdict({ deletionProtection: false }, {}, "dev")).toEqual([]);
            expect(await verdict({ deletionProtection: false }, {}, "sandbox", { [policy.name]: { exemptStacks: ["sandbox"] } })).toEqual(
                [],
            );
        });
    });
});
