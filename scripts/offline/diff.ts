/**
 * What a change does to a stack, from two offline preview reports: resources added, removed
 * and changed (with each changed property, like `pulumi preview --diff`), and the policy
 * violations it introduces or resolves. Rendered as Markdown for a pull request.
 */
import { z } from "zod";
import { PolicyViolation } from "./analyzer";
import { PreviewReport, ReportStep, displayType, uncheckedCount } from "./report";

/** One property that differs; `before`/`after` are absent where the property is. */
export interface PropertyChange {
    path: string;
    before?: unknown;
    after?: unknown;
}

/** A resource present in both reports whose state differs. */
export interface ResourceChange {
    urn: string;
    type: string;
    name: string;
    changes: PropertyChange[];
}

/** Everything that differs between two reports of one stack. */
export interface ReportDiff {
    added: ReportStep[];
    removed: ReportStep[];
    changed: ResourceChange[];
    outputs: PropertyChange[];
    violations: { introduced: PolicyViolation[]; resolved: PolicyViolation[] };
}

function isRecord(value: unknown): value is Record<string, unknown> {
    return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The leaves at which `before` and `after` differ, as dotted paths with array indices. */
export function diffValues(before: unknown, after: unknown, path = ""): PropertyChange[] {
    const at = (key: string | number) => (typeof key === "number" ? `${path}[${key}]` : path ? `${path}.${key}` : key);
    if (isRecord(before) && isRecord(after)) {
        const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
        return keys.flatMap((key) => diffValues(before[key], after[key], at(key)));
    }
    if (Array.isArray(before) && Array.isArray(after)) {
        return Array.from({ length: Math.max(before.length, after.length) }, (_, index) =>
            diffValues(before[index], after[index], at(index)),
        ).flat();
    }
    if (JSON.stringify(before) === JSON.stringify(after)) {
        return [];
    }
    return [{ path: path || "(value)", ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) }];
}

/** A violation's identity across reports. */
function violationKey(violation: PolicyViolation): string {
    return `${violation.policyName}|${violation.urn}|${violation.message}`;
}

const StateSchema = z.looseObject({
    type: z.string(),
    urn: z.string(),
    inputs: z.record(z.string(), z.unknown()).optional(),
    outputs: z.record(z.string(), z.unknown()).optional(),
    dependencies: z.array(z.string()).optional(),
    provider: z.string().optional(),
    options: z.record(z.string(), z.unknown()).optional(),
});
const BaseSchema = z.looseObject({
    steps: z.array(z.looseObject({ op: z.string(), urn: z.string(), newState: StateSchema.optional(), oldState: StateSchema.optional() })),
    outputs: z.record(z.string(), z.unknown()).optional(),
    policyViolations: z
        .array(z.looseObject({ policyName: z.string(), urn: z.string(), message: z.string(), enforcementLevel: z.string() }))
        .optional(),
});

/**
 * A base to compare with, from a report of this tool or a real `pulumi preview --json` (steps with a newState per
 * resource that remains; the stack's outputs in its own step; no policy violations, which the CLI leaves out of its
 * JSON). Throws one line naming what is missing when `json` is neither.
 */
export function readBaseReport(json: unknown): Pick<PreviewReport, "steps" | "outputs" | "policyViolations"> {
    const parsed = BaseSchema.safeParse(json);
    if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue.path
            .map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`))
            .join("")
            .replace(/^\./, "");
        throw new Error(
            `is not a report of npm run preview:offline --json or of pulumi preview --json: ${where || "the document"} ${issue.code === "invalid_type" && issue.input === undefined ? "is missing" : "is not what a report has"}`,
        );
    }
    const steps = parsed.data.steps
        .filter((step) => step.newState !== undefined)
        .map((step): ReportStep => ({
            op: "create",
            urn: step.urn,
            newState: {
                ...step.newState!,
                inputs: step.newState!.inputs ?? {},
                dependencies: step.newState!.dependencies ?? [],
            } as ReportStep["newState"],
        }));
    const stackOutputs = parsed.data.steps.find((step) => step.newState?.type === "pulumi:pulumi:Stack")?.newState?.outputs;
    return {
        steps,
        outputs: parsed.data.outputs ?? stackOutputs ?? {},
        policyViolations: (parsed.data.policyViolations ?? []) as unknown as PolicyViolation[],
    };
}

/** Compares the `head` report of a stack with its `base`. */
export function diffReports(base: Pick<PreviewReport, "steps" | "outputs" | "policyViolations">, head: PreviewReport): ReportDiff {
    const baseSteps = new Map(base.steps.map((step) => [step.urn, step]));
    const headSteps = new Map(head.steps.map((step) => [step.urn, step]));
    const changed: ResourceChange[] = [];
    for (const [urn, step] of headSteps) {
        const previous = baseSteps.get(urn);
        if (!previous) {
            continue;
        }
        const comparable = (state: ReportStep["newState"]) => ({
            inputs: state.inputs,
            dependencies: state.dependencies,
            options: state.options ?? {},
            ...(state.provider ? { provider: state.provider.split("::").slice(0, -1).join("::") } : {}),
        });
        const changes = diffValues(comparable(previous.newState), comparable(step.newState));
        if (changes.length > 0) {
            changed.push({ urn, type: step.newState.type, name: urn.split("::").pop() ?? urn, changes });
        }
    }
    const baseViolations = new Set(base.policyViolations.map(violationKey));
    const headViolations = new Set(head.policyViolations.map(violationKey));
    return {
        added: head.steps.filter((step) => !baseSteps.has(step.urn)),
        removed: base.steps.filter((step) => !headSteps.has(step.urn)),
        changed,
        outputs: diffValues(base.outputs, head.outputs),
        violations: {
            introduced: head.policyViolations.filter((violation) => !baseViolations.has(violationKey(violation))),
            resolved: base.policyViolations.filter((violation) => !headViolations.has(violationKey(violation))),
        },
    };
}

const show = (value: unknown) => (value === undefined ? "∅" : JSON.stringify(value));
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
const nameOf = (urn: string) => urn.split("::").pop() || "stack";

/** A property change as `diff` lines: `-` for what was there, `+` for what will be. */
function diffLines(change: PropertyChange): string[] {
    return [
        ...(change.before !== undefined ? [`- ${change.path}: ${show(change.before)}`] : []),
        ...(change.after !== undefined ? [`+ ${change.path}: ${show(change.after)}`] : []),
    ];
}

function violationRows(violations: PolicyViolation[], marker: (violation: PolicyViolation) => string): string[] {
    return [
        "| level | policy | resource | message |",
        "|---|---|---|---|",
        ...violations.map(
            (violation) =>
                `| ${violation.enforcementLevel}${marker(violation)} | \`${violation.policyName}\` | ${cell(nameOf(violation.urn))} | ${cell(violation.message)} |`,
        ),
    ];
}

