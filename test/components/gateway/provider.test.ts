import { GKE_GATEWAY_PROVIDER } from "../../../components/gateway/gkeProvider";
import { istioGatewayProvider } from "../../../components/gateway/istioProvider";
import { proxyOnlyCidrOf } from "../../../components/settings/gateway";

describe("gateway providers", () => {
    test.each([
        ["gke", GKE_GATEWAY_PROVIDER],
        ["istio", istioGatewayProvider("external")],
    ] as const)("%s: a proxy-only subnet exactly where the settings give it a range", (name, provider) => {
        expect(proxyOnlyCidrOf({ gatewayProvider: name, proxyOnlyCidr: "" }) !== undefined).toBe(provider.proxyOnlySubnet);
    });

    test("only Istio asks for a webhook port and keeps the serving namespace out of its mesh", () => {
        expect(GKE_GATEWAY_PROVIDER.webhookPorts).toEqual([]);
        expect(GKE_GATEWAY_PROVIDER.servingNamespaceLabels).toEqual({});
        expect(istioGatewayProvider("internal").webhookPorts).toEqual(["15017"]);
        expect(istioGatewayProvider("internal").servingNamespaceLabels).toEqual({ "istio-injection": "disabled" });
    });
});
