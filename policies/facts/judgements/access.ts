/**
 * Who may reach an inference Gateway, judged one way for the pack and the live tools: whether the Gateway's load
 * balancer has an internet address, whether a GCPBackendPolicy guards its backend (Cloud Armor or IAP), whether an
 * Istio AuthorizationPolicy on the Gateway lets only known sources through, and whether an allowlist opens it to the
 * whole internet. Sources: {@link SOURCES.gcpBackendPolicySecurity}, {@link SOURCES.istioAuthorization},
 * {@link SOURCES.istioServiceOverlay}, {@link SOURCES.gkeGatewayClasses}.
 */
import { GKE_SERVICE_LOAD_BALANCER, INTERNAL_GATEWAY_CLASSES } from "../catalog";
import { KubeProps } from "./objects";

/** Source ranges that match every client: Cloud Armor's `*` and the whole IPv4 and IPv6 spaces. */
export const OPEN_SOURCE_RANGES: readonly string[] = ["*", "0.0.0.0/0", "::/0"];

/** True when an allowlist holds a range that matches every client. */
export function opensToInternet(ranges: readonly unknown[]): boolean {
    return ranges.some((range) => typeof range === "string" && OPEN_SOURCE_RANGES.includes(range.trim()));
}

/**
 * Whether a Gateway's load balancer has an internet address: not for GKE's internal classes, nor for a Gateway whose
 * Service carries GKE's internal load balancer annotation (`spec.infrastructure.annotations`, which Istio copies onto it).
 */
export function isExternalGateway(gateway: KubeProps): boolean {
    if (INTERNAL_GATEWAY_CLASSES.includes(gateway.spec?.gatewayClassName)) {
        return false;
    }
    const annotations: KubeProps = gateway.spec?.infrastructure?.annotations ?? {};
    return !Object.entries(GKE_SERVICE_LOAD_BALANCER.internal).every(([key, value]) => annotations[key] === value);
}

/** What a GCPBackendPolicy puts in front of its backend: a Cloud Armor policy, IAP, or nothing. */
export function backendPolicyGuard(policy: KubeProps | undefined): { securityPolicy?: string; iap: boolean } {
    const defaults: KubeProps = policy?.spec?.default ?? {};
    const securityPolicy =
        typeof defaults.securityPolicy === "string" && defaults.securityPolicy !== "" ? defaults.securityPolicy : undefined;
    return { ...(securityPolicy ? { securityPolicy } : {}), iap: defaults.iap?.enabled === true };
}

/** True when a GCPBackendPolicy names a Cloud Armor policy or enables IAP. */
export function guardsBackend(policy: KubeProps | undefined): boolean {
    const guard = backendPolicyGuard(policy);
    return guard.securityPolicy !== undefined || guard.iap;
}

/** True when a policy's `targetRefs` (or `targetRef`) names the Gateway `name`. */
export function targetsGateway(policy: KubeProps, name: string): boolean {
    const refs: unknown[] = [...(Array.isArray(policy.spec?.targetRefs) ? policy.spec.targetRefs : []), policy.spec?.targetRef];
    return refs.some(
        (ref) =>
            typeof ref === "object" &&
            ref !== null &&
            (ref as KubeProps).kind === "Gateway" &&
            ((ref as KubeProps).group ?? "gateway.networking.k8s.io") === "gateway.networking.k8s.io" &&
            (ref as KubeProps).name === name,
    );
}

/**
 * What an Istio AuthorizationPolicy does for the Gateway `name`: `guards` when it is an ALLOW policy on the Gateway whose
 * every rule requires a source address (`ipBlocks`, `remoteIpBlocks`) or a token's principal (`requestPrincipals`), so
 * that nothing else gets through (no rules: nothing does); `opens` when such a policy lets every address in without a
 * principal; `unrelated` otherwise (another target, another action, or a rule that matches any source).
 */
export function authorizationPolicyVerdict(policy: KubeProps, name: string): "guards" | "opens" | "unrelated" {
    if (!targetsGateway(policy, name) || (policy.spec?.action ?? "ALLOW") !== "ALLOW") {
        return "unrelated";
    }
    const rules: KubeProps[] = Array.isArray(policy.spec?.rules) ? policy.spec.rules : [];
    const sources = rules.map((rule) => (Array.isArray(rule?.from) ? rule.from.map((from: KubeProps) => from?.source ?? {}) : []));
    const constrained = (source: KubeProps) =>
        ["ipBlocks", "remoteIpBlocks", "requestPrincipals"].some((field) => Array.isArray(source[field]) && source[field].length > 0);
    if (!sources.every((froms) => froms.length > 0 && froms.every(constrained))) {
        return "unrelated";
    }
    const open = sources.some((froms) =>
        froms.some(
            (source: KubeProps) =>
                !(Array.isArray(source.requestPrincipals) && source.requestPrincipals.length > 0) &&
                opensToInternet([...(source.ipBlocks ?? []), ...(source.remoteIpBlocks ?? [])]),
        ),
    );
    return open ? "opens" : "guards";
}

/**
 * The `loadBalancerSourceRanges` of a Gateway's Service overlay (the `service` key of the ConfigMap its
 * `spec.infrastructure.parametersRef` names), read from the YAML text as a flow (`[a, b]`) or block (`- a`) list;
 * undefined when it sets none.
 */
export function overlaySourceRanges(overlay: unknown): string[] | undefined {
    if (typeof overlay !== "string") {
        return undefined;
    }
    const match = /loadBalancerSourceRanges:[ \t]*(\[[^\]]*\]|(?:\r?\n[ \t]*-[^\n]*)+)/.exec(overlay);
    if (!match) {
        return undefined;
    }
    return match[1]
        .replace(/^\[|\]$/g, "")
        .split(/,|\r?\n/)
        .map((item) =>
            item
                .replace(/^\s*-?\s*/, "")
                .replace(/["']/g, "")
                .trim(),
        )
        .filter((item) => item !== "");
}

/** True when an HTTPRoute rule only redirects to HTTPS (a RequestRedirect with scheme https and no backend). */
export function redirectsToHttpsOnly(rule: KubeProps): boolean {
    const filters: KubeProps[] = Array.isArray(rule?.filters) ? rule.filters : [];
    const backends: unknown[] = Array.isArray(rule?.backendRefs) ? rule.backendRefs : [];
    return (
        backends.length === 0 && filters.some((filter) => filter?.type === "RequestRedirect" && filter.requestRedirect?.scheme === "https")
    );
}

/** The Gateway's listeners of `protocol` (HTTP, HTTPS). */
export function listenersOf(gateway: KubeProps, protocol: string): KubeProps[] {
    return (Array.isArray(gateway.spec?.listeners) ? gateway.spec.listeners : []).filter(
        (listener: KubeProps) => listener?.protocol === protocol,
    );
}

/** The Secrets an HTTPS listener serves, by name (certificateRefs of kind Secret, the default). */
export function listenerCertificateSecrets(listener: KubeProps): string[] {
    const refs: KubeProps[] = Array.isArray(listener.tls?.certificateRefs) ? listener.tls.certificateRefs : [];
    return refs.filter((ref) => (ref.kind ?? "Secret") === "Secret" && (ref.group ?? "") === "").map((ref) => String(ref.name));
}
