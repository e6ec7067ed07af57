import * as fs from "fs";
import { RUN_CACHE_DIR } from "./runCache";

/** jest.config.js `globalTeardown`: removes what globalSetup made for the run. */
export default function globalTeardown(): void {
    const dir = process.env[RUN_CACHE_DIR];
    if (dir) {
        fs.rmSync(dir, { recursive: true, force: true });
    }
}
