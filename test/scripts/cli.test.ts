import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { PassThrough } from "stream";
import { AFFECTED_STACKS_CLI } from "../../scripts/affected-stacks";
import { BENCH_CLI } from "../../scripts/bench-coldstart";
import { CliError, CliOptions, CliSpec, EXIT, errorLines, parseCli, renderHelp } from "../../scripts/cli";
import { checksJson, formatChecks } from "../../scripts/cli/checks";
import { Progress } from "../../scripts/cli/progress";
const { nodeSatisfies } = require("../../scripts/nodeVersion") as { nodeSatisfies: (version: string, range: string) => boolean };
import { outputLines, propertyLines } from "../../scripts/cli/properties";
import { plainTerminal, terminalFor, wrap } from "../../scripts/cli/terminal";
import { ClusterAccessError, clusterAccessError, requireKubeconfig } from "../../scripts/cluster/access";
import { readStackOutputs } from "../../scripts/cluster/stackOutputs";
import { DOCTOR_CLI } from "../../scripts/doctor";
import { FETCH_SHARED_CLI } from "../../scripts/fetch-shared";
import { SET_VERSION_CLI } from "../../scripts/set-version";
import { PREVIEW_OFFLINE_CLI } from "../../scripts/preview-offline";
import { SMOKE_CLI } from "../../scripts/smoke";
import { CORPUS_CLI } from "../../scripts/corpus";
import { BENCH_FLEET_CLI } from "../../scripts/bench-fleet";
import { ROOT, runCli } from "../cli";

const emptyDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "cli-"));

describe("--help", () => {
    const commands: Array<[CliSpec<CliOptions>, string]> = [
        [DOCTOR_CLI, "usage: npm run doctor -- [--stack NAME | --outputs FILE] [options]"],
        [SMOKE_CLI, "usage: npm run smoke -- --stack NAME | --outputs FILE [options]"],
        [PREVIEW_OFFLINE_CLI, "usage: npm run preview:offline -- [options]"],
        [BENCH_CLI, "usage: npm run bench:coldstart -- [--help]"],
        [BENCH_FLEET_CLI, "usage: npm run bench:fleet -- [--regions LIST] [--models LIST]"],
        [AFFECTED_STACKS_CLI, "usage: npm run affected-stacks -- [--help] < CHANGED_FILES"],
        [FETCH_SHARED_CLI, "usage: npm run shared:fetch -- [--manifest FILE] [--if-missing]"],
        [SET_VERSION_CLI, "usage: npm run set-version -- --to VERSION [--date YYYY-MM-DD]"],
        [CORPUS_CLI, "usage: npm run corpus -- [--program NAME]..."],
    ];

    test.each(commands)("$script: the usage line, every option, examples and exit codes, within 80 columns", (spec, usage) => {
        const help = renderHelp(spec, 80).split("\n");
        expect(help[0]).toBe(usage);
        for (const option of [...Object.keys(spec.options), "help", "debug"]) {
            expect(help).toContainEqual(expect.stringMatching(new RegExp(`^ {2}(-\\w, | {4})--${option}\\b`)));
        }
        expect(help).toEqual(expect.arrayContaining(["Options:", "Examples:", "Exit codes:", "  130  interrupted (Ctrl-C)"]));
        expect(help).toContainEqual(expect.stringMatching(new RegExp(`^ {2}.*npm run (-s )?${spec.script}`)));
        expect(help.filter((line) => line.length > 80)).toEqual([]);
    });

    test("the whole help of a small command, and the command printing it exits 0", async () => {
        expect(renderHelp(AFFECTED_STACKS_CLI, 80)).toBe(
            [
                "usage: npm run affected-stacks -- [--help] < CHANGED_FILES",
                "",
                "Reads the changed files, one path a line, on stdin and prints as a JSON array",
                "the shipped stacks the change can affect: every stack when the program, its",
                "dependencies or the policy pack change; otherwise only the stacks whose own",
                "Pulumi.<stack>.yaml changed. Documentation, tests and tooling affect none.",
                "",
                "Options:",
                "  -h, --help   print this help and exit",
                "      --debug  print an error's stack trace, not only its line",
                "",
                "Examples:",
                "  git diff --name-only origin/main...HEAD | npm run -s affected-stacks",
                "",
                "Exit codes:",
                "  0    the array was printed (empty when no stack is affected)",
                "  2    a usage error, or stdin is a terminal rather than a list of files",
                "  129  stopped by SIGHUP",
                "  130  interrupted (Ctrl-C)",
                "  143  stopped by SIGTERM",
                "",
            ].join("\n"),
        );
        const run = await runCli("affected-stacks.ts", ["-h"]);
        expect(run).toEqual({ status: EXIT.ok, stdout: renderHelp(AFFECTED_STACKS_CLI, 80), stderr: "" });
    });

    test("a wide terminal gets the option descriptions on one line, with their defaults", () => {
        expect(renderHelp(DOCTOR_CLI, 160).split("\n")).toContain(
            "      --request-timeout SECONDS            the longest wait for one answer before giving up with exit code 3 (default 10)",
        );
    });
});

