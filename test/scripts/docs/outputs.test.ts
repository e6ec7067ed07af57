import * as fs from "fs";
import * as path from "path";
import { shippedStacks } from "../../../scripts/affected-stacks";
import { OUTPUTS_PAGE, OUTPUT_DESCRIPTIONS, outputsMarkdown, pathsByStack } from "../../../scripts/docs/outputs";
import { shippedRun } from "../../shippedStacks";

const ROOT = path.resolve(__dirname, "..", "..", "..");

/** The shipped stacks' outputs, from the runs the suite records once (one at a time: a run holds the SDK's global mocks). */
async function outputs(): Promise<Record<string, Record<string, unknown>>> {
    const found: Record<string, Record<string, unknown>> = {};
    for (const stack of shippedStacks(ROOT)) {
        found[stack] = (await shippedRun(stack)).outputs;
    }
    return found;
}

describe("docs/reference/outputs.md: every output of the shipped stacks, described once in scripts/docs/outputs.ts", () => {
    let shipped: Record<string, Record<string, unknown>>;
    beforeAll(async () => {
        shipped = await outputs();
    });

    test("every output a shipped stack produces has a description", () => {
        const undescribed = [...pathsByStack(shipped).keys()].filter((at) => OUTPUT_DESCRIPTIONS[at] === undefined);
        expect(undescribed).toEqual([]);
    });

    test("every description names an output a shipped stack produces", () => {
        const found = pathsByStack(shipped);
        expect(Object.keys(OUTPUT_DESCRIPTIONS).filter((at) => !found.has(at))).toEqual([]);
    });

    test("the page is current (npm run docs:outputs writes it)", () => {
        expect(fs.readFileSync(path.join(ROOT, OUTPUTS_PAGE), "utf8")).toBe(outputsMarkdown(shipped));
    });
});
