import * as fs from "fs";
import * as path from "path";
import { LASTING_CACHE_DIR, cachedAcrossRuns } from "./runCache";

describe("values kept across runs (cachedAcrossRuns)", () => {
    // A name of this process's own: another jest run may share the folder.
    const name = `runCache-test-${process.pid}`;
    const entries = () => fs.readdirSync(LASTING_CACHE_DIR).filter((entry) => entry.startsWith(`${name}.`));
    afterAll(() => {
        for (const entry of entries()) {
            fs.rmSync(path.join(LASTING_CACHE_DIR, entry));
        }
    });

    test("the same inputs read the kept value without computing it; other inputs compute theirs, which replaces it", () => {
        let computed = 0;
        const compute = (value: string) => () => {
            computed += 1;
            return { value };
        };
        expect(cachedAcrossRuns(name, ["a", "1"], compute("first"))).toEqual({ value: "first" });
        expect(cachedAcrossRuns(name, ["a", "1"], compute("again"))).toEqual({ value: "first" });
        expect(computed).toBe(1);
        expect(entries()).toHaveLength(1);

        expect(cachedAcrossRuns(name, ["a", "2"], compute("second"))).toEqual({ value: "second" });
        expect(computed).toBe(2);
        expect(entries()).toHaveLength(1);
        expect(cachedAcrossRuns(name, ["a", "1"], compute("third"))).toEqual({ value: "third" });
        expect(computed).toBe(3);
    });
});
