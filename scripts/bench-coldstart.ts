/**
 * `npm run bench:coldstart`
 *
 * Prints, for every model service of every shipped stack (Pulumi.<stack>.yaml), the
 * estimated time from pod creation to Ready: the first start, a warm start (a restart, scale-out or resume), and the
 * same model with every cold-start part off, against the field report's measured baseline. These are estimates from
 * the catalog's cited figures (some marked as assumptions, listed under the table), not measurements.
 */
import * as path from "path";
import { COLD_START_FIGURES, FIELD_REPORT_COLD_START, KNOWN_MODELS, PESSIMISTIC_COLD_START } from "@gke-tpu-inference/facts";
import { ColdStartEstimate, estimateColdStart } from "../components/coldStart";
import { ColdStartSettings, ModelServiceSettings, parseSettings } from "../components/settings";
import { shippedStacks } from "./affected-stacks";
import { runCli } from "./cli";
import { loadProject } from "./offline/project";
import { PLACEHOLDER_PROJECT } from "./offline/run";

/** One row of the table: a model service as a stack runs it. */
export interface BenchmarkRow {
    stack: string;
    service: string;
    modelName: string;
    weightsGb: number;
    estimate: ColdStartEstimate;
    /** The same model with staging, the compilation cache and image streaming all off: KServe downloads from Hugging Face. */
    allOff: ColdStartEstimate;
}

const ALL_OFF: ColdStartSettings = { stageWeights: false, compilationCache: false, imageStreaming: false };

function row(stack: string, model: ModelServiceSettings, coldStart: ColdStartSettings, hosts: number): BenchmarkRow {
    return {
        stack,
        service: model.name,
        modelName: model.modelName,
        weightsGb: model.weightsGb,
        estimate: estimateColdStart(model, coldStart, hosts),
        allOff: estimateColdStart(model, ALL_OFF, hosts),
    };
}

/** The rows for the stacks shipped in `dir`. */
export function benchmarkRows(dir: string): BenchmarkRow[] {
    const rows: BenchmarkRow[] = [];
    for (const stack of shippedStacks(dir).sort()) {
        const project = loadProject(dir, stack, []);
        const settings = parseSettings(
            project.projectName,
            (key) => project.config[`${project.projectName}:${key}`],
            project.config["gcp:project"] ?? PLACEHOLDER_PROJECT,
        );
        rows.push(...settings.models.map((model) => row(stack, model, settings.coldStart, settings.tpu.hostsPerSlice)));
    }
    return rows;
}

/** `a / b / c / d / e = total` for one start: image, group, weights, server start, compilation. */
function phases(estimate: ColdStartEstimate["first"]): string {
    return `${estimate.imagePull} / ${estimate.groupFormation} / ${estimate.weights} / ${estimate.serverStart} / ${estimate.compile} = ${estimate.total}`;
}

/** The table, the baseline, and every figure behind it with its source, assumptions marked. */
export function formatBenchmark(rows: readonly BenchmarkRow[]): string {
    const header = [
        "stack",
        "service",
        "model",
        "weights GB",
        "first start s (image / group / weights / server / compile = total)",
        "warm start s",
        "pessimistic s",
        "all parts off s",
        "startup budget s",
    ];
    const body = rows.map((entry) => [
        entry.stack,
        entry.service,
        entry.modelName,
        String(entry.weightsGb),
        phases(entry.estimate.first),
        phases(entry.estimate.warm),
        String(entry.estimate.pessimistic.total),
        String(entry.allOff.first.total),
        String(entry.estimate.startupBudgetSeconds),
    ]);
    const widths = header.map((title, column) => Math.max(title.length, ...body.map((cells) => cells[column].length)));
    const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(" | ")} |`;
    const figures = Object.entries(COLD_START_FIGURES).map(
        ([name, figure]) => `  ${"assumed" in figure ? "assumption" : "sourced   "}  ${name} = ${figure.value}: ${figure.source}`,
    );
    const baseline = KNOWN_MODELS[FIELD_REPORT_COLD_START.model];
    return [
        "Estimated pod-to-Ready time per model service (seconds). These are estimates from the cited figures below, not measurements.",
        `Baseline: the field report measured ${FIELD_REPORT_COLD_START.readySeconds} s for ${FIELD_REPORT_COLD_START.model} ` +
            `(${baseline.weightsGb} GB, seed 003 #8), KServe downloading from Hugging Face and a fixed 240 s probe delay.`,
        "",
        line(header),
        line(widths.map((width) => "-".repeat(width))),
        ...body.map(line),
        "",
        "Warm: the weights already in the stack's bucket and the compilation cache filled. All parts off: KServe's storage initializer downloads",
        "from Hugging Face, the image is pulled whole and every start compiles. Group: on a multi-host slice, until every host has joined the",
        `leader's Ray cluster. Pessimistic: each throughput at a quarter and each duration ${PESSIMISTIC_COLD_START.factor} times its figure, no cache`,
        "and no streamed image, and a multi-host leader's whole wait for its group; the startup budget covers it.",
        "TPU node provisioning comes before all of these and is not included.",
        "",
        "Figures:",
        ...figures,
        "",
    ].join("\n");
}

async function main(argv: string[]): Promise<number> {
    if (argv.length > 0) {
        process.stderr.write("error: npm run bench:coldstart takes no arguments\nusage: npm run bench:coldstart\n");
        return 2;
    }
    process.stdout.write(formatBenchmark(benchmarkRows(path.resolve(__dirname, ".."))));
    return 0;
}

if (require.main === module) {
    runCli(main);
}
