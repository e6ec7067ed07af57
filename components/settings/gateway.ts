/**
 * The inference Gateway: what serves it (GKE's own Gateway controller, or Istio installed by the stack), its class,
 * load balancer, namespace, name and TLS, the namespace of the model services behind it, and Pattern 2's body-based
 * routing. What each provider allows and takes when a setting is empty comes from its descriptor (./gatewayProviders.ts),
 * for the defaults, the rules and the settings reference.
 */
import { z } from "zod";
import { GATEWAY_CLASSES, INTERNAL_GATEWAY_CLASSES, MODEL_ARMOR, regionOfZone } from "@gke-tpu-inference/facts";
import { parseCidr } from "../lib/cidr";
import {
    GATEWAY_PROVIDERS,
    GATEWAY_PROVIDER_NAMES,
    GatewayIdentity,
    GatewayLoadBalancer,
    GatewayProviderName,
    providersWith,
} from "./gatewayProviders";
import { ModelEntry, modelNameOf } from "./models";
import { Rule, Setting, ValuesOf, bool, dnsLabel, oneOf, ownedNamespace, says, wholeNumber } from "./setting";

/** Every provider's classes, in the order the settings list them. */
const GATEWAY_CLASS_NAMES = GATEWAY_PROVIDER_NAMES.flatMap((name) => GATEWAY_PROVIDERS[name].classes);
/** Every load balancer kind a provider lets a stack choose. */
const GATEWAY_LOAD_BALANCERS = [...new Set(GATEWAY_PROVIDER_NAMES.flatMap((name) => GATEWAY_PROVIDERS[name].loadBalancers))];
/** The providers whose load balancer kind is a setting, and the kind an empty `gatewayLoadBalancer` takes behind them. */
const LOAD_BALANCER_PROVIDERS = providersWith((provider) => provider.loadBalancers.length > 0);
const GATEWAY_IDENTITIES: readonly GatewayIdentity[] = [
    "api-key",
    ...GATEWAY_PROVIDER_NAMES.flatMap((name) => GATEWAY_PROVIDERS[name].identities),
];

/** `a, b or c`. */
function either(values: readonly string[]): string {
    return values.length < 2 ? values.join("") : `${values.slice(0, -1).join(", ")} or ${values[values.length - 1]}`;
}

/** Where the inference Gateway and the model services live. */
interface GatewayPlacement {
    /** A GatewayClass of the provider's (a regional GKE class, or `istio`). */
    className: string;
    namespace: string;
    name: string;
    /** A `kubernetes.io/tls` Secret in the Gateway's namespace; when set, the Gateway also listens for HTTPS on 443. */
    tlsSecret?: string;
    /** Namespace of the LLMInferenceServices, labelled so the Gateway accepts its routes. */
    servingNamespace: string;
    /** A DNS name the Gateway's certificate carries beside its reserved address, and its URL uses. */
    hostname?: string;
    /** A ClusterIssuer of the user's that signs the Gateway's certificate for {@link hostname}; absent: the stack's own CA. */
    certificateIssuer?: string;
    /** Who may reach the models and how they prove it. */
    access: GatewayAccessSettings;
}

/** Who may reach the models behind the Gateway, and how fast. */
export interface GatewayAccessSettings {
    /** Client address ranges let through; empty: nobody. `0.0.0.0/0` opens the Gateway to the internet. */
    allowedSourceRanges: string[];
    /** Requests per minute one client address may send before it gets 429. */
    rateLimitPerMinute: number;
    identity: GatewayIdentity;
    /** With `iap`: the OAuth client's ID (its secret is the `iapClientSecret` secret). */
    iapClientId?: string;
    /** With `iap` or `google-id-token`: the principals let through, `user:EMAIL` or `serviceAccount:EMAIL`. */
    allowedIdentities: string[];
    /** Model Armor screens prompts and responses (GKE, in a region Model Armor serves). */
    modelArmor: boolean;
}

