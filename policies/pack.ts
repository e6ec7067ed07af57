/**
 * The policies of the pack, in one list that the pack (index.ts) and the tests share. Importing
 * this module starts no policy server.
 */
import { PolicyResource, ResourceValidation, ResourceValidationPolicy, StackValidation, StackValidationPolicy } from "@pulumi/policy";
import { LESSONS, LESSON_SETS, Lesson, PolicyText } from "./facts";
import { rememberInputs, withAnalyzedInputs } from "./support/analyzedInputs";

// The SDK's error for a value unknown during preview, its sentinels and its proxies' way to the plain object; internal
// to @pulumi/policy, so its types omit them.
const proxy = require("@pulumi/policy/proxy") as {
    UnknownValueError: new (...args: never[]) => Error & { props: Array<string | symbol> };
    getSpecialProxyTarget: string;
} & Record<string, unknown>;
const { UnknownValueError } = proxy;
const UNKNOWN_SENTINELS = new Set(
    [
        "unknownBooleanValue",
        "unknownNumberValue",
        "unknownStringValue",
        "unknownArrayValue",
        "unknownAssetValue",
        "unknownArchiveValue",
        "unknownObjectValue",
    ].map((name) => proxy[name]),
);

/** A value a preview does not know yet, as a stack policy reads it once its holder is set aside (a name matching nothing). */
const NOT_KNOWN_YET = "(not known until the update)";

/**
 * A copy of a resource's props with each value unknown during preview replaced: by {@link NOT_KNOWN_YET} (a name that
 * matches nothing, a flag that is not true), or, in the second `variant`, by `true` (a flag that is on). The engine
 * sends every unknown as one string marker, whatever its type (@pulumi/policy proxy.js unknownStringValue), so the two
 * stand for a value either way: a verdict that holds for both does not turn on it.
 */
function withUnknownsAs(props: unknown, variant: 0 | 1): unknown {
    const raw =
        props !== null && typeof props === "object" ? ((props as Record<string, unknown>)[proxy.getSpecialProxyTarget] ?? props) : props;
    if (UNKNOWN_SENTINELS.has(raw)) {
        return variant === 1 ? true : NOT_KNOWN_YET;
    }
    if (Array.isArray(raw)) {
        return raw.map((item) => withUnknownsAs(item, variant));
    }
    if (raw !== null && typeof raw === "object") {
        return Object.fromEntries(Object.entries(raw).map(([key, value]) => [key, withUnknownsAs(value, variant)]));
    }
    return raw;
}

/**
 * What a stack policy reports over `resources`, read around values a preview does not know yet. A read of one stops the
 * policy wherever it is (the SDK then reports only that the policy could not run, every verdict lost); so the
 * resources that hold it have their unknown values stood in for ({@link withUnknownsAs}) and the policy runs again,
 * twice, with the two picks: `each` is what the first reports, `either` what both do, `held` the resources stood in for.
 */
async function judgedAroundUnknowns(
    validate: StackValidation,
    args: Parameters<StackValidation>[0],
    resources: PolicyResource[],
): Promise<
    | { each: Array<[string, string | undefined]>; either: Array<[string, string | undefined]>; held: PolicyResource[] }
    | { failure: unknown }
> {
    const held = new Set<PolicyResource>();
    const run = async (variant: 0 | 1) => {
        const reported: Array<[string, string | undefined]> = [];
        const standIns = resources.map((resource) =>
            held.has(resource) ? { ...resource, props: withUnknownsAs(resource.props, variant) as Record<string, unknown> } : resource,
        );
        await validate({ ...args, resources: standIns }, (message, urn) => reported.push([String(message), urn]));
        return reported;
    };
    for (;;) {
        try {
            const each = await run(0);
            if (held.size === 0) {
                return { each, either: each, held: [] };
            }
            // A policy that cannot read the second pick (a flag where it wants a name) shows nothing robust.
            const other = new Set((await run(1).catch(() => [])).map(([message, urn]) => `${urn}\n${message}`));
            return { each, either: each.filter(([message, urn]) => other.has(`${urn}\n${message}`)), held: [...held] };
        } catch (err) {
            const holders = err instanceof UnknownValueError ? resources.filter((r) => !held.has(r) && unknownAt(r.props, err.props)) : [];
            if (holders.length === 0) {
                return { failure: err };
            }
            holders.forEach((holder) => held.add(holder));
        }
    }
}

