import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { COLD_START_FIGURES } from "@gke-tpu-inference/facts";
import { benchmarkRows, formatBenchmark } from "../../scripts/bench-coldstart";
import { start } from "../coldStart";

const ROOT = path.resolve(__dirname, "..", "..");

describe("npm run bench:coldstart", () => {
    test("one row per model service of each shipped stack, the 72B one on a multi-host slice included, each against every part off", () => {
        const rows = benchmarkRows(ROOT);
        expect(rows.map((row) => [row.stack, row.service, row.modelName, row.weightsGb])).toEqual([
            ["dev", "qwen2-3b", "Qwen/Qwen2.5-3B-Instruct", 6.2],
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
        const example = rows[2];
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

    test("the table says these are estimates, states the measured baseline and lists every figure with its source, assumptions marked", () => {
        const text = formatBenchmark(benchmarkRows(ROOT));
        const lines = text.split("\n");
        expect(lines[0]).toBe(
            "Estimated pod-to-Ready time per model service (seconds). These are estimates from the cited figures below, not measurements.",
        );
        expect(lines[1]).toContain("the field report measured 250 s for Qwen/Qwen2.5-3B-Instruct");
        expect(lines.find((line) => line.startsWith("| dev "))).toMatch(
            /^\| dev +\| qwen2-3b +\| Qwen\/Qwen2\.5-3B-Instruct +\| 6\.2 +\| 10 \/ 0 \/ 6 \/ 3 \/ 91 = 110 +\| 10 \/ 0 \/ 6 \/ 3 \/ 9 = 28 +\| 521 +\| 180 +\| 600 +\|$/,
        );
        for (const [name, figure] of Object.entries(COLD_START_FIGURES)) {
            expect(lines).toContain(`  ${"assumed" in figure ? "assumption" : "sourced   "}  ${name} = ${figure.value}: ${figure.source}`);
        }
    });

    test("the command prints the table and exits 0; an argument is a usage error", () => {
        const run = (...args: string[]) =>
            spawnSync(process.execPath, ["-r", "./scripts/ts-hook.js", "scripts/bench-coldstart.ts", ...args], {
                cwd: ROOT,
                encoding: "utf8",
            });
        const ok = run();
        expect(ok.status).toBe(0);
        expect(ok.stdout).toBe(formatBenchmark(benchmarkRows(ROOT)));
        const bad = run("--stack", "dev");
        expect(bad.status).toBe(2);
        expect(bad.stderr).toBe("error: npm run bench:coldstart takes no arguments\nusage: npm run bench:coldstart\n");
    });
});
