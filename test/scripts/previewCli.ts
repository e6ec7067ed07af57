/** Running `npm run preview:offline` in tests the way a user does (same node, same hook), and scratch folders for its output. */
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ROOT, cliEnv, scriptArgs } from "../cli";

export { ROOT };

/** The progress lines the preview writes off a terminal for a step that lasts over two seconds. */
const PROGRESS = /^(running the program in .* under mocks|the policy pack judging \d+ resources)\n/gm;

/**
 * Runs `npm run preview:offline -- ARGS` from the repository root. Its stderr comes without progress lines: whether a
 * step lasts two seconds depends on the machine's load, not on the preview.
 */
export function preview(...args: string[]) {
    const result = spawnSync(process.execPath, scriptArgs("preview-offline.ts", args), { cwd: ROOT, encoding: "utf8", env: cliEnv() });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr.replace(PROGRESS, "") };
}

/** A new empty folder. */
export function tempDir(): string {
    return fs.mkdtempSync(path.join(os.tmpdir(), "preview-offline-"));
}