describe("options and errors", () => {
    test("an unknown option, a positional or a missing value is one usage line pointing at --help", () => {
        const parse =
            (...argv: string[]) =>
            () =>
                parseCli(DOCTOR_CLI, argv);
        expect(parse("--stak", "dev")).toThrow(new CliError("Unknown option '--stak'; npm run doctor -- --help lists the options"));
        expect(parse("dev")).toThrow(
            new CliError(
                "Unexpected argument 'dev'. This command does not take positional arguments; npm run doctor -- --help lists the options",
            ),
        );
        expect(parse("--stack")).toThrow(
            new CliError("Option '--stack <value>' argument missing; npm run doctor -- --help lists the options"),
        );
        expect(parse("-v", "--namespace", "a", "--namespace", "b")()).toMatchObject({
            verbose: true,
            namespace: ["a", "b"],
            deadline: "120",
        });
    });

    test("an error is one line; an unexpected one points at --debug, which prints its stack and its cause's", () => {
        const terminal = plainTerminal();
        expect(errorLines(new CliError("no kubeconfig: run $(pulumi stack output kubeconfigCommand)"), false, terminal)).toBe(
            "error: no kubeconfig: run $(pulumi stack output kubeconfigCommand)\n",
        );
        const bug = new TypeError("x is undefined\nsecond line");
        expect(errorLines(bug, false, terminal)).toBe("error: x is undefined; --debug prints its stack trace\n");
        const wrapped = new CliError("cannot read the cluster", EXIT.usage, { cause: bug });
        const debug = errorLines(wrapped, true, terminal).split("\n");
        expect(debug[0]).toBe("error: cannot read the cluster");
        expect(debug).toContain("CliError: cannot read the cluster");
        expect(debug).toContain("TypeError: x is undefined");
        expect(debug.filter((line) => /^ {4}at /.test(line)).length).toBeGreaterThan(1);
    });

    test("whatever a program throws says something: an empty message names the error, a thrown value is shown as Node shows it", () => {
        const terminal = plainTerminal();
        const said = (thrown: unknown) => errorLines(thrown, false, terminal);
        expect(said(new Error(""))).toBe("error: Error with no message; --debug prints its stack trace\n");
        expect(said(new RangeError())).toBe("error: RangeError with no message; --debug prints its stack trace\n");
        expect(said(undefined)).toBe("error: a thrown undefined; --debug prints its stack trace\n");
        expect(said({ code: 42 })).toBe("error: a thrown { code: 42 }; --debug prints its stack trace\n");
        expect(said("")).toBe("error: a thrown ''; --debug prints its stack trace\n");
    });

    test("a failure that is several problems, as a stack's configuration can be, lists every one", () => {
        const problems = new CliError('zone = "us-west1-a" is not a TPU v6e zone\ntpuMinNodes = "-3" is not a whole number from 0 to 1000');
        expect(errorLines(problems, false, plainTerminal())).toBe(
            'error: zone = "us-west1-a" is not a TPU v6e zone\ntpuMinNodes = "-3" is not a whole number from 0 to 1000\n',
        );
    });
});

