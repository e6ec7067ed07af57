/**
 * What a change does to a stack, between the head's offline report and a base that is either an offline report or a
 * real `pulumi preview --json`: resources created, updated (property by property, like `pulumi preview --diff`) and
 * deleted, output changes, and the policy violations it introduces or resolves. One model of the change, rendered for
 * the terminal and as Markdown for a pull request.
 *
 * Citations are to pulumi/pulumi at 1b5949891b3cefcb9974752b24a5ecef0acc86c8.
 */
import { z } from "zod";
import { PolicyViolation } from "./analyzer";
import { PROVIDER_RENDERED_TYPES } from "./expand";
import { ROOT_STACK_TYPE, UNKNOWN_VALUE } from "./recorder";
import { PreviewReport, displayType, planByComponent, uncheckedCount } from "./report";

/**
 * One property that differs; `before`/`after` are absent where the property is. A `before` of {@link UNKNOWN_VALUE}
 * is a value the base did not know yet (a provider computes it): shown as `[unknown] => value`, never a change.
 */
export interface PropertyChange {
    path: string;
    before?: unknown;
    after?: unknown;
}

/** What the change does to a resource, in pulumi's words. */
export type ResourceOp = "create" | "update" | "delete";

/** A resource the change creates, updates or deletes. */
export interface ResourceChange {
    op: ResourceOp;
    urn: string;
    type: string;
    name: string;
    /** For an update, each property that differs and each value the base did not know. */
    properties: PropertyChange[];
}

/** Everything that differs between two previews of one stack. */
export interface ReportDiff {
    /** The resources the change updates, creates and deletes, in that order. */
    resources: ResourceChange[];
    /** Resources that stay the same although the base held some of their values as unknown. */
    unknownInBase: Array<Omit<ResourceChange, "op">>;
    /** Resources in both previews that do not change (those in `unknownInBase` included). */
    unchanged: number;
    /** Resources left out of the comparison: the base's default providers, and objects only one preview rendered. */
    notCompared: { defaultProviders: number; objects: number };
    outputs: PropertyChange[];
    violations: { introduced: PolicyViolation[]; resolved: PolicyViolation[] };
}

/** Resource options in one shape for both kinds of base: only those set, custom timeouts in seconds. */
interface ComparedOptions {
    protect?: true;
    ignoreChanges?: string[];
    customTimeouts?: Record<string, number | string>;
    deleteBeforeReplace?: true;
}
type OptionName = keyof ComparedOptions;

/** What the diff compares of a resource; `inputs` and `provider` are undefined where the base does not carry them. */
interface ComparedState {
    inputs?: Record<string, unknown>;
    /** Sorted: the engine keeps them as a set (pkg/resource/deploy/source_eval.go:2663). */
    dependencies: string[];
    /** URN of an explicit provider, null for none. */
    provider?: string | null;
    options: ComparedOptions;
}

/** A resource of the base. */
interface BaseResource extends ComparedState {
    urn: string;
    type: string;
    parent?: string;
}

