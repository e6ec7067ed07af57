/**
 * `npm run corpus -- [--program NAME]` previews every program of the corpus (test/corpus/programs: public programs this
 * project did not write) offline with the policy pack, as a user would run `npm run preview:offline -- --dir`, and
 * compares each outcome with the verdict its `corpus.yaml` records: that it runs (or the one line it stops with), every
 * violation the pack reports, and what the preview could not see. Installs the SDKs a program needs
 * (test/corpus/sdks/<set>) when they are missing. `--help` lists the options and exit codes.
 */
import { spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ownChild } from "./children";
import { CliContext, CliError, CliSpec, EXIT, runCli } from "./cli";
import { CORPUS_STACK, CorpusProgram, PreviewOutcome, SDKS_DIR, corpusPrograms, differences } from "./corpus/programs";

const ROOT = path.resolve(__dirname, "..");
/** How long one program's preview may take, its pack process included, on a loaded 2-core machine. */
const PREVIEW_TIMEOUT_MS = 240_000;
/** Previews at once: each runs the program and a pack process, so two fill a 2-core machine. */
const CONCURRENCY = 2;

const OPTIONS = {
    program: {
        type: "string",
        multiple: true,
        default: [] as string[],
        value: "NAME",
        description: "preview only this program (repeatable)",
    },
} as const;

export const CORPUS_CLI: CliSpec<typeof OPTIONS> = {
    script: "corpus",
    synopsis: "[--program NAME]...",
    description:
        "Previews every program of the corpus (test/corpus/programs) offline with the policy pack and compares the outcome with " +
        "the verdict its corpus.yaml records; installs the SDKs a program needs (test/corpus/sdks) when they are missing.",
    options: OPTIONS,
    examples: ["npm run corpus", "npm run corpus -- --program gcp-ts-gke"],
    exitCodes: [
        [EXIT.ok, "every program previewed as its record says"],
        [EXIT.failed, "a program's outcome differs from its record"],
        [EXIT.usage, "a usage error, an unknown program, or its SDKs could not be installed"],
    ],
};

/** Runs `command` in `cwd`; resolves with its exit code and output. */
function run(
    command: string,
    args: string[],
    cwd: string,
    timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
        const child = ownChild(spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] }));
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk) => (stdout += chunk));
        child.stderr.on("data", (chunk) => (stderr += chunk));
        const timer = setTimeout(() => child.kill("SIGTERM"), timeoutMs);
        child.on("error", reject);
        child.on("close", (code) => {
            clearTimeout(timer);
            resolve({ code, stdout, stderr });
        });
    });
}

/** Installs SDK set `set` from its lockfile when its node_modules is missing, and links it into each program that uses it. */
async function prepareSdks(programs: readonly CorpusProgram[], print: (text: string) => void): Promise<void> {
    for (const set of [...new Set(programs.map((program) => program.record.sdks))]) {
        const dir = path.join(SDKS_DIR, set);
        if (!fs.existsSync(path.join(dir, "package-lock.json"))) {
            throw new CliError(`test/corpus/sdks/${set} has no package-lock.json; a corpus.yaml names an SDK set that does not exist`);
        }
        if (!fs.existsSync(path.join(dir, "node_modules"))) {
            print(`installing the corpus SDKs ${set} (npm ci)\n`);
            const npm = process.platform === "win32" ? "npm.cmd" : "npm";
            const installed = await run(npm, ["ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], dir, 600_000);
            if (installed.code !== 0) {
                throw new CliError(`npm ci in test/corpus/sdks/${set} failed: ${installed.stderr.trim().split("\n").pop()}`);
            }
        }
    }
    for (const program of programs) {
        // The program resolves its SDKs as Node does from its own folder: through this link to its set.
        const link = path.join(program.dir, "node_modules");
        if (!fs.existsSync(link)) {
            fs.symlinkSync(path.relative(program.dir, path.join(SDKS_DIR, program.record.sdks, "node_modules")), link, "dir");
        }
    }
}

/** Previews `program` offline with the pack, as `npm run preview:offline -- --dir <program> --stack corpus --json` would. */
async function previewProgram(program: CorpusProgram, reportDir: string): Promise<PreviewOutcome> {
    const json = path.join(reportDir, `${program.name}.json`);
    const result = await run(
        process.execPath,
        ["-r", "./scripts/ts-hook.js", "scripts/preview-offline.ts", "--dir", program.dir, "--stack", CORPUS_STACK, "--json", json],
        ROOT,
        PREVIEW_TIMEOUT_MS,
    );
    if (result.code !== EXIT.ok && result.code !== EXIT.failed) {
        const line = result.stderr.split("\n").find((text) => text.startsWith("error: ")) ?? result.stderr.trim().split("\n")[0] ?? "";
        return { stopped: line.replace(/^error: /, ""), violations: [], unseen: [] };
    }
    const report = JSON.parse(fs.readFileSync(json, "utf8")) as {
        policyViolations: Array<{ policyName: string; enforcementLevel: string; urn: string }>;
        unrenderedCharts: Array<{ name: string }>;
    };
    return {
        violations: report.policyViolations.map((violation) => ({
            policy: violation.policyName,
            level: violation.enforcementLevel,
            resource: violation.urn.split("::").pop() ?? "",
        })),
        unseen: report.unrenderedCharts.map((chart) => chart.name),
    };
}

async function main(values: { program: string[] }, cli: CliContext): Promise<number> {
    const all = corpusPrograms();
    const unknown = values.program.filter((name) => !all.some((program) => program.name === name));
    if (unknown.length > 0) {
        throw new CliError(`no corpus program ${unknown.join(", ")}; the corpus holds: ${all.map((program) => program.name).join(", ")}`);
    }
    const programs = values.program.length > 0 ? all.filter((program) => values.program.includes(program.name)) : all;
    await prepareSdks(programs, cli.print);
    const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), "corpus-"));
    const results = new Map<string, string[]>();
    const queue = [...programs];
    const worker = async () => {
        for (let program = queue.shift(); program; program = queue.shift()) {
            results.set(program.name, differences(program.record, await previewProgram(program, reportDir)));
        }
    };
    try {
        await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    } finally {
        fs.rmSync(reportDir, { recursive: true, force: true });
    }
    let differing = 0;
    for (const program of programs) {
        const found = results.get(program.name) ?? [];
        differing += found.length > 0 ? 1 : 0;
        cli.print(`${found.length === 0 ? "✅" : "❌"} ${program.name}\n${found.map((line) => `    ${line}\n`).join("")}`);
    }
    cli.print(`corpus: ${programs.length} programs, ${programs.length - differing} as recorded, ${differing} differ\n`);
    return differing === 0 ? EXIT.ok : EXIT.failed;
}

if (require.main === module) {
    runCli(CORPUS_CLI, main);
}
