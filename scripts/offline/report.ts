import { stringify } from "yaml";
import { outputLines } from "../cli/properties";
import { Terminal } from "../cli/terminal";
import { UnrenderedChart } from "./expand";
import { RecordedInvoke } from "./invokes";
import { PolicyViolation } from "./analyzer";
import { ROOT_STACK_TYPE, RecordedResource, SECRET_PLACEHOLDER, UNKNOWN_DISPLAY, UNKNOWN_VALUE } from "./recorder";
import { OfflineRun } from "./run";

/** One step of the JSON report, shaped like `pulumi preview --json`. */
export interface ReportStep {
    op: "create";
    urn: string;
    /** The URNs the resource was known by (its aliases and its parents'), by which a diff finds it in an older report. */
    aliases?: string[];
    newState: {
        type: string;
        urn: string;
        custom: boolean;
        parent?: string;
        provider?: string;
        inputs: Record<string, unknown>;
        dependencies: string[];
        options?: RecordedResource["options"];
    };
}

/** The JSON report (`--json`), modeled on `pulumi preview --json`. */
export interface PreviewReport {
    project: string;
    stack: string;
    /** Configuration the program saw; secret values as `[secret]`. */
    config: Record<string, string>;
    steps: ReportStep[];
    /** The provider functions the program called (token and arguments), as the offline preview answered them. */
    invokes: RecordedInvoke[];
    outputs: Record<string, unknown>;
    summary: { create: number };
    /** Charts and components whose objects this preview could not render, so no policy saw them. */
    unrenderedCharts: UnrenderedChart[];
    policyViolations: PolicyViolation[];
}

function byUrn(a: RecordedResource, b: RecordedResource): number {
    return a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0;
}

/** Builds the report. Steps are ordered by URN so that two runs are byte-identical. */
export function buildReport(run: OfflineRun, policyViolations: PolicyViolation[]): PreviewReport {
    const { project } = run;
    const secret = new Set(project.secretKeys);
    const config = Object.fromEntries(
        Object.keys(project.config)
            .sort()
            .map((key) => [key, secret.has(key) ? SECRET_PLACEHOLDER : project.config[key]]),
    );
    const steps = [...run.resources].sort(byUrn).map((resource): ReportStep => ({
        op: "create",
        urn: resource.urn,
        ...(resource.aliases ? { aliases: resource.aliases } : {}),
        newState: {
            type: resource.type,
            urn: resource.urn,
            custom: resource.custom,
            ...(resource.parent ? { parent: resource.parent } : {}),
            ...(resource.provider ? { provider: resource.provider } : {}),
            inputs: resource.inputs,
            dependencies: resource.dependencies,
            ...(Object.keys(resource.options).length > 0 ? { options: resource.options } : {}),
        },
    }));
    const invokes = run.invokes
        .map((invoke) => ({ invoke, key: `${invoke.token} ${JSON.stringify(invoke.args)}` }))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
        .map(({ invoke }) => invoke);
    return {
        project: project.projectName,
        stack: project.stack,
        config,
        steps,
        invokes,
        outputs: run.outputs,
        summary: { create: steps.length },
        unrenderedCharts: run.unrendered,
        policyViolations,
    };
}

/** `gcp:compute/network:Network` → `gcp:compute:Network`, as `pulumi preview` displays types. */
export function displayType(type: string): string {
    const match = /^([^:]+):(.+)\/([^/:]+):([^:]+)$/.exec(type);
    return match && match[3].toLowerCase() === match[4].toLowerCase() ? `${match[1]}:${match[2]}:${match[4]}` : type;
}

/** A top-level component of the stack, or the stack for the resources it holds directly, and what it creates. */
export interface ComponentPlan {
    type: string;
    name: string;
    /** How many resources it creates (itself excluded), and of which types, most first. */
    count: number;
    types: Array<{ type: string; count: number }>;
}

