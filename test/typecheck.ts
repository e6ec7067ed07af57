/**
 * `npm test`'s type-check: tsc over the whole project, no output, run beside the test files rather than before them (on
 * two cores the tests and tsc share the machine instead of one waiting on the other); a type error fails the run.
 */
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ownChild } from "../scripts/children";

const ROOT = path.resolve(__dirname, "..");

/** The type-check of this jest run, when `npm test` started one (globalSetup and globalTeardown share this process). */
let running: Promise<{ code: number | null; output: string }> | undefined;

/** Whether jest runs as the project's test command (`npm test`), not on a file a developer names. */
export function runAsTestCommand(env: NodeJS.ProcessEnv = process.env): boolean {
    return env.npm_lifecycle_event === "test";
}

/**
 * The type-check's configuration in a project: the whole project (tsconfig.json), no output, checked in tsc's build mode,
 * which finds a project up to date from the times and hashes of its own files without reading the 4,900 files its
 * program loads: a fifth of a second after no change, where `tsc --noEmit --incremental` takes six. Dependencies are not
 * among those files, so after an install newer than tsc's record (npm's hidden lockfile, node_modules/.package-lock.json,
 * is rewritten by every install) everything is checked again.
 */
export const CHECK_CONFIG = "tsconfig.check.json";

/** Starts the type-check of `project` (this repository by default) in the background. */
export function startTypecheck(project = ROOT): void {
    const { compilerOptions } = JSON.parse(fs.readFileSync(path.join(project, CHECK_CONFIG), "utf8")) as {
        compilerOptions: { tsBuildInfoFile: string };
    };
    const record = path.join(project, compilerOptions.tsBuildInfoFile);
    const install = path.join(project, "node_modules", ".package-lock.json");
    const installedSince = fs.existsSync(record) && fs.existsSync(install) && fs.statSync(install).mtimeMs > fs.statSync(record).mtimeMs;
    const args = ["--build", CHECK_CONFIG, "--pretty", "false", ...(installedSince ? ["--force"] : [])];
    const tsc: ChildProcess = ownChild(
        spawn(process.execPath, [require.resolve("typescript/bin/tsc"), ...args], {
            cwd: project,
            stdio: ["ignore", "pipe", "pipe"],
        }),
    );
    // Below the test workers: it finishes in their gaps (a worker waiting on a child process) instead of slowing them.
    if (tsc.pid !== undefined) {
        os.setPriority(tsc.pid, 10);
    }
    let output = "";
    tsc.stdout!.on("data", (chunk: Buffer) => (output += chunk));
    tsc.stderr!.on("data", (chunk: Buffer) => (output += chunk));
    running = new Promise((resolve, reject) => {
        tsc.on("error", reject);
        tsc.on("close", (code) => resolve({ code, output }));
    });
}

/** Waits for the type-check, if one runs; fails with tsc's diagnostics when it found a type error. */
export async function finishTypecheck(): Promise<void> {
    if (running === undefined) {
        return;
    }
    const { code, output } = await running;
    if (code !== 0) {
        const error = new Error(`the type-check (tsc --build ${CHECK_CONFIG}) found type errors (exit ${code}):\n${output.trim()}`);
        // jest prints a failed globalTeardown's stack: tsc's diagnostics are the whole story.
        error.stack = error.message;
        throw error;
    }
}
