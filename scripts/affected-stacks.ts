/**
 * `git diff --name-only BASE...HEAD | npm run -s affected-stacks` prints, as a JSON array,
 * the stacks a change can affect: every shipped stack when the program, its dependencies or
 * the policy pack change; otherwise only the stacks whose own Pulumi.<stack>.yaml changed.
 * Documentation, tests and tooling affect none.
 */
import * as fs from "fs";
import * as path from "path";
import { CliContext, CliError, CliSpec, EXIT, runCli } from "./cli";

/** Paths whose change can alter what any stack deploys or how the pack judges it. */
const PROGRAM_PATHS = [/^index\.ts$/, /^components\//, /^policies\//, /^Pulumi\.yaml$/, /^package(-lock)?\.json$/, /^tsconfig\.json$/];
const STACK_FILE = /^Pulumi\.([^./]+)\.yaml$/;

/** The stacks `changedFiles` affect, among `stacks` (those with a stack file now). */
export function affectedStacks(changedFiles: readonly string[], stacks: readonly string[]): string[] {
    if (changedFiles.some((file) => PROGRAM_PATHS.some((pattern) => pattern.test(file)))) {
        return [...stacks].sort();
    }
    const changed = new Set(changedFiles.flatMap((file) => STACK_FILE.exec(file)?.[1] ?? []));
    return stacks.filter((stack) => changed.has(stack)).sort();
}

/** The stacks that ship a Pulumi.<stack>.yaml in `dir`. */
export function shippedStacks(dir: string): string[] {
    return fs.readdirSync(dir).flatMap((file) => STACK_FILE.exec(file)?.[1] ?? []);
}

export const AFFECTED_STACKS_CLI: CliSpec<Record<string, never>> = {
    script: "affected-stacks",
    synopsis: "[--help] < CHANGED_FILES",
    description:
        "Reads the changed files, one path a line, on stdin and prints as a JSON array the shipped stacks the change can affect: " +
        "every stack when the program, its dependencies or the policy pack change; otherwise only the stacks whose own " +
        "Pulumi.<stack>.yaml changed. Documentation, tests and tooling affect none.",
    options: {},
    examples: ["git diff --name-only origin/main...HEAD | npm run -s affected-stacks"],
    exitCodes: [
        [EXIT.ok, "the array was printed (empty when no stack is affected)"],
        [EXIT.usage, "a usage error, or stdin is a terminal rather than a list of files"],
    ],
};

async function main(_values: unknown, cli: CliContext): Promise<number> {
    if (process.stdin.isTTY) {
        // Reading a terminal would wait for typing that nobody means to do.
        throw new CliError(
            "affected-stacks reads the changed files on stdin: git diff --name-only origin/main...HEAD | npm run -s affected-stacks",
        );
    }
    const changed = fs
        .readFileSync(0, "utf8")
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean);
    // A JSON array on one line: the workflow reads it into a matrix.
    cli.print(`${JSON.stringify(affectedStacks(changed, shippedStacks(path.resolve(__dirname, ".."))))}\n`);
    return EXIT.ok;
}

if (require.main === module) {
    runCli(AFFECTED_STACKS_CLI, main);
}
