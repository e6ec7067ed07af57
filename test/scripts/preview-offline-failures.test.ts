import { spawn, spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { readBaseReport } from "../../scripts/offline/baseReport";
import { diffReports } from "../../scripts/offline/diff";
import { renderMarkdown } from "../../scripts/offline/renderDiff";
import { PreviewReport } from "../../scripts/offline/report";
import { shippedRun } from "../shippedStacks";
import { ROOT, preview, previewProcess, tempDir } from "./previewCli";
import { firstPulumiPreview } from "./pulumiPreview";

const FAILING = path.join(ROOT, "test", "fixtures", "failing-program");
const KUBERNETES_PROGRAM = path.join(ROOT, "test", "fixtures", "kubernetes-program");

describe("npm run preview:offline reports a failing program as a failure, as pulumi up would", () => {
    // A program that never finishes waits out its timeout: a short one for those, time to finish for the others.
    const timeoutOf = (mode: string) => (["never", "cycle", "busy"].includes(mode) ? "0.3" : "1.5");
    const failing = async (mode: string, run: typeof preview | typeof previewProcess = preview) => {
        const dir = tempDir();
        const args = ["--dir", FAILING, "--bare-stack", "--program-timeout", timeoutOf(mode), "-c", `mode=${mode}`];
        const result = await run(...args, "--json", path.join(dir, "report.json"), "--out", path.join(dir, "out"));
        return { ...result, wrote: fs.readdirSync(dir) };
    };
    const refusedWithNothingWritten = (run: Awaited<ReturnType<typeof failing>>, stderr: RegExp) => {
        expect(run.status).toBe(2);
        expect(run.stderr).toMatch(stderr);
        expect(run.stdout).not.toContain("Previewing");
        expect(run.stdout).not.toContain("Policies:");
        expect(run.wrote).toEqual([]);
    };

    test.each<[string, RegExp]>([
        // The program's own stack trace only with --debug.
        ["throw", /^error: the program gave up; --debug prints its stack trace\n$/],
        [
            "never",
            /^error: the program did not finish within 0.3 s: random:index\/randomString:RandomString waits never registered, each waiting on an input or dependsOn that never resolves \(an Output that never resolves, or resources that wait for each other\)\n$/,
        ],
        [
            "busy",
            /^error: the program did not finish within 0.3 s: every resource it created registered, but its own code was still running \(a promise it awaits that does not settle in time\); --program-timeout gives it longer\n$/,
        ],
        [
            "cycle",
            /^error: the program did not finish within 0.3 s: random:index\/randomString:RandomString a, random:index\/randomString:RandomString b never registered, each waiting/,
        ],
    ])("%s: exit 2 with the message, and no tree, verdict, report or objects", async (mode, stderr) => {
        refusedWithNothingWritten(await failing(mode), stderr);
    });

    // As its own process: a rejected apply reaches the preview as the process's unhandled rejection, and a logged error is
    // the SDK's own line on the process's stderr.
    test.each<[string, RegExp]>([
        ["apply", /^error: an apply gave up; --debug prints its stack trace\n$/],
        [
            "log-error",
            /^error: \[runtime\] a quota check failed\nerror: the program logged an error, which fails a real run: a quota check failed\n$/,
        ],
    ])("%s, as its own process: exit 2 with the message, and no tree, verdict, report or objects", async (mode, stderr) => {
        refusedWithNothingWritten(await failing(mode, previewProcess), stderr);
    });

    test("the same program without a failure previews", async () => {
        const run = await failing("none");
        expect(run.status).toBe(0);
        expect(run.wrote.sort()).toEqual(["out", "report.json"]);
    });
});

describe("npm run preview:offline's other inputs and outputs", () => {
    test("--against a file that is no report names what is missing; a real pulumi preview --json is read, its change shown in the terminal and the Markdown", async () => {
        const dir = tempDir();
        const notReport = path.join(dir, "not-report.json");
        fs.writeFileSync(notReport, JSON.stringify({ steps: [{ op: "create" }] }));
        const refused = await preview("--against", notReport);
        expect(refused.status).toBe(2);
        expect(refused.stderr).toBe(
            `error: --against ${notReport} is not a report of npm run preview:offline --json or of pulumi preview --json: steps[0].urn is missing\n`,
        );

        // A real first preview of the dev stack whose pool scaled to 2 nodes and which held one more resource.
        const real = path.join(dir, "pulumi-preview.json");
        const base = firstPulumiPreview(await shippedRun("dev"));
        const pool = base.steps.find((step) => step.urn.endsWith("::tpu-inference-tpu-pool"))!;
        (pool.newState.inputs as { autoscaling: { maxNodeCount: number } }).autoscaling.maxNodeCount = 2;
        const type = "random:index/randomString:RandomString";
        const gone = `urn:pulumi:dev::gke-tpu-inference::${type}::gone`;
        base.steps.push({
            op: "create",
            urn: gone,
            newState: { urn: gone, custom: true, type, inputs: { length: 8 } },
            detailedDiff: null,
        });
        fs.writeFileSync(real, JSON.stringify(base));
        const markdown = path.join(dir, "diff.md");
        const json = path.join(dir, "head.json");
        const read = await preview("--against", real, "--markdown", markdown, "--json", json);
        expect(read.status).toBe(0);
        expect(read.stdout).toContain(
            [
                "Changes against the base:",
                "    ~ update  gcp:container:NodePool  tpu-inference-tpu-pool  inputs.autoscaling.maxNodeCount",
                "    - delete  random:index:RandomString  gone",
                "",
                "    ~ 1 to update, + 0 to create, - 1 to delete, 96 unchanged",
                "    11 unchanged resources have values the base held as [unknown], which are not changes",
                "    Not compared: 2 default providers of the base (the engine adds them) and 10 objects of components only one of the two previews rendered",
                "",
            ].join("\n"),
        );
        const { diff, ...head } = JSON.parse(fs.readFileSync(json, "utf8")) as PreviewReport & { diff: unknown };
        // The JSON carries the diff the terminal and the Markdown show; the rest is the report, usable as a base in turn.
        expect(diff).toEqual(JSON.parse(JSON.stringify(diffReports(readBaseReport(base), head))));
        expect(fs.readFileSync(markdown, "utf8")).toBe(renderMarkdown(head, diffReports(readBaseReport(base), head)));
    });

    test("an output path that cannot be written is refused in one line before the run; a new folder for one is made", async () => {
        const dir = tempDir();
        const file = path.join(dir, "file");
        fs.writeFileSync(file, "");
        const program = ["--dir", KUBERNETES_PROGRAM, "--bare-stack"];
        for (const [args, stderr] of [
            [
                ["--json", path.join(file, "report.json")],
                `--json ${path.join(file, "report.json")} cannot be written: ${file} is a file, not a folder`,
            ],
            [
                ["--markdown", path.join(file, "a", "diff.md")],
                `--markdown ${path.join(file, "a", "diff.md")} cannot be written: ${file} is a file, not a folder`,
            ],
            [["--json", dir], `--json ${dir} is a folder, not a file`],
            [["--out", file], `--out ${file} is a file, not a folder`],
            [
                ["--out", path.join(file, "objects")],
                `--out ${path.join(file, "objects")} cannot be written: ${file} is a file, not a folder`,
            ],
        ]) {
            const refused = await preview(...program, ...args);
            expect([refused.status, refused.stdout, refused.stderr]).toEqual([2, "", `error: ${stderr}\n`]);
        }
        const json = path.join(dir, "new", "report.json");
        const written = await preview(...program, "--json", json);
        expect(written.status).toBe(0);
        expect(fs.existsSync(json)).toBe(true);
    });

    test("--out keeps exactly this run's objects, and refuses a folder it did not write", async () => {
        const out = tempDir();
        fs.writeFileSync(path.join(out, "notes.txt"), "mine");
        const refused = await preview("--out", out);
        expect(refused.status).toBe(2);
        expect(refused.stderr).toBe(
            `error: --out ${out} is not empty and was not written by npm run preview:offline; allowed: a new or empty folder, or one this command wrote\n`,
        );

        // A program whose Secret exists only when a token is given: the second run, without one, leaves no Secret behind.
        const ours = path.join(tempDir(), "objects");
        const program = ["--dir", KUBERNETES_PROGRAM, "--bare-stack", "--config", "greeting=hi", "--out", ours];
        expect((await preview(...program, "--secret", "token=t0ken")).status).toBe(0);
        expect(fs.readdirSync(ours)).toContain("secret-demo-token.yaml");
        expect((await preview(...program)).status).toBe(0);
        const files = fs.readdirSync(ours);
        expect(files).toContain("configmap-demo-greeting.yaml");
        expect(files).not.toContain("secret-demo-token.yaml");
        expect(files.length).toBe(
            (JSON.parse(fs.readFileSync(path.join(ours, ".preview-offline.json"), "utf8")) as { files: string[] }).files.length + 1,
        );
    });
});

describe("no process outlives npm run preview:offline", () => {
    /** Processes whose environment carries `marker`: the command's own children inherit it. */
    const marked = (marker: string): number[] =>
        fs.readdirSync("/proc").flatMap((entry) => {
            if (!/^\d+$/.test(entry)) {
                return [];
            }
            try {
                return fs.readFileSync(`/proc/${entry}/environ`, "latin1").includes(`PREVIEW_TEST_MARKER=${marker}`) ? [Number(entry)] : [];
            } catch {
                return [];
            }
        });

    test.each([
        ["a failing preview", ["--config", "gke-tpu-inference:zone=us-west1-a"]],
        ["a timed-out preview", ["--program-timeout", "0.001"]],
    ])("%s exits 2 and leaves no policy pack running", (_, args) => {
        const marker = `exit-${process.pid}-${args[0]}`;
        const run = spawnSync(process.execPath, ["-r", "./scripts/ts-hook.js", "scripts/preview-offline.ts", ...args], {
            cwd: ROOT,
            encoding: "utf8",
            env: { ...process.env, PREVIEW_TEST_MARKER: marker },
        });
        expect(run.status).toBe(2);
        expect(marked(marker)).toEqual([]);
    });

    test("SIGTERM stops the preview and its policy pack", async () => {
        const marker = `signal-${process.pid}`;
        const cli = spawn(process.execPath, ["-r", "./scripts/ts-hook.js", "scripts/preview-offline.ts"], {
            cwd: ROOT,
            env: { ...process.env, PREVIEW_TEST_MARKER: marker },
            stdio: "ignore",
        });
        const exited = new Promise<number | null>((resolve) => cli.on("exit", (code) => resolve(code)));
        // Once the pack is up beside the preview.
        for (let waited = 0; marked(marker).filter((pid) => pid !== cli.pid).length === 0 && waited < 30_000; waited += 50) {
            await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(marked(marker).filter((pid) => pid !== cli.pid).length).toBeGreaterThan(0);
        cli.kill("SIGTERM");
        expect(await exited).toBe(143);
        expect(marked(marker)).toEqual([]);
    }, 40_000);
});