/** The plan as a reviewer reads it: each component under the stack with the resources it creates, by type. */
export function planByComponent(report: PreviewReport): ComponentPlan[] {
    const states = new Map(report.steps.map((step) => [step.urn, step.newState]));
    const stack = report.steps.find((step) => step.newState.type === ROOT_STACK_TYPE)?.newState;
    // A resource belongs to its ancestor right under the stack; a custom resource right under the stack to the stack.
    const topLevel = (state: ReportStep["newState"]) => {
        let current = state;
        while (current.parent !== undefined && states.get(current.parent)?.parent !== undefined) {
            current = states.get(current.parent)!;
        }
        return current.custom ? stack : current;
    };
    const groups = new Map<ReportStep["newState"], Map<string, number>>();
    for (const { newState } of report.steps) {
        const group = newState === stack ? undefined : topLevel(newState);
        if (group === undefined) {
            continue;
        }
        const types = groups.get(group) ?? new Map<string, number>();
        groups.set(group, types);
        if (group !== newState) {
            types.set(displayType(newState.type), (types.get(displayType(newState.type)) ?? 0) + 1);
        }
    }
    const nameOf = (state: ReportStep["newState"]) => state.urn.split("::").pop() ?? state.urn;
    return [...groups]
        .sort(([a], [b]) => Number(b === stack) - Number(a === stack) || nameOf(a).localeCompare(nameOf(b)) || a.urn.localeCompare(b.urn))
        .map(([state, types]) => ({
            type: displayType(state.type),
            name: nameOf(state),
            count: [...types.values()].reduce((sum, count) => sum + count, 0),
            types: [...types].map(([type, count]) => ({ type, count })).sort((a, b) => b.count - a.count || a.type.localeCompare(b.type)),
        }));
}

/** The resource tree and summary, laid out like `pulumi preview`; the outputs fitted to `width`. */
export function renderTree(run: OfflineRun, terminal: Pick<Terminal, "width" | "interactive">): string {
    const children = new Map<string | undefined, RecordedResource[]>();
    const urns = new Set(run.resources.map((resource) => resource.urn));
    for (const resource of [...run.resources].sort((a, b) => (a.name === b.name ? byUrn(a, b) : a.name < b.name ? -1 : 1))) {
        const parent = resource.parent && urns.has(resource.parent) ? resource.parent : undefined;
        children.set(parent, [...(children.get(parent) ?? []), resource]);
    }
    const unrendered = new Set(run.unrendered.map((chart) => chart.urn));
    const rows: Array<[string, string]> = [];
    const walk = (parent: string | undefined, prefix: string) => {
        const siblings = children.get(parent) ?? [];
        siblings.forEach((resource, index) => {
            const last = index === siblings.length - 1;
            const branch = parent === undefined ? "" : last ? "└─ " : "├─ ";
            rows.push([
                `${prefix}${branch}${displayType(resource.type)}`,
                `${resource.name}${unrendered.has(resource.urn) ? "  [objects not rendered offline]" : ""}`,
            ]);
            walk(resource.urn, parent === undefined ? "" : `${prefix}${last ? "   " : "│  "}`);
        });
    };
    walk(undefined, "");
    const typeWidth = Math.max(4, ...rows.map(([type]) => type.length)) + 2;
    const nameWidth = Math.max(4, ...rows.map(([, name]) => name.length)) + 2;
    // On a terminal a row ends a column short of its width, as pulumi's interactive display trims it (pulumi
    // pkg/backend/display/tree.go:461, jsonmessage.go:212); elsewhere (a log, a file) rows are whole, as pulumi writes them.
    const fit = (row: string) =>
        terminal.interactive && row.length >= terminal.width ? row.slice(0, Math.max(terminal.width - 1, 0)) : row;
    const lines = [
        `Previewing update (${run.project.stack}) offline: providers are mocked, nothing is created`,
        "",
        fit(`     ${"Type".padEnd(typeWidth)}${"Name".padEnd(nameWidth)}Plan`),
        ...rows.map(([type, name]) => fit(` +   ${type.padEnd(typeWidth)}${name.padEnd(nameWidth)}create`)),
    ];
    // An output unknown until apply, as the CLI shows it rather than the marker it is on the wire and in the JSON.
    const outputs = outputLines(run.outputs, terminal.width).map((line) => line.replaceAll(JSON.stringify(UNKNOWN_VALUE), UNKNOWN_DISPLAY));
    if (outputs.length > 0) {
        lines.push("", "Outputs:", ...outputs);
    }
    lines.push("", "Resources:", `    + ${run.resources.length} to create`);
    if (run.unrendered.length > 0) {
        lines.push(
            "",
            `Not checked offline: ${uncheckedCount(run.unrendered.length)}, each with why (most a real preview renders, and the pack then judges):`,
            ...run.unrendered.map(
                (chart) => `    ${displayType(chart.type)} ${chart.name}${chart.chart ? ` (${chart.chart})` : ""}: ${chart.reason}`,
            ),
        );
    }
    return lines.join("\n");
}

