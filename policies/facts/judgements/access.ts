/**
 * Who may reach an inference Gateway, judged one way for the pack and the live tools: whether the Gateway's load
 * balancer has an internet address, whether a GCPBackendPolicy guards its backend (Cloud Armor or IAP), whether an
 * Istio AuthorizationPolicy on the Gateway lets only known sources through, and whether an allowlist opens it to the
 * whole internet. Sources: {@link SOURCES.gcpBackendPolicySecurity}, {@link SOURCES.istioAuthorization},
 * {@link SOURCES.istioServiceOverlay}, {@link SOURCES.gkeGatewayClasses}.
 */
import { ISTIO } from "../catalog";
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

/**
 * True when an allowlist matches every client: a range that names them all, or IPv4 ranges that together cover the
 * whole space (`0.0.0.0/1` and `128.0.0.0/1`).
 */
export function opensToInternet(ranges: readonly unknown[]): boolean {
    const strings = ranges.filter((range): range is string => typeof range === "string").map((range) => range.trim());
    if (strings.some((range) => OPEN_SOURCE_RANGES.includes(range))) {
        return true;
    }
    // The IPv4 ranges as [start, end) in address order, merged: do they reach from 0 to 2^32?
    const spans = strings
        .map((range) => {
            const [base, bits = "32"] = range.split("/");
            const start = ipv4Value(base);
            const prefix = Number(bits);
            return start === undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > 32
                ? undefined
                : ([start - (start % 2 ** (32 - prefix)), start - (start % 2 ** (32 - prefix)) + 2 ** (32 - prefix)] as const);
        })
        .filter((span): span is readonly [number, number] => span !== undefined)
        .sort((a, b) => a[0] - b[0]);
    let covered = 0;
    for (const [start, end] of spans) {
        if (start > covered) {
            return false;
        }
        covered = Math.max(covered, end);
    }
    return covered >= 2 ** 32;
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
 * The labels istiod puts on a Gateway's Envoy pods, which a label-selector AuthorizationPolicy names them by: the
 * Gateway's name and class, and the labels of `spec.infrastructure` (or, without it, the Gateway's own). Source:
 * {@link ISTIO}.
 */
export function istioGatewayPodLabels(gateway: KubeProps): Record<string, string> {
    const infrastructure: KubeProps | undefined = gateway.spec?.infrastructure;
    const copied: unknown = infrastructure !== undefined ? infrastructure.labels : gateway.metadata?.labels;
    return {
        ...Object.fromEntries(
            Object.entries(copied !== null && typeof copied === "object" ? copied : {}).filter(([, value]) => typeof value === "string"),
        ),
        [ISTIO.gatewayPodLabel]: String(gateway.metadata?.name),
        [ISTIO.gatewayClassPodLabel]: String(gateway.spec?.gatewayClassName),
    };
}

/** The annotations istiod gives a Gateway's Service: `spec.infrastructure`'s, or without it the Gateway's own. Source: {@link ISTIO}. */
export function istioGatewayServiceAnnotations(gateway: KubeProps): KubeProps {
    const infrastructure: KubeProps | undefined = gateway.spec?.infrastructure;
    return (infrastructure !== undefined ? infrastructure.annotations : gateway.metadata?.annotations) ?? {};
}

/** An AuthorizationPolicy as the judgement reads it: its props and the namespace it lands in. */
export interface PlacedAuthorizationPolicy {
    namespace: string;
    props: KubeProps;
}

/**
 * True when an AuthorizationPolicy applies to Gateway `gateway` (its props) in `namespace`: in the Gateway's namespace
 * or Istio's root namespace, naming the Gateway in `targetRefs`, or selecting its pods by labels, or (with neither)
 * every workload.
 */
export function appliesToGateway(policy: PlacedAuthorizationPolicy, gateway: KubeProps, namespace: string, pods?: GatewayPods): boolean {
    if (pods !== undefined) {
        // A classic Istio Gateway's pods, by the labels its selector names, in a namespace the program may not show.
        const selector: unknown = policy.props.spec?.selector?.matchLabels;
        return (
            (pods.namespace === undefined || policy.namespace === pods.namespace || policy.namespace === ISTIO.rootNamespace) &&
            policy.props.spec?.targetRefs === undefined &&
            policy.props.spec?.targetRef === undefined &&
            (selector === undefined
                ? policy.namespace === pods.namespace || policy.namespace === ISTIO.rootNamespace
                : selectorMatches(selector, pods.labels))
        );
    }
    if (policy.namespace !== namespace && policy.namespace !== ISTIO.rootNamespace) {
        return false;
    }
    if (Array.isArray(policy.props.spec?.targetRefs) || policy.props.spec?.targetRef !== undefined) {
        return policy.namespace === namespace && targetsGateway(policy.props, gateway.metadata?.name);
    }
    const selector: unknown = policy.props.spec?.selector?.matchLabels;
    return selector === undefined || selectorMatches(selector, istioGatewayPodLabels(gateway));
}

/** The Envoy pods of a classic Istio Gateway (networking.istio.io): the labels its selector names, and their namespace where known. */
export interface GatewayPods {
    labels: Record<string, string>;
    namespace?: string;
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
