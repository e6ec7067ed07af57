/** Running `npm run preview:offline` in tests the way a user does (same node, same hook), and scratch folders for its output. */
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

export const ROOT = path.resolve(__dirname, "..", "..");

/** Runs `npm run preview:offline -- ARGS` from the repository root. */
export function preview(...args: string[]) {
    const result = spawnSync(process.execPath, ["-r", "./scripts/ts-hook.js", "scripts/preview-offline.ts", ...args], {
        cwd: ROOT,
        encoding: "utf8",
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A new empty folder. */
export function tempDir(): string {
    return fs.mkdtempSync(path.join(os.tmpdir(), "preview-offline-"));
}
