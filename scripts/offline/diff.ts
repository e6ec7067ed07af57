/**
 * What a change does to a stack, between the head's offline report and a base that is either an offline report or a
 * real `pulumi preview --json`: resources created, updated (property by property, like `pulumi preview --diff`),
 * replaced (naming the inputs that force it, by the catalog in replacements.ts) and deleted, output changes, and the
 * policy violations it introduces or resolves. One model of the change, which renderDiff.ts shows in the terminal and
 * as Markdown for a pull request; baseReport.ts reads the base.
 *
 * Citations are to pulumi/pulumi at 1b5949891b3cefcb9974752b24a5ecef0acc86c8.
 */
import { PolicyViolation } from "./analyzer";
import { BaseReport, comparable, explicitProvider, offlineState } from "./baseReport";
import { stackOf } from "../../policies/support/resources";
import { autoName } from "./mocks";
import { UNKNOWN_VALUE } from "./recorder";
import { Inputs, ReplaceContext, ReplaceRule, replaceRules } from "./replacements/catalog";
import { GCP_INPUT_READING, canonicalScope } from "./replacements/gcp";
import { PreviewReport } from "./report";

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
export type ResourceOp = "create" | "update" | "replace" | "delete";

/** A resource the change creates, updates, replaces or deletes. */
export interface ResourceChange {
    op: ResourceOp;
    urn: string;
    type: string;
    name: string;
    /** For an update or a replacement, each property that differs and each value the base did not know. */
    properties: PropertyChange[];
    /**
     * For a replacement, what forces it, as `replaceReasons` in `pulumi preview --json` (pkg/display/json.go:72-73):
     * each input the provider replaces on that changes (`inputs.<path>`, as replacements.ts names it), and `provider`
     * when the resource's provider is replaced.
     */
    replaceReasons?: string[];
}