/** Whether the Gateway's load balancer has a VPC address only: an internal kind where the stack chooses it, else an internal class. */
export function isInternalGateway(gateway: GatewaySettings): boolean {
    return "loadBalancer" in gateway ? gateway.loadBalancer === "internal" : INTERNAL_GATEWAY_CLASSES.includes(gateway.className);
}

/** The Gateway, by what serves it: GKE's own classes choose their load balancer; behind Istio, the kind GKE makes for the Gateway's Service. */
export type GatewaySettings = GatewayPlacement & ({ provider: "gke" } | { provider: "istio"; loadBalancer: GatewayLoadBalancer });

/** The Gateway's settings, in the order the settings reference lists them. */
export const GATEWAY_SETTINGS = {
    gatewayProvider: {
        type: "string",
        default: "gke",
        description: `What serves the inference Gateway: GKE's own Gateway controller (a ${GATEWAY_PROVIDERS.gke.loadBalancer}), or Istio, which the stack installs (its Envoy Deployment behind a ${GATEWAY_PROVIDERS.istio.loadBalancer}).`,
        allowed: GATEWAY_PROVIDER_NAMES.join(", "),
        schema: oneOf(GATEWAY_PROVIDER_NAMES, "is not a gateway provider"),
    },
    gatewayClass: {
        type: "string",
        default: "",
        description: `GatewayClass of the inference Gateway; empty: ${GATEWAY_PROVIDER_NAMES.map((name) => `${GATEWAY_PROVIDERS[name].classes[0]} with gatewayProvider ${name}`).join(", ")}.`,
        allowed: `empty, or a class of the provider: ${GATEWAY_PROVIDER_NAMES.map((name) => `${GATEWAY_PROVIDERS[name].classes.join(", ")} (${name})`).join("; ")}`,
        schema: z.string().superRefine((value, ctx) => {
            if (value !== "" && !GATEWAY_CLASS_NAMES.includes(value)) {
                const why = (GATEWAY_CLASSES.global as readonly string[]).includes(value)
                    ? "is a global GatewayClass, which never serves InferencePool backends"
                    : `is a GatewayClass neither ${GATEWAY_PROVIDER_NAMES.map((name) => GATEWAY_PROVIDERS[name].title).join(" nor ")} programs for InferencePool backends`;
                ctx.addIssue({ code: "custom", message: says(why, either(GATEWAY_CLASS_NAMES)) });
            }
        }),
    },
    gatewayLoadBalancer: {
        type: "string",
        default: "",
        description: `With gatewayProvider ${either(LOAD_BALANCER_PROVIDERS)}: whether GKE gives the Gateway's Service an external or an internal (VPC-only) ${either(LOAD_BALANCER_PROVIDERS.map((name) => GATEWAY_PROVIDERS[name].loadBalancer))}; empty: ${LOAD_BALANCER_PROVIDERS.map((name) => GATEWAY_PROVIDERS[name].loadBalancers[0]).join(", ")}. Elsewhere the class chooses (${INTERNAL_GATEWAY_CLASSES.filter((className) => GATEWAY_CLASS_NAMES.includes(className)).join(", ")} is internal).`,
        allowed: `empty, or (gatewayProvider ${either(LOAD_BALANCER_PROVIDERS)}) ${GATEWAY_LOAD_BALANCERS.join(", ")}`,
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
        description:
            "A kubernetes.io/tls Secret of yours in the Gateway's namespace, served on the HTTPS listener instead of the certificate the stack issues; empty: the stack's certificate.",
        allowed: "empty, or a DNS-1123 label",
        schema: z.union([z.literal(""), dnsLabel()]),
    },
    allowedSourceRanges: {
        type: "array<string>",
        default: [],
        description:
            "Client address ranges that may reach the inference Gateway (Cloud Armor on GKE's load balancer; the load balancer's firewall and an AuthorizationPolicy on Istio's); empty: nobody, the Gateway refuses every request. [\"0.0.0.0/0\"] opens it to the internet, which the outputs and the policy pack call out.",
        allowed: 'IPv4 CIDR blocks, e.g. ["203.0.113.0/24"] (your network: curl -s ifconfig.me, then /32)',
        schema: z
            .array(z.string(), { error: says("is not a list of CIDR strings", 'e.g. ["203.0.113.0/24"]') })
            .superRefine((list, ctx) => {
                list.forEach((entry, index) => {
                    const parsed = parseCidr(entry);
                    if (typeof parsed === "string") {
                        ctx.addIssue({ code: "custom", path: [index], message: says(parsed, "an IPv4 CIDR block like 203.0.113.0/24") });
                    }
                });
            }),
    },
    gatewayRateLimit: {
        type: "integer",
        default: 600,
        description:
            "Requests per minute one client address may send through the Gateway before it gets HTTP 429 (Cloud Armor counts per backend; Istio per Gateway replica).",
        allowed: "1 to 1000000",
        schema: wholeNumber(1, 1_000_000, "requests per client address per minute"),
    },
    gatewayHostname: {
        type: "string",
        default: "",
        description:
            "A DNS name of yours for the Gateway (point its A record at the gatewayAddress output): the certificate carries it beside the address, and the URLs use it; empty: the address only.",
        allowed: "empty, or a lowercase DNS name like llm.example.com (no wildcard, no IP address)",
        schema: z.union([
            z.literal(""),
            z
                .string({ error: says("is not a string", "a DNS name like llm.example.com") })
                .refine((value) => HOSTNAME.test(value) && !/^[0-9.]+$/.test(value) && value.length <= 253, {
                    error: says("is not a DNS name", "a lowercase DNS name like llm.example.com (no wildcard, no IP address)"),
                }),
        ]),
    },
    gatewayCertificateIssuer: {
        type: "string",
        default: "",
        description:
            "A cert-manager ClusterIssuer of yours (an ACME one, say) that signs the Gateway's certificate for gatewayHostname; empty: the stack's own CA signs it (the caCertificate output tells clients to trust it).",
        allowed: "empty, or a DNS-1123 label naming a ClusterIssuer (with gatewayHostname)",
        schema: z.union([z.literal(""), dnsLabel()]),
    },
    gatewayIdentity: {
        type: "string",
        default: "api-key",
        description:
            "What a caller presents besides coming from an allowed range: api-key, vLLM's key the stack generates (every provider); iap, also a Google identity checked by Identity-Aware Proxy (gatewayProvider gke; an OAuth client you make in the console); google-id-token, also a Google ID token checked by Istio's Gateway (gatewayProvider istio).",
        allowed: GATEWAY_IDENTITIES.join(", "),
        schema: oneOf(GATEWAY_IDENTITIES, "is not an identity check"),
    },
    iapClientId: {
        type: "string",
        default: "",
        description:
            "With gatewayIdentity iap: the ID of the OAuth client you created (APIs & Services > Credentials); its secret goes in `pulumi config set --secret iapClientSecret`.",
        allowed: "empty, or an OAuth client ID (<number>-<id>.apps.googleusercontent.com)",
        schema: z.union([
            z.literal(""),
            z.string().regex(/^[0-9]+-[a-z0-9]+\.apps\.googleusercontent\.com$/, {
                error: says("is not an OAuth client ID", "<number>-<id>.apps.googleusercontent.com"),
            }),
        ]),
    },
    allowedIdentities: {
        type: "array<string>",
        default: [],
        description:
            "With gatewayIdentity iap or google-id-token: the Google principals let through, as user:EMAIL or serviceAccount:EMAIL.",
        allowed: 'e.g. ["serviceAccount:caller@my-project.iam.gserviceaccount.com"]',
        schema: z
            .array(z.string(), { error: says("is not a list of principals", 'e.g. ["user:me@example.com"]') })
            .superRefine((list, ctx) => {
                list.forEach((entry, index) => {
                    if (!PRINCIPAL.test(entry)) {
                        ctx.addIssue({
                            code: "custom",
                            path: [index],
                            message: says("is not a principal", "user:EMAIL or serviceAccount:EMAIL"),
                        });
                    }
                });
            }),
    },
    modelArmor: {
        type: "boolean",
        default: false,
        description: `Model Armor screens every inference request and response at GKE's Gateway (a template the stack creates; GCPTrafficExtension, failing closed). Only with gatewayProvider gke, in ${MODEL_ARMOR.regions.join(", ")}.`,
        allowed: "true, false",
        schema: bool(),
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

/** A lowercase DNS name of labels. */
const HOSTNAME = /^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\.)+[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** `user:EMAIL` or `serviceAccount:EMAIL`, the principals both IAP and an ID token's email claim name. */
const PRINCIPAL = /^(user|serviceAccount):[^\s@:]+@[^\s@]+\.[^\s@]+$/;

/** The providers that perform identity check `identity` (beyond the key, which every provider's vLLM requires). */
function identityProviders(identity: Exclude<GatewayIdentity, "api-key">): GatewayProviderName[] {
    return providersWith((provider) => provider.identities.includes(identity));
}

const MODEL_ARMOR_PROVIDERS = providersWith((provider) => provider.modelArmor);
/** What each identity check beyond the key needs, for the rule's line in the settings reference: its provider, IAP's OAuth client, principals. */
const IDENTITY_NEEDS = GATEWAY_IDENTITIES.filter((identity) => identity !== "api-key")
    .map((identity) => {
        const client = identity === "iap" ? ", iapClientId" : "";
        return `gatewayIdentity ${identity} needs gatewayProvider ${either(identityProviders(identity))}${client} and allowedIdentities`;
    })
    .join("; ");

export const identityFitsProvider: Rule<
    Pick<GatewayValues, "gatewayProvider" | "gatewayIdentity" | "iapClientId" | "allowedIdentities" | "modelArmor"> & {
        zone: string;
        region: string;
    }
> = {
    description: `${IDENTITY_NEEDS}; api-key takes neither; modelArmor needs gatewayProvider ${either(MODEL_ARMOR_PROVIDERS)} in a region Model Armor serves.`,
    reads: ["gatewayProvider", "gatewayIdentity", "iapClientId", "allowedIdentities", "modelArmor", "zone", "region"],
    check: ({ gatewayProvider, gatewayIdentity, iapClientId, allowedIdentities, modelArmor, zone, region }, key) => {
        const problems: string[] = [];
        const identity = `${key("gatewayIdentity")} = ${JSON.stringify(gatewayIdentity)}`;
        const provider = `${key("gatewayProvider")} = ${JSON.stringify(gatewayProvider)}`;
        const stackProvider = GATEWAY_PROVIDERS[gatewayProvider as GatewayProviderName];
        if (gatewayIdentity !== "api-key") {
            const needs = identityProviders(gatewayIdentity as Exclude<GatewayIdentity, "api-key">);
            if (!needs.includes(gatewayProvider as GatewayProviderName)) {
                problems.push(
                    `${identity} is checked by ${either(needs.map((name) => `${GATEWAY_PROVIDERS[name].title}'s Gateway`))}, but ${provider}; allowed: ${["api-key", ...stackProvider.identities].join(", ")} (or gatewayProvider ${either(needs)})`,
                );
            }
            if (allowedIdentities.length === 0) {
                problems.push(
                    `${key("allowedIdentities")} = [] lets nobody through ${identity}; allowed: the principals to let in, e.g. ["serviceAccount:caller@my-project.iam.gserviceaccount.com"]`,
                );
            }
        } else if (allowedIdentities.length > 0) {
            const checks = GATEWAY_PROVIDER_NAMES.flatMap((name) =>
                GATEWAY_PROVIDERS[name].identities.map((check) => `${check} on ${name}`),
            );
            problems.push(
                `${key("allowedIdentities")} = ${JSON.stringify(allowedIdentities)} is read only by an identity check, but ${identity}; allowed: [] (or gatewayIdentity ${checks.join(", ")})`,
            );
        }
        if (gatewayIdentity === "iap" && iapClientId === "") {
            problems.push(
                `${key("iapClientId")} = "" leaves ${identity} without its OAuth client, which GKE's Gateway requires and no program can create; allowed: the client ID from APIs & Services > Credentials (see docs/explanation/security.md)`,
            );
        } else if (gatewayIdentity !== "iap" && iapClientId !== "") {
            problems.push(
                `${key("iapClientId")} = ${JSON.stringify(iapClientId)} is read only by IAP, but ${identity}; allowed: "" (or gatewayIdentity iap)`,
            );
        }
        if (modelArmor) {
            const where = region || regionOfZone(zone);
            if (!stackProvider.modelArmor) {
                problems.push(
                    `${key("modelArmor")} = true screens traffic through an extension only ${either(MODEL_ARMOR_PROVIDERS.map((name) => `${GATEWAY_PROVIDERS[name].title}'s Gateway`))} calls, but ${provider}; allowed: false (or gatewayProvider ${either(MODEL_ARMOR_PROVIDERS)})`,
                );
            } else if (!(MODEL_ARMOR.regions as readonly string[]).includes(where)) {
                problems.push(
                    `${key("modelArmor")} = true, but Model Armor does not serve the stack's region ${where}; allowed: false, or a zone in ${MODEL_ARMOR.regions.join(", ")}`,
                );
            }
        }
        return problems;
    },
};

export const certificateSource: Rule<Pick<GatewayValues, "gatewayCertificateIssuer" | "gatewayHostname" | "gatewayTlsSecret">> = {
    description:
        "gatewayCertificateIssuer signs for gatewayHostname, which it needs; gatewayTlsSecret (a certificate of your own) and gatewayCertificateIssuer are two sources, of which one at most is set.",
    reads: ["gatewayCertificateIssuer", "gatewayHostname", "gatewayTlsSecret"],
    check: ({ gatewayCertificateIssuer, gatewayHostname, gatewayTlsSecret }, key) => {
        if (gatewayCertificateIssuer === "") {
            return [];
        }
        const issuer = `${key("gatewayCertificateIssuer")} = ${JSON.stringify(gatewayCertificateIssuer)}`;
        if (gatewayTlsSecret !== "") {
            return [
                `${issuer} and ${key("gatewayTlsSecret")} = ${JSON.stringify(gatewayTlsSecret)} are two sources of the Gateway's certificate; allowed: one of them (or neither: the stack's CA)`,
            ];
        }
        return gatewayHostname === ""
            ? [
                  `${issuer} has no name to sign: ${key("gatewayHostname")} is empty, and an issuer of your own (ACME, say) signs DNS names; allowed: a gatewayHostname like llm.example.com (or no gatewayCertificateIssuer: the stack's CA signs the address)`,
              ]
            : [];
    },
};

/**
 * The proxy-only subnet's range, decided here once: the stack's, else the provider's default, where the provider's load
 * balancer needs the subnet; none where it does not (the rule below refuses a range set there).
 */
export function proxyOnlyCidrOf(values: { gatewayProvider: string; proxyOnlyCidr: string }): string | undefined {
    const subnet = GATEWAY_PROVIDERS[values.gatewayProvider as GatewayProviderName].proxyOnlySubnet;
    return subnet !== undefined ? values.proxyOnlyCidr || subnet.defaultRange : undefined;
}

const PROXY_ONLY_PROVIDERS = providersWith((provider) => provider.proxyOnlySubnet !== undefined);

export const gatewayFitsProvider: Rule<
    Pick<GatewayValues, "gatewayProvider" | "gatewayClass" | "gatewayLoadBalancer"> & { proxyOnlyCidr: string }
> = {
    description: `The Gateway's settings belong to its provider: ${GATEWAY_PROVIDER_NAMES.map((name) => {
        const { classes, proxyOnlySubnet, loadBalancers } = GATEWAY_PROVIDERS[name];
        return `${name} takes the class${classes.length > 1 ? "es" : ""} ${either(classes)}${proxyOnlySubnet ? " and a proxy-only subnet" : ""}${loadBalancers.length > 0 ? " and a load balancer kind" : ""}`;
    }).join("; ")}.`,
    reads: ["gatewayProvider", "gatewayClass", "gatewayLoadBalancer", "proxyOnlyCidr"],
    check: ({ gatewayProvider, gatewayClass, gatewayLoadBalancer, proxyOnlyCidr }, key) => {
        const provider = `${key("gatewayProvider")} = ${JSON.stringify(gatewayProvider)}`;
        const stackProvider = GATEWAY_PROVIDERS[gatewayProvider as GatewayProviderName];
        const problems: string[] = [];
        // The class's own schema has made sure it is some provider's.
        if (gatewayClass !== "" && !stackProvider.classes.includes(gatewayClass)) {
            const owners = providersWith((other) => other.classes.includes(gatewayClass));
            problems.push(
                `${key("gatewayClass")} = ${JSON.stringify(gatewayClass)} is ${either(owners.map((name) => GATEWAY_PROVIDERS[name].title))}'s class, which ${stackProvider.title} does not program, but ${provider}; allowed: ${either(["empty", ...stackProvider.classes])} (or gatewayProvider ${either(owners)})`,
            );
        }
        if (proxyOnlyCidr !== "" && stackProvider.proxyOnlySubnet === undefined) {
            problems.push(
                `${key("proxyOnlyCidr")} = ${JSON.stringify(proxyOnlyCidr)} is for a proxy-only subnet, but ${provider}, whose ${stackProvider.loadBalancer} needs none; allowed: empty (or gatewayProvider ${either(PROXY_ONLY_PROVIDERS)})`,
            );
        }
        if (gatewayLoadBalancer !== "" && !(stackProvider.loadBalancers as readonly string[]).includes(gatewayLoadBalancer)) {
            const internalClasses = INTERNAL_GATEWAY_CLASSES.filter((className) => stackProvider.classes.includes(className));
            problems.push(
                `${key("gatewayLoadBalancer")} = ${JSON.stringify(gatewayLoadBalancer)} chooses the kind of ${either(LOAD_BALANCER_PROVIDERS.map((name) => `${GATEWAY_PROVIDERS[name].title}'s`))} load balancer, but ${provider}, whose class chooses it; allowed: empty${internalClasses.length > 0 ? `, with gatewayClass ${either(internalClasses)} for an internal one` : ""} (or gatewayProvider ${either(LOAD_BALANCER_PROVIDERS)})`,
            );
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
    const provider = GATEWAY_PROVIDERS[values.gatewayProvider as GatewayProviderName];
    const placement: GatewayPlacement = {
        className: values.gatewayClass || provider.classes[0],
        namespace: values.gatewayNamespace,
        name: values.gatewayName,
        ...(values.gatewayTlsSecret !== "" ? { tlsSecret: values.gatewayTlsSecret } : {}),
        servingNamespace: values.servingNamespace,
        ...(values.gatewayHostname !== "" ? { hostname: values.gatewayHostname } : {}),
        ...(values.gatewayCertificateIssuer !== "" ? { certificateIssuer: values.gatewayCertificateIssuer } : {}),
        access: {
            allowedSourceRanges: values.allowedSourceRanges,
            rateLimitPerMinute: values.gatewayRateLimit,
            identity: values.gatewayIdentity as GatewayIdentity,
            ...(values.iapClientId !== "" ? { iapClientId: values.iapClientId } : {}),
            allowedIdentities: values.allowedIdentities,
            modelArmor: values.modelArmor,
        },
    };
    return values.gatewayProvider === "istio"
        ? {
              provider: "istio",
              loadBalancer: (values.gatewayLoadBalancer || provider.loadBalancers[0]) as GatewayLoadBalancer,
              ...placement,
          }
        : { provider: "gke", ...placement };
}
