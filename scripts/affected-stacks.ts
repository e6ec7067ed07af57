/**
 * `git diff --name-only BASE...HEAD | npm run -s affected-stacks` prints, as a JSON array,
 * the stacks a change can affect: every shipped stack when the program, its dependencies or
 * the policy pack change; otherwise only the stacks whose own Pulumi.<stack>.yaml changed.
 * Documentation, tests and tooling affect none.
 */
import * as fs from "fs";
import * as path from "path";

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

if (require.main === module) {
    const changed = fs
        .readFileSync(0, "utf8")
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean);
    process.stdout.write(`${JSON.stringify(affectedStacks(changed, shippedStacks(path.resolve(__dirname, ".."))))}\n`);
}
