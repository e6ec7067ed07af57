import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { COLD_START_FIGURES } from "@gke-tpu-inference/facts";
import { BENCH_CLI, benchmarkRows, formatBenchmark } from "../../scripts/bench-coldstart";
import { CliError, parseCli } from "../../scripts/cli";
import { cliEnv, scriptArgs } from "../cli";
import { start } from "../coldStart";

const ROOT = path.resolve(__dirname, "..", "..");

describe("npm run bench:coldstart", () => {
    test("one row per model service of each shipped stack, the 72B one on a multi-host slice included, each against every part off", () => {
        const rows = benchmarkRows(ROOT);
        expect(rows.map((row) => [row.stack, row.service, row.modelName, row.weightsGb])).toEqual([
            ["dev", "qwen2-3b", "Qwen/Qwen2.5-3B-Instruct", 6.2],
            ["fleet", "qwen2-3b", "Qwen/Qwen2.5-3B-Instruct", 6.2],
            ["istio", "qwen2-3b-pc", "Qwen/Qwen2.5-3B-Instruct", 6.2],
            ["multihost", "qwen-72b", "Qwen/Qwen2.5-72B-Instruct", 145.4],
            ["multimodel", "qwen2-3b", "Qwen/Qwen2.5-3B-Instruct", 6.2],
            ["multimodel", "phi3-mini", "microsoft/Phi-3-mini-4k-instruct", 7.6],
            ["prod", "qwen2-3b-cache", "Qwen/Qwen2.5-3B-Instruct", 6.2],
        ]);
        // Streamed image (10 s), weights streamed at 1 GB/s, 3 s server start, 2.528 s of compilation per layer, a tenth when cached.
        expect(rows[0].estimate).toEqual({
            first: start(10, 6, 3, 91),
            warm: start(10, 6, 3, 9),
            pessimistic: start(120, 25, 12, 364),
            startupBudgetSeconds: 600,
        });
        // KServe's initializer (21 s) and the Hugging Face download (6.2 GB at 0.177 GB/s), the image pulled whole (30 s).
        expect(rows[0].allOff.first).toEqual(start(30, 56, 3, 91));
        const example = rows[3];
        // On its 4x4 slice: the workers pull the image alongside the leader, which waits for them at worst 600 s.
        expect(example.estimate).toEqual({
            first: start(10, 145, 3, 202, 10),
            warm: start(10, 145, 3, 20, 10),
            pessimistic: start(120, 582, 12, 809, 600),
            startupBudgetSeconds: 2160,
        });
        expect(example.allOff.first.total).toBe(30 + 30 + 21 + 821 + 3 + 202);
    });

    test("a stack that turns the parts off is estimated with its own settings", () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-"));
        fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
        // The project loader insists on a program, as the CLI does; the benchmark never runs it.
        fs.writeFileSync(path.join(dir, "index.ts"), "");
        fs.writeFileSync(
            path.join(dir, "Pulumi.lean.yaml"),
            [
                "config:",
                "  gke-tpu-inference:stageWeights: false",
                "  gke-tpu-inference:compilationCache: false",
                "  gke-tpu-inference:imageStreaming: false",
                "  gke-tpu-inference:models:",
                "    - name: phi",
                "      pattern: pattern1",
                "      modelUri: hf://microsoft/Phi-3-mini-4k-instruct",
                "",
            ].join("\n"),
        );
        const [lean, ...others] = benchmarkRows(dir);
        expect(lean.stack).toBe("lean");
        expect(lean.estimate.first).toEqual(lean.allOff.first);
        expect(lean.estimate.warm).toEqual(lean.estimate.first);
        expect(others).toEqual([]);
    });

    test("the estimates say what they are, state the measured baseline, fit the width, and list every figure with its source", () => {
        const rows = benchmarkRows(ROOT);
        const lines = formatBenchmark(rows, 80).split("\n");
        expect(lines.slice(0, 15)).toEqual([
            "Estimated pod-to-Ready time per model service, in seconds: estimates from the",
            "cited figures below, not measurements. A start is image / group / weights /",
            "server / compile = total.",
            "Baseline: the field report measured 250 s for Qwen/Qwen2.5-3B-Instruct (6.2 GB;",
            "the field report's deployment log, issue #8), KServe downloading from Hugging",
            "Face and a fixed 240 s probe delay.",
            "",
            "dev: qwen2-3b",
            "    all parts off : 180",
            "    first start   : 10 / 0 / 6 / 3 / 91 = 110",
            "    model         : Qwen/Qwen2.5-3B-Instruct, 6.2 GB of weights",
            "    pessimistic   : 521",
            "    startup budget: 600",
            "    warm start    : 10 / 0 / 6 / 3 / 9 = 28",
            "",
        ]);
        // Only a word longer than a line (a source's URL) passes the width, on a line of its own.
        expect(lines.filter((line) => line.length > 80 && line.trim().includes(" "))).toEqual([]);
        const unwrapped = formatBenchmark(rows, 10_000).split("\n");
        for (const [name, figure] of Object.entries(COLD_START_FIGURES)) {
            expect(unwrapped).toContain(
                `  ${"assumed" in figure ? "assumption" : "sourced   "}  ${name} = ${figure.value}: ${figure.source}`,
            );
        }
    });

    test("the command prints the estimates as wide as COLUMNS and exits 0; an argument is a usage error", () => {
        const run = spawnSync(process.execPath, scriptArgs("bench-coldstart.ts", []), {
            cwd: ROOT,
            encoding: "utf8",
            env: cliEnv({ COLUMNS: "100" }),
        });
        expect(run.status).toBe(0);
        expect(run.stdout).toBe(formatBenchmark(benchmarkRows(ROOT), 100));
        expect(() => parseCli(BENCH_CLI, ["--stack", "dev"])).toThrow(
            new CliError("Unknown option '--stack'; npm run bench:coldstart -- --help lists the options"),
        );
    });
});
