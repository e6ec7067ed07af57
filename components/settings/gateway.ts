/**
 * The inference Gateway: what serves it (GKE's own Gateway controller, or Istio installed by the stack), its class,
 * load balancer, namespace, name and TLS, the namespace of the model services behind it, and Pattern 2's body-based
 * routing. What each provider takes when a setting is empty is declared here once, for the defaults, the rules and
 * the README.
 */
import { z } from "zod";
import { GATEWAY_CLASSES, ISTIO } from "@gke-tpu-inference/facts";
import { ModelEntry, modelNameOf } from "./models";
import { Rule, Setting, ValuesOf, bool, dnsLabel, oneOf, ownedNamespace, says } from "./setting";

/** Where an Istio Gateway's load balancer takes traffic from: the internet, or the VPC. */
export type GatewayLoadBalancer = "external" | "internal";
const GATEWAY_LOAD_BALANCERS: readonly GatewayLoadBalancer[] = ["external", "internal"];

/** Where the inference Gateway and the model services live. */
interface GatewayPlacement {
    /** A regional GKE GatewayClass, or `istio`. */
    className: string;
    namespace: string;
    name: string;
    /** A `kubernetes.io/tls` Secret in the Gateway's namespace; when set, the Gateway also listens for HTTPS on 443. */
    tlsSecret?: string;
    /** Namespace of the LLMInferenceServices, labelled so the Gateway accepts its routes. */
    servingNamespace: string;
}

/** The Gateway, by what serves it: GKE's own classes choose their load balancer; behind Istio, the kind GKE makes for the Gateway's Service. */
export type GatewaySettings = GatewayPlacement & ({ provider: "gke" } | { provider: "istio"; loadBalancer: GatewayLoadBalancer });

/** What serves the inference Gateway: GKE's own Gateway controller, or Istio installed by the stack. */
export type GatewayProviderName = GatewaySettings["provider"];
const GATEWAY_PROVIDERS: readonly GatewayProviderName[] = ["gke", "istio"];

/**
 * What an empty setting takes, by gateway provider. Only GKE's regional Gateway, a proxy-based load balancer, has a
 * proxy-only subnet; only Istio's Gateway Service a load balancer kind.
 */
export const PROVIDER_DEFAULTS = {
    gke: { gatewayClass: GATEWAY_CLASSES.regional[0], proxyOnlyCidr: "10.9.0.0/23" },
    istio: { gatewayClass: ISTIO.gatewayClass, gatewayLoadBalancer: "external" },
} as const;

