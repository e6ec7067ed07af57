/**
 * A change as the terminal and a pull request show it: pulumi's summary line, a line (or row) per resource (a
 * replacement with the inputs that force it), each update and replacement property by property, the outputs, and, in
 * Markdown, the policy violations and the plan per component.
 *
 * Citations are to pulumi/pulumi at 1b5949891b3cefcb9974752b24a5ecef0acc86c8.
 */
import { PolicyViolation } from "./analyzer";
import { PropertyChange, ReportDiff, ResourceChange, ResourceOp, changesOf, nameOf, violationKey } from "./diff";
import { UNKNOWN_VALUE } from "./recorder";
import { PreviewReport, displayType, planByComponent, uncheckedCount } from "./report";

/** pulumi's prefixes (pkg/resource/deploy/step.go:2336-2348). */
const MARKERS: Record<ResourceOp, string> = { update: "~", replace: "+-", create: "+", delete: "-" };

/** How many changed paths a one-line summary of an update names before it counts the rest. */
const PATHS_SHOWN = 3;

/** The paths that change, each once (a set's elements share its path), the inputs first: they are what the provider acts on. */
function pathsOf(properties: PropertyChange[]): string[] {
    const paths = [...new Set(changesOf(properties).map((property) => property.path))];
    return [...paths.filter((path) => path.startsWith("inputs.")), ...paths.filter((path) => !path.startsWith("inputs."))];
}

/** The first paths that change, and how many more do. */
function changedPaths(properties: PropertyChange[]): { paths: string[]; more: number } {
    const paths = pathsOf(properties);
    return { paths: paths.slice(0, PATHS_SHOWN), more: Math.max(0, paths.length - PATHS_SHOWN) };
}

/**
 * What one terminal line or Markdown row says of a resource: `~ update`, type as pulumi displays it, name, and the
 * paths an update changes or every input that forces a replacement.
 */
function resourceLine(change: ResourceChange) {
    return {
        op: `${MARKERS[change.op]} ${change.op}`,
        type: displayType(change.type),
        name: change.name,
        ...(change.replaceReasons ? { paths: change.replaceReasons, more: 0 } : changedPaths(change.properties)),
    };
}

/** `~ 2 to update, + 1 to create, - 0 to delete, 95 unchanged`, as pulumi sums up a preview, with `+-1 to replace` when some are. */
export function summaryLine(diff: ReportDiff): string {
    const count = (op: ResourceOp) => diff.resources.filter((resource) => resource.op === op).length;
    const replaced = count("replace") > 0 ? `, ${MARKERS.replace}${count("replace")} to replace` : "";
    return `~ ${count("update")} to update, + ${count("create")} to create, - ${count("delete")} to delete${replaced}, ${diff.unchanged} unchanged`;
}

/** What the counts leave out: values the base did not know, and resources not compared. */
function diffNotes(diff: ReportDiff): string[] {
    const { defaultProviders, objects } = diff.notCompared;
    const notCompared = [
        ...(defaultProviders > 0
            ? [`${defaultProviders} default provider${defaultProviders === 1 ? "" : "s"} of the base (the engine adds them)`]
            : []),
        ...(objects > 0 ? [`${objects} object${objects === 1 ? "" : "s"} of components only one of the two previews rendered`] : []),
    ];
    const unknown = diff.unknownInBase.length;
    return [
        ...(unknown > 0
            ? [`${unknown} unchanged resource${unknown === 1 ? " has" : "s have"} values the base held as [unknown], which are not changes`]
            : []),
        ...(notCompared.length > 0 ? [`Not compared: ${notCompared.join(" and ")}`] : []),
    ];
}

/** The change in the terminal: one line per resource, the outputs that change, and pulumi's summary. */
export function renderChanges(diff: ReportDiff): string {
    const plain = ({ paths, more }: { paths: string[]; more: number }) =>
        paths.length > 0 ? `  ${paths.join(", ")}${more > 0 ? ` (+${more} more)` : ""}` : "";
    const rows = diff.resources.map(resourceLine).map((line) => `    ${line.op}  ${line.type}  ${line.name}${plain(line)}`);
    if (changesOf(diff.outputs).length > 0) {
        rows.push(`    ~ outputs${plain(changedPaths(diff.outputs))}`);
    }
    return [
        "Changes against the base:",
        ...rows,
        ...(rows.length > 0 ? [""] : []),
        `    ${summaryLine(diff)}`,
        ...diffNotes(diff).map((note) => `    ${note}`),
    ].join("\n");
}

