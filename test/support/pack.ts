/**
 * The pack as a real `pulumi preview --policy-pack` runs it: programs are recorded under the offline
 * preview's mocks, their config groups expanded, and the verdict comes from the pack in its own
 * process over the Analyzer protocol.
 */
import * as path from "path";
import { PackConfig, PolicyPackProcess, PolicyViolation } from "../../scripts/offline/analyzer";
import { InvokeAnswer } from "../../scripts/offline/invokes";
import { expandComponents } from "../../scripts/offline/expand";
import { judge } from "../../scripts/offline/policies";
import { RecordedResource } from "../../scripts/offline/recorder";
import { PROJECT, record } from "../harness";

export const PACK_DIR = path.resolve(__dirname, "..", "..", "policies");

/** Starts the pack once for the test file and stops it after; returns the running pack. */
export function usePack(): () => PolicyPackProcess {
    let pack: PolicyPackProcess | undefined;
    beforeAll(async () => {
        pack = await PolicyPackProcess.start(PACK_DIR);
    });
    afterAll(() => pack?.close());
    return () => pack!;
}

/** A violation as a test compares it: level, policy and the name of the resource it is reported against. */
export interface Finding {
    level: string;
    policy: string;
    resource: string;
    message: string;
}

/** What the pack reports over `resources` (with pack `config`), stack-wide findings against "stack". */
export async function judgeResources(
    pack: PolicyPackProcess,
    resources: RecordedResource[],
    config: PackConfig = {},
    stack = "test",
): Promise<Finding[]> {
    const { violations } = await judge(pack, resources, config, { project: PROJECT, stack });
    return asFindings(violations);
}

/** Violations as tests compare them, stack-wide ones against "stack". */
export function asFindings(violations: readonly PolicyViolation[]): Finding[] {
    return violations.map((violation) => ({
        level: violation.enforcementLevel,
        policy: violation.policyName,
        resource: violation.urn === "" ? "stack" : violation.urn.split("::").pop()!,
        message: violation.message,
    }));
}

/** Records `program` (its YAML components expanded as a real preview registers them) and has the pack judge it. */
export async function verdict(
    pack: PolicyPackProcess,
    program: () => unknown,
    options: { config?: PackConfig; programDir?: string; invokes?: Record<string, InvokeAnswer> } = {},
): Promise<Finding[]> {
    const graph = await record(program, {}, { invokes: options.invokes });
    const expansion = expandComponents(graph.resources, options.programDir ?? __dirname);
    return judgeResources(pack, [...graph.resources, ...expansion.resources], options.config);
}

/** `level policy @resource` for each finding, sorted: what most tests compare. */
export function summary(findings: Finding[]): string[] {
    return findings.map((finding) => `${finding.level} ${finding.policy} @${finding.resource}`).sort();
}

/** The {@link summary} of policy `policy`'s findings alone. */
export function summaryOf(policy: string, findings: Finding[]): string[] {
    return summary(findings.filter((finding) => finding.policy === policy));
}
