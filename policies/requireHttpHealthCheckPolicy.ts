import { StackValidationPolicy } from "@pulumi/policy";
import { backendKey, describeBackend, healthCheckOf, healthCheckProblem, portsToPlainHttpVllm } from "./facts";
import { isKubernetesKind, namespaceOf } from "./support/resources";
import {
    Backend,
    attachesToGkeGateway,
    gkeInferencePools,
    gkePoliciesByTarget,
    httpRoutes,
    routeBackends,
    routeParentRefs,
    servingPorts,
} from "./support/routes";
import { stackVllmPods } from "./support/workloads";

/**
 * Seed 003, issues #5 and #13: GKE created health checks on "/" over HTTPS for an HTTP-only
 * vLLM that serves /health, marked every backend unhealthy, and reset manual fixes; only a
 * HealthCheckPolicy per backend made the setting stick.
 */
export const requireHttpHealthCheckPolicy: StackValidationPolicy = {
    name: "require-http-health-check-policy",
    description:
        "Every InferencePool, and every Service in front of vLLM, that a GKE Gateway routes to must have a HealthCheckPolicy checking vLLM's /health over HTTP, not GKE's default HTTPS check of /.",
    enforcementLevel: "mandatory",
    severity: "high",
    remediationSteps:
        "Add a networking.gke.io/v1 HealthCheckPolicy targeting the backend (the InferencePool by kind and name, or the Service) with config.type HTTP, httpHealthCheck.requestPath /health, port 8000 and portSpecification USE_FIXED_PORT.",
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
                reportViolation(
                    `${describeBackend(backend)} is routed through a GKE Gateway but no HealthCheckPolicy targets it; GKE checks "/" and marks vLLM unhealthy.`,
                    backend.source.urn,
                );
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
