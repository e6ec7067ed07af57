import * as fs from "fs";
import * as path from "path";
import { shippedStacks } from "../../../scripts/affected-stacks";
import { OUTPUT_DESCRIPTIONS, describesFound, expectedFiles, outputDescription, pathsByStack } from "../../../scripts/docs/outputs";
import { STACK_SUMMARIES, StackRun } from "../../../scripts/docs/stacks";
import { shippedRun } from "../../shippedStacks";

const ROOT = path.resolve(__dirname, "..", "..", "..");

/** The shipped stacks' runs, from those the suite records once (one at a time: a run holds the SDK's global mocks). */
async function runs(): Promise<Record<string, StackRun>> {
    const found: Record<string, StackRun> = {};
    for (const stack of shippedStacks(ROOT)) {
        const run = await shippedRun(stack);
        found[stack] = { outputs: run.outputs, resources: run.resources.length, recorded: run.resources };
    }
    return found;
}

describe("docs/reference/outputs.md: every output of the shipped stacks, described once in scripts/docs/outputs.ts", () => {
    let shippedRuns: Record<string, StackRun>;
    let shipped: Record<string, Record<string, unknown>>;
    beforeAll(async () => {
        shippedRuns = await runs();
        shipped = Object.fromEntries(Object.entries(shippedRuns).map(([stack, run]) => [stack, run.outputs]));
    });

    test("every output a shipped stack produces has a description", () => {
        const undescribed = [...pathsByStack(shipped).keys()].filter((at) => outputDescription(at) === undefined);
        expect(undescribed).toEqual([]);
    });

    test("every description names an output a shipped stack produces", () => {
        const found = pathsByStack(shipped);
        expect(Object.keys(OUTPUT_DESCRIPTIONS).filter((at) => !describesFound(at, found))).toEqual([]);
    });

    test("the page and the README's table of shipped stacks are current (npm run docs:outputs writes them)", () => {
        for (const { file, expected } of expectedFiles(shippedRuns)) {
            expect([file, fs.readFileSync(path.join(ROOT, file), "utf8")]).toEqual([file, expected]);
        }
    });

    test("the first run's example of the dev stack's offline preview (getting started) counts what it creates", () => {
        const page = fs.readFileSync(path.join(ROOT, "docs", "getting-started.md"), "utf8");
        expect(page).toContain(`Resources:\n    + ${shippedRuns.dev.resources} to create\n`);
    });

    test("every shipped stack, and only those, says in one line what it serves", () => {
        expect(Object.keys(STACK_SUMMARIES).sort()).toEqual([...shippedStacks(ROOT)].sort());
    });
});
