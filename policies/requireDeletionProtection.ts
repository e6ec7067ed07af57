import { ResourceValidationPolicy } from "@pulumi/policy";
import { stackOf } from "./support/resources";

/** Security baseline: outside throwaway stacks, `pulumi destroy` or a replacement must not take the cluster with it. */
export const requireDeletionProtection: ResourceValidationPolicy = {
    name: "require-deletion-protection",
    description: "A GKE cluster must have deletion protection on, except in stacks configured as throwaway.",
    enforcementLevel: "mandatory",
    severity: "medium",
    remediationSteps: "Set deletionProtection true on the cluster, or list the stack in this policy's exemptStacks config.",
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
