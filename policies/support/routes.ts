/**
 * Gateway API routes and the backends a GKE Gateway makes of them: the stack's HTTPRoutes and their Gateways, the
 * InferencePools a GKE Gateway routes to (KServe's for its services, and any a route names), the GKE policies by the
 * backend they target, and the ports each backend serves on.
 */
import { PolicyResource } from "@pulumi/policy";
import {
    INFERENCE_POOL_KIND,
    KSERVE,
    backendKey,
    inferencePoolTargetPorts,
    isGkeGatewayClass,
    isInferencePoolBackend,
    parentGateways,
    policyTarget,
    routeBackendRefs,
    serviceTargetPorts,
} from "../facts";
import { Backend, effectiveServiceSpec, inferencePoolOf, serviceGateways } from "./kserve";
import { isInferencePool, isKubernetesKind, isLlmInferenceService, namespaceOf } from "./resources";
import { gatewaysByKey } from "./stack";

/** The HTTPRoutes among the resources. */
export function httpRoutes(resources: PolicyResource[]): PolicyResource[] {
    return resources.filter((resource) => isKubernetesKind(resource.type, "gateway.networking.k8s.io", "HTTPRoute"));
}

/** The Gateways (as `namespace/name`) an HTTPRoute attaches to. */
export function routeParentRefs(route: PolicyResource): string[] {
    return parentGateways(route.props.spec?.parentRefs, namespaceOf(route));
}

/** The backends an HTTPRoute sends traffic to. */
export function routeBackends(route: PolicyResource): Backend[] {
    return routeBackendRefs(route.props, namespaceOf(route)).map((backend) => ({ ...backend, source: route }));
}

/** A test of whether any of some Gateways (as `namespace/name`) is one of the stack's GKE Gateways. */
export function attachesToGkeGateway(resources: PolicyResource[]): (gatewayKeys: string[]) => boolean {
    const gateways = gatewaysByKey(resources);
    return (gatewayKeys) => gatewayKeys.some((key) => isGkeGatewayClass(gateways.get(key)?.className));
}

/** The InferencePools the stack declares, by {@link backendKey}. */
function declaredPools(resources: PolicyResource[]): Map<string, PolicyResource> {
    return new Map(
        resources
            .filter((resource) => isInferencePool(resource.type))
            .map((resource) => [
                backendKey({ namespace: namespaceOf(resource), ...INFERENCE_POOL_KIND, name: resource.props.metadata?.name }),
                resource,
            ]),
    );
}

/** Every InferencePool a GKE Gateway routes to: KServe's for its services, and any an HTTPRoute names. */
export function gkeInferencePools(resources: PolicyResource[]): Backend[] {
    const onGke = attachesToGkeGateway(resources);
    const declared = declaredPools(resources);
    const pools = new Map<string, Backend>();
    for (const resource of resources) {
        const pool = inferencePoolOf(resource);
        if (pool && onGke(serviceGateways(resource, resources))) {
            pools.set(backendKey(pool), pool);
        }
    }
    for (const route of httpRoutes(resources).filter((candidate) => onGke(routeParentRefs(candidate)))) {
        // A pool the stack makes is reported against its maker (KServe's service, or the InferencePool object itself).
        routeBackends(route)
            .filter((backend) => isInferencePoolBackend(backend) && !pools.has(backendKey(backend)))
            .forEach((pool) => pools.set(backendKey(pool), { ...pool, source: declared.get(backendKey(pool)) ?? pool.source }));
    }
    return [...pools.values()].sort((a, b) => backendKey(a).localeCompare(backendKey(b)));
}

const policiesByKind = new WeakMap<PolicyResource[], Map<string, Map<string, PolicyResource>>>();

/** Policies (HealthCheckPolicy, GCPBackendPolicy) of `kind` by the {@link backendKey} of their target; built once per stack and kind. */
export function gkePoliciesByTarget(resources: PolicyResource[], kind: string): Map<string, PolicyResource> {
    const kinds = policiesByKind.get(resources) ?? new Map<string, Map<string, PolicyResource>>();
    policiesByKind.set(resources, kinds);
    let byTarget = kinds.get(kind);
    if (byTarget === undefined) {
        byTarget = new Map<string, PolicyResource>();
        for (const resource of resources) {
            if (!isKubernetesKind(resource.type, "networking.gke.io", kind)) {
                continue;
            }
            const target = policyTarget(resource.props, namespaceOf(resource));
            // A policy applies only to its own namespace's traffic, whatever namespace it names (facts targetsBackend).
            if (target.namespace === namespaceOf(resource)) {
                byTarget.set(backendKey(target), resource);
            }
        }
        kinds.set(kind, byTarget);
    }
    return byTarget;
}

/**
 * The ports a backend's endpoints serve on, where the stack says: the InferencePool KServe makes for a service (its
 * pool spec, else KServe's default), an InferencePool the stack declares, the target port of a Service port. Undefined
 * otherwise.
 */
export function servingPorts(backend: Backend, resources: PolicyResource[]): number[] | undefined {
    if (isInferencePoolBackend(backend)) {
        const kservePool = isLlmInferenceService(backend.source.type)
            ? effectiveServiceSpec(backend.source, resources).spec.router?.scheduler?.pool
            : undefined;
        if (isLlmInferenceService(backend.source.type) && kservePool?.ref === undefined) {
            return inferencePoolTargetPorts(kservePool?.spec) ?? [...KSERVE.inferencePoolTargetPorts];
        }
        const declared = declaredPools(resources).get(backendKey(backend));
        return declared && inferencePoolTargetPorts(declared.props.spec);
    }
    const service = resources.find(
        (resource) =>
            isKubernetesKind(resource.type, "", "Service") &&
            resource.props.metadata?.name === backend.name &&
            namespaceOf(resource) === backend.namespace,
    );
    return service && backend.kind === "Service" ? serviceTargetPorts(service.props, backend.port) : undefined;
}
