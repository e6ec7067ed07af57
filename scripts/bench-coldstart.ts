/**
 * `npm run bench:coldstart`: prints, for every model service of every shipped stack (Pulumi.<stack>.yaml), the
 * estimated time from pod creation to Ready: the first start, a warm start (a restart, scale-out or resume), and the
 * same model with every cold-start part off, against the field report's measured baseline. These are estimates from
 * the catalog's cited figures (some marked as assumptions, listed after the estimates), not measurements.
 */
import * as path from "path";
import { COLD_START_FIGURES, FIELD_REPORT_COLD_START, KNOWN_MODELS, PESSIMISTIC_COLD_START } from "@gke-tpu-inference/facts";
import { ColdStartEstimate, estimateColdStart } from "../components/serving/coldStart";
import { ColdStartSettings, ModelServiceSettings } from "../components/settings/models";
import { parseSettings } from "../components/settings/stack";
import { shippedStacks } from "./affected-stacks";
import { CliContext, CliSpec, EXIT, runCli } from "./cli";
import { propertyLines } from "./cli/properties";
import { wrap } from "./cli/terminal";
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

/** The estimates, one block per model service fitted to `width`, the baseline, and every figure behind them with its source. */
export function formatBenchmark(rows: readonly BenchmarkRow[], width: number): string {
    const paragraph = (text: string) => wrap(text, width);
    const services = rows.flatMap((entry) => [
        `${entry.stack}: ${entry.service}`,
        ...propertyLines(
            {
                model: `${entry.modelName}, ${entry.weightsGb} GB of weights`,
                "first start": phases(entry.estimate.first),
                "warm start": phases(entry.estimate.warm),
                pessimistic: String(entry.estimate.pessimistic.total),
                "all parts off": String(entry.allOff.first.total),
                "startup budget": String(entry.estimate.startupBudgetSeconds),
            },
            1,
            { width, quoteStrings: false },
        ),
        "",
    ]);
    const figures = Object.entries(COLD_START_FIGURES).flatMap(([name, figure]) =>
        wrap(`  ${"assumed" in figure ? "assumption" : "sourced   "}  ${name} = ${figure.value}: ${figure.source}`, width, " ".repeat(14)),
    );
    const baseline = KNOWN_MODELS[FIELD_REPORT_COLD_START.model];
    return [
        ...paragraph(
            "Estimated pod-to-Ready time per model service, in seconds: estimates from the cited figures below, not measurements. " +
                "A start is image / group / weights / server / compile = total.",
        ),
        ...paragraph(
            `Baseline: the field report measured ${FIELD_REPORT_COLD_START.readySeconds} s for ${FIELD_REPORT_COLD_START.model} ` +
                `(${baseline.weightsGb} GB; the field report's deployment log, issue #8), KServe downloading from Hugging Face and a fixed 240 s probe delay.`,
        ),
        "",
        ...services,
        ...paragraph(
            "Warm: the weights already in the stack's bucket and the compilation cache filled. All parts off: KServe's storage " +
                "initializer downloads from Hugging Face, the image is pulled whole and every start compiles. Group: on a multi-host " +
                "slice, until every host has joined the leader's Ray cluster. Pessimistic: each throughput at a quarter and each " +
                `duration ${PESSIMISTIC_COLD_START.factor} times its figure, no cache and no streamed image, and a multi-host ` +
                "leader's whole wait for its group; the startup budget covers it. TPU node provisioning comes before all of these " +
                "and is not included.",
        ),
        "",
        "Figures:",
        ...figures,
        "",
    ].join("\n");
}

export const BENCH_CLI: CliSpec<Record<string, never>> = {
    script: "bench:coldstart",
    synopsis: "[--help]",
    description:
        "Prints, for every model service of every shipped stack, the estimated time from pod creation to Ready (first start, " +
        "warm start, pessimistic, and with every cold-start part off) against the field report's measured baseline, and every " +
        "figure behind the estimates with its source. Estimates, not measurements: nothing is deployed or timed.",
    options: {},
    examples: ["npm run bench:coldstart", "COLUMNS=120 npm run -s bench:coldstart > coldstart.txt"],
    exitCodes: [
        [EXIT.ok, "the estimates were printed"],
        [EXIT.usage, "a usage error, or a stack's configuration could not be read"],
    ],
};

async function main(_values: unknown, cli: CliContext): Promise<number> {
    cli.print(formatBenchmark(benchmarkRows(path.resolve(__dirname, "..")), cli.stdout.width));
    return EXIT.ok;
}

if (require.main === module) {
    runCli(BENCH_CLI, main);
}
