/**
 * How the Gateway's policies and extensions name what they attach to: Gateway API's policy attachment (`targetRefs`)
 * for GKE's and Istio's objects alike, and the Istio Gateway's HTTP filter chain for an EnvoyFilter's patch.
 */

/** A `targetRefs` entry naming the Gateway `name` in the policy's own namespace. */
export function gatewayTargetRef(name: string): { group: string; kind: string; name: string } {
    return { group: "gateway.networking.k8s.io", kind: "Gateway", name };
}

/** An EnvoyFilter patch's `match` for the HTTP filters of the Gateway's listeners (Istio's gateway Envoy). */
export const GATEWAY_HTTP_FILTERS_MATCH = {
    context: "GATEWAY",
    listener: { filterChain: { filter: { name: "envoy.filters.network.http_connection_manager" } } },
} as const;
