import { ResourceValidationPolicy } from "@pulumi/policy";
import { EPP_MINIMUM_VERSIONS } from "@gke-tpu-inference/facts";
import { endpointPickerAlpn } from "@gke-tpu-inference/facts";
import { containersOf } from "./support";

/**
 * Seed 000: the EPP's gRPC server served TLS without offering ALPN `h2`; Envoy's ext_proc
 * refused it and prefix-cache-aware routing silently never happened ("zero cache hits").
 */
export const requireFixedEndpointPickerImage: ResourceValidationPolicy = {
    name: "require-fixed-endpoint-picker-image",
    description: "An endpoint picker (EPP) image must be at or above the first release that offers ALPN h2 on its TLS gRPC server.",
    enforcementLevel: "mandatory",
    severity: "critical",
    remediationSteps:
        "Use ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.10.0 (or at least v0.9.0), or llm-d-inference-scheduler v0.7.0 or later.",
    configSchema: {
        properties: {
            minimumVersions: {
                type: "object",
                additionalProperties: { type: "string" },
                default: { ...EPP_MINIMUM_VERSIONS },
                description: "First fixed version per EPP image repository (its last path segment).",
            },
        },
    },
    validateResource: (args, reportViolation) => {
        const minimums = args.getConfig<{ minimumVersions?: Record<string, string> }>().minimumVersions ?? EPP_MINIMUM_VERSIONS;
        for (const { path, container } of containersOf(args.type, args.props)) {
            if (typeof container.image !== "string") {
                continue;
            }
            const verdict = endpointPickerAlpn(container.image, minimums);
            if (verdict?.fixed === false) {
                reportViolation(
                    `${args.name} ${path} runs ${container.image}; ${verdict.repository} before v${verdict.minimum} serves TLS gRPC without ALPN h2, so the Gateway's ext_proc cannot reach it.`,
                );
            }
        }
    },
};