/** True when a resource's props hold a value unknown during preview at `path` (the SDK's error names the path it read). */
function unknownAt(props: unknown, path: ReadonlyArray<string | symbol>): boolean {
    let value: unknown = props;
    for (const key of path) {
        if (value === null || typeof value !== "object") {
            return false;
        }
        const target = (value as Record<string, unknown>)[proxy.getSpecialProxyTarget] ?? value;
        value = (target as Record<string | symbol, unknown>)[key];
    }
    return UNKNOWN_SENTINELS.has(value);
}
import { disallowExtProcClusterByIp } from "./disallowExtProcClusterByIp";
import { disallowDefaultComputeServiceAccount } from "./disallowDefaultComputeServiceAccount";
import { disallowGatewayOpenToInternet } from "./disallowGatewayOpenToInternet";
import { disallowGpuOnlyVllmFlags } from "./disallowGpuOnlyVllmFlags";
import { disallowHttpRouteTimeoutsOnGke } from "./disallowHttpRouteTimeoutsOnGke";
import { disallowHttpsAppProtocolToVllm } from "./disallowHttpsAppProtocolToVllm";
import { disallowModelArmorOnMultiClusterGateway } from "./disallowModelArmorOnMultiClusterGateway";
import { disallowPlainTextSecretEnv } from "./disallowPlainTextSecretEnv";
import { disallowUnpinnedImages } from "./disallowUnpinnedImages";
import { enforceTpuStartupBudget } from "./enforceTpuStartupBudget";
import { requireFlexStartPoolSettings } from "./requireFlexStartPoolSettings";
import { requireAllTpuChips } from "./requireAllTpuChips";
import { requireExportFromEveryMember } from "./requireExportFromEveryMember";
import { requireExportedPoolForImport } from "./requireExportedPoolForImport";
import { requireFleetGkeVersionFloor } from "./requireFleetGkeVersionFloor";
import { requireDeletionProtection } from "./requireDeletionProtection";
import { requireEppExtProcMode } from "./requireEppExtProcMode";
import { requireFixedEndpointPickerImage } from "./requireFixedEndpointPickerImage";
import { requireGatewayAccessControl } from "./requireGatewayAccessControl";
import { requireGatewayApiOnCluster } from "./requireGatewayApiOnCluster";
import { requireHttpHealthCheckPolicy } from "./requireHttpHealthCheckPolicy";
import { requireHttpProbesForVllm } from "./requireHttpProbesForVllm";
import { requireImportHealthCheckPolicy } from "./requireImportHealthCheckPolicy";
import { requireKnownFleetGkeVersion } from "./requireKnownFleetGkeVersion";
import { requireLongInferenceBackendTimeout } from "./requireLongInferenceBackendTimeout";
import { requireLwsAndKServeBeforeModelServices } from "./requireLwsAndKServeBeforeModelServices";
import { requirePersistentXlaCache } from "./requirePersistentXlaCache";
import { requirePinnedChartVersions } from "./requirePinnedChartVersions";
import { requirePrivateNodes } from "./requirePrivateNodes";
import { requireRegionalGatewayClassForInference } from "./requireRegionalGatewayClassForInference";
import { requireRsaCaCertificates } from "./requireRsaCaCertificates";
import { requireShieldedNodes } from "./requireShieldedNodes";
import { requireSupportedTpuZone } from "./requireSupportedTpuZone";
import { requireTpuAwareAutoscaling } from "./requireTpuAwareAutoscaling";
import { requireTpuSelectorMatchingPool } from "./requireTpuSelectorMatchingPool";
import { requireWholeSliceGroups } from "./requireWholeSliceGroups";
import { requireWorkloadIdentity } from "./requireWorkloadIdentity";
import packageJson from "./package.json";

export const PACK_NAME = "gke-tpu-inference";
// The version the pack publishes with: its package.json's (tsc copies the file beside the compiled pack).
export const PACK_VERSION: string = packageJson.version;

/** True for what the policy SDK throws on purpose: a value unknown during preview, or a policy that does not apply. */
function isSdkSignal(err: unknown): boolean {
    return err instanceof UnknownValueError || (err as Error | undefined)?.constructor?.name === "NotApplicableError";
}

/** What to report when a policy throws on `subject`: the policy's own words would have been about a well-formed object. */
function couldNotEvaluate(policy: string, subject: string, err: unknown): string {
    return `${policy} could not evaluate ${subject}: ${(err as Error)?.message ?? String(err)}; the object may be malformed (the other policies still ran)`;
}

/**
 * The policy with its validations guarded: one that throws on an odd object (an HTTPRoute whose `rules` is a map)
 * reports that, at its own level, against that resource, where the SDK would fail the whole analysis.
 */
