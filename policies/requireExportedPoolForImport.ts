import { StackValidationPolicy } from "@pulumi/policy";
import { MULTI_CLUSTER_INFERENCE, describeBackend, isExportedPool, isPoolImportBackend, PolicyText, policyText } from "./facts";
import { isInferencePool, objectKey } from "./support/resources";
import { httpRoutes, routeBackends } from "./support/routes";

const { key, value } = MULTI_CLUSTER_INFERENCE.exportAnnotation;

/** The report on HTTPRoute `route` (`namespace/name`), which sends to `imported` though no cluster of the stack exports that pool. */
export function unexportedImportMessage(route: string, imported: { namespace: string; group: string; kind: string; name: string }): string {
    return (
        `HTTPRoute ${route} sends to ${describeBackend(imported)}, but no cluster of this stack exports an InferencePool ${imported.namespace}/${imported.name} ` +
        `(${key}: "${value}"); unless a cluster outside this stack does, the import never exists and the route has no backend. ` +
        `Export the pool from every member under that namespace and name, or route to the name the members export.`
    );
}

/**
 * Advisory: a fleet is the project's, and a cluster registered from outside this stack may export the pool; the preview
 * cannot know every member.
 */
export const requireExportedPoolForImport: StackValidationPolicy & PolicyText = {
    ...policyText(
        "fleet-exports",
        "require-exported-pool-for-import",
        `Every ${MULTI_CLUSTER_INFERENCE.importKind.kind} a route sends to should be exported by a cluster of the stack.`,
    ),
    enforcementLevel: "advisory",
    severity: "medium",
    validateStack: (args, reportViolation) => {
        const routes = httpRoutes(args.resources)
            .map((route) => ({ route, imports: routeBackends(route).filter(isPoolImportBackend) }))
            .filter(({ imports }) => imports.length > 0);
        if (routes.length === 0) {
            args.notApplicable(`no HTTPRoute sends to a ${MULTI_CLUSTER_INFERENCE.importKind.kind}`);
        }
        // Exported from any cluster, including one the program does not show which.
        const exported = new Set(
            args.resources.filter((resource) => isInferencePool(resource.type) && isExportedPool(resource.props)).map(objectKey),
        );
        for (const { route, imports } of routes) {
            for (const imported of imports.filter((backend) => !exported.has(`${backend.namespace}/${backend.name}`))) {
                reportViolation(unexportedImportMessage(objectKey(route), imported), route.urn);
            }
        }
    },
};
