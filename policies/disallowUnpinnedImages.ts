import { ResourceValidationPolicy } from "@pulumi/policy";
import { containersOf, isPinnedImage } from "./facts";
import { kindOfType } from "./support/resources";

/**
 * Seed 003, Pattern 1 summary: the scheduler image on `:latest` changed under the deployment
 * and rejected its CLI flags; pinning it to a version fixed the outage.
 */
export const disallowUnpinnedImages: ResourceValidationPolicy = {
    name: "disallow-unpinned-images",
    description:
        "Every container image must be pinned to a version tag or a digest, never `latest` or no tag, so that a registry push cannot change what runs.",
    enforcementLevel: "mandatory",
    severity: "high",
    remediationSteps: "Use a versioned tag (e.g. ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.10.0) or a digest (@sha256:...).",
    validateResource: (args, reportViolation) => {
        for (const { path, container } of containersOf(kindOfType(args.type), args.props)) {
            if (typeof container.image === "string" && !container.image.includes("{{") && !isPinnedImage(container.image)) {
                reportViolation(`${args.name} ${path} runs image ${container.image}, which is not pinned to a version tag or digest.`);
            }
        }
    },
};