export function guarded<P extends ResourceValidationPolicy | StackValidationPolicy>(policy: P): P {
    if ("validateStack" in policy) {
        const validate: StackValidation = policy.validateStack;
        return {
            ...policy,
            // The SDK runs a policy's validateResource in Analyze and its validateStack in AnalyzeStack: the first keeps
            // each resource's inputs, which the second judges (support/analyzedInputs.ts says why).
            validateResource: rememberInputs,
            validateStack: async (args, reportViolation) => {
                const resources = withAnalyzedInputs(args.resources);
                const found = await judgedAroundUnknowns(validate, args, resources);
                if ("failure" in found) {
                    if (isSdkSignal(found.failure)) {
                        throw found.failure;
                    }
                    reportViolation(couldNotEvaluate(policy.name, "the stack", found.failure));
                    return;
                }
                const robust = new Set(found.either.map(([message, urn]) => `${urn}\n${message}`));
                for (const [message, urn] of found.each) {
                    if (robust.has(`${urn}\n${message}`)) {
                        reportViolation(message, urn);
                    } else {
                        // A verdict that turns on what is not known yet (a guard switched on by another resource's
                        // output) is said, at advisory, with what it turned on.
                        reportViolation({
                            message: `${policy.description}\n${message} (this turns on values not known until the update, in ${found.held.map((r) => `${r.type} ${r.name}`).join(", ")})`,
                            urn,
                            enforcementLevel: "advisory",
                        } as never);
                    }
                }
            },
        };
    }
    const validations =
        policy.validateResource === undefined
            ? []
            : Array.isArray(policy.validateResource)
              ? policy.validateResource
              : [policy.validateResource];
    return {
        ...policy,
        validateResource: validations.map((validate: ResourceValidation): ResourceValidation => async (args, reportViolation) => {
            try {
                await validate(args, reportViolation);
            } catch (err) {
                if (isSdkSignal(err)) {
                    throw err;
                }
                reportViolation(couldNotEvaluate(policy.name, `${args.type} ${args.name}`, err));
            }
        }),
    };
}

/** A policy of the pack: the SDK's, with the lesson it enforces (`policyText`). */
export type PackPolicy = (ResourceValidationPolicy | StackValidationPolicy) & PolicyText;

/** Where lesson `id` stands in the registry. */
const lessonOrder = new Map<string, number>(LESSONS.map((lesson, index) => [lesson.id, index]));

/**
 * Every policy, each one guarded, in the order of the lessons they enforce in the registry (policies/facts/lessons),
 * by name within a lesson: the order the docs list them in.
 */
export const policies: PackPolicy[] = [
    disallowDefaultComputeServiceAccount,
    disallowExtProcClusterByIp,
    disallowGatewayOpenToInternet,
    disallowGpuOnlyVllmFlags,
    disallowHttpRouteTimeoutsOnGke,
    disallowHttpsAppProtocolToVllm,
    disallowModelArmorOnMultiClusterGateway,
    disallowPlainTextSecretEnv,
    disallowUnpinnedImages,
    enforceTpuStartupBudget,
    requireAllTpuChips,
    requireExportFromEveryMember,
    requireExportedPoolForImport,
    requireFleetGkeVersionFloor,
    requireDeletionProtection,
    requireEppExtProcMode,
    requireFixedEndpointPickerImage,
    requireFlexStartPoolSettings,
    requireGatewayAccessControl,
    requireGatewayApiOnCluster,
    requireHttpHealthCheckPolicy,
    requireHttpProbesForVllm,
    requireImportHealthCheckPolicy,
    requireKnownFleetGkeVersion,
    requireLongInferenceBackendTimeout,
    requireLwsAndKServeBeforeModelServices,
    requirePersistentXlaCache,
    requirePinnedChartVersions,
    requirePrivateNodes,
    requireRegionalGatewayClassForInference,
    requireRsaCaCertificates,
    requireShieldedNodes,
    requireSupportedTpuZone,
    requireTpuAwareAutoscaling,
    requireTpuSelectorMatchingPool,
    requireWholeSliceGroups,
    requireWorkloadIdentity,
]
    .sort((a, b) => lessonOrder.get(a.lesson)! - lessonOrder.get(b.lesson)! || a.name.localeCompare(b.name))
    .map(guarded);

/** The pack configuration that turns off every policy outside `set`, as `pulumi preview --policy-pack-config` reads it. */
export function lessonSetConfig(set: keyof typeof LESSON_SETS): Record<string, "disabled"> {
    const kept = new Set((LESSON_SETS[set] as readonly Lesson[]).map((lesson) => lesson.id));
    return Object.fromEntries(policies.filter((policy) => !kept.has(policy.lesson)).map((policy) => [policy.name, "disabled"]));
}
