/**
 * Who may reach an inference Gateway, judged one way for the pack and the live tools: whether the Gateway's load
 * balancer has an internet address, whether a GCPBackendPolicy guards its backend (Cloud Armor or IAP), whether an
 * Istio AuthorizationPolicy on the Gateway lets only known sources through, and whether an allowlist opens it to the
 * whole internet. Sources: {@link SOURCES.gcpBackendPolicySecurity}, {@link SOURCES.istioAuthorization},
 * {@link SOURCES.istioServiceOverlay}, {@link SOURCES.gkeGatewayClasses}.
 */
import { GKE_SERVICE_LOAD_BALANCER, INTERNAL_GATEWAY_CLASSES, ISTIO } from "../catalog";
import { selectorMatches } from "./services";
import { KubeProps } from "./objects";

/** Source ranges that match every client: Cloud Armor's `*` and the whole IPv4 and IPv6 spaces. */
export const OPEN_SOURCE_RANGES: readonly string[] = ["*", "0.0.0.0/0", "::/0"];

/** The 32-bit value of a dotted IPv4 address, or undefined. */
function ipv4Value(address: string): number | undefined {
    const parts = address.split(".");
    if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) {
        return undefined;
    }
    return parts.reduce((value, part) => value * 256 + Number(part), 0);
}

/** True when the IPv4 `address` is inside `range` (`a.b.c.d/n`, or one address); false for anything else, IPv6 included. */
export function ipv4InRange(address: string, range: string): boolean {
    const [base, bits = "32"] = range.trim().split("/");
    const value = ipv4Value(address);
    const start = ipv4Value(base);
    const prefix = Number(bits);
    if (value === undefined || start === undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > 32) {
        return false;
    }
    const size = 2 ** (32 - prefix);
    return Math.floor(value / size) === Math.floor(start / size);
}

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

/** The labels istiod puts on a Gateway's Envoy pods, which a label-selector AuthorizationPolicy names them by. Source: {@link ISTIO}. */
export function istioGatewayPodLabels(gateway: string): Record<string, string> {
    return { [ISTIO.gatewayPodLabel]: gateway };
}

/** An AuthorizationPolicy as the judgement reads it: its props and the namespace it lands in. */
export interface PlacedAuthorizationPolicy {
    namespace: string;
    props: KubeProps;
}

/**
 * True when an AuthorizationPolicy applies to the Gateway `gateway` of `namespace`: in the Gateway's namespace or Istio's
 * root namespace, naming the Gateway in `targetRefs`, or selecting its pods by labels, or (with neither) every workload.
 */
export function appliesToGateway(policy: PlacedAuthorizationPolicy, gateway: string, namespace: string): boolean {
    if (policy.namespace !== namespace && policy.namespace !== ISTIO.rootNamespace) {
        return false;
    }
    if (Array.isArray(policy.props.spec?.targetRefs) || policy.props.spec?.targetRef !== undefined) {
        return policy.namespace === namespace && targetsGateway(policy.props, gateway);
    }
    const selector: unknown = policy.props.spec?.selector?.matchLabels;
    return selector === undefined || selectorMatches(selector, istioGatewayPodLabels(gateway));
}

/** How one rule's sources treat someone the program does not know: no match, a match through an open range, or a match all the same. */
function outsiderMatch(rule: KubeProps): "none" | "openRange" | "any" {
    if (
        rule?.when !== undefined &&
        (Array.isArray(rule.when) ? rule.when : []).some((condition: KubeProps) => condition?.key !== undefined)
    ) {
        // A condition on the request's claims, headers or addresses: only those who meet it.
        return "none";
    }
    const froms: KubeProps[] = Array.isArray(rule?.from) ? rule.from : [];
    if (froms.length === 0) {
        return "any";
    }
    const matches = froms.map((from): "none" | "openRange" | "any" => {
        const source: KubeProps = from?.source ?? {};
        if (["principals", "namespaces"].some((field) => Array.isArray(source[field]) && source[field].length > 0)) {
            // Mesh identities: a client from outside has none.
            return "none";
        }
        const principals: unknown[] = Array.isArray(source.requestPrincipals) ? source.requestPrincipals : [];
        // A token's principal names the outsider only through a wildcard: anyone with a token of the issuer.
        if (principals.length > 0 && !principals.some((principal) => typeof principal === "string" && principal.endsWith("*"))) {
            return "none";
        }
        const ranges: unknown[] = [...(source.ipBlocks ?? []), ...(source.remoteIpBlocks ?? [])];
        if (ranges.length > 0) {
            return opensToInternet(ranges) ? "openRange" : "none";
        }
        return "any";
    });
    return matches.includes("any") ? "any" : matches.includes("openRange") ? "openRange" : "none";
}