describe("the terminal", () => {
    /** A stream as a terminal or a pipe; a terminal's colour depth as Node's tty.WriteStream gives it for an environment. */
    const stream = (isTTY: boolean, columns?: number) =>
        Object.assign(new PassThrough(), { isTTY, columns, getColorDepth: (env?: NodeJS.ProcessEnv) => (env?.TERM === "dumb" ? 1 : 8) });

    test("colour on a terminal; never with NO_COLOR set, even forced; FORCE_COLOR colours a pipe or turns colour off, as in Node", () => {
        const red = (isTTY: boolean, env: NodeJS.ProcessEnv) => terminalFor(stream(isTTY), env).style("red", "FAIL");
        expect(red(true, {})).toBe("\x1b[31mFAIL\x1b[39m");
        expect(red(false, {})).toBe("FAIL");
        expect(red(true, { TERM: "dumb" })).toBe("FAIL");
        expect(red(true, { NO_COLOR: "1" })).toBe("FAIL");
        expect(red(false, { NO_COLOR: "1", FORCE_COLOR: "1" })).toBe("FAIL");
        expect(red(false, { FORCE_COLOR: "1" })).toBe("\x1b[31mFAIL\x1b[39m");
        expect(red(false, { FORCE_COLOR: "" })).toBe("\x1b[31mFAIL\x1b[39m");
        expect(red(true, { FORCE_COLOR: "0" })).toBe("FAIL");
    });

    test("the terminal's width; else COLUMNS; else 80", () => {
        expect(terminalFor(stream(true, 132), { COLUMNS: "100" }).width).toBe(132);
        expect(terminalFor(stream(false, 132), { COLUMNS: "100" }).width).toBe(100);
        expect(terminalFor(stream(false), { COLUMNS: "wide" }).width).toBe(80);
        expect(terminalFor(stream(false), {}).width).toBe(80);
    });

    test("long lines wrap at spaces under a hanging indent; aligned keys stay; a word longer than a line stays whole", () => {
        expect(wrap("    FAIL    Gateway inference-gateway/inference-gateway: Gateway programmed: no address", 40, " ".repeat(12))).toEqual(
            [
                "    FAIL    Gateway",
                "            inference-gateway/inference-gateway:",
                "            Gateway programmed: no",
                "            address",
            ],
        );
        expect(wrap("key     : a value that runs", 20, " ".repeat(10))).toEqual(["key     : a value", "          that runs"]);
        expect(wrap(`see https://example.com/${"x".repeat(30)} now`, 20, "  ")).toEqual([
            "see",
            `  https://example.com/${"x".repeat(30)}`,
            "  now",
        ]);
        expect(wrap("fits", 20)).toEqual(["fits"]);
    });

    test("progress: a line a step off a terminal, at once or after a delay; on a terminal one line updated in place and cleared", async () => {
        const written = (isTTY: boolean, delay?: number) => {
            const out = stream(isTTY);
            const chunks: string[] = [];
            out.on("data", (chunk: Buffer) => chunks.push(chunk.toString()));
            const terminal = { ...plainTerminal(24), interactive: isTTY };
            return { progress: new Progress(out, terminal, { onlyAfterMs: delay }), chunks };
        };
        const plain = written(false);
        plain.progress.step("listing nodes");
        plain.progress.step("app: /health: retry 1 of 29 in 10 s (HTTP 503)");
        plain.progress.clear();
        const tty = written(true);
        tty.progress.step("listing nodes");
        tty.progress.step("app: /health: retry 1 of 29 in 10 s (HTTP 503)");
        tty.progress.clear();
        const slow = written(false, 30);
        slow.progress.step("a fast step");
        slow.progress.step("a slow step");
        await new Promise((resolve) => setTimeout(resolve, 60));
        slow.progress.step("a step that ends first");
        slow.progress.clear();
        await new Promise((resolve) => setTimeout(resolve, 60));
        await new Promise((resolve) => setImmediate(resolve));
        expect(plain.chunks).toEqual(["listing nodes\n", "app: /health: retry 1 of 29 in 10 s (HTTP 503)\n"]);
        expect(tty.chunks).toEqual(["\r\x1b[2Klisting nodes", "\r\x1b[2Kapp: /health: retry 1…", "\r\x1b[2K"]);
        expect(slow.chunks).toEqual(["a slow step\n"]);
    });
});

