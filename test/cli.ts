/** Running the project's commands in tests the way a user does: the same node, the TypeScript hook, the repository root. */
import { spawn } from "child_process";
import * as path from "path";

export const ROOT = path.resolve(__dirname, "..");

/** The node arguments that run `scripts/<script>` as its npm script does. */
export const scriptArgs = (script: string, args: readonly string[]) => ["-r", "./scripts/ts-hook.js", `scripts/${script}`, ...args];

/** What a terminal-like environment would change: colour and width. Jest's workers set FORCE_COLOR when run in a terminal. */
const TERMINAL_ENV = ["FORCE_COLOR", "NO_COLOR", "NODE_DISABLE_COLORS", "COLUMNS"];

/** This process's environment without its terminal's settings, with `env` over it: the output is the same wherever tests run. */
export function cliEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
    return { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !TERMINAL_ENV.includes(name))), ...env };
}

/** How a command ended: its exit status and what it printed. */
export interface CliRun {
    status: number | null;
    stdout: string;
    stderr: string;
}

/** Runs `scripts/<script>` with `args`, `env` over the test's environment. */
export function runCli(script: string, args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
    return new Promise<CliRun>((resolve) => {
        // spawn, not spawnSync: a test's loopback servers answer from this process's event loop.
        const child = spawn(process.execPath, scriptArgs(script, args), { cwd: ROOT, env: cliEnv(env) });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
        child.on("close", (status: number | null) => resolve({ status, stdout, stderr }));
    });
}
