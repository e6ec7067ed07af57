/**
 * The policy pack's process of a jest worker, lent to every test file the worker runs: started for the first file that
 * asks, by the test environment (test/environment.ts), which the worker keeps from one file to the next. A pack's start
 * is a second of CPU, and its policies run faster once warm. Each file connects a client of its own, and each preview
 * or judgement configures the pack afresh (its project and stack, every policy's config) as the engine configures one
 * per preview, so nothing of a file's carries over to the next. A test of the pack's process itself starts its own.
 */
import type { Socket } from "net";
import * as path from "path";
import { PackServer, PolicyPackProcess, servePack } from "../scripts/offline/analyzer";

/** This repository's pack. */
export const PACK_DIR = path.resolve(__dirname, "..", "policies");

/** The test files' global through which the environment lends its worker's pack. */
export const WORKER_PACK = "__workerPolicyPack";

/** Where a pack serves. */
type Serving = Pick<PackServer, "port" | "sdk">;

let serving: Promise<Serving> | undefined;

/**
 * The worker's pack, started on first use: in the environment's realm, so that it outlives test files. It does not hold
 * the worker up: when the worker has nothing left to do it exits, and so stops the pack (scripts/children.ts).
 */
export function serveWorkerPack(): Promise<Serving> {
    serving ??= servePack(PACK_DIR).then((server) => {
        for (const handle of [server.child, server.child.stdout as Socket, server.child.stderr as Socket]) {
            handle.unref();
        }
        // A pack that died is started again for the next file that asks.
        server.child.once("exit", () => (serving = undefined));
        return { port: server.port, sdk: server.sdk };
    });
    return serving;
}

/** A client of the worker's pack, for this test file. */
export async function workerPack(): Promise<PolicyPackProcess> {
    const serve = (globalThis as Record<string, unknown>)[WORKER_PACK] as (() => Promise<Serving>) | undefined;
    if (serve === undefined) {
        throw new Error(`${WORKER_PACK} is not set: jest.config.js's testEnvironment (test/environment.ts) lends the worker's pack`);
    }
    return PolicyPackProcess.connect(await serve());
}

/** The worker's pack for a test file's tests: connected before the first, the connection closed after the last. */
export function useWorkerPack(): () => PolicyPackProcess {
    let pack: PolicyPackProcess | undefined;
    beforeAll(async () => {
        pack = await workerPack();
    });
    afterAll(() => pack?.close());
    return () => pack!;
}
