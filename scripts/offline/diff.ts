/**
 * What a change does to a stack, between the head's offline report and a base that is either an offline report or a
 * real `pulumi preview --json`: resources created, updated (property by property, like `pulumi preview --diff`) and
 * deleted, output changes, and the policy violations it introduces or resolves. One model of the change, which
 * renderDiff.ts shows in the terminal and as Markdown for a pull request; baseReport.ts reads the base.
 *
 * Citations are to pulumi/pulumi at 1b5949891b3cefcb9974752b24a5ecef0acc86c8.
 */
import { PolicyViolation } from "./analyzer";
import { BaseReport, comparable, offlineState } from "./baseReport";
import { UNKNOWN_VALUE } from "./recorder";
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
export const changesOf = (properties: PropertyChange[]) => properties.filter((property) => property.before !== UNKNOWN_VALUE);

/** A violation's identity across reports. */
export function violationKey(violation: PolicyViolation): string {
    return `${violation.policyName}|${violation.urn}|${violation.message}`;
}

export const nameOf = (urn: string) => urn.split("::").pop() || "stack";

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
