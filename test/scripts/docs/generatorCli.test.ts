import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { CliError, EXIT, parseCli } from "../../../scripts/cli";
import { CORPUS_DOCS_CLI } from "../../../scripts/docs/corpus";
import { OUTPUTS_DOCS_CLI } from "../../../scripts/docs/outputs";
import { GeneratedFile, writeGenerated } from "../../../scripts/docs/generatorCli";
import { LESSONS_DOCS_CLI } from "../../../scripts/docs/lessons";
import { SETTINGS_DOCS_CLI } from "../../../scripts/docs/settings";
import { runCli } from "../../cli";

const GENERATORS = [
    ["docs:lessons", "docs/lessons.ts", LESSONS_DOCS_CLI],
    ["docs:settings", "docs/settings.ts", SETTINGS_DOCS_CLI],
    ["docs:outputs", "docs/outputs.ts", OUTPUTS_DOCS_CLI],
    ["docs:corpus", "docs/corpus.ts", CORPUS_DOCS_CLI],
] as const;

describe("the docs generators' command line", () => {
    test.each(GENERATORS)("npm run %s takes --check and --help; an unknown option is a usage error naming it", (script, _file, spec) => {
        expect(parseCli(spec, ["--check"])).toEqual({ check: true });
        expect(parseCli(spec, ["--help"])).toEqual({ help: true });
        expect(() => parseCli(spec, ["--chek"])).toThrow(
            new CliError(`Unknown option '--chek'; npm run ${script} -- --help lists the options`),
        );
        expect(() => parseCli(spec, ["docs"])).toThrow(CliError);
    });

    test("each command prints its help and exits 0, and stops at an unknown option in one line with exit 2, writing nothing", async () => {
        const runs = await Promise.all(GENERATORS.flatMap(([, file]) => [runCli(file, ["--help"]), runCli(file, ["--chek"])]));
        GENERATORS.forEach(([script], index) => {
            const [help, unknown] = runs.slice(index * 2, index * 2 + 2);
            expect([help.status, help.stdout.split("\n")[0], help.stderr]).toEqual([0, `usage: npm run ${script} -- [--check]`, ""]);
            expect(help.stdout).toContain(`npm run ${script} -- --check`);
            expect(unknown).toEqual({
                status: 2,
                stdout: "",
                stderr: `error: Unknown option '--chek'; npm run ${script} -- --help lists the options\n`,
            });
        });
    });
});

describe("writing the generated files", () => {
    let root: string;
    let files: GeneratedFile[];
    beforeEach(() => {
        root = fs.mkdtempSync(path.join(os.tmpdir(), "generated-"));
        fs.mkdirSync(path.join(root, "docs"));
        fs.writeFileSync(path.join(root, "docs", "current.md"), "same\n");
        fs.writeFileSync(path.join(root, "docs", "stale.md"), "old\n");
        fs.writeFileSync(path.join(root, "docs", "gone.md"), "removed policy\n");
        files = [
            { file: "docs/current.md", current: "same\n", expected: "same\n" },
            { file: "docs/stale.md", current: "old\n", expected: "new\n" },
            { file: "docs/new/page.md", current: undefined, expected: "page\n" },
            { file: "docs/gone.md", current: "removed policy\n", expected: undefined },
        ];
    });

    test("writes the stale files, creates the new, removes the gone, leaves the current alone, a line each", () => {
        const printed: string[] = [];
        expect(writeGenerated(root, "docs:lessons", files, false, (text) => printed.push(text))).toBe(EXIT.ok);
        expect(printed).toEqual(["wrote docs/stale.md\n", "wrote docs/new/page.md\n", "removed docs/gone.md\n"]);
        expect(fs.readFileSync(path.join(root, "docs", "stale.md"), "utf8")).toBe("new\n");
        expect(fs.readFileSync(path.join(root, "docs", "new", "page.md"), "utf8")).toBe("page\n");
        expect(fs.existsSync(path.join(root, "docs", "gone.md"))).toBe(false);
    });

    test("--check writes nothing: exit 1 naming the stale files and the command, exit 0 when none is", () => {
        const printed: string[] = [];
        let thrown: unknown;
        try {
            writeGenerated(root, "docs:lessons", files, true, (text) => printed.push(text));
        } catch (err) {
            thrown = err;
        }
        expect(thrown).toBeInstanceOf(CliError);
        expect(thrown).toMatchObject({
            message: "stale: docs/stale.md, docs/new/page.md, docs/gone.md; run npm run docs:lessons",
            exitCode: EXIT.failed,
        });
        expect(printed).toEqual([]);
        expect(fs.readFileSync(path.join(root, "docs", "stale.md"), "utf8")).toBe("old\n");
        expect(writeGenerated(root, "docs:lessons", files.slice(0, 1), true, () => undefined)).toBe(EXIT.ok);
    });
});
