import { StackValidationPolicy } from "@pulumi/policy";
import { describePatch, eppExtProcCalls, extProcModeProblems, PolicyText, policyText } from "./facts";
import { envoyFilters } from "./support/envoyFilters";
import { isInferencePool, isLlmInferenceService } from "./support/resources";

/** The report on the ext_proc patch at `patch` (`EnvoyFilter <namespace>/<name> spec.configPatches[i]`), with its problem. */
export function extProcModeMessage(patch: string, problem: string): string {
    return `${patch} ${problem}`;
}

/**
 * The filters are judged as the doctor judges them (facts/judgements/extProc.ts).
 */
export const requireEppExtProcMode: StackValidationPolicy & PolicyText = {
    ...policyText(
        "ext-proc-modes",
        "require-epp-ext-proc-mode",
        "An EnvoyFilter's ext_proc filter or route override that calls an endpoint picker (EPP) must send it what it picks by (headers SEND, bodies FULL_DUPLEX_STREAMED, trailers SEND), and a filter that skips every request must be turned on by a route override.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateStack: (args, reportViolation) => {
        // An override without a target of its own calls the filter's: an EPP filter here, or the one Istio writes for InferencePool routes.
        const poolRoutes = args.resources.some((resource) => isLlmInferenceService(resource.type) || isInferencePool(resource.type));
        const calls = eppExtProcCalls(envoyFilters(args.resources), poolRoutes);
        if (calls.filters.length === 0 && calls.overrides.length === 0) {
            args.notApplicable("no EnvoyFilter calls an endpoint picker through ext_proc");
        }
        for (const { patch, problem } of extProcModeProblems(calls)) {
            reportViolation(extProcModeMessage(describePatch(patch), problem), patch.filter.source.urn);
        }
    },
};