/** The Gateway's settings, in the order the README lists them. */
export const GATEWAY_SETTINGS = {
    gatewayProvider: {
        type: "string",
        default: "gke",
        description:
            "What serves the inference Gateway: GKE's own Gateway controller (a regional Application Load Balancer), or Istio, which the stack installs (its Envoy Deployment behind a passthrough Network Load Balancer).",
        allowed: GATEWAY_PROVIDERS.join(", "),
        schema: oneOf(GATEWAY_PROVIDERS, "is not a gateway provider"),
    },
    gatewayClass: {
        type: "string",
        default: "",
        description: `GatewayClass of the inference Gateway; empty: ${PROVIDER_DEFAULTS.gke.gatewayClass} with gatewayProvider gke, ${PROVIDER_DEFAULTS.istio.gatewayClass} with istio.`,
        allowed: `empty, ${GATEWAY_CLASSES.regional.join(", ")} (gke), or ${ISTIO.gatewayClass} (istio)`,
        schema: z.string().superRefine((value, ctx) => {
            if (value !== "" && value !== ISTIO.gatewayClass && !(GATEWAY_CLASSES.regional as readonly string[]).includes(value)) {
                const why = (GATEWAY_CLASSES.global as readonly string[]).includes(value)
                    ? "is a global GatewayClass, which never serves InferencePool backends"
                    : "is neither a regional GKE GatewayClass nor Istio's";
                ctx.addIssue({ code: "custom", message: says(why, `${GATEWAY_CLASSES.regional.join(", ")} or ${ISTIO.gatewayClass}`) });
            }
        }),
    },
    gatewayLoadBalancer: {
        type: "string",
        default: "",
        description: `With gatewayProvider istio: whether GKE gives the Gateway's Service an external or an internal (VPC-only) passthrough Network Load Balancer; empty: ${PROVIDER_DEFAULTS.istio.gatewayLoadBalancer}. With gke the class chooses (gke-l7-rilb is internal).`,
        allowed: `empty, or (gatewayProvider istio) ${GATEWAY_LOAD_BALANCERS.join(", ")}`,
        schema: z.union([z.literal(""), oneOf(GATEWAY_LOAD_BALANCERS, "is not a load balancer kind")]),
    },
    gatewayNamespace: {
        type: "string",
        default: "inference-gateway",
        description: "Namespace of the inference Gateway, which the stack creates.",
        allowed: "a DNS-1123 label that Kubernetes and the platform do not own",
        schema: ownedNamespace(),
    },
    gatewayName: {
        type: "string",
        default: "inference-gateway",
        description: "Name of the inference Gateway.",
        allowed: "a DNS-1123 label",
        schema: dnsLabel(),
    },
    gatewayTlsSecret: {
        type: "string",
        default: "",
        description: "A kubernetes.io/tls Secret in the Gateway's namespace; set, it adds an HTTPS listener on 443; empty: HTTP only.",
        allowed: "empty, or a DNS-1123 label",
        schema: z.union([z.literal(""), dnsLabel()]),
    },
    bodyBasedRouting: {
        type: "boolean",
        default: false,
        description:
            "Pattern 2: a body-based router reads `model` from each request, so /v1/chat/completions and /v1/completions at the Gateway's root reach the service of that modelName; the per-service paths keep working.",
        allowed: "true, false",
        schema: bool(),
    },
    servingNamespace: {
        type: "string",
        default: "llm-inference",
        description: "Namespace of the model services, which the stack creates and labels for the Gateway.",
        allowed: "a DNS-1123 label that Kubernetes, the platform and the Gateway do not own",
        schema: ownedNamespace(),
    },
} as const satisfies Record<string, Setting>;

type GatewayValues = ValuesOf<typeof GATEWAY_SETTINGS>;

/** The proxy-only subnet's range: the stack's, else GKE's default; none behind Istio. */
export function proxyOnlyCidrOf(values: { gatewayProvider: string; proxyOnlyCidr: string }): string | undefined {
    return values.gatewayProvider === "gke" ? values.proxyOnlyCidr || PROVIDER_DEFAULTS.gke.proxyOnlyCidr : undefined;
}

export const gatewayFitsProvider: Rule<
    Pick<GatewayValues, "gatewayProvider" | "gatewayClass" | "gatewayLoadBalancer"> & { proxyOnlyCidr: string }
> = {
    description:
        "The Gateway's settings belong to its provider: gke takes a regional GKE class and a proxy-only subnet, istio the class istio and a load balancer kind.",
    reads: ["gatewayProvider", "gatewayClass", "gatewayLoadBalancer", "proxyOnlyCidr"],
    check: ({ gatewayProvider, gatewayClass, gatewayLoadBalancer, proxyOnlyCidr }, key) => {
        const provider = `${key("gatewayProvider")} = ${JSON.stringify(gatewayProvider)}`;
        const problems: string[] = [];
        if (gatewayProvider === "istio") {
            if (gatewayClass !== "" && gatewayClass !== ISTIO.gatewayClass) {
                problems.push(
                    `${key("gatewayClass")} = ${JSON.stringify(gatewayClass)} is GKE's own class, which Istio does not program, but ${provider}; allowed: empty or ${ISTIO.gatewayClass} (or gatewayProvider gke)`,
                );
            }
            if (proxyOnlyCidr !== "") {
                problems.push(
                    `${key("proxyOnlyCidr")} = ${JSON.stringify(proxyOnlyCidr)} is for GKE's regional Gateway, but ${provider}, whose passthrough load balancer needs no proxy-only subnet; allowed: empty (or gatewayProvider gke)`,
                );
            }
        } else {
            if (gatewayClass === ISTIO.gatewayClass) {
                problems.push(
                    `${key("gatewayClass")} = ${JSON.stringify(gatewayClass)} is Istio's class, but ${provider}, which installs no Istio; allowed: empty, ${GATEWAY_CLASSES.regional.join(", ")} (or gatewayProvider istio)`,
                );
            }
            if (gatewayLoadBalancer !== "") {
                problems.push(
                    `${key("gatewayLoadBalancer")} = ${JSON.stringify(gatewayLoadBalancer)} is for Istio's Gateway Service, but ${provider}, whose class chooses the load balancer; allowed: empty, with gatewayClass gke-l7-rilb for an internal one (or gatewayProvider istio)`,
                );
            }
        }
        return problems;
    },
};

