import { ResourceValidationPolicy } from "@pulumi/policy";
import { policyText } from "./facts";
import { stackOf } from "./support/resources";

/** Enforces lesson deletion-protection (policies/facts/lessons). */
export const requireDeletionProtection: ResourceValidationPolicy = {
    ...policyText(
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
        if (args.props.deletionProtection === false && !exempt.includes(stack)) {
            reportViolation(`Cluster ${args.name} turns deletion protection off in stack ${stack}; only ${exempt.join(", ")} may.`);
        }
    },
};