describe("nested values as Pulumi lays out a stack's outputs", () => {
    test("keys sorted and aligned, objects and arrays four spaces further in, strings quoted, null and secrets as Pulumi shows them", () => {
        const outputs = {
            models: { qwen: { baseUrl: "http://198.51.100.20/llm-inference/qwen", replicas: 1, args: ["--a", { b: true }] } },
            kubeconfigCommand: "gcloud container clusters get-credentials tpu-inference-dev --region europe-west4",
            token: "[secret]",
            nothing: null,
            empty: {},
            none: [],
            blank: "",
        };
        // The empty values are left out, as pulumi preview leaves them out, but still count for the keys' width.
        expect(outputLines(outputs, 80)).toEqual([
            '    kubeconfigCommand: "gcloud container clusters get-credentials',
            '                       tpu-inference-dev --region europe-west4"',
            "    models           : {",
            "        qwen: {",
            "            args    : [",
            '                [0]: "--a"',
            "                [1]: {",
            "                    b: true",
            "                }",
            "            ]",
            '            baseUrl : "http://198.51.100.20/llm-inference/qwen"',
            "            replicas: 1",
            "        }",
            "    }",
            "    token            : [secret]",
        ]);
        expect(propertyLines({ nothing: null, empty: {}, none: [], text: "as is" }, 0, { width: 80, quoteStrings: false })).toEqual([
            "empty  : {}",
            "none   : []",
            "nothing: <null>",
            "text   : as is",
        ]);
    });
});

describe("a check report", () => {
    const checks = [
        { status: "OK" as const, area: "Gateway", subject: "Gateway g: programmed", message: "Programmed=True" },
        { status: "WARN" as const, area: "model service ns/a", subject: "Pod ns/a-1: pod scheduled", message: "scaling up" },
        {
            status: "FAIL" as const,
            area: "model service ns/b",
            subject: "Pod ns/b-1: container running",
            message: "vLLM rejected a flag",
            details: { "next step": "drop the flag and run pulumi up", lesson: "vLLM rejects unknown flags (seed 003 #12)" },
        },
        { status: "SKIPPED" as const, area: "Gateway", subject: "prefix-cache hits", message: "no --metrics given" },
    ];

    test("failures first, grouped by area, details aligned under the check, then the counts; passes only with --verbose", () => {
        expect(formatChecks("doctor", checks, { verbose: false, terminal: plainTerminal(60) })).toBe(
            [
                "model service ns/b",
                "    FAIL    Pod ns/b-1: container running: vLLM rejected a",
                "            flag",
                "            lesson   : vLLM rejects unknown flags (seed 003",
                "                       #12)",
                "            next step: drop the flag and run pulumi up",
                "",
                "model service ns/a",
                "    WARN    Pod ns/a-1: pod scheduled: scaling up",
                "",
                "Gateway",
                "    SKIPPED prefix-cache hits: no --metrics given",
                "",
                "doctor: 1 failed, 1 warning, 1 skipped, 1 OK",
                "",
            ].join("\n"),
        );
        expect(
            formatChecks("doctor", checks, { verbose: true, terminal: plainTerminal(200) })
                .split("\n")
                .slice(-6),
        ).toEqual([
            "Gateway",
            "    SKIPPED prefix-cache hits: no --metrics given",
            "    OK      Gateway g: programmed: Programmed=True",
            "",
            "doctor: 1 failed, 1 warning, 1 skipped, 1 OK",
            "",
        ]);
    });

    test("in colour on a terminal: each status its colour, each area bold", () => {
        const colours = { ...plainTerminal(200), style: (style: string, text: string) => `<${style}>${text}</${style}>` };
        expect(formatChecks("doctor", checks.slice(2, 3), { verbose: false, terminal: colours }).split("\n").slice(0, 2)).toEqual([
            "<bold>model service ns/b</bold>",
            "    <red>FAIL</red>    Pod ns/b-1: container running: vLLM rejected a flag",
        ]);
    });

    test("--json: the counts and every check, as one document", () => {
        expect(
            JSON.parse(
                checksJson([
                    { status: "FAIL", check: "c" },
                    { status: "OK", check: "d" },
                ]),
            ),
        ).toEqual({
            summary: { failed: 1, warnings: 0, skipped: 0, ok: 1 },
            checks: [
                { status: "FAIL", check: "c" },
                { status: "OK", check: "d" },
            ],
        });
    });
});