export const servingNamespaceApart: Rule<Pick<GatewayValues, "gatewayNamespace" | "servingNamespace">> = {
    description: "servingNamespace is not the Gateway's namespace.",
    reads: ["gatewayNamespace", "servingNamespace"],
    check: ({ gatewayNamespace, servingNamespace }, key) =>
        servingNamespace === gatewayNamespace
            ? [
                  `${key("servingNamespace")} = ${JSON.stringify(servingNamespace)} is the Gateway's namespace; ` +
                      `allowed: a namespace other than ${key("gatewayNamespace")}, so that model services never share the Gateway's`,
              ]
            : [],
};

export const routerSystemNodes: Rule<Pick<GatewayValues, "bodyBasedRouting"> & { systemMaxNodes: number }> = {
    description: "With bodyBasedRouting, the system pool can hold two nodes: the router's two replicas run on different ones.",
    reads: ["bodyBasedRouting", "systemMaxNodes"],
    check: ({ bodyBasedRouting, systemMaxNodes }, key) =>
        bodyBasedRouting && systemMaxNodes < 2
            ? [
                  `${key("systemMaxNodes")} = ${systemMaxNodes} leaves the body-based router's second replica nowhere to run: its two replicas spread over system nodes; allowed: 2 or more (or bodyBasedRouting false)`,
              ]
            : [],
};

export const routerModelNames: Rule<Pick<GatewayValues, "bodyBasedRouting"> & { models: ModelEntry[] }> = {
    description:
        "With bodyBasedRouting, every name a client sends as `model` (each service's modelName) is used by one service only: the router maps a name to one service.",
    reads: ["models", "bodyBasedRouting"],
    check: (values, key) => {
        if (!values.bodyBasedRouting) {
            return [];
        }
        const claimed = new Map<string, number>();
        const problems: string[] = [];
        for (const [index, model] of values.models.entries()) {
            const name = modelNameOf(model);
            const first = claimed.get(name);
            if (first !== undefined) {
                problems.push(
                    `${key("models")}[${index}].modelName = ${JSON.stringify(name)} is also models[${first}]'s, and ${key("bodyBasedRouting")} routes a name to one service; allowed: a modelName no other service uses`,
                );
            } else {
                claimed.set(name, index);
            }
        }
        return problems;
    },
};

/** The Gateway from checked values, with each provider's defaults filled in. */
export function gatewaySettingsOf(values: GatewayValues): GatewaySettings {
    const placement: GatewayPlacement = {
        className: values.gatewayClass || PROVIDER_DEFAULTS[values.gatewayProvider as GatewayProviderName].gatewayClass,
        namespace: values.gatewayNamespace,
        name: values.gatewayName,
        ...(values.gatewayTlsSecret !== "" ? { tlsSecret: values.gatewayTlsSecret } : {}),
        servingNamespace: values.servingNamespace,
    };
    return values.gatewayProvider === "istio"
        ? {
              provider: "istio",
              loadBalancer: (values.gatewayLoadBalancer || PROVIDER_DEFAULTS.istio.gatewayLoadBalancer) as GatewayLoadBalancer,
              ...placement,
          }
        : { provider: "gke", ...placement };
}
