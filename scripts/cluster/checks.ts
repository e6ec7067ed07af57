/**
 * Judgements over live objects, pure so that recorded objects test them: whether KServe's HTTPRoute of a
 * model service has moved to the v1 InferencePool group and the Gateway accepted it with every reference
 * resolved, and whether GKE attached a policy. Each returns what it saw, in words a user can act on.
 */
import { GATEWAY_PROVIDER_NAMES, GatewayProviderName, gatewayProviderOfClass } from "../../components/settings/gatewayProviders";
import { INFERENCE_POOL_KIND, KSERVE, KSERVE_CHILDREN } from "@gke-tpu-inference/facts";
import type { KubeObject } from "./kube";

/** A status condition, as Kubernetes and Gateway API write them. */
export interface Condition {
    type: string;
    status: string;
    reason?: string;
    message?: string;
}

/** The outcome of one judgement. */
export interface Finding {
    ok: boolean;
    /** What was seen: the condition, reason and message, or what is missing. */
    detail: string;
}

/** The condition of `type` in a list, if present. */
export function findCondition(conditions: unknown, type: string): Condition | undefined {
    return Array.isArray(conditions) ? (conditions as Condition[]).find((condition) => condition?.type === type) : undefined;
}

/** `Type=Status (Reason: message)`, as `kubectl describe` shows a condition. */
export function describeCondition(condition: Condition): string {
    return `${condition.type}=${condition.status}${condition.reason ? ` (${condition.reason}${condition.message ? `: ${condition.message}` : ""})` : condition.message ? ` (${condition.message})` : ""}`;
}

type Spec = { spec?: { rules?: Array<{ backendRefs?: Array<{ group?: string; kind?: string; name?: string }> }>; parentRefs?: unknown } };
type RouteStatus = { status?: { parents?: Array<{ parentRef?: { name?: string; namespace?: string }; conditions?: unknown }> } };

/** Whether the route's InferencePool backends are on the v1 group, and KServe recorded the move. */
export function inferencePoolMigration(route: KubeObject): Finding {
    const { annotation, value } = KSERVE.inferencePoolMigration;
    const pools = ((route as Spec).spec?.rules ?? []).flatMap((rule) =>
        (rule.backendRefs ?? []).filter((ref) => ref.kind === INFERENCE_POOL_KIND.kind),
    );
    const groups = [...new Set(pools.map((ref) => ref.group ?? ""))];
    const marked = route.metadata?.annotations?.[annotation];
    if (pools.length === 0) {
        return { ok: false, detail: "routes to no InferencePool" };
    }
    if (groups.length === 1 && groups[0] === INFERENCE_POOL_KIND.group && marked === value) {
        return { ok: true, detail: `InferencePool backends on ${INFERENCE_POOL_KIND.group}; ${annotation}=${value}` };
    }
    return {
        ok: false,
        detail: `InferencePool backends on ${groups.join(", ")} with ${annotation}=${marked ?? "(unset)"}; KServe moves them to ${INFERENCE_POOL_KIND.group} once the Gateway rejects the old group (ResolvedRefs=False, InvalidKind)`,
    };
}

/** Whether the Gateway `namespace/name` accepted the route and resolved all its references. */
export function acceptedByGateway(route: KubeObject, gateway: { namespace: string; name: string }): Finding {
    const parents = (route as RouteStatus).status?.parents ?? [];
    const parent = parents.find(
        (candidate) =>
            candidate.parentRef?.name === gateway.name &&
            (candidate.parentRef?.namespace ?? route.metadata?.namespace) === gateway.namespace,
    );
    if (!parent) {
        return { ok: false, detail: `no status from Gateway ${gateway.namespace}/${gateway.name} yet` };
    }
    const conditions = ["Accepted", "ResolvedRefs"].map(
        (type) => findCondition(parent.conditions, type) ?? { type, status: "Unknown", reason: "NotReported" },
    );
    return { ok: conditions.every((condition) => condition.status === "True"), detail: conditions.map(describeCondition).join(", ") };
}

