/**
 * `npm run preview:offline -- [--stack NAME] [--config key=value]... [--secret key=value]... [--policy-pack DIR] [--policy-config FILE] [--json FILE] [--out DIR] [--markdown FILE] [--against BASE_REPORT.json] [--dir PROGRAM_DIR] [--bare-stack] [--program-timeout SECONDS]`
 *
 * Shows what `pulumi up` would create without a cloud account or the Pulumi CLI: runs the
 * program under the SDK's mocks, prints the resource tree, has the policy pack judge it in its
 * own process like `pulumi preview --policy-pack policies`, and optionally writes a JSON report
 * (modeled on `pulumi preview --json`), every Kubernetes object as YAML, and a Markdown
 * summary for a pull request: against a base report, what the change adds, removes and
 * changes, property by property, and which violations it introduces.
 * Exit codes: 0 the program ran and no mandatory policy failed; 1 a mandatory policy failed;
 * 2 a configuration, usage or program error.
 */
import * as fs from "fs";
import * as path from "path";
import { parseArgs } from "util";
import { runCli } from "./cli";
import { PackConfig, PackConfigError, PolicyPackProcess } from "./offline/analyzer";
import { diffReports, readBaseReport, renderChanges, renderMarkdown } from "./offline/diff";
import { Judgement } from "./offline/policies";
import { ProjectError } from "./offline/project";
import { KubernetesManifest, buildReport, kubernetesManifests, renderPolicies, renderTree } from "./offline/report";
import { DEFAULT_PROGRAM_TIMEOUT_SECONDS, ProgramError, runOffline } from "./offline/run";

const USAGE =
    "usage: npm run preview:offline -- [--stack NAME] [--config key=value]... [--secret key=value]... [--policy-pack DIR] [--policy-config FILE] [--json FILE] [--out DIR] [--markdown FILE] [--against BASE_REPORT.json] [--dir PROGRAM_DIR] [--bare-stack] [--program-timeout SECONDS]";

/** This project's pack, judged by default. */
const DEFAULT_PACK = path.resolve(__dirname, "..", "policies");

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
        throw new Error(`${option} ${file}: ${(err as Error).message}`);
    }
}

/** The file in an `--out` folder that lists what the last run wrote there, so that the next run can replace exactly that. */
const OUT_MANIFEST = ".preview-offline.json";

/** Checks `--out` before the run: a new or empty folder, or one this tool wrote (it then holds the list of its files). */
function claimOutDir(outDir: string): void {
    if (!fs.existsSync(outDir)) {
        return;
    }
    if (!fs.statSync(outDir).isDirectory()) {
        throw new Error(`--out ${outDir} is a file, not a folder`);
    }
    const entries = fs.readdirSync(outDir);
    if (entries.length > 0 && !entries.includes(OUT_MANIFEST)) {
        throw new Error(
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
function writeOutput(file: string, content: string): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    process.stdout.write(`\nwrote ${path.relative(process.cwd(), file) || file}\n`);
}

async function main(argv: string[]): Promise<number> {
    let values;
    try {
        ({ values } = parseArgs({
            args: argv,
            options: {
                stack: { type: "string", default: "dev" },
                config: { type: "string", short: "c", multiple: true, default: [] },
                secret: { type: "string", multiple: true, default: [] },
                json: { type: "string" },
                "policy-pack": { type: "string" },
                "policy-config": { type: "string" },
                markdown: { type: "string" },
                against: { type: "string" },
                out: { type: "string" },
                dir: { type: "string", default: "." },
                "bare-stack": { type: "boolean", default: false },
                "program-timeout": { type: "string", default: String(DEFAULT_PROGRAM_TIMEOUT_SECONDS) },
                help: { type: "boolean", short: "h" },
            },
            strict: true,
            allowPositionals: false,
        }));
    } catch (err) {
        process.stderr.write(`error: ${(err as Error).message}; npm run preview:offline -- --help lists the options\n`);
        return 2;
    }
    if (values.help) {
        process.stdout.write(`${USAGE}\n`);
        return 0;
    }
    // Output paths are relative to where the command was typed, not to the program.
    const jsonPath = values.json && path.resolve(values.json);
    const outDir = values.out && path.resolve(values.out);
    const markdownPath = values.markdown && path.resolve(values.markdown);
    let base: ReturnType<typeof readBaseReport> | undefined;
    let policyConfig: PackConfig;
    try {
        const against = readJsonOption<unknown>("--against", values.against);
        try {
            base = against === undefined ? undefined : readBaseReport(against);
        } catch (err) {
            throw new Error(`--against ${values.against} ${(err as Error).message}`);
        }
        policyConfig = readJsonOption<PackConfig>("--policy-config", values["policy-config"]) ?? {};
        if (outDir !== undefined) {
            claimOutDir(outDir);
        }
    } catch (err) {
        process.stderr.write(`error: ${(err as Error).message}\n`);
        return 2;
    }

    const timeout = Number(values["program-timeout"]);
    if (!Number.isFinite(timeout) || timeout <= 0) {
        process.stderr.write(`error: --program-timeout ${JSON.stringify(values["program-timeout"])} is not a number of seconds above 0\n`);
        return 2;
    }

    // The pack starts first and judges each resource as it registers, as the engine has it do, while the program runs.
    const packStarting = PolicyPackProcess.start(path.resolve(values["policy-pack"] ?? DEFAULT_PACK), (reason) =>
        process.stderr.write(`building the policy pack: ${reason}\n`),
    );
    packStarting.catch(() => undefined);
    let judgement: Judgement | undefined;
    let run;
    try {
        run = await runOffline(values.dir, values.stack, {
            overrides: values.config,
            secretOverrides: values.secret,
            allowBareStack: values["bare-stack"],
            timeoutSeconds: timeout,
            onProject: (project) =>
                (judgement = new Judgement(packStarting, policyConfig, { project: project.projectName, stack: project.stack })),
            onResource: (resource) => judgement!.analyze(resource),
        });
    } catch (err) {
        const message = isUserError(err) ? (err as Error).message : ((err as Error)?.stack ?? String(err));
        process.stderr.write(`error: ${message}\n`);
        packStarting.then(
            (pack) => pack.close(),
            () => undefined,
        );
        return 2;
    }

    let verdict;
    try {
        verdict = await judgement!.verdict(run.resources);
    } catch (err) {
        process.stderr.write(`error: ${err instanceof PackConfigError ? err.message : `policy pack: ${(err as Error).message}`}\n`);
        return 2;
    } finally {
        (await packStarting.catch(() => undefined))?.close();
    }
    const { info, violations } = verdict;

    for (const note of run.notes) {
        process.stdout.write(`note: ${note}\n`);
    }
    process.stdout.write(`${renderTree(run)}\n\n${renderPolicies(info, violations, run)}\n`);
    const report = buildReport(run, violations);
    const diff = base && diffReports(base, report);
    if (diff) {
        process.stdout.write(`\n${renderChanges(diff)}\n`);
    }
    if (markdownPath) {
        writeOutput(markdownPath, renderMarkdown(report, diff));
    }
    if (jsonPath) {
        writeOutput(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
    }
    if (outDir) {
        const manifests = kubernetesManifests(run);
        writeOutDir(outDir, manifests);
        process.stdout.write(`wrote ${manifests.length} Kubernetes objects to ${path.relative(process.cwd(), outDir) || outDir}\n`);
    }
    return violations.some((violation) => violation.enforcementLevel === "mandatory") ? 1 : 0;
}

runCli(main);
