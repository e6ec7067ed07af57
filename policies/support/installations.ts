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
    /** Where its release manifests are downloaded from, a config file (v1 or v2) of which installs it. */
    releaseManifests?: string;
}

const CONFIG_FILE_TYPES = [
    "kubernetes:yaml:ConfigFile",
    "kubernetes:yaml:ConfigGroup",
    "kubernetes:yaml/v2:ConfigFile",
    "kubernetes:yaml/v2:ConfigGroup",
];

/** The files a config file or group reads (`file`, `files`), as its inputs show them. */
function configFiles(resource: PolicyResource): string[] {
    const files: unknown[] = [
        resource.props?.file,
        ...(Array.isArray(resource.props?.files) ? resource.props.files : [resource.props?.files]),
    ];
    return files.filter((file): file is string => typeof file === "string");
}

/**
 * The resources that install `what`: the objects that bring its CRD or controller (rendered by a chart or a config
 * group, or declared) with every component above them, Helm releases of its chart, charts whose inputs name it, and
 * config files that read its release manifests (whose objects a preview may not have rendered).
 */
export function installers(resources: PolicyResource[], what: Installation): Set<PolicyResource> {
    const found = new Set<PolicyResource>();
    for (const resource of resources) {
        const name = resource.props?.metadata?.name;
        const brings =
            (isKubernetesKind(resource.type, "apiextensions.k8s.io", "CustomResourceDefinition") && name === what.crd) ||
            (isKubernetesKind(resource.type, "apps", "Deployment") && name === what.controller) ||
            (isHelmChart(resource.type) && chartName(resource.props?.chart) === what.chart) ||
            (what.releaseManifests !== undefined &&
                CONFIG_FILE_TYPES.includes(resource.type) &&
                configFiles(resource).some((file) => file.includes(what.releaseManifests!)));
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
