/**
 * `npm run preview:offline -- [options]`: shows what `pulumi up` would create without a cloud account or the Pulumi
 * CLI: runs the program under the SDK's mocks, prints the resource tree, has the policy pack judge it in its own process
 * like `pulumi preview --policy-pack policies`, and optionally writes a JSON report (modeled on `pulumi preview
 * --json`), every Kubernetes object as YAML, and a Markdown summary for a pull request: against a base report, what the
 * change adds, removes and changes, property by property, and which violations it introduces. `--help` lists the
 * options and exit codes.
 */
import * as fs from "fs";
import * as path from "path";
import { CliContext, CliError, CliSpec, CliValues, EXIT, runCli, seconds } from "./cli";
import { PackConfig, PackConfigError, PolicyPackProcess } from "./offline/analyzer";
import { readBaseReport } from "./offline/baseReport";
import { diffReports } from "./offline/diff";
import { renderChanges, renderMarkdown } from "./offline/renderDiff";
import { Judgement } from "./offline/policies";
import { ProjectError } from "./offline/project";
import { KubernetesManifest, buildReport, kubernetesManifests, renderPolicies, renderTree } from "./offline/report";
import { DEFAULT_PROGRAM_TIMEOUT_SECONDS, ProgramError, runOffline } from "./offline/run";

/** This project's pack, judged by default. */
const DEFAULT_PACK = path.resolve(__dirname, "..", "policies");

const OPTIONS = {
    stack: { type: "string", value: "NAME", default: "dev", description: "the stack whose Pulumi.<stack>.yaml configures the program" },
    config: {
        type: "string",
        short: "c",
        multiple: true,
        default: [] as string[],
        value: "KEY=VALUE",
        description: "set a configuration value (repeatable)",
    },
    secret: {
        type: "string",
        multiple: true,
        default: [] as string[],
        value: "KEY=VALUE",
        description: "set a secret configuration value (repeatable)",
    },
    "policy-pack": { type: "string", value: "DIR", description: "the policy pack to judge with (this project's policies by default)" },
    "policy-config": {
        type: "string",
        value: "FILE",
        description: "the pack's configuration, as pulumi preview --policy-pack-config takes it",
    },
    json: {
        type: "string",
        value: "FILE",
        description: "write a report modeled on pulumi preview --json to FILE (with --against, the diff too)",
    },
    out: { type: "string", value: "DIR", description: "write every Kubernetes object as YAML into DIR" },
    markdown: { type: "string", value: "FILE", description: "write a Markdown summary for a pull request to FILE" },
    against: {
        type: "string",
        value: "REPORT",
        description: "what changed since this --json report: printed, and in --markdown and --json",
    },
    dir: { type: "string", value: "DIR", default: ".", description: "the Pulumi program to preview" },
    "bare-stack": {
        type: "boolean",
        description: "preview a stack without its Pulumi.<stack>.yaml, on project defaults and --config alone",
    },
    "program-timeout": {
        type: "string",
        value: "SECONDS",
        default: String(DEFAULT_PROGRAM_TIMEOUT_SECONDS),
        description: "the longest the program may run before it counts as hung",
    },
} as const;

export const PREVIEW_OFFLINE_CLI: CliSpec<typeof OPTIONS> = {
    script: "preview:offline",
    synopsis: "[options]",
    description:
        "Shows what pulumi up would create, without a cloud account or the Pulumi CLI: runs the program under the SDK's mocks, " +
        "prints the resource tree and the stack's outputs, and has the policy pack judge every resource in its own process, as " +
        "pulumi preview --policy-pack policies does. Optionally writes a JSON report, every Kubernetes object as YAML, and a " +
        "Markdown summary of what a change adds, removes and changes.",
    options: OPTIONS,
    examples: [
        "npm run preview:offline -- --stack prod --json before.json",
        "npm run preview:offline -- --stack prod --against before.json --markdown diff.md",
    ],
    exitCodes: [
        [EXIT.ok, "the program ran and no mandatory policy failed"],
        [EXIT.failed, "a mandatory policy failed"],
        [EXIT.usage, "a usage, configuration or program error (one that fails pulumi up too), or the pack could not judge"],
    ],
    // Its stdout is read by scripts: progress shows on a terminal, and elsewhere only for a step that takes a while.
    progress: { onlyAfterMs: 2000 },
};

