import * as fs from "fs";
import * as path from "path";

const ROOT = path.resolve(__dirname, "..");

interface Rule {
    matchPackageNames?: string[];
    allowedVersions?: string;
    enabled?: boolean;
    groupName?: string;
}

describe("dependency updates know the pins' reasons", () => {
    const config = JSON.parse(fs.readFileSync(path.join(ROOT, "renovate.json"), "utf8")) as { packageRules: Rule[] };
    const rulesFor = (name: string) => config.packageRules.filter((rule) => rule.matchPackageNames?.includes(name));
    const pinned = (file: string) =>
        JSON.parse(fs.readFileSync(path.join(ROOT, file), "utf8")) as {
            dependencies: Record<string, string>;
            devDependencies?: Record<string, string>;
            overrides?: Record<string, string>;
            engines?: Record<string, string>;
        };

    test("the Pulumi SDK and providers are one group", () => {
        const group = rulesFor("@pulumi/gcp").find((rule) => rule.groupName)!;
        expect(group.matchPackageNames).toEqual([
            "@pulumi/pulumi",
            "@pulumi/gcp",
            "@pulumi/kubernetes",
            "@pulumi/random",
            "@pulumi/policy",
        ]);
    });

    test("nothing is proposed that cannot install here: client-node's Node floor, types of the oldest Node, the native bindings", () => {
        const root = pinned("package.json");
        expect(rulesFor("@pulumi/pulumi").filter((rule) => rule.allowedVersions)).toEqual([]);
        expect(pinned("policies/package.json").dependencies["@pulumi/pulumi"]).toBe(root.dependencies["@pulumi/pulumi"]);
        expect(rulesFor("@kubernetes/client-node")[0].allowedVersions).toBe("<2");
        expect(root.dependencies["@kubernetes/client-node"]).toMatch(/^1\./);
        expect(rulesFor("@types/node")[0].allowedVersions).toBe("<23");
        expect(root.devDependencies!["@types/node"]).toMatch(/^22\./);
        expect(root.engines!.node).toBe("^22.13.0 || >=24");
        expect(pinned("policies/package.json").engines!.node).toBe(root.engines!.node);
        expect(rulesFor("@swc/core")[0].enabled).toBe(false);
        expect(rulesFor("unrs-resolver")[0].enabled).toBe(false);
        expect(root.overrides).toEqual({ "unrs-resolver": "1.12.2" });
    });
});
