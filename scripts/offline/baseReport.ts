/**
 * The base a change is compared with, read from an offline report or from a real `pulumi preview --json`, in one shape:
 * each resource's inputs, dependencies, provider and options as far as the base carries them.
 *
 * Citations are to pulumi/pulumi at 1b5949891b3cefcb9974752b24a5ecef0acc86c8.
 */
import { z } from "zod";
import { PolicyViolation } from "./analyzer";
import { PROVIDER_RENDERED_TYPES } from "./expand";
import { ROOT_STACK_TYPE } from "./recorder";

/** Resource options in one shape for both kinds of base: only those set, custom timeouts in seconds. */
export interface ComparedOptions {
    protect?: true;
    ignoreChanges?: string[];
    customTimeouts?: Record<string, number | string>;
    deleteBeforeReplace?: true;
}
export type OptionName = keyof ComparedOptions;

/** What the diff compares of a resource; `inputs` and `provider` are undefined where the base does not carry them. */
export interface ComparedState {
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
export function explicitProvider(reference: string | undefined): string | null {
    const urn = reference?.slice(0, reference.lastIndexOf("::"));
    return urn === undefined || isDefaultProvider(urn) ? null : urn;
}

/** A state of an offline report (the base's or the head's) as the diff compares it. */
export function offlineState(state: Pick<BaseState, "inputs" | "dependencies" | "provider" | "options">): ComparedState {
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
export function comparable(state: ComparedState, base: ComparedState, options: readonly OptionName[]) {
    return {
        ...(base.inputs !== undefined ? { inputs: state.inputs ?? {} } : {}),
        dependencies: state.dependencies,
        ...(base.provider !== undefined && state.provider ? { provider: state.provider } : {}),
        options: Object.fromEntries(
            options.flatMap((option) => (state.options[option] === undefined ? [] : [[option, state.options[option]]])),
        ),
    };
}
