import * as fs from "fs";
import { Resource } from "@pulumi/pulumi";

// Internal to the SDK (its declarations leave it out), and where it keeps each promise's stack.
const { debuggablePromise } = require("@pulumi/pulumi/runtime/debuggable") as {
    debuggablePromise<T>(promise: Promise<T>, context: string): Promise<T>;
};

/** Where a frame of this file points: its file and line. */
interface Position {
    file: string;
    line: number;
}

/** The line of this file that holds `text` (once). */
const lineOf = (text: string) =>
    fs
        .readFileSync(__filename, "utf8")
        .split("\n")
        .findIndex((line) => line.includes(text)) + 1;

/** This file's first frame in a formatted stack. */
function ownFrame(stack: string): Position {
    const match = new RegExp(`\\(?(${__filename}):(\\d+):\\d+\\)?$`, "m").exec(stack);
    return { file: match![1], line: Number(match![2]) };
}

describe("the test environment's stacks (test/environment.ts)", () => {
    // The interfaces above are gone from the transpiled file, so its lines differ from this file's.
    test("an error of a test is mapped to its TypeScript line, through jest's source maps", () => {
        const stack = new Error("mapped").stack!;
        expect(stack.split("\n")[0]).toBe("Error: mapped");
        expect(ownFrame(stack)).toEqual({ file: __filename, line: lineOf('new Error("mapped")') });
    });

    test("the SDK's stack of a tracked promise is formatted as Node does when read, with a process's default ten frames", async () => {
        // The SDK keeps the stack on the promise it is given, and reads it only into a leak report's text.
        const promise = Promise.resolve() as Promise<void> & { _debugStackTrace: unknown };
        await debuggablePromise(promise, "test");
        expect(typeof promise._debugStackTrace).toBe("object");
        const text = `${promise._debugStackTrace}`;
        const lines = text.split("\n");
        expect(lines[0]).toBe("Error");
        expect(lines[1]).toMatch(/^ {4}at debuggablePromise \(.*\/@pulumi\/pulumi\/runtime\/debuggable\.js:\d+:\d+\)$/);
        expect(lines).toHaveLength(11);
        expect(ownFrame(text).line).not.toBe(lineOf('debuggablePromise(promise, "test")'));
    });

    test("the SDK's stack of a resource holds every frame, formatted as Node does", () => {
        const callsites = (Resource as unknown as { callsites(): Array<{ file?: string; line?: number }> }).callsites();
        const own = callsites.find((frame) => frame.file === __filename);
        // Deeper than jest's 100 frames would not be reached here; more than Node's default ten shows none is dropped.
        expect(callsites.length).toBeGreaterThan(10);
        expect(own?.line).toBeDefined();
        expect(own?.line).not.toBe(lineOf("as unknown as { callsites()"));
    });
});
