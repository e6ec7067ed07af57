import { installGatewayProvider } from "../../../components/gateway/installGatewayProvider";
import { InstalledGatewayProvider } from "../../../components/gateway/provider";
import { GatewaySettings } from "../../../components/settings/gateway";
import { record, testProvider } from "../../harness";
import { TEST_GCP, TEST_GKE_GATEWAY } from "./gatewayArgs";

/** Installs the provider of `gateway` as the stack does; the component types it registered, and what it returned. */
async function installed(gateway: GatewaySettings) {
    let provider: InstalledGatewayProvider | undefined;
    const graph = await record(() => {
        provider = installGatewayProvider(gateway, {
            provider: testProvider(),
            webhookPrerequisites: [],
            networkServices: [],
            gcp: TEST_GCP,
        });
    });
    const components = graph.resources
        .filter((resource) => resource.type.startsWith("gke-tpu-inference:"))
        .map((resource) => resource.type);
    return { components, provider: provider! };
}

describe("installGatewayProvider", () => {
    test("gke: GKE's Gateway access, nothing installed in the cluster; the Gateway names no infrastructure", async () => {
        const gke = await installed(TEST_GKE_GATEWAY);
        expect(gke.components).toEqual(["gke-tpu-inference:gateway:GkeGatewayAccess"]);
        expect(gke.provider.gatewayInfrastructure).toBeUndefined();
    });

    test("istio: istiod installed, and the Gateway's Service of the load balancer kind the settings chose", async () => {
        const istio = await installed({ ...TEST_GKE_GATEWAY, provider: "istio", className: "istio", loadBalancer: "internal" });
        expect(istio.components).toEqual(["gke-tpu-inference:platform:Istio"]);
        expect(istio.provider.gatewayInfrastructure).toEqual({
            annotations: { "networking.gke.io/load-balancer-type": "Internal" },
            parametersRef: { group: "", kind: "ConfigMap", name: "inference-gateway-service" },
        });
    });
});
