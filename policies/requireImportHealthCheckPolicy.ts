import { StackValidationPolicy } from "@pulumi/policy";
import {
    BackendRef,
    MULTI_CLUSTER_INFERENCE,
    VLLM_HEALTH_PATH,
    VLLM_PORT,
    backendKey,
    describeBackend,
    healthCheckOf,
    healthCheckProblem,
    inferencePoolTargetPorts,
    isExportedPool,
    isPoolImportBackend,
    policyTarget,
    PolicyText,
    policyText,
} from "./facts";
import { Backend } from "./support/kserve";
import { isInferencePool, isKubernetesKind, namespaceOf } from "./support/resources";
import { gkePoliciesByTarget, httpRoutes, routeBackends } from "./support/routes";

const { group, kind } = MULTI_CLUSTER_INFERENCE.importKind;

/** The report on an import a route or a GCPBackendPolicy names that no HealthCheckPolicy targets. */
export function noImportHealthCheckMessage(backend: BackendRef): string {
    return (
        `${describeBackend(backend)} is a backend of the multi-cluster Gateway but no HealthCheckPolicy targets it; the load balancer's default check probes "/", ` +
        `not vLLM's ${VLLM_HEALTH_PATH}, so no member's endpoints become healthy. Add a HealthCheckPolicy in namespace ${backend.namespace} targeting ` +
        `group ${group}, kind ${kind}, name ${backend.name}: type HTTP, requestPath ${VLLM_HEALTH_PATH}, port ${VLLM_PORT}, portSpecification USE_FIXED_PORT.`
    );
}

/**
 * An import counts when an HTTPRoute sends to it or a GCPBackendPolicy targets it; each HealthCheckPolicy on an import
 * is judged as the single-cluster one (facts/judgements/gkePolicies.ts), against the target ports of the pools the
 * stack's members export under the import's namespace and name, where it shows them.
 */
export const requireImportHealthCheckPolicy: StackValidationPolicy & PolicyText = {
    ...policyText(
        "import-health-checks",
        "require-import-health-check-policy",
        `Every ${kind} a route sends to or a GCPBackendPolicy targets must have a HealthCheckPolicy that checks vLLM's ${VLLM_HEALTH_PATH} over HTTP.`,
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateStack: (args, reportViolation) => {
        const imports = new Map<string, Backend>();
        for (const route of httpRoutes(args.resources)) {
            routeBackends(route)
                .filter(isPoolImportBackend)
                .forEach((backend) => imports.set(backendKey(backend), imports.get(backendKey(backend)) ?? backend));
        }
        for (const policy of args.resources.filter((resource) =>
            isKubernetesKind(resource.type, "networking.gke.io", "GCPBackendPolicy"),
        )) {
            const target = policyTarget(policy.props, namespaceOf(policy));
            if (isPoolImportBackend(target) && !imports.has(backendKey(target))) {
                imports.set(backendKey(target), { ...target, source: policy });
            }
        }
        const healthChecks = [...gkePoliciesByTarget(args.resources, "HealthCheckPolicy").values()]
            .map((policy) => ({ policy, target: policyTarget(policy.props, namespaceOf(policy)) }))
            .filter(({ target }) => isPoolImportBackend(target));
        if (imports.size === 0 && healthChecks.length === 0) {
            args.notApplicable(`no ${kind} is routed to or targeted`);
        }
        const checked = new Set(healthChecks.map(({ target }) => backendKey(target)));
        for (const [, backend] of [...imports.entries()].filter(([key]) => !checked.has(key)).sort(([a], [b]) => a.localeCompare(b))) {
            reportViolation(noImportHealthCheckMessage(backend), backend.source.urn);
        }
        const exported = args.resources.filter((resource) => isInferencePool(resource.type) && isExportedPool(resource.props));
        for (const { policy, target } of healthChecks) {
            const pools = exported.filter((pool) => pool.props.metadata?.name === target.name && namespaceOf(pool) === target.namespace);
            const ports = pools.map((pool) => inferencePoolTargetPorts(pool.props.spec));
            // The ports the members serve on, where every exporting pool in the stack says.
            const servingPorts = ports.length > 0 && ports.every(Boolean) ? [...new Set(ports.flatMap((list) => list!))] : undefined;
            const problem = healthCheckProblem(policy.props.metadata?.name, target, healthCheckOf(policy.props), servingPorts);
            if (problem !== undefined) {
                reportViolation(problem, policy.urn);
            }
        }
    },
};
