import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { CHECK_CONFIG, finishTypecheck, runAsTestCommand, startTypecheck } from "./typecheck";

describe("npm test's type-check beside the tests", () => {
    /**
     * A project of one file, `source`, which reads a dependency's type, with the repository's target, library and
     * strictness and its type-check's configuration (tsconfig.check.json), and none of its ambient types: TypeScript's
     * default library (ES5 and the DOM's) would take a second of the run to read.
     */
    const project = (source: string) => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "typecheck-"));
        const { compilerOptions } = JSON.parse(fs.readFileSync(path.join(__dirname, "..", CHECK_CONFIG), "utf8")) as {
            compilerOptions: Record<string, unknown>;
        };
        fs.writeFileSync(
            path.join(dir, CHECK_CONFIG),
            JSON.stringify({
                compilerOptions: {
                    ...compilerOptions,
                    target: "ES2022",
                    lib: ["ES2022"],
                    moduleResolution: "node",
                    strict: true,
                    types: [],
                },
                files: ["a.ts"],
            }),
        );
        fs.writeFileSync(path.join(dir, "a.ts"), source);
        installDependency(dir, "export type Count = number;\n");
        return dir;
    };
    /** Installs the project's one dependency, with the type `declaration`, as npm installs: its hidden lockfile last. */
    const installDependency = (dir: string, declaration: string) => {
        fs.mkdirSync(path.join(dir, "node_modules", "dep"), { recursive: true });
        fs.writeFileSync(path.join(dir, "node_modules", "dep", "index.d.ts"), declaration);
        fs.writeFileSync(path.join(dir, "node_modules", ".package-lock.json"), "{}");
    };

    test("runs for npm test, not for a file run with jest alone", () => {
        expect(runAsTestCommand({ npm_lifecycle_event: "test" })).toBe(true);
        expect(runAsTestCommand({})).toBe(false);
    });

    test("a type error fails the run with tsc's diagnostics; mended, the file is checked again; a new install, everything", async () => {
        const dir = project('import type { Count } from "dep";\nexport const wrong: Count = "text";\n');
        startTypecheck(dir);
        await expect(finishTypecheck()).rejects.toThrow(
            "the type-check (tsc --build tsconfig.check.json) found type errors (exit 1):\na.ts(2,14): error TS2322: Type 'string' is not assignable to type 'number'.",
        );
        fs.writeFileSync(path.join(dir, "a.ts"), 'import type { Count } from "dep";\nexport const right: Count = 1;\n');
        startTypecheck(dir);
        await expect(finishTypecheck()).resolves.toBeUndefined();
        // The project's own files unchanged, its dependency's type no longer fits: build mode alone would not look.
        installDependency(dir, "export type Count = string;\n");
        startTypecheck(dir);
        await expect(finishTypecheck()).rejects.toThrow("a.ts(2,14): error TS2322: Type 'number' is not assignable to type 'string'.");
    });
});
