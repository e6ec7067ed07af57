import { GCP_NAME_RULES } from "@gke-tpu-inference/facts";
import { stackNames } from "../../../components/lib/names";

const VALID = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

describe("stackNames", () => {
    test("a plain stack name goes in as it is: <base>-<stack>-<role>", () => {
        const names = stackNames("tpu-inference", "prod");
        expect(names.name("", GCP_NAME_RULES.compute)).toBe("tpu-inference-prod");
        expect(names.name("nodes", GCP_NAME_RULES.serviceAccount)).toBe("tpu-inference-prod-nodes");
        expect(names.name("", GCP_NAME_RULES.cluster)).toBe("tpu-inference-prod");
    });

    test("a stack name GCP cannot take gets a slug and a hash of the real name, so two such stacks stay apart", () => {
        const upper = stackNames("tpu-inference", "Prod_EU").name("nodes", GCP_NAME_RULES.compute);
        const lower = stackNames("tpu-inference", "prod-eu").name("nodes", GCP_NAME_RULES.compute);
        expect(lower).toBe("tpu-inference-prod-eu-nodes");
        expect(upper).toMatch(/^tpu-inference-prod-eu-[0-9a-f]{4}-nodes$/);
        expect(upper).not.toBe(lower);
    });

    test("a stack name too long for the rule is shortened and hashed, within the limit and distinct from its neighbours", () => {
        const a = stackNames("tpu-inference", "europe-west4-staging-blue").name("nodes", GCP_NAME_RULES.serviceAccount);
        const b = stackNames("tpu-inference", "europe-west4-staging-green").name("nodes", GCP_NAME_RULES.serviceAccount);
        for (const name of [a, b]) {
            expect(name.length).toBeLessThanOrEqual(GCP_NAME_RULES.serviceAccount.maxLength);
            expect(name).toMatch(VALID);
            expect(name).toMatch(/^tpu-inference-europ-[0-9a-f]{4}-nodes$/);
        }
        expect(a).not.toBe(b);
    });

    test("every name is a valid GCP name whatever the stack, and the same stack always gets the same name", () => {
        for (const stack of ["dev", "a", "x".repeat(60), "my.stack", "-odd-", "ÜberStack", "123"]) {
            for (const rule of Object.values(GCP_NAME_RULES)) {
                const name = stackNames("tpu-inference", stack).name("proxy-only", rule);
                expect({ stack, name, valid: VALID.test(name) && name.length <= rule.maxLength }).toEqual({ stack, name, valid: true });
                expect(stackNames("tpu-inference", stack).name("proxy-only", rule)).toBe(name);
            }
        }
    });

    test("a base and role that leave no room for any name fail loudly", () => {
        expect(() => stackNames("tpu-inference-platform", "dev").name("webhooks", GCP_NAME_RULES.serviceAccount)).toThrow(
            'no service account ID name fits 30 characters for base "tpu-inference-platform" and role "webhooks"',
        );
    });
});
