import { WORKER_PACK, workerPack } from "./workerPack";

describe("the worker's policy pack (test/workerPack.ts)", () => {
    const global = globalThis as Record<string, unknown>;
    /** Where the pack the environment lends serves (the environment's module, not this file's copy, holds it). */
    const lentPort = async () => (await (global[WORKER_PACK] as () => Promise<{ port: string }>)()).port;

    test("one process serves each client, and serves on when a client closes", async () => {
        const first = await workerPack();
        const port = await lentPort();
        expect((await first.info()).name).toBe("gke-tpu-inference");
        first.close();
        const second = await workerPack();
        try {
            expect(await lentPort()).toBe(port);
            expect((await second.info()).name).toBe("gke-tpu-inference");
        } finally {
            second.close();
        }
    });

    test("the test environment lends it: a file run without that environment is told so", async () => {
        const lend = global[WORKER_PACK];
        expect(lend).toEqual(expect.any(Function));
        delete global[WORKER_PACK];
        try {
            await expect(workerPack()).rejects.toThrow(
                `${WORKER_PACK} is not set: jest.config.js's testEnvironment (test/environment.ts) lends the worker's pack`,
            );
        } finally {
            global[WORKER_PACK] = lend;
        }
    });
});