/** A base to compare with, read from an offline report or a real `pulumi preview --json`. */
export interface BaseReport {
    resources: BaseResource[];
    /** The stack's outputs, absent where the base does not carry them. */
    outputs?: Record<string, unknown>;
    policyViolations: PolicyViolation[];
    /** The resource options the base records. */
    options: readonly OptionName[];
    /** URNs of components whose objects the base does not have. */
    unrendered: ReadonlySet<string>;
    /** Default providers in the base: the engine adds them, an offline run never registers them. */
    defaultProviders: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
    return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The leaves at which `before` and `after` differ, as dotted paths with array indices. */
export function diffValues(before: unknown, after: unknown, path = ""): PropertyChange[] {
    const at = (key: string | number) => (typeof key === "number" ? `${path}[${key}]` : path ? `${path}.${key}` : key);
    // A value the base did not know matches whatever the head has, and one that turned out absent is no change: the
    // engine's own rule for the unknowns of a preview's plan (sdk/go/common/resource/properties_diff.go:507-509, 623-626).
    if (before === UNKNOWN_VALUE) {
        return after === undefined || after === UNKNOWN_VALUE ? [] : [{ path: path || "(value)", before, after }];
    }
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

/** The properties that make a resource an update: all but the values the base did not know. */
const changesOf = (properties: PropertyChange[]) => properties.filter((property) => property.before !== UNKNOWN_VALUE);

/** A violation's identity across reports. */
function violationKey(violation: PolicyViolation): string {
    return `${violation.policyName}|${violation.urn}|${violation.message}`;
}

const StateSchema = z.looseObject({
    type: z.string(),
    urn: z.string(),
    custom: z.boolean().optional(),
    parent: z.string().optional(),
    inputs: z.record(z.string(), z.unknown()).optional(),
    outputs: z.record(z.string(), z.unknown()).optional(),
    dependencies: z.array(z.string()).optional(),
    provider: z.string().optional(),
    // An offline report's resource options.
    options: z
        .looseObject({
            protect: z.boolean().optional(),
            ignoreChanges: z.array(z.string()).optional(),
            customTimeouts: z.record(z.string(), z.string()).optional(),
            deleteBeforeReplace: z.boolean().optional(),
        })
        .optional(),
    // The options a pulumi state records, each omitted when unset (sdk/go/common/apitype/core.go:506-507, 528-529,
    // 547-548); custom timeouts in seconds (sdk/go/common/resource/custom_timeouts.go:17-21).
    protect: z.boolean().optional(),
    ignoreChanges: z.array(z.string()).optional(),
    customTimeouts: z.record(z.string(), z.number()).optional(),
});
type BaseState = z.infer<typeof StateSchema>;

const BaseSchema = z.looseObject({
    steps: z.array(z.looseObject({ op: z.string(), urn: z.string(), newState: StateSchema.optional(), oldState: StateSchema.optional() })),
    // An offline report has a `summary`; pulumi's PreviewDigest has a `changeSummary` instead (pkg/display/json.go:31-48).
    summary: z.unknown().optional(),
    changeSummary: z.record(z.string(), z.number()).optional(),
    outputs: z.record(z.string(), z.unknown()).optional(),
    unrenderedCharts: z.array(z.looseObject({ urn: z.string() })).optional(),
    policyViolations: z
        .array(z.looseObject({ policyName: z.string(), urn: z.string(), message: z.string(), enforcementLevel: z.string() }))
        .optional(),
});

/** The options an offline report records; a pulumi state has no deleteBeforeReplace (pkg/resource/deploy/step_generator.go:806-843). */
const OFFLINE_OPTIONS: readonly OptionName[] = ["protect", "ignoreChanges", "customTimeouts", "deleteBeforeReplace"];
const PULUMI_OPTIONS: readonly OptionName[] = ["protect", "ignoreChanges", "customTimeouts"];

/** Inputs the engine adds to a provider's own (pkg/resource/deploy/providers/registry.go:44-59, 166-172; source_eval.go:2669-2700). */
const ENGINE_PROVIDER_INPUTS = new Set(["version", "__internal"]);

const GO_DURATION_UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, μs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** Seconds in a Go duration such as `45m` or `1h30m`, as the engine stores a custom timeout (source_eval.go:2948-2977, 3396-3402). */
function timeoutSeconds(timeout: string | number): number | string {
    if (typeof timeout === "number") {
        return timeout;
    }
    const parts = [...timeout.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)];
    // Not a duration (the engine refuses it): compared as written.
    if (parts.length === 0 || parts.map(([part]) => part).join("") !== timeout) {
        return timeout;
    }
    return parts.reduce((seconds, [, amount, unit]) => seconds + Number(amount) * GO_DURATION_UNITS[unit], 0);
}

function comparedOptions(options: {
    protect?: boolean;
    ignoreChanges?: string[];
    customTimeouts?: Record<string, string | number | undefined>;
    deleteBeforeReplace?: boolean;
}): ComparedOptions {
    // The SDKs set no read timeout, which a pulumi state may hold.
    const timeouts = Object.fromEntries(
        (["create", "update", "delete"] as const).flatMap((operation) => {
            const timeout = options.customTimeouts?.[operation];
            return timeout === undefined ? [] : [[operation, timeoutSeconds(timeout)]];
        }),
    );
    return {
        ...(options.protect ? { protect: true as const } : {}),
        ...(options.ignoreChanges?.length ? { ignoreChanges: options.ignoreChanges } : {}),
        ...(Object.keys(timeouts).length > 0 ? { customTimeouts: timeouts } : {}),
        ...(options.deleteBeforeReplace ? { deleteBeforeReplace: true as const } : {}),
    };
}

/** Whether a type (or a URN's type, qualified by its parents' types) is a provider's. */
const isProviderType = (type: string) => type.split("$").pop()!.startsWith("pulumi:providers:");

/** Whether `urn` is a default provider, which the engine adds (sdk/go/common/providers/reference.go:48-51). */
function isDefaultProvider(urn: string): boolean {
    const parts = urn.split("::");
    return isProviderType(parts[2] ?? "") && parts[parts.length - 1].startsWith("default");
}

/** The URN of the explicit provider a reference (`urn::id`) names; null for a default provider, which an offline report leaves out. */
function explicitProvider(reference: string | undefined): string | null {
    const urn = reference?.slice(0, reference.lastIndexOf("::"));
    return urn === undefined || isDefaultProvider(urn) ? null : urn;
}

/** A state of an offline report (the base's or the head's) as the diff compares it. */
function offlineState(state: Pick<BaseState, "inputs" | "dependencies" | "provider" | "options">): ComparedState {
    return {
        inputs: state.inputs,
        dependencies: [...new Set(state.dependencies ?? [])].sort(),
        provider: explicitProvider(state.provider),
        options: comparedOptions(state.options ?? {}),
    };
}

/**
 * A state of `pulumi preview --json` (an apitype ResourceV3, pkg/backend/display/json.go:267-314) as the diff compares
 * it. Its `inputs` and `dependencies` are omitted when empty (core.go:501, 513): a component a provider constructs
 * keeps no inputs, so absent inputs are not compared; nor is a component's provider, which only its registration
 * names (the constructing provider registers it as its own component, without one).
 */
function pulumiState(state: BaseState): ComparedState {
    return {
        inputs:
            state.inputs && isProviderType(state.type)
                ? Object.fromEntries(Object.entries(state.inputs).filter(([key]) => !ENGINE_PROVIDER_INPUTS.has(key)))
                : state.inputs,
        dependencies: [...new Set(state.dependencies ?? [])].sort(),
        provider: state.custom ? explicitProvider(state.provider) : undefined,
        options: comparedOptions(state),
    };
}

/**
 * A base to compare with, from a report of this tool or a real `pulumi preview --json` (steps with a newState for each
 * resource the base program declares; no policy violations, which the CLI leaves out of its JSON: json.go:241-244).
 * Throws one line naming what is missing when `json` is neither, or when a pulumi preview left out unchanged resources.
 */
export function readBaseReport(json: unknown): BaseReport {
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
    const { data } = parsed;
    const offline = data.summary !== undefined;
    // Without --show-sames the CLI lists only what changes (pkg/backend/display/display.go:308-316), yet counts the
    // rest as `same` (json.go:249; pkg/backend/display/diff.go:287, 322-323).
    const omitted = (data.changeSummary?.same ?? 0) - data.steps.filter((step) => step.op === "same").length;
    if (!offline && omitted > 0) {
        throw new Error(
            `leaves out ${omitted} unchanged resources, which pulumi preview --json lists only with --show-sames; rerun it with --show-sames`,
        );
    }
    // A replacement lists a resource in more than one step, each with the same newState.
    const states = [...new Map(data.steps.flatMap((step) => (step.newState ? [[step.urn, step.newState] as const] : []))).values()];
    const resources = states
        .filter((state) => !isDefaultProvider(state.urn))
        .map((state): BaseResource => ({
            urn: state.urn,
            type: state.type,
            ...(state.parent ? { parent: state.parent } : {}),
            ...(offline ? offlineState(state) : pulumiState(state)),
        }));
    // A stack's first preview (every step a create) cannot reach the cluster, so the Kubernetes provider registers its
    // charts and YAML groups alone; an offline report names the charts it did not render.
    const firstPreview = data.steps.every((step) => step.op === "create");
    const unrendered = offline
        ? (data.unrenderedCharts ?? []).map((chart) => chart.urn)
        : firstPreview
          ? resources.filter((resource) => PROVIDER_RENDERED_TYPES.has(resource.type)).map((resource) => resource.urn)
          : [];
    return {
        resources,
        // The stack's outputs reach pulumi's JSON only when its step is serialized after they are set: the step holds
        // the state itself (pkg/engine/events.go:547-552, json.go:293-311).
        outputs: offline ? data.outputs : states.find((state) => state.type === ROOT_STACK_TYPE)?.outputs,
        policyViolations: (data.policyViolations ?? []) as unknown as PolicyViolation[],
        options: offline ? OFFLINE_OPTIONS : PULUMI_OPTIONS,
        unrendered: new Set(unrendered),
        defaultProviders: states.length - resources.length,
    };
}

/** The parts of `state` the diff compares: those the `base` state carries, and the options the base records. */
function comparable(state: ComparedState, base: ComparedState, options: readonly OptionName[]) {
    return {
        ...(base.inputs !== undefined ? { inputs: state.inputs ?? {} } : {}),
        dependencies: state.dependencies,
        ...(base.provider !== undefined && state.provider ? { provider: state.provider } : {}),
        options: Object.fromEntries(
            options.flatMap((option) => (state.options[option] === undefined ? [] : [[option, state.options[option]]])),
        ),
    };
}

const nameOf = (urn: string) => urn.split("::").pop() || "stack";

/** Compares the `head` report of a stack with its `base`. */
export function diffReports(base: BaseReport, head: PreviewReport): ReportDiff {
    // Objects a provider renders are compared only where both previews have them.
    const headUnrendered = new Set(head.unrenderedCharts.map((chart) => chart.urn));
    const baseResources = base.resources.filter((resource) => !(resource.parent && headUnrendered.has(resource.parent)));
    const headSteps = head.steps.filter((step) => !(step.newState.parent && base.unrendered.has(step.newState.parent)));
    const baseByUrn = new Map(baseResources.map((resource) => [resource.urn, resource]));
    const headUrns = new Set(headSteps.map((step) => step.urn));
    const resource = (urn: string, type: string, properties: PropertyChange[] = []) => ({ urn, type, name: nameOf(urn), properties });

    const updated: ResourceChange[] = [];
    const created: ResourceChange[] = [];
    const unknownInBase: ReportDiff["unknownInBase"] = [];
    let unchanged = 0;
    for (const step of headSteps) {
        const previous = baseByUrn.get(step.urn);
        if (!previous) {
            created.push({ op: "create", ...resource(step.urn, step.newState.type) });
            continue;
        }
        const properties = diffValues(
            comparable(previous, previous, base.options),
            comparable(offlineState(step.newState), previous, base.options),
        );
        if (changesOf(properties).length > 0) {
            updated.push({ op: "update", ...resource(step.urn, step.newState.type, properties) });
            continue;
        }
        unchanged += 1;
        if (properties.length > 0) {
            unknownInBase.push(resource(step.urn, step.newState.type, properties));
        }
    }
    const deleted = baseResources
        .filter((gone) => !headUrns.has(gone.urn))
        .sort((a, b) => a.urn.localeCompare(b.urn))
        .map((gone): ResourceChange => ({ op: "delete", ...resource(gone.urn, gone.type) }));
    const baseViolations = new Set(base.policyViolations.map(violationKey));
    const headViolations = new Set(head.policyViolations.map(violationKey));
    return {
        resources: [...updated, ...created, ...deleted],
        unknownInBase,
        unchanged,
        notCompared: {
            defaultProviders: base.defaultProviders,
            objects: base.resources.length - baseResources.length + head.steps.length - headSteps.length,
        },
        outputs: base.outputs === undefined ? [] : diffValues(base.outputs, head.outputs),
        violations: {
            introduced: head.policyViolations.filter((violation) => !baseViolations.has(violationKey(violation))),
            resolved: base.policyViolations.filter((violation) => !headViolations.has(violationKey(violation))),
        },
    };
}

const MARKERS: Record<ResourceOp, string> = { update: "~", create: "+", delete: "-" };

/** How many changed paths a one-line summary of an update names before it counts the rest. */
const PATHS_SHOWN = 3;

/** The first paths that change, and how many more do. */
function changedPaths(properties: PropertyChange[]): { paths: string[]; more: number } {
    const paths = changesOf(properties).map((property) => property.path);
    return { paths: paths.slice(0, PATHS_SHOWN), more: Math.max(0, paths.length - PATHS_SHOWN) };
}

/** What one terminal line or Markdown row says of a resource: `~ update`, type as pulumi displays it, name, and the paths an update changes. */
function resourceLine(change: ResourceChange) {
    return {
        op: `${MARKERS[change.op]} ${change.op}`,
        type: displayType(change.type),
        name: change.name,
        ...changedPaths(change.properties),
    };
}

/** `~ 2 to update, + 1 to create, - 0 to delete, 95 unchanged`, as pulumi sums up a preview. */
export function summaryLine(diff: ReportDiff): string {
    const count = (op: ResourceOp) => diff.resources.filter((resource) => resource.op === op).length;
    return `~ ${count("update")} to update, + ${count("create")} to create, - ${count("delete")} to delete, ${diff.unchanged} unchanged`;
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
    for (const update of diff.resources.filter((resource) => resource.op === "update")) {
        const count = changesOf(update.properties).length;
        lines.push(
            ...details(
                `~ ${displayType(update.type)} <code>${update.name}</code> (${count} ${count === 1 ? "property" : "properties"})`,
                update.properties.flatMap(diffLines),
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
