/** The stack's Istio EnvoyFilters, for the shared ext_proc judgements. */
import { PolicyResource } from "@pulumi/policy";
import { EnvoyFilterAt } from "../facts";
import { isKubernetesKind, namespaceOf } from "./resources";

/** Every EnvoyFilter among `resources`, each with its resource. */
export function envoyFilters(resources: PolicyResource[]): Array<EnvoyFilterAt<PolicyResource>> {
    return resources
        .filter((resource) => isKubernetesKind(resource.type, "networking.istio.io", "EnvoyFilter"))
        .map((resource) => ({ source: resource, namespace: namespaceOf(resource), object: resource.props }));
}