/** Everything that differs between two previews of one stack. */
export interface ReportDiff {
    /** The resources the change replaces, updates, creates and deletes, in that order. */
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

function isRecord(value: unknown): value is Record<string, unknown> {
    return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * The lists the engine holds as sets, compared element by element whatever their order: dependencies
 * (pkg/resource/deploy/source_eval.go:2663) and ignoreChanges, each path of which it applies on its own
 * (pkg/resource/deploy/step_generator.go:3076-3096).
 */
const SET_PATHS: ReadonlySet<string> = new Set(["dependencies", "options.ignoreChanges"]);

/** The elements one of two sets has and the other has not: each a change at the set's path. */
function diffSets(before: unknown[], after: unknown[], path: string): PropertyChange[] {
    const keys = (values: unknown[]) => new Set(values.map((value) => JSON.stringify(value)));
    const [had, has] = [keys(before), keys(after)];
    return [
        ...before.filter((value) => !has.has(JSON.stringify(value))).map((value) => ({ path, before: value })),
        ...after.filter((value) => !had.has(JSON.stringify(value))).map((value) => ({ path, after: value })),
    ];
}

/** The leaves at which `before` and `after` differ, as dotted paths with array indices; the lists at `sets` as sets. */
export function diffValues(before: unknown, after: unknown, sets: ReadonlySet<string> = new Set(), path = ""): PropertyChange[] {
    const at = (key: string | number) => (typeof key === "number" ? `${path}[${key}]` : path ? `${path}.${key}` : key);
    // A value the base did not know matches whatever the head has, and one that turned out absent is no change: the
    // engine's own rule for the unknowns of a preview's plan (sdk/go/common/resource/properties_diff.go:507-509, 623-626).
    if (before === UNKNOWN_VALUE) {
        return after === undefined || after === UNKNOWN_VALUE ? [] : [{ path: path || "(value)", before, after }];
    }
    if (isRecord(before) && isRecord(after)) {
        const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
        return keys.flatMap((key) => diffValues(before[key], after[key], sets, at(key)));
    }
    if (Array.isArray(before) && Array.isArray(after)) {
        if (sets.has(path)) {
            return diffSets(before, after, path);
        }
        return Array.from({ length: Math.max(before.length, after.length) }, (_, index) =>
            diffValues(before[index], after[index], sets, at(index)),
        ).flat();
    }
    if (JSON.stringify(before) === JSON.stringify(after)) {
        return [];
    }
    return [{ path: path || "(value)", ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) }];
}

/** The properties that make a resource an update: all but the values the base did not know. */
export const changesOf = (properties: PropertyChange[]) => properties.filter((property) => property.before !== UNKNOWN_VALUE);

/** A rule's value before and after, pair by pair (one per element where its path crosses a list). */
interface FieldPair {
    before: unknown;
    after: unknown;
    /** Whether the new inputs hold the object the field would be in. */
    parentAfter: boolean;
}

/**
 * The pairs at `segments` of a rule's path, `[]` standing for each element of a list; none under a field of `kept`
 * (Optional and Computed) that the new inputs leave unset: the provider keeps the value it holds, and diffs nothing
 * beneath it (SDK helper/schema/schema.go:1351-1353, 1747-1752; see replacements.ts).
 */
function fieldPairs(
    before: unknown,
    after: unknown,
    segments: string[],
    kept: ReadonlySet<string>,
    at = "",
    parentAfter = true,
): FieldPair[] {
    if (at !== "" && kept.has(at) && after === undefined) {
        return [];
    }
    if (segments.length === 0) {
        return [{ before, after, parentAfter }];
    }
    const [segment, ...rest] = segments;
    const below = segment === "[]" ? `${at}[]` : at ? `${at}.${segment}` : segment;
    // Under a value the base did not know, every value is one it did not know.
    const child = (value: unknown, key: string | number): unknown =>
        value === UNKNOWN_VALUE
            ? UNKNOWN_VALUE
            : typeof key === "number"
              ? Array.isArray(value)
                  ? value[key]
                  : undefined
              : isRecord(value)
                ? value[key]
                : undefined;
    if (segment === "[]") {
        const length = (value: unknown) => (Array.isArray(value) ? value.length : 0);
        return Array.from({ length: Math.max(length(before), length(after)) }, (_, index) =>
            fieldPairs(child(before, index), child(after, index), rest, kept, below, Array.isArray(after)),
        ).flat();
    }
    return fieldPairs(child(before, segment), child(after, segment), rest, kept, below, isRecord(after));
}

/** Whether a change from `pair.before` to `pair.after` makes the provider replace, by `rule` (see ReplaceOn). */
function replaces(rule: ReplaceRule, { before, after, parentAfter }: FieldPair, inputs: ReplaceContext): boolean {
    // A value the base did not know is no change.
    if (before === UNKNOWN_VALUE) {
        return false;
    }
    const changed = changesOf(diffValues(before, after)).length > 0;
    const count = (value: unknown) => (value === undefined ? 0 : Array.isArray(value) ? value.length : 1);
    switch (rule.on) {
        case "change":
            return changed;
        case "count":
            return after === UNKNOWN_VALUE || count(before) !== count(after);
        case "patch":
            return changed && (after !== undefined || parentAfter);
        default:
            return rule.on(before, after, inputs);
    }
}

/**
 * The inputs whose change from `before` to `after` makes the provider replace a resource of `type`, as `inputs.<path>`,
 * sorted; a field inside a block that forces it too is left to the block.
 */
function replacedOn(type: string, custom: boolean, before: Inputs, after: Inputs, provider?: Inputs): string[] {
    const inputs = { before, after, provider };
    const rules = replaceRules(type, custom);
    const kept = new Set(rules.filter((rule) => rule.computed).map((rule) => rule.path));
    const paths = rules
        .filter((rule) =>
            fieldPairs(before ?? {}, after ?? {}, rule.path.replace(/\[\]/g, ".[]").split("."), kept).some((pair) =>
                replaces(rule, pair, inputs),
            ),
        )
        .map((rule) => rule.path);
    const within = (path: string, outer: string) => path.startsWith(`${outer}.`) || path.startsWith(`${outer}[]`);
    return [...new Set(paths)]
        .filter((path) => !paths.some((outer) => within(path, outer)))
        .sort()
        .map((path) => `inputs.${path}`);
}

/** A violation's identity across reports. */
export function violationKey(violation: PolicyViolation): string {
    return `${violation.policyName}|${violation.urn}|${violation.message}`;
}

export const nameOf = (urn: string) => urn.split("::").pop() || "stack";

/** The value at a dotted path (`[]`-free) of inputs, and a copy of them with `value` there (parents made as needed). */
/**
 * A property path as the engine parses one (sdk/go/common/resource/properties_path.go ParsePropertyPath): names joined
 * by dots, `[0]` for an element, `["key"]` for a key with dots in it, `[*]` or `*` for any.
 */
function propertyPath(path: string): Array<string | number> {
    const segments: Array<string | number> = [];
    for (const [, name, index, quoted] of path.matchAll(/([^.[\]]+)|\[(\d+|\*)\]|\["([^"]*)"\]/g)) {
        segments.push(name ?? quoted ?? (index === "*" ? "*" : Number(index)));
    }
    return segments;
}

/** The value at a property path of inputs (undefined where the path leads nowhere). */
function atPath(inputs: unknown, path: string): unknown {
    return propertyPath(path).reduce<unknown>(
        (value, key) =>
            typeof key === "number" ? (Array.isArray(value) ? value[key] : undefined) : isRecord(value) ? value[key] : undefined,
        inputs,
    );
}

/** A copy of `inputs` with `value` at a property path (undefined removes it), lists and objects made as needed. */
function withValueAt(inputs: unknown, path: string | Array<string | number>, value: unknown): Record<string, unknown> {
    return setAt(inputs, typeof path === "string" ? propertyPath(path) : path, value) as Record<string, unknown>;
}
function setAt(container: unknown, [key, ...rest]: Array<string | number>, value: unknown): unknown {
    const child = (at: unknown) => (rest.length === 0 ? value : setAt(at, rest, value));
    if (typeof key === "number") {
        const list = Array.isArray(container) ? [...container] : [];
        list[key] = child(list[key]);
        return list;
    }
    const base = isRecord(container) ? container : {};
    const next = child(base[key]);
    const others = Object.fromEntries(Object.entries(base).filter(([name]) => name !== key));
    return next === undefined ? others : { ...others, [key]: next };
}

/** True when property path `pattern` holds `path`: its every segment equal, or `*`, and `path` at or below it (PropertyPath.Contains). */
function containsPath(pattern: string, path: string): boolean {
    const [outer, inner] = [propertyPath(pattern), propertyPath(path)];
    return outer.length <= inner.length && outer.every((segment, index) => segment === "*" || segment === inner[index]);
}

/**
 * Inputs as the provider reads them before it diffs (GCP_INPUT_READING): its sets in one order, OAuth scopes canonical,
 * a default left out filled in where its block is given.
 */
function asProviderReads(type: string, inputs: Inputs): Inputs {
    const reading = GCP_INPUT_READING[type];
    if (reading === undefined || inputs === undefined) {
        return inputs;
    }
    let read: Inputs = inputs;
    for (const [path] of reading.sets) {
        const value = atPath(read, path);
        if (Array.isArray(value)) {
            const canonical = path.endsWith("oauthScopes") ? value.map(canonicalScope) : value;
            read = withValueAt(
                read,
                path,
                [...canonical].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
            );
        }
    }
    for (const [path, value] of reading.defaults) {
        const parent = path.includes(".") ? atPath(read, path.slice(0, path.lastIndexOf("."))) : read;
        if (isRecord(parent) && atPath(read, path) === undefined) {
            read = withValueAt(read, path, value);
        }
    }
    return read;
}

/**
 * The new inputs with the paths the resource's ignoreChanges names set back to the old values, as the engine does
 * before it diffs (pulumi/pulumi@1b5949891b pkg/resource/deploy/step_generator.go:1264-1268, 3074-3095).
 */
function withIgnoredChanges(after: Inputs, before: Inputs, ignoreChanges: readonly string[] | undefined): Inputs {
    return (ignoreChanges ?? []).reduce<Inputs>((inputs, path) => withValueAt(inputs, path, atPath(before, path)), after);
}

/** `text` matched literally in a regular expression. */
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Compares the `head` report of a stack with its `base`. */
export function diffReports(base: BaseReport, head: PreviewReport): ReportDiff {
    // Objects a provider renders are compared only where both previews have them.
    const headUnrendered = new Set(head.unrenderedCharts.map((chart) => chart.urn));
    const baseResources = base.resources.filter((resource) => !(resource.parent && headUnrendered.has(resource.parent)));
    const headSteps = head.steps.filter((step) => !(step.newState.parent && base.unrendered.has(step.newState.parent)));
    const headByUrn = new Map(headSteps.map((step) => [step.urn, step.newState]));
    // The engine matches a resource to its old state by its URN, else by a URN it was known by (its aliases and its
    // parents'), and moves it rather than replacing it (pulumi/pulumi@v3.259.0 pkg/resource/deploy/step_generator.go:
    // 621-653, 703): the base's URNs are read as the head's, in the dependencies and provider references too.
    const baseUrns = new Set(baseResources.map((resource) => resource.urn));
    const movedTo = new Map<string, string>();
    for (const step of headSteps) {
        const formerUrn = baseUrns.has(step.urn) ? undefined : step.aliases?.find((alias) => !headByUrn.has(alias) && baseUrns.has(alias));
        if (formerUrn !== undefined) {
            movedTo.set(formerUrn, step.urn);
        }
    }
    const current = (urn: string) => movedTo.get(urn) ?? urn;
    const baseByUrn = new Map(
        baseResources.map((resource) => [
            current(resource.urn),
            {
                ...resource,
                urn: current(resource.urn),
                dependencies: resource.dependencies.map(current).sort(),
                ...(resource.provider ? { provider: current(resource.provider) } : {}),
            },
        ]),
    );
    const resource = (urn: string, type: string, properties: PropertyChange[] = []) => ({ urn, type, name: nameOf(urn), properties });
    // The engine replaces a resource whose provider reference changes when the new provider's DiffConfig, against the
    // old provider's inputs, says replace: as it does for a provider it replaces, whose new ID a preview does not know
    // (pulumi/pulumi@1b5949891b:pkg/resource/deploy/step_generator.go:2800-2873, 2918-2923).
    const providerReplaced = (before: string | null | undefined, after: string | null | undefined) => {
        const [old, next] = [before ? baseByUrn.get(before) : undefined, after ? headByUrn.get(after) : undefined];
        return (
            (after != null && replacing.has(after)) ||
            (old?.inputs !== undefined && next !== undefined && replacedOn(next.type, next.custom, old.inputs, next.inputs).length > 0)
        );
    };
    // A replaced resource's new outputs a preview does not know (its ID, its links): an input built from one is unknown in
    // the plan, and replaces where the provider replaces on it (pulumi/pulumi@1b5949891b pkg/resource/deploy/step.go:372,
    // 447-449: a create in preview returns no ID). Such an input is a string naming the resource in a path (an ID or
    // link, `…/clusters/<name>`), not its name alone (an input, which the plan knows).
    const replacing = new Map<string, string[]>();
    const afterInputs = (step: (typeof headSteps)[number], previous: Inputs): Inputs => {
        const named = step.newState.dependencies
            .filter((urn) => replacing.has(urn) && headByUrn.get(urn)?.custom)
            .map((urn) => {
                const state = headByUrn.get(urn)!;
                const name = state.inputs?.name;
                return typeof name === "string" ? name : autoName(stackOf(urn), state.type, nameOf(urn));
            });
        const unknownWhereBuilt = (value: unknown): unknown =>
            typeof value === "string"
                ? named.some((name) => value !== name && new RegExp(`(^|/)${escapeRegExp(name)}(/|$)`).test(value))
                    ? UNKNOWN_VALUE
                    : value
                : Array.isArray(value)
                  ? value.map(unknownWhereBuilt)
                  : isRecord(value)
                    ? Object.fromEntries(Object.entries(value).map(([key, child]) => [key, unknownWhereBuilt(child)]))
                    : value;
        const ignoring = withIgnoredChanges(step.newState.inputs, previous, step.newState.options?.ignoreChanges);
        // A provider that auto-names keeps the name it gave on every later Check (it reads it from the old state): a base
        // recorded without it is no change.
        const autoNamed = autoName(stackOf(step.urn), step.newState.type, nameOf(step.urn));
        const inputs =
            previous !== undefined && previous.name === undefined && ignoring?.name === autoNamed
                ? Object.fromEntries(Object.entries(ignoring).filter(([key]) => key !== "name"))
                : ignoring;
        return asProviderReads(step.newState.type, named.length > 0 ? (unknownWhereBuilt(inputs) as Inputs) : inputs);
    };
    const reasonsOf = (step: (typeof headSteps)[number]): string[] => {
        const previous = baseByUrn.get(step.urn);
        if (previous === undefined) {
            return [];
        }
        const type = step.newState.type;
        const before = asProviderReads(type, previous.inputs);
        const after = afterInputs(step, previous.inputs);
        // The program's own replacement options: replaceOnChanges on a changed input path (`*`, any), replaceWith on a
        // resource being replaced (pulumi/pulumi@1b5949891b pkg/resource/deploy/step_generator.go:1946, 2895-2915).
        const changed = previous.inputs === undefined ? [] : changesOf(diffValues(before, after)).map((change) => change.path);
        const onChanges = (step.newState.options?.replaceOnChanges ?? []).filter((path) => changed.some((at) => containsPath(path, at)));
        const withOthers = (step.newState.options?.replaceWith ?? []).filter((urn) => replacing.has(urn));
        return [
            ...(previous.inputs === undefined
                ? []
                : replacedOn(
                      type,
                      step.newState.custom,
                      before,
                      after,
                      headByUrn.get(explicitProvider(step.newState.provider) ?? "")?.inputs,
                  )),
            ...(step.newState.custom && providerReplaced(previous.provider, explicitProvider(step.newState.provider)) ? ["provider"] : []),
            ...onChanges.map((path) => `replaceOnChanges ${path === "*" ? "*" : `inputs.${path}`}`),
            ...withOthers.map((urn) => `replaceWith ${nameOf(urn)}`),
        ];
    };
    for (let grew = true; grew;) {
        grew = false;
        for (const step of headSteps) {
            const reasons = replacing.has(step.urn) ? [] : reasonsOf(step);
            if (reasons.length > 0) {
                replacing.set(step.urn, reasons);
                grew = true;
            }
        }
    }

    const replaced: ResourceChange[] = [];
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
        const type = step.newState.type;
        const before = asProviderReads(type, previous.inputs);
        const after = afterInputs(step, previous.inputs);
        // A component keeps no provider in the engine's state (it is never replaced): only a custom resource's is compared.
        const state = offlineState({
            ...step.newState,
            inputs: after,
            provider: step.newState.custom ? step.newState.provider : undefined,
        });
        const properties = diffValues(
            comparable(
                { ...previous, inputs: before, provider: step.newState.custom ? previous.provider : undefined },
                previous,
                base.options,
            ),
            comparable(state, previous, base.options),
            SET_PATHS,
        );
        const replaceReasons = replacing.get(step.urn) ?? [];
        if (replaceReasons.length > 0) {
            replaced.push({ op: "replace", ...resource(step.urn, step.newState.type, properties), replaceReasons });
            continue;
        }
        if (changesOf(properties).length > 0) {
            updated.push({ op: "update", ...resource(step.urn, step.newState.type, properties) });
            continue;
        }
        unchanged += 1;
        if (properties.length > 0) {
            unknownInBase.push(resource(step.urn, step.newState.type, properties));
        }
    }
    const deleted = [...baseByUrn.values()]
        .filter((gone) => !headByUrn.has(gone.urn))
        .sort((a, b) => a.urn.localeCompare(b.urn))
        .map((gone): ResourceChange => ({ op: "delete", ...resource(gone.urn, gone.type) }));
    const baseViolations = new Set(base.policyViolations.map(violationKey));
    const headViolations = new Set(head.policyViolations.map(violationKey));
    return {
        resources: [...replaced, ...updated, ...created, ...deleted],
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
