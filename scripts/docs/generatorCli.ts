/**
 * The command line the docs generators share (`npm run docs:lessons`, `npm run docs:settings`, `npm run docs:outputs`):
 * each writes the generated files that are stale, or with `--check` writes nothing and fails naming them; `--help` and
 * an unknown option behave as in every other command (scripts/cli.ts).
 */
import * as fs from "fs";
import * as path from "path";
import { CliError, CliSpec, EXIT } from "../cli";

/** One generated file: what it holds (undefined: absent) and what it should (undefined: a stale page to remove). */
export interface GeneratedFile {
    file: string;
    current: string | undefined;
    expected: string | undefined;
}

const OPTIONS = {
    check: { type: "boolean", description: "write nothing: exit 1, naming the files, when any is stale (the tests run it too)" },
} as const;

export type GeneratorOptions = typeof OPTIONS;

/** A generator's `--help`: `writes` says which files it writes, from what. */
export function generatorCli(script: string, writes: string): CliSpec<GeneratorOptions> {
    return {
        script,
        synopsis: "[--check]",
        description: `Writes ${writes}, each only when it is stale; --check writes nothing and fails when one is.`,
        options: OPTIONS,
        examples: [`npm run ${script}`, `npm run ${script} -- --check`],
        exitCodes: [
            [EXIT.ok, "every generated file is current: written now, or with --check already"],
            [EXIT.failed, "with --check, a generated file is stale"],
            [EXIT.usage, "a usage error, or a source could not be read"],
        ],
    };
}

/** The file's text, or undefined when it does not exist. */
export function readIfExists(file: string): string | undefined {
    return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
}

/**
 * Writes every stale file under `root` (removing one whose `expected` is undefined), a line each through `print`; with
 * `check`, writes nothing and throws, naming them and the command that writes them.
 */
export function writeGenerated(
    root: string,
    script: string,
    files: readonly GeneratedFile[],
    check: boolean,
    print: (text: string) => void,
): number {
    const stale = files.filter((doc) => doc.current !== doc.expected);
    if (check) {
        if (stale.length > 0) {
            throw new CliError(`stale: ${stale.map((doc) => doc.file).join(", ")}; run npm run ${script}`, EXIT.failed);
        }
        return EXIT.ok;
    }
    for (const doc of stale) {
        const file = path.join(root, doc.file);
        if (doc.expected === undefined) {
            fs.rmSync(file);
            print(`removed ${doc.file}\n`);
        } else {
            fs.mkdirSync(path.dirname(file), { recursive: true });
            fs.writeFileSync(file, doc.expected);
            print(`wrote ${doc.file}\n`);
        }
    }
    return EXIT.ok;
}