/** The Markdown a pull request shows for one stack: the plan (or the change against `diff`'s base) and the policy verdict. */
export function renderMarkdown(head: PreviewReport, diff?: ReportDiff): string {
    const lines = [`### Offline preview of stack \`${head.stack}\``, ""];
    if (!diff) {
        lines.push(`**+${head.summary.create} to create**`, "");
    } else if (diff.added.length + diff.removed.length + diff.changed.length === 0) {
        lines.push(`No resource changes (${head.steps.length} resources).`, "");
    } else {
        lines.push(
            `**+${diff.added.length} to create, ~${diff.changed.length} to update, -${diff.removed.length} to delete** (${head.steps.length} resources after)`,
            "",
        );
        lines.push("| | type | name |", "|---|---|---|");
        for (const [op, steps] of [
            ["+", diff.added],
            ["-", diff.removed],
        ] as const) {
            for (const step of steps) {
                lines.push(`| ${op} | \`${displayType(step.newState.type)}\` | ${cell(nameOf(step.urn))} |`);
            }
        }
        for (const change of diff.changed) {
            lines.push(`| ~ | \`${displayType(change.type)}\` | ${cell(change.name)} |`);
        }
        lines.push("");
        for (const change of diff.changed) {
            lines.push(
                `<details><summary>~ ${displayType(change.type)} <code>${change.name}</code> (${change.changes.length} ${change.changes.length === 1 ? "property" : "properties"})</summary>`,
                "",
                "```diff",
            );
            lines.push(...change.changes.flatMap(diffLines));
            lines.push("```", "", "</details>", "");
        }
    }
    if (diff && diff.outputs.length > 0) {
        lines.push("<details><summary>Outputs</summary>", "", "```diff");
        lines.push(...diff.outputs.flatMap(diffLines));
        lines.push("```", "", "</details>", "");
    }

    if (head.unrenderedCharts.length > 0) {
        lines.push(
            `**Not checked offline:** the objects of ${head.unrenderedCharts.map((chart) => `\`${chart.name}\`${chart.chart ? ` (${chart.chart})` : ""}`).join(", ")}; a real preview renders them and the policy pack judges them.`,
            "",
        );
    }
    const mandatory = head.policyViolations.filter((violation) => violation.enforcementLevel === "mandatory").length;
    const pack = head.policyViolations[0]
        ? `${head.policyViolations[0].policyPack}@v${head.policyViolations[0].policyPackVersion}`
        : "policy pack";
    lines.push("#### Policies", "");
    if (head.policyViolations.length === 0) {
        const unchecked =
            head.unrenderedCharts.length > 0
                ? ` over what was previewed (${uncheckedCount(head.unrenderedCharts.length)} not checked offline, listed above)`
                : "";
        lines.push(
            `✅ no violations${unchecked}${diff && diff.violations.resolved.length > 0 ? ` (this change resolves ${diff.violations.resolved.length})` : ""}`,
        );
    } else {
        const introduced = new Set(diff?.violations.introduced.map(violationKey) ?? []);
        lines.push(
            `${mandatory > 0 ? "❌" : "⚠️"} ${pack}: ${mandatory} mandatory, ${head.policyViolations.length - mandatory} advisory${diff ? `; ${introduced.size} new with this change` : ""}`,
            "",
        );
        lines.push(...violationRows(head.policyViolations, (violation) => (introduced.has(violationKey(violation)) ? " (new)" : "")));
        if (diff && diff.violations.resolved.length > 0) {
            lines.push(
                "",
                `Resolved by this change: ${diff.violations.resolved.map((violation) => `\`${violation.policyName}\` on ${nameOf(violation.urn)}`).join(", ")}.`,
            );
        }
    }
    return `${lines.join("\n")}\n`;
}
