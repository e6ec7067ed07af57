/**
 * Running `npm run preview:offline` in tests: as its own process the way a user runs it (same node, same hook), where
 * the test is about the process (its exit, its stdout, what it leaves running); otherwise in this process, in a module
 * registry of its own (as fresh as a new process's), which spares each run a node start. Scratch folders for output.
 */
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type * as Cli from "../../scripts/cli";
import type * as Terminal from "../../scripts/cli/terminal";
import type * as Progress from "../../scripts/cli/progress";
import { PolicyPackProcess } from "../../scripts/offline/analyzer";
import type * as PreviewOffline from "../../scripts/preview-offline";
import type { PackSource } from "../../scripts/preview-offline";
import { CliRun, ROOT, cliEnv, scriptArgs } from "../cli";
import { PACK_DIR, workerPack } from "../workerPack";

export { ROOT };

/** The progress lines the preview writes off a terminal for a step that lasts over two seconds. */
const PROGRESS = /^(running the program in .* under mocks|the policy pack judging \d+ resources)\n/gm;

/**
 * Runs `npm run preview:offline -- ARGS` as its own process from the repository root. Its stderr comes without progress
 * lines: whether a step lasts two seconds depends on the machine's load, not on the preview.
 */
export function previewProcess(...args: string[]): CliRun {
    const result = spawnSync(process.execPath, scriptArgs("preview-offline.ts", args), { cwd: ROOT, encoding: "utf8", env: cliEnv() });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr.replace(PROGRESS, "") };
}

/**
 * The pack of the test file's in-process runs, each run reconfiguring it as a new preview would: the worker's for this
 * repository's pack (test/workerPack.ts), a process of the file's own for another.
 */
const lentPacks = new Map<string, Promise<PolicyPackProcess>>();
const lending: PackSource = {
    start: (packDir, onBuild) => {
        if (!lentPacks.has(packDir)) {
            lentPacks.set(packDir, packDir === PACK_DIR ? workerPack() : PolicyPackProcess.start(packDir, onBuild));
        }
        return lentPacks.get(packDir)!;
    },
    release: () => undefined,
};
// Registered as the test file imports this module: after its last test, the file's clients close and its own packs stop.
afterAll(async () => {
    for (const pack of lentPacks.values()) {
        (await pack.catch(() => undefined))?.close();
    }
});

/**
 * Runs the command of `npm run preview:offline -- ARGS` in this process, printing what `runCli` would print: stdout as the
 * command writes it off a terminal, an error as its line on stderr with the exit code it carries. The pack's process is
 * the test file's, lent to each run.
 */
export async function preview(...args: string[]): Promise<CliRun> {
    let result: CliRun | undefined;
    const exitListeners = new Set(process.listeners("exit"));
    // A fresh registry: the program, its SDK and the preview's mocks load as in a new process, so runs never share state.
    await jest.isolateModulesAsync(async () => {
        const { CliError, EXIT, errorLines, parseCli } = require("../../scripts/cli") as typeof Cli;
        const { plainTerminal } = require("../../scripts/cli/terminal") as typeof Terminal;
        const { Progress: StepsOf } = require("../../scripts/cli/progress") as typeof Progress;
        const { PREVIEW_OFFLINE_CLI, previewOffline } = require("../../scripts/preview-offline") as typeof PreviewOffline;
        let stdout = "";
        const terminal = plainTerminal();
        const cli = {
            stdout: terminal,
            progress: new StepsOf({ write: () => true } as never, terminal),
            print: (text: string) => (stdout += text),
        };
        try {
            result = { status: await previewOffline(parseCli(PREVIEW_OFFLINE_CLI, args), cli, lending), stdout, stderr: "" };
        } catch (err) {
            result = { status: err instanceof CliError ? err.exitCode : EXIT.usage, stdout, stderr: errorLines(err, false, terminal) };
        }
    });
    // The modules a run loads add their last words to the process's exit, as for the one program a real preview's
    // process runs (the SDK's leak report, @pulumi/pulumi 3.270.0 runtime/debuggable.js:256); kept, they would hold
    // every finished run's modules until the worker exits, and past ten make Node warn of a leak.
    for (const listener of process.listeners("exit")) {
        if (!exitListeners.has(listener)) {
            process.removeListener("exit", listener);
        }
    }
    return result!;
}

/** A new empty folder. */
export function tempDir(): string {
    return fs.mkdtempSync(path.join(os.tmpdir(), "preview-offline-"));
}
