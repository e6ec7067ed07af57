/** What a resource waits for, and the resources that install some software (its CRD, its controller, its chart). */
import { PolicyResource } from "@pulumi/policy";
import { chartName, isHelmChart, isKubernetesKind } from "./resources";

/** Every resource `resource` waits for, directly or through its dependencies and its parents' dependencies. */
export function transitiveDependencies(resource: PolicyResource): Set<PolicyResource> {
    const seen = new Set<PolicyResource>();
    const visit = (current: PolicyResource) => {
        const parents: PolicyResource[] = [];
        for (let parent = current.parent; parent; parent = parent.parent) {
            parents.push(parent);
        }
        for (const next of [...current.dependencies, ...parents.flatMap((parent) => parent.dependencies)]) {
            if (!seen.has(next)) {
                seen.add(next);
                visit(next);
            }
        }
    };
    visit(resource);
    return seen;
}

/** What identifies an installation of some software in a stack. */
export interface Installation {
    /** The CustomResourceDefinition it installs, by name. */
    crd: string;
    /** Its controller's Deployment, by name. */
    controller: string;
    /** The chart's name, as a Helm release or chart reference ends. */
    chart: string;
}

/**
 * The resources that install `what`: the objects that bring its CRD or controller (rendered by a chart or a config
 * group, or declared) with every component above them, Helm releases of its chart, and charts whose inputs name it.
 */
export function installers(resources: PolicyResource[], what: Installation): Set<PolicyResource> {
    const found = new Set<PolicyResource>();
    for (const resource of resources) {
        const name = resource.props?.metadata?.name;
        const brings =
            (isKubernetesKind(resource.type, "apiextensions.k8s.io", "CustomResourceDefinition") && name === what.crd) ||
            (isKubernetesKind(resource.type, "apps", "Deployment") && name === what.controller) ||
            (isHelmChart(resource.type) && chartName(resource.props?.chart) === what.chart);
        if (brings) {
            // The components above it install it too; the stack itself installs everything and says nothing.
            for (
                let current: PolicyResource | undefined = resource;
                current && current.type !== "pulumi:pulumi:Stack";
                current = current.parent
            ) {
                found.add(current);
            }
        }
    }
    return found;
}
