/**
 * A stack's outputs, as `pulumi stack output --json` prints them (an object of output names; with `--show-secrets`
 * the same shape, secrets in the clear instead of `[secret]`), asked of the Pulumi CLI or read from a file holding
 * that JSON.
 */
import { execFile } from "child_process";
import * as fs from "fs";
import { CliError, CliOptions } from "../cli";
import { ownChild } from "../children";

/** `--stack` and `--outputs`, for a command that reads a stack's outputs. */
export const STACK_OUTPUT_OPTIONS = {
    stack: { type: "string", value: "NAME", description: "read this stack's outputs with `pulumi stack output --json`" },
    outputs: {
        type: "string",
        value: "FILE",
        description: "read them from FILE instead, as `pulumi stack output --json > FILE` wrote them (no Pulumi CLI needed)",
    },
} as const satisfies CliOptions;

/** Where the outputs come from: the Pulumi CLI for `stack`, or the file `outputs`. */
export interface OutputsSource {
    stack?: string;
    outputs?: string;
}

/** The JSON `text` (from `where`) as an object of outputs, or an error naming `where`. */
function parseOutputs(text: string, where: string): Record<string, unknown> {
    let parsed: unknown;
    try {
        parsed = JSON.parse(text);
    } catch (err) {
        throw new CliError(`${where} is not JSON (${(err as Error).message}); write it with pulumi stack output --json`);
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
        throw new CliError(`${where} is not an object of stack outputs; write it with pulumi stack output --json`);
    }
    const outputs = parsed as Record<string, unknown>;
    const missing = STACK_OUTPUT_KEYS.filter((key) => !(key in outputs));
    if (missing.length > 0) {
        const report = "steps" in outputs && "outputs" in outputs;
        throw new CliError(
            `${where} ${report ? "is a preview report, not a stack's outputs" : `holds no ${missing.join(", ")}: not the outputs of a stack of this program`}; write them with pulumi stack output --json`,
        );
    }
    return outputs;
}

/** The output every stack of this program has (index.ts) and without which the doctor and the smoke test check nothing. */
export const STACK_OUTPUT_KEYS = ["models"] as const;

/** Runs `pulumi stack output --json --stack <stack>` and returns what it printed. */
function askPulumi(stack: string, env: NodeJS.ProcessEnv): Promise<string> {
    return new Promise((resolve, reject) => {
        // Asynchronous, so that the command's deadline still fires while a backend is slow to answer.
        ownChild(
            execFile(
                "pulumi",
                ["stack", "output", "--json", "--stack", stack],
                { env, maxBuffer: 64 * 1024 * 1024 },
                (err, stdout, stderr) => {
                    if ((err as NodeJS.ErrnoException | null)?.code === "ENOENT") {
                        reject(new CliError("pulumi not found on PATH: install it or pass --outputs FILE", undefined, { cause: err }));
                    } else if (err) {
                        const said =
                            stderr
                                .trim()
                                .split("\n")
                                .at(-1)
                                ?.replace(/^error: /, "") || err.message;
                        reject(
                            new CliError(
                                `pulumi stack output --stack ${stack} failed: ${said}; pulumi stack ls lists the stacks, or pass --outputs FILE`,
                                undefined,
                                {
                                    cause: err,
                                },
                            ),
                        );
                    } else {
                        resolve(stdout);
                    }
                },
            ),
        );
    });
}

/** The outputs `source` names, or undefined when it names none; both at once is a usage error. */
export async function readStackOutputs(
    source: OutputsSource,
    env: NodeJS.ProcessEnv = process.env,
): Promise<Record<string, unknown> | undefined> {
    if (source.stack !== undefined && source.outputs !== undefined) {
        throw new CliError("give --stack or --outputs, not both");
    }
    if (source.outputs !== undefined) {
        let text: string;
        try {
            text = fs.readFileSync(source.outputs, "utf8");
        } catch (err) {
            throw new CliError(`--outputs ${source.outputs}: ${(err as Error).message}`);
        }
        return parseOutputs(text, `--outputs ${source.outputs}`);
    }
    if (source.stack !== undefined) {
        return parseOutputs(await askPulumi(source.stack, env), `pulumi stack output --stack ${source.stack}`);
    }
    return undefined;
}

/** One member of a fleet, as the fleet stack's `members.<region>` output gives it (index.ts). */
export interface FleetMemberOutput {
    /** The member's GKE cluster. */
    clusterName: string;
    /** `gcloud container clusters get-credentials <cluster> --region <region> --project <project>` (components/infrastructure/cluster.ts). */
    kubeconfigCommand: string;
    /** The member's TPU capacity plan, shaped as a single-cluster stack's `tpuCapacityPlan` output. */
    tpuCapacityPlan?: unknown;
    /** The member's estimated TPU bill, shaped as a single-cluster stack's `tpuHourlyCost` output. */
    tpuHourlyCost?: unknown;
}

/**
 * What a fleet stack's outputs add to a single-cluster stack's (index.ts): `members` by region, the `configRegion` whose
 * cluster holds the multi-cluster Gateway, and that Gateway's `gatewayAddresses` (one per member region, as GKE reports
 * them). The rest are a single-cluster stack's: `servingNamespace`, `gateway` (the multi-cluster Gateway), `models`.
 */
export interface FleetOutput {
    configRegion: string;
    members: Record<string, FleetMemberOutput>;
    gatewayAddresses?: string[];
}

/** A fleet stack's members and config region, undefined for a single-cluster stack; a usage error naming the output when malformed. */
export function fleetFromOutputs(outputs: Record<string, unknown> | undefined): FleetOutput | undefined {
    const { configRegion, members, gatewayAddresses } = (outputs ?? {}) as {
        configRegion?: unknown;
        members?: unknown;
        gatewayAddresses?: unknown;
    };
    if (configRegion === undefined && members === undefined) {
        return undefined;
    }
    const malformed = (field: string, what: string) =>
        new CliError(`the stack's ${field} output is not ${what}: not the outputs of a fleet stack of this program`);
    if (typeof configRegion !== "string") {
        throw malformed("configRegion", "a region");
    }
    if (members === null || typeof members !== "object" || Array.isArray(members)) {
        throw malformed("members", "an object of members by region");
    }
    const byRegion = members as Record<string, Partial<FleetMemberOutput> | null>;
    for (const [region, member] of Object.entries(byRegion)) {
        if (typeof member?.clusterName !== "string" || typeof member.kubeconfigCommand !== "string") {
            throw malformed(`members.${region}`, "a member with clusterName and kubeconfigCommand");
        }
    }
    if (!(configRegion in byRegion)) {
        throw malformed("configRegion", `one of the members (${Object.keys(byRegion).join(", ")})`);
    }
    return {
        configRegion,
        members: byRegion as Record<string, FleetMemberOutput>,
        ...(Array.isArray(gatewayAddresses)
            ? { gatewayAddresses: gatewayAddresses.filter((address): address is string => typeof address === "string") }
            : {}),
    };
}
