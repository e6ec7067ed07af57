import { StackValidationPolicy } from "@pulumi/policy";
import { EPP_PROCESSING_MODES, describePatch, eppExtProcCalls, extProcModeProblems } from "./facts";
import { envoyFilters } from "./support/envoyFilters";
import { isInferencePool, isLlmInferenceService } from "./support/resources";

/**
 * Seed 002: a hand-written EnvoyFilter put the EPP's ext_proc filter on every listener with every mode SKIP or NONE and
 * relied on a per-route override that never existed (the EPP was never called: "rq_total stays at 0"), and it advised
 * request_body_mode NONE because BUFFERED blocked requests. The EPP picks an endpoint from the request's body (the model,
 * the prompt's prefix) and supports only FULL_DUPLEX_STREAMED bodies.
 */
export const requireEppExtProcMode: StackValidationPolicy = {
    name: "require-epp-ext-proc-mode",
    description:
        "An EnvoyFilter's ext_proc filter or route override that calls an endpoint picker (EPP) must send it what it picks by: headers SEND, bodies FULL_DUPLEX_STREAMED, trailers SEND; a filter that skips every request must be turned on by a route override.",
    enforcementLevel: "mandatory",
    severity: "high",
    remediationSteps: `Set processing_mode to ${EPP_PROCESSING_MODES} (what Istio's own InferencePool support writes), or drop the EnvoyFilter and let istiod with ENABLE_GATEWAY_API_INFERENCE_EXTENSION=true call the EPP.`,
    validateStack: (args, reportViolation) => {
        // An override without a target of its own calls the filter's: an EPP filter here, or the one Istio writes for InferencePool routes.
        const poolRoutes = args.resources.some((resource) => isLlmInferenceService(resource.type) || isInferencePool(resource.type));
        const calls = eppExtProcCalls(envoyFilters(args.resources), poolRoutes);
        if (calls.filters.length === 0 && calls.overrides.length === 0) {
            args.notApplicable("no EnvoyFilter calls an endpoint picker through ext_proc");
        }
        for (const { patch, problem } of extProcModeProblems(calls)) {
            reportViolation(`${describePatch(patch)} ${problem}`, patch.filter.source.urn);
        }
    },
};
