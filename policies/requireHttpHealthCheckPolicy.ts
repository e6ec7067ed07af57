import { StackValidationPolicy } from "@pulumi/policy";
import {
    BackendRef,
    backendKey,
    describeBackend,
    healthCheckOf,
    healthCheckProblem,
    PolicyText,
    policyText,
    portsToPlainHttpVllm,
} from "./facts";
import { isKubernetesKind, namespaceOf } from "./support/resources";
import { Backend } from "./support/kserve";
import {
    attachesToGkeGateway,
    gkeInferencePools,
    gkePoliciesByTarget,
    httpRoutes,
    routeBackends,
    routeParentRefs,
    servingPorts,
} from "./support/routes";
import { stackVllmPods } from "./support/workloads";

/** The report on a backend a GKE Gateway routes to that no HealthCheckPolicy targets. */
export function noHealthCheckMessage(backend: BackendRef): string {
    return `${describeBackend(backend)} is routed through a GKE Gateway but no HealthCheckPolicy targets it; GKE checks "/" and marks vLLM unhealthy.`;
}

/**
 * The check is judged as the doctor judges it (facts/judgements/gkePolicies.ts), against the ports the stack says the
 * backend serves on.
 */
export const requireHttpHealthCheckPolicy: StackValidationPolicy & PolicyText = {
    ...policyText(
        "health-checks",
        "require-http-health-check-policy",
        "Every InferencePool, and every Service in front of vLLM, that a GKE Gateway routes to must have a HealthCheckPolicy that checks vLLM's /health over HTTP on a port where the backend serves.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateStack: (args, reportViolation) => {
        const onGke = attachesToGkeGateway(args.resources);
        const vllmPods = stackVllmPods(args.resources);
        const services = args.resources.filter((resource) => isKubernetesKind(resource.type, "", "Service"));
        // A Service backend counts when it fronts vLLM: it selects vLLM's pods, or KServe's workload pods.
        const frontsVllm = (backend: Backend) =>
            services.some(
                (service) =>
                    service.props.metadata?.name === backend.name &&
                    namespaceOf(service) === backend.namespace &&
                    portsToPlainHttpVllm(service.props, namespaceOf(service), vllmPods).length > 0,
            );
        const backends = new Map<string, Backend>(gkeInferencePools(args.resources).map((pool) => [backendKey(pool), pool]));
        for (const route of httpRoutes(args.resources).filter((candidate) => onGke(routeParentRefs(candidate)))) {
            routeBackends(route)
                .filter((backend) => backend.kind === "Service" && backend.group === "" && frontsVllm(backend))
                .forEach((backend) => backends.set(backendKey(backend), backend));
        }
        if (backends.size === 0) {
            args.notApplicable("no InferencePool or vLLM Service is routed through a GKE Gateway");
        }
        const healthChecks = gkePoliciesByTarget(args.resources, "HealthCheckPolicy");
        for (const [key, backend] of [...backends.entries()].sort(([a], [b]) => a.localeCompare(b))) {
            const policy = healthChecks.get(key);
            if (!policy) {
                reportViolation(noHealthCheckMessage(backend), backend.source.urn);
                continue;
            }
            const problem = healthCheckProblem(
                policy.props.metadata?.name,
                backend,
                healthCheckOf(policy.props),
                servingPorts(backend, args.resources),
            );
            if (problem !== undefined) {
                reportViolation(problem, policy.urn);
            }
        }
    },
};
