/** What the gateway providers are installed with in the components' tests. */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { installGkeGateway } from "../../../components/gateway/gkeProvider";
import { GatewayProviderContext } from "../../../components/gateway/provider";
import { stackNames } from "../../../components/lib/names";
import { GatewayAccessSettings, GatewaySettings } from "../../../components/settings/gateway";

/** One allowed range, the default rate and the key only: what a stack that sets allowedSourceRanges gets. */
export const TEST_ACCESS: GatewayAccessSettings = {
    allowedSourceRanges: ["203.0.113.0/24"],
    rateLimitPerMinute: 600,
    identity: "api-key",
    allowedIdentities: [],
    modelArmor: false,
};

/** Where the providers' GCP objects go in the tests. */
export const TEST_GCP: GatewayProviderContext["gcp"] = {
    project: "acme-inference",
    region: "europe-west4",
    projectNumber: "123456789012",
    names: stackNames("tpu-inference", "test"),
    manageProjectApis: true,
    compute: [],
};

/** The stack's default Gateway behind GKE's provider, with {@link TEST_ACCESS}. */
export const TEST_GKE_GATEWAY: Extract<GatewaySettings, { provider: "gke" }> = {
    provider: "gke",
    className: "gke-l7-regional-external-managed",
    namespace: "inference-gateway",
    name: "inference-gateway",
    servingNamespace: "llm-inference",
    access: TEST_ACCESS,
};

/** GKE's provider as the stack installs it, with `access` over {@link TEST_ACCESS}. */
export function testGkeInstall(
    provider: k8s.Provider,
    options: {
        access?: Partial<GatewayAccessSettings>;
        proxyOnlySubnetwork?: pulumi.Resource;
        iapClientSecret?: pulumi.Input<string>;
    } = {},
) {
    return installGkeGateway({
        provider,
        webhookPrerequisites: [],
        networkServices: [],
        gateway: { ...TEST_GKE_GATEWAY, access: { ...TEST_ACCESS, ...options.access } },
        gcp: TEST_GCP,
        ...(options.proxyOnlySubnetwork ? { proxyOnlySubnetwork: options.proxyOnlySubnetwork } : {}),
        ...(options.iapClientSecret !== undefined ? { iapClientSecret: options.iapClientSecret } : {}),
    });
}
