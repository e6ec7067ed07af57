/**
 * An HTTPRoute's Gateways and the backends a GKE Gateway makes of it (an InferencePool, or a Service port), the GKE
 * policies that target each, and the ports each backend's endpoints serve on.
 */
import { INFERENCE_POOL_GROUPS, INFERENCE_POOL_KIND } from "../catalog";
import { KubeProps } from "./objects";

/** The Gateways (as `namespace/name`) some parentRefs of an object in `namespace` name; a parent of another kind is no Gateway. */
export function parentGateways(parentRefs: unknown, namespace: string): string[] {
    return (Array.isArray(parentRefs) ? (parentRefs as KubeProps[]) : [])
        .filter((parent) => (parent?.kind ?? "Gateway") === "Gateway")
        .map((parent) => `${parent.namespace ?? namespace}/${parent.name}`);
}

/** A backend, as an HTTPRoute names it or a policy targets it; `port` is the route's (a Service port). */
export interface BackendRef {
    namespace: string;
    group: string;
    kind: string;
    name: string;
    port?: number;
}

/** True for an InferencePool backend, in either of its API groups. */
export function isInferencePoolBackend(backend: Pick<BackendRef, "group" | "kind">): boolean {
    return backend.kind === INFERENCE_POOL_KIND.kind && INFERENCE_POOL_GROUPS.includes(backend.group);
}

/**
 * What identifies a backend: `namespace/group/kind/name`, both InferencePool groups being one pool (KServe moves a route
 * from the alpha group to v1, and a policy names the pool by v1).
 */
export function backendKey(backend: BackendRef): string {
    const group = isInferencePoolBackend(backend) ? INFERENCE_POOL_KIND.group : backend.group;
    return `${backend.namespace}/${group}/${backend.kind}/${backend.name}`;
}

/** How a backend is named in messages. */
export function describeBackend(backend: BackendRef): string {
    return `${backend.kind} ${backend.namespace}/${backend.name}`;
}

/** The distinct backends (by key and port) every rule of an HTTPRoute in `namespace` sends traffic to. */
export function routeBackendRefs(route: KubeProps, namespace: string): BackendRef[] {
    const rules: KubeProps[] = Array.isArray(route.spec?.rules) ? route.spec.rules : [];
    const refs = rules.flatMap((rule) =>
        (Array.isArray(rule?.backendRefs) ? (rule.backendRefs as KubeProps[]) : []).map((ref): BackendRef => ({
            namespace: ref.namespace ?? namespace,
            group: ref.group ?? "",
            kind: ref.kind ?? "Service",
            name: ref.name,
            ...(typeof ref.port === "number" ? { port: ref.port } : {}),
        })),
    );
    return [...new Map(refs.map((ref) => [`${backendKey(ref)}:${ref.port ?? ""}`, ref])).values()];
}

/** The backend a GKE policy (HealthCheckPolicy, GCPBackendPolicy) in `namespace` targets. */
export function policyTarget(policy: KubeProps, namespace: string): BackendRef {
    const target: KubeProps = policy.spec?.targetRef ?? {};
    return { namespace: target.namespace ?? namespace, group: target.group ?? "", kind: target.kind, name: target.name };
}

/**
 * True when a GKE policy in `namespace` targets `backend`. A policy applies only to its own namespace's traffic ("Even
 * when policy targets a resource in a different namespace, it MUST only apply to traffic originating from the same
 * namespace as the policy": gke-gateway-api networking.gke.io_gcpbackendpolicies.yaml:201-205), so one naming another
 * namespace's backend does not guard it.
 */
export function targetsBackend(policy: KubeProps, namespace: string, backend: BackendRef): boolean {
    return backendKey(policyTarget(policy, namespace)) === backendKey(backend) && backend.namespace === namespace;
}

/**
 * The ports an InferencePool's endpoints serve on (`podIP:port` in GKE's network endpoint groups): its v1
 * `targetPorts`, or the alpha group's `targetPortNumber`. Undefined when the spec names none.
 */
export function inferencePoolTargetPorts(spec: KubeProps | undefined): number[] | undefined {
    const ports: unknown[] = Array.isArray(spec?.targetPorts)
        ? spec.targetPorts.map((port: KubeProps) => port?.number)
        : spec?.targetPortNumber !== undefined
          ? [spec.targetPortNumber]
          : [];
    const numbers = ports.filter((port): port is number => typeof port === "number");
    return numbers.length > 0 ? numbers : undefined;
}

/**
 * The ports a Service's endpoints serve on for the Service port `port` (every port when undefined): each port's
 * `targetPort`, the port itself when unset. Undefined when one is a name (only the pods say which number it is) or the
 * Service has no such port.
 */
export function serviceTargetPorts(service: KubeProps, port: number | undefined): number[] | undefined {
    const ports: KubeProps[] = (Array.isArray(service.spec?.ports) ? service.spec.ports : []).filter(
        (candidate: KubeProps) => port === undefined || candidate?.port === port,
    );
    const targets = ports.map((candidate) => candidate.targetPort ?? candidate.port);
    return targets.length > 0 && targets.every((target) => typeof target === "number") ? targets : undefined;
}
