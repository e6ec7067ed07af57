import { requireGatewayApiOnCluster as policy } from "../../policies/requireGatewayApiOnCluster";
import { cluster, tpuPool } from "./fixtures";
import { UNKNOWN, check } from "./harness";

describe("require-gateway-api-on-cluster", () => {
    test("passes the Gateway API standard channel with the add-on on a VPC-native cluster", async () => {
        expect(await check(policy, [cluster()])).toEqual([]);
    });

    test("fails each missing piece with its own message", async () => {
        const bad = cluster({
            gatewayApiConfig: undefined,
            addonsConfig: { httpLoadBalancing: { disabled: true } },
            networkingMode: "ROUTES",
        });
        expect((await check(policy, [bad])).map((violation) => violation.message)).toEqual([
            "Cluster gke has gatewayApiConfig.channel = null; GKE installs no GatewayClasses unless it is CHANNEL_STANDARD.",
            "Cluster gke disables the HttpLoadBalancing add-on, which GKE's Gateway controller needs.",
            "Cluster gke is not VPC-native; GKE Gateways need networkingMode VPC_NATIVE with an ipAllocationPolicy.",
        ]);
        expect(await check(policy, [cluster({ gatewayApiConfig: { channel: "CHANNEL_DISABLED" } })])).toEqual([
            {
                level: "mandatory",
                resource: "gke",
                message:
                    'Cluster gke has gatewayApiConfig.channel = "CHANNEL_DISABLED"; GKE installs no GatewayClasses unless it is CHANNEL_STANDARD.',
            },
        ]);
    });

    test("not applicable: node pools", async () => {
        expect(await check(policy, [tpuPool()])).toEqual([]);
    });

    test("preview: an unknown channel is not a violation", async () => {
        expect((await check(policy, [cluster({ gatewayApiConfig: UNKNOWN })]))[0].level).toBe("advisory");
    });
});
