import { StackValidationPolicy } from "@pulumi/policy";
import { INFERENCE_EXT_PROC_MODE } from "./facts";
import { ExtProcPatch, addedClusters, callsEndpointPicker, describePatch, effectiveMode, extProcPatches } from "./extProc";
import { isInferencePool, isLlmInferenceService } from "./support";

/** The modes the EPP needs, for messages. */
const NEEDED = Object.entries(INFERENCE_EXT_PROC_MODE)
    .map(([name, value]) => `${name} ${value}`)
    .join(", ");

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
    remediationSteps: `Set processing_mode to ${NEEDED} (what Istio's own InferencePool support writes), or drop the EnvoyFilter and let istiod with ENABLE_GATEWAY_API_INFERENCE_EXTENSION=true call the EPP.`,
    validateStack: (args, reportViolation) => {
        const clusters = addedClusters(args.resources);
        const patches = extProcPatches(args.resources);
        const filters = patches.filter((patch) => patch.kind === "filter" && callsEndpointPicker(patch, clusters));
        // An override without a target of its own calls the filter's: an EPP filter here, or the one Istio writes for InferencePool routes.
        const poolRoutes = args.resources.some((resource) => isLlmInferenceService(resource.type) || isInferencePool(resource.type));
        const overrides = patches.filter(
            (patch) =>
                patch.kind === "override" &&
                (callsEndpointPicker(patch, clusters) ||
                    (patch.clusterName === undefined && patch.targetUri === undefined && (filters.length > 0 || poolRoutes))),
        );
        if (filters.length === 0 && overrides.length === 0) {
            args.notApplicable("no EnvoyFilter calls an endpoint picker through ext_proc");
        }
        const check = (patch: ExtProcPatch) => {
            const mode = effectiveMode(patch.processingMode);
            const wrong = Object.entries(INFERENCE_EXT_PROC_MODE).filter(([name, value]) => mode[name as keyof typeof mode] !== value);
            if (wrong.length > 0) {
                reportViolation(
                    `${describePatch(patch)} calls the EPP with ${wrong.map(([name]) => `${name} ${mode[name as keyof typeof mode]}`).join(", ")}; it needs ${NEEDED}: without the body it cannot see the model or the prompt it routes by, and it supports no body mode but FULL_DUPLEX_STREAMED.`,
                    patch.filter.urn,
                );
            }
        };
        const routeOverrides = overrides.filter((patch) => patch.processingMode !== undefined);
        for (const filter of filters) {
            if (effectiveMode(filter.processingMode).request_header_mode !== "SKIP") {
                check(filter);
            } else if (routeOverrides.length === 0) {
                reportViolation(
                    `${describePatch(filter)} skips every request's headers and no route override turns it on, so the EPP is never called and requests reach an endpoint it did not pick.`,
                    filter.filter.urn,
                );
            }
        }
        routeOverrides.forEach(check);
    },
};
