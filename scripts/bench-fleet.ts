/**
 * `npm run bench:fleet`: how far one program goes. Runs the offline preview of the fleet stack (Pulumi.fleet.yaml) with
 * the policy pack for fleets of growing size (members in more regions, more model services) and prints, for each, the
 * resources it registers and the preview's wall time, CPU time and largest resident memory, as GNU time measures the
 * preview and the pack process it starts. Measurements of this machine, not estimates.
 */
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { GKE_TPU_V6E_ZONES, regionOfZone } from "@gke-tpu-inference/facts";
import { CliContext, CliError, CliSpec, EXIT, runCli } from "./cli";

const ROOT = path.resolve(__dirname, "..");

/** Every region with a GKE TPU v6e zone, in the catalog's order: the most members a fleet can have. */
export const V6E_REGIONS: readonly string[] = [...new Set(GKE_TPU_V6E_ZONES.map(regionOfZone))];

/** One fleet size: members in the first `regions` v6e regions, each serving `models` services. */
export interface FleetSize {
    regions: number;
    models: number;
}

/** One measured preview. */
export interface FleetMeasurement extends FleetSize {
    resources: number;
    wallSeconds: number;
    cpuSeconds: number;
    maxRssMb: number;
}

/** The configuration that makes the fleet stack `size`: the first region holds the config cluster. */
export function fleetConfig({ regions, models }: FleetSize): string[] {
    if (regions < 2 || regions > V6E_REGIONS.length) {
        throw new CliError(
            `a fleet spans 2 to ${V6E_REGIONS.length} regions (those with GKE TPU v6e zones: ${V6E_REGIONS.join(", ")}); got ${regions}`,
        );
    }
    const members = V6E_REGIONS.slice(0, regions).map((region) => ({ region }));
    const services = Array.from({ length: models }, (_, index) => ({
        name: `qwen2-3b-${index + 1}`,
        pattern: "pattern1",
        modelUri: "hf://Qwen/Qwen2.5-3B-Instruct",
        modelName: "Qwen/Qwen2.5-3B-Instruct",
        replicas: 1,
    }));
    return [
        "--config",
        `fleet=${JSON.stringify({ configRegion: members[0].region, members })}`,
        "--config",
        `models=${JSON.stringify(services)}`,
        // A replica is a TPU VM: each member's pools hold one per service.
        "--config",
        `tpuMaxNodes=${Math.max(3, models)}`,
    ];
}

/** Runs the offline preview of `size` under GNU time and reads what it measured. */
function measure(size: FleetSize): FleetMeasurement {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-fleet-"));
    const json = path.join(dir, "report.json");
    const timing = path.join(dir, "time.txt");
    try {
        const preview = [
            process.execPath,
            "-r",
            "./scripts/ts-hook.js",
            "scripts/preview-offline.ts",
            "--stack",
            "fleet",
            ...fleetConfig(size),
            "--json",
            json,
        ];
        // %e wall seconds, %U and %S CPU seconds of the preview and every process it waited for (the pack), %M their largest RSS in KB.
        const run = spawnSync("/usr/bin/time", ["-o", timing, "-f", "%e %U %S %M", ...preview], { cwd: ROOT, encoding: "utf8" });
        if (run.error || run.status !== 0) {
            throw new CliError(
                `the preview of ${size.regions} regions × ${size.models} models failed (exit ${run.status}): ${(run.error?.message ?? run.stderr).trim().split("\n")[0]}`,
            );
        }
        const [wall, user, system, rssKb] = fs.readFileSync(timing, "utf8").trim().split("\n").pop()!.split(" ").map(Number);
        const report = JSON.parse(fs.readFileSync(json, "utf8")) as { summary: { create: number } };
        return {
            ...size,
            resources: report.summary.create,
            wallSeconds: wall,
            cpuSeconds: user + system,
            maxRssMb: Math.round(rssKb / 1024),
        };
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
}

/** The measurements as a table, with each figure per resource so that linear growth shows as a constant. */
export function formatMeasurements(rows: readonly FleetMeasurement[]): string {
    const header = ["regions", "models", "resources", "wall s", "CPU s", "max RSS MB", "CPU ms per resource"];
    const lines = rows.map((row) => [
        String(row.regions),
        String(row.models),
        String(row.resources),
        row.wallSeconds.toFixed(1),
        row.cpuSeconds.toFixed(1),
        String(row.maxRssMb),
        ((row.cpuSeconds * 1000) / row.resources).toFixed(1),
    ]);
    return [
        `| ${header.join(" | ")} |`,
        `|${header.map(() => "---").join("|")}|`,
        ...lines.map((line) => `| ${line.join(" | ")} |`),
        "",
    ].join("\n");
}

const OPTIONS = {
    regions: { type: "string", value: "LIST", default: "2,3,4,5", description: "fleet sizes in regions, comma-separated" },
    models: { type: "string", value: "LIST", default: "1", description: "model services per member, comma-separated" },
} as const;

export const BENCH_FLEET_CLI: CliSpec<typeof OPTIONS> = {
    script: "bench:fleet",
    synopsis: "[--regions LIST] [--models LIST]",
    description:
        "Measures the offline preview of the fleet stack, with the policy pack, for every size in --regions × --models: the " +
        "resources it registers, its wall time, CPU time and largest resident memory (GNU time, /usr/bin/time). Prints a " +
        "Markdown table.",
    options: OPTIONS,
    examples: ["npm run bench:fleet", "npm run bench:fleet -- --regions 5 --models 1,2,4"],
    exitCodes: [
        [EXIT.ok, "every size was measured"],
        [EXIT.usage, "a usage error, or a preview failed"],
    ],
};

/** A comma-separated list of whole numbers, or a usage error naming the option. */
function counts(option: string, text: string): number[] {
    const values = text.split(",").map(Number);
    if (values.some((value) => !Number.isSafeInteger(value) || value < 1)) {
        throw new CliError(`--${option} ${text} is not a list of whole numbers; allowed: such as 2,3,4`);
    }
    return values;
}

async function main(values: { regions?: string; models?: string }, cli: CliContext): Promise<number> {
    const rows = counts("regions", values.regions!).flatMap((regions) =>
        counts("models", values.models!).map((models) => measure({ regions, models })),
    );
    cli.print(formatMeasurements(rows));
    return EXIT.ok;
}

if (require.main === module) {
    runCli(BENCH_FLEET_CLI, main);
}
