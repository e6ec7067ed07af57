import { ResourceValidationPolicy } from "@pulumi/policy";
import { containersOf, isVllmContainer, vllmServesTls } from "./facts";
import { kindOfType } from "./support/resources";

const PROBES = ["startupProbe", "livenessProbe", "readinessProbe"] as const;

/** Seed 003, Pattern 1 summary: KServe's templates probed vLLM over HTTPS; vLLM serves HTTP, so the probes had to become HTTP. */
export const requireHttpProbesForVllm: ResourceValidationPolicy = {
    name: "require-http-probes-for-vllm",
    description: "A vLLM container that serves plain HTTP must be probed over HTTP, or its pods never become Ready.",
    enforcementLevel: "mandatory",
    severity: "high",
    remediationSteps: "Set httpGet.scheme to HTTP on the vLLM container's probes (or serve TLS with --ssl-certfile and --ssl-keyfile).",
    validateResource: (args, reportViolation) => {
        for (const at of containersOf(kindOfType(args.type), args.props)) {
            if (!isVllmContainer(at, kindOfType(args.type)) || vllmServesTls(at.container)) {
                continue;
            }
            for (const probe of PROBES) {
                const scheme = at.container[probe]?.httpGet?.scheme;
                // KServe's templates choose the scheme with a Go template at reconcile time.
                if (typeof scheme === "string" && !scheme.includes("{{") && scheme.toUpperCase() !== "HTTP") {
                    reportViolation(`${args.name} ${at.path} ${probe} uses scheme ${scheme}, but vLLM serves plain HTTP.`);
                }
            }
        }
    },
};
