/**
 * jest.config.js's test environment: Node's, with the worker's policy pack lent to its test files (test/workerPack.ts),
 * and the stacks the Pulumi SDK captures for itself left out of jest's source mapping. The SDK reads
 * `new Error().stack` for every promise it tracks and for every resource it constructs, and jest formats every stack
 * through the test files' source maps, frame by frame (@jest/source-map 30.5.2 build/index.js:599-607, installed by
 * jest-runner 30.5.2 build/testWorker.js:221): a fifth of a test file's time where it runs a program. Those two stacks
 * are formatted as Node formats them, as in `pulumi up`; nothing here reads them (the mocks ignore a registration's
 * source position), and every other stack is still mapped.
 */
import NodeEnvironment from "jest-environment-node";
import { WORKER_PACK, serveWorkerPack } from "./workerPack";

/**
 * Where the SDK (@pulumi/pulumi 3.270.0) captures a stack: the function that makes the Error, its file, the frames kept,
 * and whether the SDK reads the stack at once or only ever puts it into a message.
 */
const SDK_CAPTURES = [
    // A promise's stack, kept for a leak report (runtime/debuggable.js:253), which is its only reader (it interpolates
    // it, :238): formatted when read. The frames a process keeps unless told otherwise (V8's default
    // Error.stackTraceLimit), where jest keeps 100 for a test's failure.
    { name: "debuggablePromise", file: "/@pulumi/pulumi/runtime/debuggable.js", frames: 10, whenRead: true },
    // A resource's, every frame of which the SDK splits at once to find the program's own (resource.js:328-329).
    { name: "callsites", file: "/@pulumi/pulumi/resource.js", frames: Infinity, whenRead: false },
];

/** Node's own formatting of a stack (Node 22.23.3 lib/internal/errors.js:94-110, `defaultPrepareStackTrace`). */
function nodeStack(error: Error, frames: readonly NodeJS.CallSite[]): string {
    return [Error.prototype.toString.call(error), ...frames].join("\n    at ");
}

/** A stack formatted as Node formats it when something turns it into text: most are never read. */
class StackWhenRead {
    constructor(
        private readonly error: Error,
        private readonly frames: readonly NodeJS.CallSite[],
    ) {}

    toString(): string {
        return nodeStack(this.error, this.frames);
    }
}

export default class TestEnvironment extends NodeEnvironment {
    async setup(): Promise<void> {
        await super.setup();
        this.global[WORKER_PACK] = serveWorkerPack;
        // Node asks the realm an error was made in first (lib/internal/errors.js:130-156): here, the test file's. jest's
        // formatter is this process's own realm's, installed before setup for the worker's life.
        this.global.Error.prepareStackTrace = (error: Error, frames: NodeJS.CallSite[]): unknown => {
            const top = frames[0];
            const capture = SDK_CAPTURES.find(
                (candidate) => top?.getFunctionName() === candidate.name && (top.getFileName() ?? "").endsWith(candidate.file),
            );
            if (capture === undefined && Error.prepareStackTrace) {
                return Error.prepareStackTrace(error, frames);
            }
            const kept = frames.slice(0, capture?.frames);
            return capture?.whenRead ? new StackWhenRead(error, kept) : nodeStack(error, kept);
        };
    }
}