/** Errors whose message is the whole story (bad configuration, bad usage): no stack trace. */
function isUserError(err: unknown): boolean {
    const record = err as { __pulumiRunError?: boolean } | undefined;
    return err instanceof ProjectError || err instanceof ProgramError || record?.__pulumiRunError === true;
}

/** The JSON file an option names, or undefined when the option is absent; a read or parse error names the option. */
function readJsonOption<T>(option: string, file: string | undefined): T | undefined {
    if (file === undefined) {
        return undefined;
    }
    try {
        return JSON.parse(fs.readFileSync(file, "utf8")) as T;
    } catch (err) {
        throw new CliError(`${option} ${file}: ${(err as Error).message}`);
    }
}

/** The file in an `--out` folder that lists what the last run wrote there, so that the next run can replace exactly that. */
const OUT_MANIFEST = ".preview-offline.json";

/**
 * Checks before the run that `target` can be written as `kind`, so that a run never ends in an error over where its
 * output goes: the path itself, or the nearest folder above it that exists, must be a writable folder (a file for a
 * file that exists).
 */
function checkWritable(option: string, target: string, kind: "file" | "folder"): void {
    let existing = target;
    while (!fs.existsSync(existing)) {
        existing = path.dirname(existing);
    }
    const isFolder = fs.statSync(existing).isDirectory();
    if (existing === target && isFolder !== (kind === "folder")) {
        throw new CliError(`${option} ${target} is a ${isFolder ? "folder" : "file"}, not a ${kind}`);
    }
    if (existing !== target && !isFolder) {
        throw new CliError(`${option} ${target} cannot be written: ${existing} is a file, not a folder`);
    }
    try {
        fs.accessSync(existing, fs.constants.W_OK);
    } catch {
        throw new CliError(`${option} ${target} cannot be written: ${existing} is not writable`);
    }
}

/** Checks `--out` before the run: a new or empty folder, or one this tool wrote (it then holds the list of its files). */
function claimOutDir(outDir: string): void {
    checkWritable("--out", outDir, "folder");
    if (!fs.existsSync(outDir)) {
        return;
    }
    const entries = fs.readdirSync(outDir);
    if (entries.length > 0 && !entries.includes(OUT_MANIFEST)) {
        throw new CliError(
            `--out ${outDir} is not empty and was not written by npm run preview:offline; allowed: a new or empty folder, or one this command wrote`,
        );
    }
}

/** Replaces what the last run wrote in `outDir` with `manifests`, and lists them for the next run. */
function writeOutDir(outDir: string, manifests: KubernetesManifest[]): void {
    fs.mkdirSync(outDir, { recursive: true });
    const manifestPath = path.join(outDir, OUT_MANIFEST);
    const previous: string[] = fs.existsSync(manifestPath)
        ? (JSON.parse(fs.readFileSync(manifestPath, "utf8")) as { files: string[] }).files
        : [];
    for (const file of previous) {
        fs.rmSync(path.join(outDir, path.basename(file)), { force: true });
    }
    for (const manifest of manifests) {
        fs.writeFileSync(path.join(outDir, manifest.fileName), manifest.yaml);
    }
    fs.writeFileSync(manifestPath, `${JSON.stringify({ files: manifests.map((manifest) => manifest.fileName) }, null, 2)}\n`);
}

/** Writes `content` to `file`, creating its directory, and says where. */
function writeOutput(file: string, content: string, cli: CliContext): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    cli.print(`\nwrote ${path.relative(process.cwd(), file) || file}\n`);
}

/** Where the command gets its policy pack's process, and what it does with it after the verdict. */
export interface PackSource {
    start(packDir: string, onBuild: (reason: string) => void): Promise<PolicyPackProcess>;
    release(pack: PolicyPackProcess): void;
}

/** A pack process of the run's own, stopped once it has judged. */
const OWN_PACK: PackSource = { start: (packDir, onBuild) => PolicyPackProcess.start(packDir, onBuild), release: (pack) => pack.close() };

