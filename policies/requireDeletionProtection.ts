import { ResourceValidationPolicy } from "@pulumi/policy";
import { PolicyText, policyText } from "./facts";
import { stackOf } from "./support/resources";

/** What the policy reports. */
export const DELETION_PROTECTION_MESSAGES = {
    off: (name: string, stack: string, exempt: readonly string[]) =>
        `Cluster ${name} turns deletion protection off in stack ${stack}; only ${exempt.join(", ")} may.`,
};

/**
 * The provider's deletionProtection defaults to true; with it off, Pulumi's own `protect` (no delete, no replacement)
 * keeps the cluster just as well.
 */
export const requireDeletionProtection: ResourceValidationPolicy & PolicyText = {
    ...policyText(
        "deletion-protection",
        "require-deletion-protection",
        "A GKE cluster must have deletion protection on, except in stacks configured as throwaway.",
    ),
    enforcementLevel: "mandatory",
    severity: "medium",
    configSchema: {
        properties: {
            exemptStacks: {
                type: "array",
                items: { type: "string" },
                default: ["dev"],
                description: "Stacks that may delete their cluster.",
            },
        },
    },
    validateResource: (args, reportViolation) => {
        if (args.type !== "gcp:container/cluster:Cluster") {
            return;
        }
        const exempt = args.getConfig<{ exemptStacks?: string[] }>().exemptStacks ?? ["dev"];
        const stack = stackOf(args.urn);
        const keptByPulumi = args.opts?.protect === true;
        if (args.props.deletionProtection === false && !keptByPulumi && !exempt.includes(stack)) {
            reportViolation(DELETION_PROTECTION_MESSAGES.off(args.name, stack, exempt));
        }
    },
};