/** "the objects of 1 component" / "of 4 components", for the notes on what the offline preview could not render. */
export function uncheckedCount(components: number): string {
    return `the objects of ${components} component${components === 1 ? "" : "s"}`;
}

/** The Policies section of `pulumi preview`: each pack with its violations, mandatory first. */
export function renderPolicies(
    pack: { name: string; version: string },
    violations: PolicyViolation[],
    run: Pick<OfflineRun, "resources" | "unrendered">,
): string {
    const byUrn = new Map(run.resources.map((resource) => [resource.urn, resource]));
    const order = { mandatory: 0, remediate: 0, advisory: 1, disabled: 2 } as const;
    const sorted = [...violations].sort(
        (a, b) =>
            order[a.enforcementLevel] - order[b.enforcementLevel] || a.policyName.localeCompare(b.policyName) || a.urn.localeCompare(b.urn),
    );
    const failed = violations.some((violation) => violation.enforcementLevel === "mandatory");
    // A pass is only as wide as what was judged: say so when some components' objects were not there to judge.
    const unchecked =
        run.unrendered.length > 0
            ? `  (over what was previewed; ${uncheckedCount(run.unrendered.length)} not checked offline, listed above)`
            : "";
    const lines = ["Policies:", `    ${failed ? "❌" : violations.length > 0 ? "⚠️" : "✅"} ${pack.name}@v${pack.version}${unchecked}`];
    for (const violation of sorted) {
        const resource = byUrn.get(violation.urn);
        const subject = resource ? `${displayType(resource.type)}: ${resource.name}` : "stack";
        // The policy SDK puts the description first in the message; show each line of it once.
        lines.push(
            `        - [${violation.enforcementLevel}]  ${violation.policyName}  (${subject})`,
            ...violation.message.split("\n").map((line) => `          ${line}`),
        );
    }
    return lines.join("\n");
}

/** A Kubernetes object the program would apply, with the file name `--out` writes it to. */
export interface KubernetesManifest {
    fileName: string;
    yaml: string;
}

/**
 * Every Kubernetes object among the resources (type `kubernetes:<group/version>:<Kind>`),
 * as YAML. Secrets' values stay `[secret]`.
 */
export function kubernetesManifests(run: OfflineRun): KubernetesManifest[] {
    const objects = run.resources.filter(
        (resource) => resource.custom && resource.type.startsWith("kubernetes:") && typeof resource.inputs.kind === "string",
    );
    // Objects of several clusters (a fleet's members) can share a kind, namespace and name: each file then names its
    // cluster's provider first.
    const providerName = (resource: RecordedResource) => (resource.provider ?? "").split("::")[3] ?? "";
    const clusters = new Set(objects.map(providerName));
    return [...objects].sort(byUrn).map((resource) => {
        // kubectl's field order: apiVersion, kind and metadata first.
        const { apiVersion, kind, metadata, ...body } = resource.inputs as {
            metadata?: { name?: string; namespace?: string };
        } & Record<string, unknown>;
        const parts = [
            ...(clusters.size > 1 ? [providerName(resource)] : []),
            String(kind),
            metadata?.namespace,
            metadata?.name ?? resource.name,
        ].filter(Boolean);
        return {
            fileName: `${parts
                .join("-")
                .toLowerCase()
                .replace(/[^a-z0-9.-]/g, "_")}.yaml`,
            yaml: stringify({ apiVersion, kind, metadata, ...body }),
        };
    });
}
