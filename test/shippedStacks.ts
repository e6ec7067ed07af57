/**
 * One offline run per shipped stack per jest run, shared by every test file that reads one: the first test file to
 * ask records the stack and writes it to the folder jest's globalSetup made for this run; the others, in any worker,
 * read it there. A lock file keeps two workers from recording one stack twice.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { OfflineRun, runOffline } from "../scripts/offline/run";

const ROOT = path.resolve(__dirname, "..");

/** The variable through which globalSetup hands the run's folder to the workers it starts. */
export const SHIPPED_RUNS_DIR = "GKE_TPU_INFERENCE_SHIPPED_RUNS";

/** How long a worker waits for another to record a stack: a loaded 2-core machine records one in a few seconds. */
const WAIT_MS = 120_000;
const POLL_MS = 50;

/** Makes the folder for this jest run's recordings and names it for the workers; returns it. */
export function createShippedRunsDir(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gke-tpu-inference-runs-"));
    process.env[SHIPPED_RUNS_DIR] = dir;
    return dir;
}

/** Writes `text` to `file` whole or not at all: readers poll for it. */
function writeWhole(file: string, text: string): void {
    fs.writeFileSync(`${file}.partial`, text);
    fs.renameSync(`${file}.partial`, file);
}

/** Whether this process is the one to record: it made the lock file. */
function claim(lock: string): boolean {
    try {
        fs.closeSync(fs.openSync(lock, "wx"));
        return true;
    } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EEXIST") {
            return false;
        }
        throw err;
    }
}

async function recordedBy(other: { result: string; failure: string; stack: string }): Promise<string> {
    const deadline = Date.now() + WAIT_MS;
    while (Date.now() < deadline) {
        if (fs.existsSync(other.result)) {
            return fs.readFileSync(other.result, "utf8");
        }
        if (fs.existsSync(other.failure)) {
            throw new Error(
                `recording the shipped ${other.stack} stack failed in another test file: ${fs.readFileSync(other.failure, "utf8")}`,
            );
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    throw new Error(`the shipped ${other.stack} stack was not recorded within ${WAIT_MS / 1000} s`);
}

/** The offline run of `Pulumi.<stack>.yaml` as it ships (its own copy: a test may change it). */
export async function shippedRun(stack: string): Promise<OfflineRun> {
    const dir = process.env[SHIPPED_RUNS_DIR];
    if (!dir) {
        throw new Error(`${SHIPPED_RUNS_DIR} is not set: jest.config.js's globalSetup (test/globalSetup.ts) makes the folder`);
    }
    const result = path.join(dir, `${stack}.json`);
    const failure = path.join(dir, `${stack}.failed`);
    if (!claim(path.join(dir, `${stack}.lock`))) {
        return JSON.parse(await recordedBy({ result, failure, stack })) as OfflineRun;
    }
    try {
        const text = JSON.stringify(await runOffline(ROOT, stack));
        writeWhole(result, text);
        return JSON.parse(text) as OfflineRun;
    } catch (err) {
        writeWhole(failure, String((err as Error)?.stack ?? err));
        throw err;
    }
}
