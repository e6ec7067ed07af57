/** The inputs each resource had when `Analyze` judged it, for the stack policies to judge in `AnalyzeStack`. */
import { PolicyResource, ResourceValidationArgs } from "@pulumi/policy";
import { Props } from "./resources";

/**
 * Each resource's inputs as `Analyze` saw them, by URN. `AnalyzeStack` hands a policy outputs, and a preview's
 * outputs are what a provider predicts: nothing for a Kubernetes object whose provider is not configured yet (the
 * first preview, before the cluster exists), unknowns for a GCP resource's computed fields. Inputs are what the
 * program declared, the same on every preview. The engine analyzes each resource as it registers, and the stack once
 * all have, in the same pack process. Sources: pulumi v3.248.0 sdk/go/common/resource/plugin/provider_plugin.go
 * Create (empty properties on preview when the provider's config is unknown), pkg/resource/deploy/step_generator.go
 * analyzeAll (inputs) and AnalyzeStack (Outputs).
 */
const analyzedInputs = new Map<string, Props>();

/** Keeps the inputs `Analyze` hands a policy for its resource. */
export function rememberInputs(args: ResourceValidationArgs): void {
    analyzedInputs.set(args.urn, args.props);
}

/** The stack's resources with the inputs `Analyze` saw in place of their outputs, parents and dependencies linked among them. */
export function withAnalyzedInputs(resources: PolicyResource[]): PolicyResource[] {
    const copies = new Map(
        resources.map((resource) => [resource, { ...resource, props: analyzedInputs.get(resource.urn) ?? resource.props }]),
    );
    for (const [original, copy] of copies) {
        copy.parent = original.parent && (copies.get(original.parent) ?? original.parent);
        copy.dependencies = original.dependencies.map((dependency) => copies.get(dependency) ?? dependency);
    }
    return [...copies.values()];
}