/** A Gateway implementation a stack deploys with, as its `gatewayProvider` output names it (the descriptors' names). */
export type GatewayProvider = GatewayProviderName;

/** The stack's `gatewayProvider` output, or undefined when the outputs have none (a stack from before it) or another value. */
export function gatewayProviderFromOutputs(outputs: unknown): GatewayProvider | undefined {
    const provider = (outputs as { gatewayProvider?: unknown } | undefined)?.gatewayProvider;
    return (GATEWAY_PROVIDER_NAMES as readonly unknown[]).includes(provider) ? (provider as GatewayProvider) : undefined;
}

/**
 * Who programs the stack's Gateway: what the stack's outputs say (`stated`, from its `gatewayProvider` output), else what
 * the Gateway object's class says; "other" when neither names GKE or Istio.
 */
export function gatewayProvider(stated: GatewayProvider | undefined, gateway: KubeObject | undefined): GatewayProvider | "other" {
    return stated ?? gatewayProviderOf((gateway?.spec as { gatewayClassName?: unknown } | undefined)?.gatewayClassName);
}

/** Who programs a Gateway of `className`, by the providers' descriptors: GKE's controller, Istio's, or another implementation. */
export function gatewayProviderOf(className: unknown): GatewayProvider | "other" {
    return (typeof className === "string" ? gatewayProviderOfClass(className) : undefined) ?? "other";
}

/**
 * Behind Istio: whether a DestinationRule makes the Gateway speak TLS to a service's EPP, which serves nothing else.
 * Without one, Istio calls `<service>-epp-service` in plain HTTP/2 and every request fails at the ext_proc call.
 */
export function eppTlsRule(rules: KubeObject[], namespace: string, service: string): Finding {
    const name = `${service}${KSERVE_CHILDREN.eppServiceSuffix}`;
    const rule = rules.find((candidate) => {
        const host = (candidate.spec as { host?: unknown } | undefined)?.host;
        const [hostName, hostNamespace] = typeof host === "string" ? host.split(".") : [];
        return hostName === name && (hostNamespace ?? candidate.metadata?.namespace) === namespace;
    });
    const mode = (rule?.spec as { trafficPolicy?: { tls?: { mode?: string } } } | undefined)?.trafficPolicy?.tls?.mode;
    if (!rule) {
        return {
            ok: false,
            detail: `no DestinationRule for ${name}.${namespace}: Istio calls the EPP without TLS, which it does not serve`,
        };
    }
    return mode === "SIMPLE"
        ? { ok: true, detail: `DestinationRule ${rule.metadata?.name}: TLS ${mode} to ${name}` }
        : {
              ok: false,
              detail: `DestinationRule ${rule.metadata?.name} sets TLS ${mode ?? "(none)"} to ${name}; the EPP serves its own certificate: SIMPLE`,
          };
}

/** Whether GKE attached a HealthCheckPolicy or GCPBackendPolicy: an `Attached=True` condition, on the policy or on each ancestor. */
export function gkePolicyAttached(policy: KubeObject | undefined, what: string): Finding {
    if (!policy) {
        return { ok: false, detail: `${what} does not exist` };
    }
    const status = policy.status as { conditions?: unknown; ancestors?: Array<{ conditions?: unknown }> } | undefined;
    const lists = [status?.conditions, ...(status?.ancestors ?? []).map((ancestor) => ancestor.conditions)].filter(
        (list) => Array.isArray(list) && list.length > 0,
    );
    const attached = lists.map((list) => findCondition(list, "Attached"));
    if (attached.length > 0 && attached.every((condition) => condition?.status === "True")) {
        return { ok: true, detail: `${what}: ${describeCondition(attached[0]!)}` };
    }
    const seen = attached.find((condition) => condition && condition.status !== "True");
    return { ok: false, detail: `${what}: ${seen ? describeCondition(seen) : "no Attached condition yet"}` };
}