/** A value as `pulumi preview --diff` shows it: JSON, an unknown as `[unknown]` (pkg/backend/display/object_diff.go:1010-1011). */
const show = (value: unknown) => JSON.stringify(value).replaceAll(JSON.stringify(UNKNOWN_VALUE), "[unknown]");
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
const code = (text: string) => `\`${text}\``;

/** A property as `diff` lines: `-` for what was there, `+` for what will be, a context line for a value the base did not know. */
function diffLines(property: PropertyChange): string[] {
    if (property.before === UNKNOWN_VALUE) {
        return [`  ${property.path}: [unknown] => ${show(property.after)}`];
    }
    return [
        ...(property.before !== undefined ? [`- ${property.path}: ${show(property.before)}`] : []),
        ...(property.after !== undefined ? [`+ ${property.path}: ${show(property.after)}`] : []),
    ];
}

/** A collapsed `diff` block. */
function details(summary: string, lines: string[]): string[] {
    return [`<details><summary>${summary}</summary>`, "", "```diff", ...lines, "```", "", "</details>", ""];
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

/** The plan: what each component under the stack creates, by type. */
function planLines(head: PreviewReport): string[] {
    return [
        `**+ ${head.summary.create} to create**`,
        "",
        "| component | type | resources | by type |",
        "|---|---|---|---|",
        ...planByComponent(head).map(
            (component) =>
                `| ${cell(component.name)} | ${code(component.type)} | ${component.count} | ${component.types.map(({ type, count }) => (count === 1 ? code(type) : `${count} × ${code(type)}`)).join(", ") || "—"} |`,
        ),
        "",
    ];
}

/** The change: pulumi's summary, a row per resource, each update property by property, the outputs, and what the counts leave out. */
function changeLines(diff: ReportDiff): string[] {
    const lines = [`**${summaryLine(diff)}**`, ""];
    if (diff.resources.length > 0) {
        lines.push("| | type | name | changes |", "|---|---|---|---|");
        for (const line of diff.resources.map(resourceLine)) {
            const paths = [...line.paths.map(code), ...(line.more > 0 ? [`+${line.more} more`] : [])].join(", ");
            lines.push(`| ${line.op} | ${code(line.type)} | ${cell(line.name)} | ${cell(paths)} |`);
        }
        lines.push("");
    }
    for (const change of diff.resources.filter((resource) => changesOf(resource.properties).length > 0)) {
        const count = pathsOf(change.properties).length;
        const forcedBy = change.replaceReasons
            ? `; replaced for ${change.replaceReasons.map((reason) => `<code>${reason}</code>`).join(", ")}`
            : "";
        lines.push(
            ...details(
                `${MARKERS[change.op]} ${displayType(change.type)} <code>${change.name}</code> (${count} ${count === 1 ? "property" : "properties"}${forcedBy})`,
                change.properties.flatMap(diffLines),
            ),
        );
    }
    if (diff.outputs.length > 0) {
        lines.push(...details("Outputs", diff.outputs.flatMap(diffLines)));
    }
    if (diff.unknownInBase.length > 0) {
        lines.push(
            ...details(
                "Values the base held as [unknown]",
                diff.unknownInBase.flatMap((resource) => [
                    `  ${displayType(resource.type)} ${resource.name}`,
                    ...resource.properties.flatMap(diffLines).map((line) => `  ${line}`),
                ]),
            ),
        );
    }
    const notes = diffNotes(diff);
    if (notes.length > 0) {
        lines.push(...notes.map((note) => `${note}.`), "");
    }
    return lines;
}

/** The Markdown a pull request shows for one stack: the plan (or the change against `diff`'s base) and the policy verdict. */
export function renderMarkdown(head: PreviewReport, diff?: ReportDiff): string {
    const lines = [`### Offline preview of stack \`${head.stack}\``, "", ...(diff ? changeLines(diff) : planLines(head))];
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
