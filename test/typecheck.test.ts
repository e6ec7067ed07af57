import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { finishTypecheck, runAsTestCommand, startTypecheck } from "./typecheck";

describe("npm test's type-check beside the tests", () => {
    /**
     * A project of one file, `source`, with the repository's target, library and strictness (tsconfig.json), and none
     * of its ambient types: TypeScript's default library (ES5 and the DOM's) would take a second of the run to read.
     */
    const project = (source: string) => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "typecheck-"));
        fs.writeFileSync(
            path.join(dir, "tsconfig.json"),
            JSON.stringify({ compilerOptions: { target: "ES2022", lib: ["ES2022"], strict: true, types: [] }, files: ["a.ts"] }),
        );
        fs.writeFileSync(path.join(dir, "a.ts"), source);
        return dir;
    };

    test("runs for npm test, not for a file run with jest alone", () => {
        expect(runAsTestCommand({ npm_lifecycle_event: "test" })).toBe(true);
        expect(runAsTestCommand({})).toBe(false);
    });

    test("a type error fails the run with tsc's diagnostics; a clean project passes", async () => {
        startTypecheck(project('export const wrong: number = "text";\n'));
        await expect(finishTypecheck()).rejects.toThrow(
            "tsc --noEmit found type errors (exit 2):\na.ts(1,14): error TS2322: Type 'string' is not assignable to type 'number'.",
        );
        startTypecheck(project("export const right: number = 1;\n"));
        await expect(finishTypecheck()).resolves.toBeUndefined();
    });
});