describe("reaching the stack's outputs and the cluster", () => {
    test("no Pulumi CLI on PATH: one line naming the way around it", async () => {
        await expect(readStackOutputs({ stack: "dev" }, { PATH: emptyDir() })).rejects.toMatchObject({
            name: "CliError",
            message: "pulumi not found on PATH: install it or pass --outputs FILE",
        });
    });

    test("an outputs file: read as pulumi stack output --json writes it; both sources, or a file that is no such JSON, refused", async () => {
        const dir = emptyDir();
        const file = (name: string, text: string) => {
            fs.writeFileSync(path.join(dir, name), text);
            return path.join(dir, name);
        };
        expect(await readStackOutputs({ outputs: file("outputs.json", '{"servingNamespace":"llm-inference","models":{}}') })).toEqual({
            servingNamespace: "llm-inference",
            models: {},
        });
        // A file of another shape checks nothing: refused, naming what it is.
        const empty = file("empty.json", "{}");
        await expect(readStackOutputs({ outputs: empty })).rejects.toThrow(
            new CliError(
                `--outputs ${empty} holds no models: not the outputs of a stack of this program; write them with pulumi stack output --json`,
            ),
        );
        const report = file("report.json", '{"project":"p","stack":"dev","steps":[],"outputs":{}}');
        await expect(readStackOutputs({ outputs: report })).rejects.toThrow(
            new CliError(`--outputs ${report} is a preview report, not a stack's outputs; write them with pulumi stack output --json`),
        );
        expect(await readStackOutputs({})).toBeUndefined();
        await expect(readStackOutputs({ stack: "dev", outputs: "x.json" })).rejects.toThrow(
            new CliError("give --stack or --outputs, not both"),
        );
        const list = file("list.json", "[]");
        await expect(readStackOutputs({ outputs: list })).rejects.toThrow(
            new CliError(`--outputs ${list} is not an object of stack outputs; write it with pulumi stack output --json`),
        );
    });

    test("no kubeconfig: no KUBECONFIG file, no ~/.kube/config, no service account", () => {
        const home = emptyDir();
        const noToken = path.join(home, "token");
        expect(() => requireKubeconfig({ HOME: home }, noToken)).toThrow(
            new CliError("no kubeconfig: run $(pulumi stack output kubeconfigCommand)"),
        );
        const missing = path.join(emptyDir(), "config");
        expect(() => requireKubeconfig({ HOME: home, KUBECONFIG: missing }, noToken)).toThrow(
            new CliError(`no kubeconfig: KUBECONFIG names ${missing}, which does not exist; run $(pulumi stack output kubeconfigCommand)`),
        );
        fs.mkdirSync(path.join(home, ".kube"));
        fs.writeFileSync(path.join(home, ".kube", "config"), "");
        expect(() => requireKubeconfig({ HOME: home }, noToken)).not.toThrow();
    });

    test("each way a cluster read fails is one line with its next step", () => {
        const server = "https://203.0.113.10";
        const said = (err: unknown) => {
            const failure = clusterAccessError(err, server, 10);
            return [failure.message, failure.exitCode];
        };
        // node-fetch's shapes, as client-node sends requests with it.
        const fetchError = (code: string, reason: string) =>
            Object.assign(new Error(`request to ${server}/api/v1 failed, reason: ${reason}`), { name: "FetchError", code });
        expect(said(Object.assign(new Error("The user aborted a request."), { name: "AbortError" }))).toEqual([
            `the API server at ${server} did not answer within 10 s (--request-timeout): check that the cluster is up and reachable from here`,
            EXIT.timedOut,
        ]);
        expect(said(fetchError("ECONNREFUSED", "connect ECONNREFUSED 203.0.113.10:443"))).toEqual([
            `cannot reach the API server at ${server}: connection refused; check that the cluster is up, or run $(pulumi stack output kubeconfigCommand) if its address changed`,
            EXIT.usage,
        ]);
        expect(said(fetchError("EHOSTUNREACH", "connect EHOSTUNREACH 203.0.113.10:443"))).toEqual([
            `cannot reach the API server at ${server} (EHOSTUNREACH): check the network path to the cluster (VPN, authorized networks)`,
            EXIT.usage,
        ]);
        expect(said(fetchError("UNABLE_TO_VERIFY_LEAF_SIGNATURE", "unable to verify the first certificate"))).toEqual([
            `TLS with the API server at ${server} failed (UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate): the kubeconfig does not match the cluster; run $(pulumi stack output kubeconfigCommand)`,
            EXIT.usage,
        ]);
        // client-node's ApiException: the object API keeps the Status as text.
        const status = (code: number, message: string) =>
            Object.assign(new Error(`HTTP-Code: ${code}`), { code, body: JSON.stringify({ kind: "Status", code, message }) });
        expect(said(status(401, "Unauthorized"))).toEqual([
            `the API server at ${server} refused the kubeconfig's credentials (401 Unauthorized): they may have expired; run $(pulumi stack output kubeconfigCommand)`,
            EXIT.usage,
        ]);
        const forbidden = clusterAccessError(status(403, 'nodes is forbidden: User "dev" cannot list resource "nodes"'), server, 10);
        expect([forbidden.message, forbidden.status, forbidden.reason]).toEqual([
            `the kubeconfig's user is not allowed this read (403 Forbidden: nodes is forbidden: User "dev" cannot list resource "nodes"): ask for read access to the cluster, for example roles/container.viewer`,
            403,
            'nodes is forbidden: User "dev" cannot list resource "nodes"',
        ]);
        expect(forbidden).toBeInstanceOf(ClusterAccessError);
        const plugin = Object.assign(new Error("spawn gke-gcloud-auth-plugin ENOENT"), {
            code: "ENOENT",
            syscall: "spawn gke-gcloud-auth-plugin",
            path: "gke-gcloud-auth-plugin",
        });
        expect(said(plugin)).toEqual([
            "the kubeconfig's credential plugin gke-gcloud-auth-plugin is not on PATH: install it (for GKE: gcloud components install gke-gcloud-auth-plugin)",
            EXIT.usage,
        ]);
    });
});

