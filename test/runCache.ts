/**
 * What test files compute alike, computed once per jest run: the first test file to need a value computes it and
 * writes it, as JSON, to the folder jest's globalSetup made for this run; the others, in any worker, read it there.
 * A value computed from files alone is kept across runs, for as long as they do not change.
 */
import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

/** The variable through which globalSetup hands the run's folder to the workers it starts. */
export const RUN_CACHE_DIR = "GKE_TPU_INFERENCE_RUN_CACHE";

/** How long a test file waits for another to compute a value: a loaded 2-core machine records a stack in a few seconds. */
const WAIT_MS = 120_000;
const POLL_MS = 50;

/** Makes the folder for this jest run's values and names it for the workers; returns it. */
export function createRunCacheDir(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gke-tpu-inference-jest-"));
    process.env[RUN_CACHE_DIR] = dir;
    return dir;
}

function cacheFile(name: string): string {
    const dir = process.env[RUN_CACHE_DIR];
    if (!dir) {
        throw new Error(`${RUN_CACHE_DIR} is not set: jest.config.js's globalSetup (test/globalSetup.ts) makes the run's folder`);
    }
    return path.join(dir, `${name}.json`);
}

/** Writes `text` to `file` whole or not at all: others read it whenever it is there. */
function writeWhole(file: string, text: string): void {
    fs.writeFileSync(`${file}.${process.pid}.partial`, text);
    fs.renameSync(`${file}.${process.pid}.partial`, file);
}

/** Where values kept across runs are, beside tsc's build information (test/typecheck.ts): git-ignored with node_modules. */
export const LASTING_CACHE_DIR = path.resolve(__dirname, "..", "node_modules", ".cache", "gke-tpu-inference", "jest");

/**
 * `compute()`'s value, computed from `inputs` alone (files' contents, and the version and source of what reads them):
 * kept across runs for as long as they are unchanged, when cheap enough that two files computing it at once does no
 * harm. A value of `name` from other inputs is removed.
 */
export function cachedAcrossRuns<T>(name: string, inputs: readonly string[], compute: () => T): T {
    const hash = crypto.createHash("sha256").update(JSON.stringify(inputs)).digest("hex");
    const file = path.join(LASTING_CACHE_DIR, `${name}.${hash}.json`);
    if (fs.existsSync(file)) {
        return JSON.parse(fs.readFileSync(file, "utf8")) as T;
    }
    const text = JSON.stringify(compute());
    fs.mkdirSync(LASTING_CACHE_DIR, { recursive: true });
    for (const entry of fs.readdirSync(LASTING_CACHE_DIR)) {
        if (entry.startsWith(`${name}.`) && entry.endsWith(".json") && entry !== path.basename(file)) {
            fs.rmSync(path.join(LASTING_CACHE_DIR, entry), { force: true });
        }
    }
    writeWhole(file, text);
    return JSON.parse(text) as T;
}

/** Whether this process is the one to compute: it made the lock file. */
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

async function computedElsewhere(name: string, file: string, failure: string): Promise<string> {
    const deadline = Date.now() + WAIT_MS;
    while (Date.now() < deadline) {
        if (fs.existsSync(file)) {
            return fs.readFileSync(file, "utf8");
        }
        if (fs.existsSync(failure)) {
            throw new Error(`computing ${name} failed in another test file: ${fs.readFileSync(failure, "utf8")}`);
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    throw new Error(`${name} was not computed within ${WAIT_MS / 1000} s`);
}

/** `compute()`'s value, computed by exactly one test file per run (a lock file decides which); each caller gets its own copy. */
export async function cachedOnce<T>(name: string, compute: () => Promise<T>): Promise<T> {
    const file = cacheFile(name);
    const failure = `${file}.failed`;
    if (!claim(`${file}.lock`)) {
        return JSON.parse(await computedElsewhere(name, file, failure)) as T;
    }
    try {
        const text = JSON.stringify(await compute());
        writeWhole(file, text);
        return JSON.parse(text) as T;
    } catch (err) {
        writeWhole(failure, String((err as Error)?.stack ?? err));
        throw err;
    }
}