/**
 * What Istio's AuthorizationPolicies do at a Gateway to someone the program does not know, as Istio evaluates them: a
 * matching DENY rule refuses; with no ALLOW policy, everything passes; else only what one ALLOW rule matches passes
 * (the policies are a union). `restricts`: they refuse the outsider. `opens`: an ALLOW rule lets every address in by
 * name (0.0.0.0/0). `guardsNothing`: nothing refuses the outsider otherwise (no ALLOW policy, or an ALLOW rule with no
 * source, or one that takes any token of an issuer without a claim condition). `identity`: every ALLOW rule that lets
 * anyone in asks for a token and a claim. Source: {@link SOURCES.istioAuthorization}.
 */
export function istioAuthorizationVerdict(
    policies: readonly PlacedAuthorizationPolicy[],
    gateway: string,
    namespace: string,
): { verdict: "restricts" | "opens" | "guardsNothing"; deciding?: PlacedAuthorizationPolicy; identity: boolean } {
    const applying = policies.filter((policy) => appliesToGateway(policy, gateway, namespace));
    const rulesOf = (policy: PlacedAuthorizationPolicy): KubeProps[] =>
        Array.isArray(policy.props.spec?.rules) ? policy.props.spec.rules : [];
    const action = (policy: PlacedAuthorizationPolicy) => policy.props.spec?.action ?? "ALLOW";
    const denying = applying.find((policy) => action(policy) === "DENY" && rulesOf(policy).some((rule) => denies(rule)));
    const allowPolicies = applying.filter((policy) => action(policy) === "ALLOW");
    const identity =
        allowPolicies.some((policy) => rulesOf(policy).length > 0) &&
        allowPolicies.every((policy) =>
            rulesOf(policy).every(
                (rule) =>
                    (Array.isArray(rule?.from) ? rule.from : []).some(
                        (from: KubeProps) => Array.isArray(from?.source?.requestPrincipals) && from.source.requestPrincipals.length > 0,
                    ) &&
                    Array.isArray(rule?.when) &&
                    rule.when.some((condition: KubeProps) => String(condition?.key).startsWith("request.auth.claims")),
            ),
        );
    if (denying !== undefined) {
        return { verdict: "restricts", deciding: denying, identity };
    }
    if (allowPolicies.length === 0) {
        return { verdict: "guardsNothing", identity };
    }
    for (const outcome of ["any", "openRange"] as const) {
        const letting = allowPolicies.find((policy) => rulesOf(policy).some((rule) => outsiderMatch(rule) === outcome));
        if (letting !== undefined) {
            return { verdict: outcome === "any" ? "guardsNothing" : "opens", deciding: letting, identity };
        }
    }
    return { verdict: "restricts", deciding: allowPolicies[0], identity };
}

/** True when a DENY rule refuses someone the program does not know: a source that excludes only named ranges (`notIpBlocks`), or none at all. */
function denies(rule: KubeProps): boolean {
    const froms: KubeProps[] = Array.isArray(rule?.from) ? rule.from : [];
    if (rule?.to !== undefined || rule?.when !== undefined) {
        return false;
    }
    return (
        froms.length === 0 ||
        froms.some((from) => {
            const source: KubeProps = from?.source ?? {};
            const fields = Object.keys(source);
            return (
                fields.every((field) => field === "notIpBlocks" || field === "notRemoteIpBlocks") &&
                !opensToInternet([...(source.notIpBlocks ?? []), ...(source.notRemoteIpBlocks ?? [])])
            );
        })
    );
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
