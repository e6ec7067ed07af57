/**
 * What the stack knows of each gateway provider, once: the classes it programs and the one an empty `gatewayClass`
 * takes, whether its load balancer needs the region's proxy-only subnet and the range an empty `proxyOnlyCidr` takes, how
 * the Gateway names its reserved address, the webhook ports the control plane must reach, the identity checks and
 * screening it performs, the load balancer kinds a stack may choose, and the serving namespace's labels. Pure data with
 * no SDK behind it: the settings' defaults and rules and `index.ts` read it, so the provider modules (components/gateway/)
 * only create resources; the doctor and smoke, which tell a Gateway's provider by its class, can import it as it is.
 */
import { GATEWAY_CLASSES, GKE_GATEWAY_CLASS_PREFIX, ISTIO } from "@gke-tpu-inference/facts";

/** What serves the inference Gateway: GKE's own Gateway controller, or Istio installed by the stack. */
export type GatewayProviderName = "gke" | "istio";

/**
 * How a caller proves who it is: `api-key` only vLLM's key, which the stack generates (every provider); `iap` also a
 * Google identity checked by Identity-Aware Proxy on GKE's load balancer; `google-id-token` also a Google ID token
 * checked by Istio's Gateway.
 */
export type GatewayIdentity = "api-key" | "iap" | "google-id-token";

/** Where a load balancer a stack chooses the kind of takes traffic from: the internet, or the VPC. */
export type GatewayLoadBalancer = "external" | "internal";

/** One gateway provider, as the settings, the program and the day-2 tools know it. */
export interface GatewayProviderDescriptor {
    /** Whose Gateway it is, as messages name it ("GKE's Gateway"). */
    readonly title: string;
    /** The load balancer its Gateway makes. */
    readonly loadBalancer: string;
    /** The GatewayClasses a stack may give it (those that serve InferencePool backends); an empty `gatewayClass` takes the first. */
    readonly classes: readonly string[];
    /** Whether it programs a Gateway of `className`: the doctor and smoke tell a Gateway's provider by its class. */
    readonly programs: (className: string) => boolean;
    /** The region's proxy-only subnet its Envoy-based load balancer needs, and the range an empty `proxyOnlyCidr` takes; absent: none. */
    readonly proxyOnlySubnet?: { readonly defaultRange: string };
    /** How the Gateway's `spec.addresses` names the reserved address: by the address resource's name, or by its IP. */
    readonly addressType: "NamedAddress" | "IPAddress";
    /** Ports, beside the platform's webhooks, that the control plane must reach on the nodes' pods. */
    readonly webhookPorts: readonly string[];
    /** The identity checks beyond the key it performs (`gatewayIdentity`). */
    readonly identities: readonly Exclude<GatewayIdentity, "api-key">[];
    /** Whether it can have Model Armor screen the Gateway's traffic (`modelArmor`). */
    readonly modelArmor: boolean;
    /** The load balancer kinds `gatewayLoadBalancer` chooses from, the first its default; empty: the class chooses. */
    readonly loadBalancers: readonly GatewayLoadBalancer[];
    /** Labels the model services' namespace carries for it. */
    readonly servingNamespaceLabels: Readonly<Record<string, string>>;
}

export const GATEWAY_PROVIDERS: Readonly<Record<GatewayProviderName, GatewayProviderDescriptor>> = {
    gke: {
        title: "GKE",
        loadBalancer: "regional Application Load Balancer",
        classes: GATEWAY_CLASSES.regional,
        // Its global classes too: the doctor reports them as GKE's classes that never serve InferencePool backends.
        programs: (className) => className.startsWith(GKE_GATEWAY_CLASS_PREFIX),
        // A /23, the size Google recommends for a region's proxy-only subnet (`PROXY_ONLY_SUBNET`).
        proxyOnlySubnet: { defaultRange: "10.9.0.0/23" },
        // GKE takes the reserved address by its resource's name.
        addressType: "NamedAddress",
        // GKE's own controller runs no webhook on the nodes.
        webhookPorts: [],
        identities: ["iap"],
        modelArmor: true,
        loadBalancers: [],
        servingNamespaceLabels: {},
    },
    istio: {
        title: "Istio",
        loadBalancer: "passthrough Network Load Balancer",
        classes: [ISTIO.gatewayClass],
        programs: (className) => className === ISTIO.gatewayClass,
        // Istio's Service template sets the load balancer's IP from the Gateway's first address.
        addressType: "IPAddress",
        // istiod's webhooks, which a private cluster's control plane reaches only through the webhook firewall rule.
        webhookPorts: [ISTIO.webhookPort],
        identities: ["google-id-token"],
        modelArmor: false,
        loadBalancers: ["external", "internal"],
        // No sidecar beside vLLM or the EPP: the EPP's own TLS carries the Gateway's calls.
        servingNamespaceLabels: { [ISTIO.injectionLabel.key]: ISTIO.injectionLabel.disabled },
    },
};

/** Every provider's name, in the order the settings list them. */
export const GATEWAY_PROVIDER_NAMES = Object.keys(GATEWAY_PROVIDERS) as GatewayProviderName[];

/** The providers for which `has` holds, by name: what a message offers instead of the stack's own. */
export function providersWith(has: (provider: GatewayProviderDescriptor) => boolean): GatewayProviderName[] {
    return GATEWAY_PROVIDER_NAMES.filter((name) => has(GATEWAY_PROVIDERS[name]));
}

/** Who programs a Gateway of `className`, or undefined for another implementation's class. */
export function gatewayProviderOfClass(className: string): GatewayProviderName | undefined {
    return GATEWAY_PROVIDER_NAMES.find((name) => GATEWAY_PROVIDERS[name].programs(className));
}
