import { proxyOnlyCidrOf } from "../../../components/settings/gateway";
import {
    GATEWAY_PROVIDERS,
    GATEWAY_PROVIDER_NAMES,
    gatewayProviderOfClass,
    providersWith,
} from "../../../components/settings/gatewayProviders";
import { parse } from "./parse";

describe("the gateway providers' descriptors", () => {
    test("hold each provider's knowledge: classes, proxy-only subnet, address type, webhook ports, identities, load balancers, labels", () => {
        const data = (name: keyof typeof GATEWAY_PROVIDERS) => {
            const { programs, ...rest } = GATEWAY_PROVIDERS[name];
            return { programs: typeof programs, ...rest };
        };
        expect(GATEWAY_PROVIDER_NAMES).toEqual(["gke", "istio"]);
        expect(data("gke")).toEqual({
            title: "GKE",
            loadBalancer: "regional Application Load Balancer",
            classes: ["gke-l7-regional-external-managed", "gke-l7-rilb"],
            programs: "function",
            proxyOnlySubnet: { defaultRange: "10.9.0.0/23" },
            addressType: "NamedAddress",
            webhookPorts: [],
            identities: ["iap"],
            modelArmor: true,
            loadBalancers: [],
            servingNamespaceLabels: {},
        });
        expect(data("istio")).toEqual({
            title: "Istio",
            loadBalancer: "passthrough Network Load Balancer",
            classes: ["istio"],
            programs: "function",
            addressType: "IPAddress",
            webhookPorts: ["15017"],
            identities: ["google-id-token"],
            modelArmor: false,
            loadBalancers: ["external", "internal"],
            servingNamespaceLabels: { "istio-injection": "disabled" },
        });
    });

    test.each([
        ["gke-l7-regional-external-managed", "gke"],
        ["gke-l7-rilb", "gke"],
        // GKE's global classes are GKE's too: the doctor reports them as never serving InferencePool backends.
        ["gke-l7-global-external-managed", "gke"],
        ["istio", "istio"],
        ["nginx", undefined],
        ["istio-east", undefined],
    ])("a Gateway of class %s is programmed by %s", (className, provider) => {
        expect(gatewayProviderOfClass(className)).toBe(provider);
    });

    test("providersWith names the providers a message offers instead", () => {
        expect(providersWith((provider) => provider.proxyOnlySubnet !== undefined)).toEqual(["gke"]);
        expect(providersWith((provider) => provider.loadBalancers.length > 0)).toEqual(["istio"]);
        expect(providersWith(() => false)).toEqual([]);
    });
});

describe("the proxy-only subnet is decided once, by the settings", () => {
    test.each([
        ["gke", "", "10.9.0.0/23"],
        ["gke", "10.10.0.0/23", "10.10.0.0/23"],
        ["istio", "", undefined],
    ])("gatewayProvider %s with proxyOnlyCidr %j: %s", (gatewayProvider, proxyOnlyCidr, range) => {
        expect(proxyOnlyCidrOf({ gatewayProvider, proxyOnlyCidr })).toBe(range);
    });

    test("the network's address plan carries the range only where the provider's load balancer needs the subnet", () => {
        expect(parse({}).network.proxyOnlyCidr).toBe("10.9.0.0/23");
        expect(parse({ gatewayProvider: "istio" }).network).not.toHaveProperty("proxyOnlyCidr");
    });
});
