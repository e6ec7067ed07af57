import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { SETTINGS, parseSettings } from "../../../components/settings/stack";
import { hasConfigType, loadProject } from "../../../scripts/offline/project";
import { settingsDocs } from "../../../scripts/docs/settings";

const ROOT = path.resolve(__dirname, "..", "..", "..");

describe("the settings' declarations are the one source of docs/reference/settings.md's tables and Pulumi.yaml's config block", () => {
    test.each(settingsDocs().map((doc) => [doc.file, doc] as const))("%s is current (npm run docs:settings writes it)", (_, doc) => {
        expect(doc.current).toBe(doc.expected);
    });

    test("Pulumi.yaml declares every setting with a type the CLI knows and a default of that type", () => {
        const config = (
            parse(fs.readFileSync(path.join(ROOT, "Pulumi.yaml"), "utf8")) as {
                config: Record<string, { type: string; items?: { type: string }; default: unknown }>;
            }
        ).config;
        expect(Object.keys(config)).toEqual(Object.keys(SETTINGS));
        for (const [key, declaration] of Object.entries(config)) {
            expect({ key, valid: hasConfigType(declaration.type, declaration.items, declaration.default) }).toEqual({ key, valid: true });
        }
    });

    test("the program reads Pulumi.yaml's defaults, as the CLI hands them over, as its own defaults", () => {
        const project = loadProject(ROOT, "defaults", [], [], true);
        const fromCli = parseSettings("gke-tpu-inference", (key) => project.config[`gke-tpu-inference:${key}`], "acme-inference", {
            keys: Object.keys(project.config),
        });
        expect(fromCli).toEqual(parseSettings("gke-tpu-inference", () => undefined, "acme-inference"));
    });
});
