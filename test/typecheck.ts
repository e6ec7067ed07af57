/**
 * `npm test`'s type-check: `tsc --noEmit` over the whole project, run beside the test files rather than before them (on
 * two cores the tests and tsc share the machine instead of one waiting on the other); a type error fails the run.
 */
import { ChildProcess, spawn } from "child_process";
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

/** Where tsc keeps what it learned, so that a run checks again only what changed (git-ignored with node_modules). */
export const TSC_BUILD_INFO = path.join("node_modules", ".cache", "gke-tpu-inference", "tsc.tsbuildinfo");

/** Starts `tsc --noEmit` over `project` (this one by default) in the background, incrementally. */
export function startTypecheck(project = ROOT): void {
    const args = ["--noEmit", "--incremental", "--tsBuildInfoFile", TSC_BUILD_INFO, "--pretty", "false", "-p", "."];
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
        const error = new Error(`tsc --noEmit found type errors (exit ${code}):\n${output.trim()}`);
        // jest prints a failed globalTeardown's stack: tsc's diagnostics are the whole story.
        error.stack = error.message;
        throw error;
    }
}