describe("the Node versions every command accepts", () => {
    test("package.json's engines, read as ts-hook.js reads them: 22.13 and later 22s, 24 and later; an older Node gets one line", () => {
        const engines = (require("../../package.json") as { engines: { node: string } }).engines.node;
        expect(engines).toBe("^22.13.0 || >=24");
        const accepted = (version: string) => nodeSatisfies(version, engines);
        const later = ["22.13.0", "22.23.3", "24.0.0", "24.22.3", "25.1.0", "26.0.0", "26.12.1"];
        expect(later.filter(accepted)).toEqual(later);
        expect(["20.20.2", "22.12.9", "23.11.0", "18.0.0"].filter(accepted)).toEqual([]);
    });
});

describe("stack traces of TypeScript run through scripts/ts-hook.js", () => {
    // test/fixtures/source-maps/where.ts prints where its `new Error()` stands: line 4, column 15 of the .ts.
    const where = (...args: string[]) =>
        spawnSync(process.execPath, ["-r", "./scripts/ts-hook.js", "test/fixtures/source-maps/where.ts", ...args], {
            cwd: ROOT,
            encoding: "utf8",
        }).stdout;

    test("with --debug, which prints them, point at the .ts line, through its inline source map", () => {
        expect(where("--debug")).toBe("where.ts:4:15\n");
    });

    test("without --debug, which prints none, the source map is not read (it costs every start): the line is the transpiled one", () => {
        expect(where()).not.toBe("where.ts:4:15\n");
        expect(where()).toMatch(/^where\.ts:\d+:15\n$/);
    });
});
