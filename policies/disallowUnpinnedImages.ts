import { ResourceValidationPolicy } from "@pulumi/policy";
import { containersOf, isPinnedImage, policyText } from "./facts";
import { kindOfType } from "./support/resources";

/** What the policy reports of container `path` of `name`. */
export const PINNED_IMAGE_MESSAGES = {
    unpinned: (name: string, path: string, image: string) =>
        `${name} ${path} runs image ${image}, which is not pinned to a version tag or digest.`,
};

/** Enforces lesson pinned-images (policies/facts/lessons). */
export const disallowUnpinnedImages: ResourceValidationPolicy = {
    ...policyText(
        "disallow-unpinned-images",
        "Every container image must be pinned to a version tag or a digest, never `latest` or no tag.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateResource: (args, reportViolation) => {
        for (const { path, container } of containersOf(kindOfType(args.type), args.props)) {
            if (typeof container.image === "string" && !container.image.includes("{{") && !isPinnedImage(container.image)) {
                reportViolation(PINNED_IMAGE_MESSAGES.unpinned(args.name, path, container.image));
            }
        }
    },
};
