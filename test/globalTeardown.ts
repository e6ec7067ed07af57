import * as fs from "fs";
import { RUN_CACHE_DIR } from "./runCache";
import { finishTypecheck } from "./typecheck";

/** jest.config.js `globalTeardown`: removes what globalSetup made for the run, and fails it on a type error. */
export default async function globalTeardown(): Promise<void> {
    const dir = process.env[RUN_CACHE_DIR];
    if (dir) {
        fs.rmSync(dir, { recursive: true, force: true });
    }
    await finishTypecheck();
}
