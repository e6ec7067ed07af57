import { ResourceValidationPolicy } from "@pulumi/policy";
import { containersOf, isVllmContainer, policyText, vllmServesTls } from "./facts";
import { kindOfType } from "./support/resources";

const PROBES = ["startupProbe", "livenessProbe", "readinessProbe"] as const;

/** What the policy reports of probe `probe` of container `path` of `name`. */
export const HTTP_PROBE_MESSAGES = {
    wrongScheme: (name: string, path: string, probe: string, scheme: string) =>
        `${name} ${path} ${probe} uses scheme ${scheme}, but vLLM serves plain HTTP.`,
};

/** Enforces lesson http-probes (policies/facts/lessons). */
export const requireHttpProbesForVllm: ResourceValidationPolicy = {
    ...policyText(
        "require-http-probes-for-vllm",
        "A vLLM container that serves plain HTTP must be probed over HTTP, or its pods never become Ready.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateResource: (args, reportViolation) => {
        for (const at of containersOf(kindOfType(args.type), args.props)) {
            if (!isVllmContainer(at, kindOfType(args.type)) || vllmServesTls(at.container)) {
                continue;
            }
            for (const probe of PROBES) {
                const scheme = at.container[probe]?.httpGet?.scheme;
                // KServe's templates choose the scheme with a Go template at reconcile time.
                if (typeof scheme === "string" && !scheme.includes("{{") && scheme.toUpperCase() !== "HTTP") {
                    reportViolation(HTTP_PROBE_MESSAGES.wrongScheme(args.name, at.path, probe, scheme));
                }
            }
        }
    },
};
