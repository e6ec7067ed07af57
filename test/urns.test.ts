/**
 * Rename safety: a resource's URN is its identity in the stack's state, derived from its type, its name and its
 * parents' types. A change that alters one makes `pulumi up` delete the old resource and create a new one (for the
 * cluster, the VPC and the TPU pool, a rebuild of the platform) unless the resource declares the old URN in
 * `aliases`. This snapshot of the shipped stacks' URNs changes only on purpose: update it with `npx jest -u`
 * together with the aliases that keep the old resources.
 */
import { shippedRun } from "./shippedStacks";

describe.each(["dev", "prod"])("the %s stack's URNs", (stack) => {
    test("are the ones its state holds", async () => {
        const run = await shippedRun(stack);
        expect(run.resources.map((resource) => resource.urn).sort()).toMatchSnapshot();
    });
});