/**
 * The command: what `npm run preview:offline` runs with its parsed options. `packs` may lend a running pack (reconfigured
 * for the run, as the engine configures one per preview) instead of starting one.
 */
export async function previewOffline(values: CliValues<typeof OPTIONS>, cli: CliContext, packs: PackSource = OWN_PACK): Promise<number> {
    // Output paths are relative to where the command was typed, not to the program.
    const jsonPath = values.json && path.resolve(values.json);
    const outDir = values.out && path.resolve(values.out);
    const markdownPath = values.markdown && path.resolve(values.markdown);
    const against = readJsonOption<unknown>("--against", values.against);
    let base: ReturnType<typeof readBaseReport> | undefined;
    try {
        base = against === undefined ? undefined : readBaseReport(against);
    } catch (err) {
        throw new CliError(`--against ${values.against} ${(err as Error).message}`);
    }
    const policyConfig = readJsonOption<PackConfig>("--policy-config", values["policy-config"]) ?? {};
    if (outDir !== undefined) {
        claimOutDir(outDir);
    }
    for (const [option, file] of [
        ["--json", jsonPath],
        ["--markdown", markdownPath],
    ] as const) {
        if (file) {
            checkWritable(option, file, "file");
        }
    }
    const timeout = seconds("--program-timeout", values["program-timeout"]);

    // The pack starts first and judges each resource as it registers, as the engine has it do, while the program runs.
    const packStarting = packs.start(path.resolve(values["policy-pack"] ?? DEFAULT_PACK), (reason) =>
        process.stderr.write(`building the policy pack: ${reason}\n`),
    );
    packStarting.catch(() => undefined);
    let judgement: Judgement | undefined;
    let run;
    try {
        cli.progress.step(`running the program in ${values.dir} (stack ${values.stack}) under mocks`);
        run = await runOffline(values.dir, values.stack, {
            overrides: values.config,
            secretOverrides: values.secret,
            allowBareStack: Boolean(values["bare-stack"]),
            timeoutSeconds: timeout,
            onProject: (project) =>
                (judgement = new Judgement(packStarting, policyConfig, { project: project.projectName, stack: project.stack })),
            onResource: (resource) => judgement!.analyze(resource),
        });
    } catch (err) {
        packStarting.then(
            (pack) => packs.release(pack),
            () => undefined,
        );
        // A program's own error keeps its stack for --debug: that is where its cause is.
        throw isUserError(err) ? new CliError((err as Error).message, EXIT.usage, { cause: err }) : err;
    }

    let verdict;
    try {
        cli.progress.step(`the policy pack judging ${run.resources.length} resources`);
        verdict = await judgement!.verdict(run.resources);
    } catch (err) {
        throw new CliError(err instanceof PackConfigError ? err.message : `policy pack: ${(err as Error).message}`, EXIT.usage, {
            cause: err,
        });
    } finally {
        const pack = await packStarting.catch(() => undefined);
        if (pack) {
            packs.release(pack);
        }
    }
    const { info, violations } = verdict;

    for (const note of run.notes) {
        cli.print(`note: ${note}\n`);
    }
    cli.print(`${renderTree(run, cli.stdout)}\n\n${renderPolicies(info, violations, run)}\n`);
    const report = buildReport(run, violations);
    const diff = base && diffReports(base, report);
    if (diff) {
        cli.print(`\n${renderChanges(diff)}\n`);
    }
    if (markdownPath) {
        writeOutput(markdownPath, renderMarkdown(report, diff), cli);
    }
    if (jsonPath) {
        // With --against, the diff goes into the report too (readBaseReport ignores it when the report is a base itself).
        writeOutput(jsonPath, `${JSON.stringify(diff ? { ...report, diff } : report, null, 2)}\n`, cli);
    }
    if (outDir) {
        const manifests = kubernetesManifests(run);
        writeOutDir(outDir, manifests);
        cli.print(`wrote ${manifests.length} Kubernetes objects to ${path.relative(process.cwd(), outDir) || outDir}\n`);
    }
    return violations.some((violation) => violation.enforcementLevel === "mandatory") ? EXIT.failed : EXIT.ok;
}

if (require.main === module) {
    runCli(PREVIEW_OFFLINE_CLI, previewOffline);
}
