import * as fs from "fs";
import { SHIPPED_RUNS_DIR } from "./shippedStacks";

/** jest.config.js `globalTeardown`: removes what globalSetup made for the run. */
export default function globalTeardown(): void {
    const dir = process.env[SHIPPED_RUNS_DIR];
    if (dir) {
        fs.rmSync(dir, { recursive: true, force: true });
    }
}
