import * as fs from "fs";
import * as path from "path";
import { PACK_NAME, PACK_VERSION, policies } from "../../policies/pack";

const POLICY_DIR = path.resolve(__dirname, "..", "..", "policies");
const POLICY_FILES = fs.readdirSync(POLICY_DIR).filter((file) => /^(require|disallow|enforce)[A-Z]\w*\.ts$/.test(file));

describe("the policy pack", () => {
    test("lists every policy file once, under its verb-first kebab-case name", () => {
        expect(policies).toHaveLength(POLICY_FILES.length);
        expect(new Set(policies.map((policy) => policy.name)).size).toBe(policies.length);
        for (const file of POLICY_FILES) {
            const exportName = file.replace(/\.ts$/, "");
            const exported = (require(path.join(POLICY_DIR, file)) as Record<string, { name: string }>)[exportName];
            // The pack lists each policy guarded: the same policy, its validations wrapped.
            expect(policies.find((policy) => policy.name === exported.name)).toEqual(
                expect.objectContaining({
                    ...exported,
                    ...("validateStack" in exported ? { validateStack: expect.any(Function) } : { validateResource: expect.any(Array) }),
                }),
            );
            const kebab = exportName.replace(/([A-Z])/g, "-$1").toLowerCase();
            expect(exported.name.replace(/-/g, "")).toBe(kebab.replace(/-/g, ""));
        }
    });

    test("every policy has a sentence of description, a severity, a level and remediation steps", () => {
        for (const policy of policies) {
            expect({ name: policy.name, description: /^[A-Z].+\.$/.test(policy.description) }).toEqual({
                name: policy.name,
                description: true,
            });
            expect(["low", "medium", "high", "critical"]).toContain(policy.severity);
            expect(["mandatory", "advisory"]).toContain(policy.enforcementLevel);
            expect(policy.remediationSteps?.length).toBeGreaterThan(20);
        }
    });

    test("every policy documents the lesson it encodes", () => {
        for (const file of POLICY_FILES) {
            expect({
                file,
                cites: /\/\*\*[\s\S]*?(Seed|Seeds|seed manifests|DESIGN lesson|Security baseline)[\s\S]*?\*\/\s*export const/.test(
                    fs.readFileSync(path.join(POLICY_DIR, file), "utf8"),
                ),
            }).toEqual({
                file,
                cites: true,
            });
        }
    });

    test("facts that change over time are pack config with defaults", () => {
        const schemaOf = (name: string) => policies.find((policy) => policy.name === name)?.configSchema?.properties;
        expect(Object.keys(schemaOf("require-supported-tpu-zone")!)).toEqual(["supportedZones"]);
        expect(Object.keys(schemaOf("require-regional-gateway-class-for-inference")!)).toEqual(["allowedGatewayClasses"]);
        expect(schemaOf("require-fixed-endpoint-picker-image")!.minimumVersions.default).toEqual({
            "llm-d-router-endpoint-picker": "0.9.0",
            "llm-d-inference-scheduler": "0.7.0",
        });
    });

    test("name and version come from the pack's own files", () => {
        expect(PACK_NAME).toBe("gke-tpu-inference");
        expect(PACK_VERSION).toBe(JSON.parse(fs.readFileSync(path.join(POLICY_DIR, "package.json"), "utf8")).version);
        expect(fs.readFileSync(path.join(POLICY_DIR, "index.ts"), "utf8")).toContain("new PolicyPack(PACK_NAME, { policies })");
    });
});
