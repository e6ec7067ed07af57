import { StackValidationPolicy } from "@pulumi/policy";
import { Backend, attachesToGkeGateway, backendKey, describeBackend, gkePoliciesByTarget, inferencePoolOf, isKubernetesKind, routeBackends, routeParentRefs, serviceGatewayRefs } from "./support";

/**
 * Seed 003, issues #5 and #13: GKE created health checks on "/" over HTTPS for an HTTP-only
 * vLLM that serves /health, marked every backend unhealthy, and reset manual fixes; only a
 * HealthCheckPolicy per backend made the setting stick.
 */
export const requireHttpHealthCheckPolicy: StackValidationPolicy = {
    name: "require-http-health-check-policy",
    description: "Every backend a GKE Gateway routes to must have a HealthCheckPolicy that checks vLLM over HTTP on a real path, not GKE's default HTTPS check of /.",
    enforcementLevel: "mandatory",
    severity: "high",
    remediationSteps:
        "Add a networking.gke.io/v1 HealthCheckPolicy targeting the backend (the InferencePool by kind and name, or the Service) with config.type HTTP, httpHealthCheck.requestPath /health, port 8000 and portSpecification USE_FIXED_PORT.",
    validateStack: (args, reportViolation) => {
        const onGke = attachesToGkeGateway(args.resources);
        const backends = new Map<string, Backend>();
        for (const resource of args.resources) {
            const pool = inferencePoolOf(resource);
            if (pool && onGke(serviceGatewayRefs(resource.props))) {
                backends.set(backendKey(pool), pool);
            }
            if (isKubernetesKind(resource.type, "gateway.networking.k8s.io", "HTTPRoute") && onGke(routeParentRefs(resource.props))) {
                routeBackends(resource).forEach((backend) => backends.set(backendKey(backend), backend));
            }
        }
        if (backends.size === 0) {
            args.notApplicable("no backend is routed through a GKE Gateway");
        }
        const healthChecks = gkePoliciesByTarget(args.resources, "HealthCheckPolicy");
        for (const [key, backend] of [...backends.entries()].sort(([a], [b]) => a.localeCompare(b))) {
            const policy = healthChecks.get(key);
            if (!policy) {
                reportViolation(`${describeBackend(backend)} is routed through a GKE Gateway but no HealthCheckPolicy targets it; GKE checks "/" and marks vLLM unhealthy.`, backend.source.urn);
                continue;
            }
            const config = policy.props.spec?.default?.config ?? {};
            if (config.type !== "HTTP") {
                reportViolation(`HealthCheckPolicy ${policy.props.metadata?.name} checks ${describeBackend(backend)} with type ${JSON.stringify(config.type ?? null)}; vLLM serves plain HTTP, so use type HTTP.`, policy.urn);
            } else if ((config.httpHealthCheck?.requestPath ?? "/") === "/") {
                reportViolation(`HealthCheckPolicy ${policy.props.metadata?.name} checks "/" on ${describeBackend(backend)}; vLLM answers health checks on /health.`, policy.urn);
            }
        }
    },
};
