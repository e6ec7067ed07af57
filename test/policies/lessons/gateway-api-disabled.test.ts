/**
 * Lesson gateway-api-disabled, the whole category: a gcp.container.Cluster on which GKE runs no Gateway controller
 * (gatewayApiConfig absent, its channel unset or CHANNEL_DISABLED, HTTP load balancing off, routes-based networking) is
 * caught; the standard and experimental channels, an Autopilot cluster (Gateway API on by default), and a Standard
 * cluster left to the provider's VPC-native default are left alone.
 */
import {
    gatewayApiChannelMessage,
    httpLoadBalancingMessage,
    notVpcNativeMessage,
    requireGatewayApiOnCluster as policy,
} from "../../../policies/requireGatewayApiOnCluster";
import { cluster } from "../fixtures";
import { check } from "../harness";

const verdict = async (props: Record<string, unknown>) => (await check(policy, [cluster(props)])).map((finding) => finding.message);

describe("lesson gateway-api-disabled: every cluster setting that leaves GKE without a Gateway controller", () => {
    test.each([
        ["no gatewayApiConfig", { gatewayApiConfig: undefined }, null],
        ["gatewayApiConfig without a channel", { gatewayApiConfig: {} }, null],
        ["CHANNEL_DISABLED", { gatewayApiConfig: { channel: "CHANNEL_DISABLED" } }, "CHANNEL_DISABLED"],
        [
            "Autopilot with CHANNEL_DISABLED",
            { enableAutopilot: true, gatewayApiConfig: { channel: "CHANNEL_DISABLED" } },
            "CHANNEL_DISABLED",
        ],
    ])("%s is caught", async (_, props, channel) => {
        expect(await verdict(props)).toEqual([gatewayApiChannelMessage("gke", channel)]);
    });

    test.each(["CHANNEL_STANDARD", "CHANNEL_EXPERIMENTAL"])("%s is clean, on Standard and Autopilot", async (channel) => {
        expect(await verdict({ gatewayApiConfig: { channel } })).toEqual([]);
        expect(await verdict({ enableAutopilot: true, gatewayApiConfig: { channel } })).toEqual([]);
    });

    test("an Autopilot cluster without gatewayApiConfig is clean: GKE enables the Gateway API there by default", async () => {
        expect(
            await verdict({ enableAutopilot: true, gatewayApiConfig: undefined, networkingMode: undefined, ipAllocationPolicy: undefined }),
        ).toEqual([]);
        expect(await verdict({ enableAutopilot: false, gatewayApiConfig: undefined })).toEqual([gatewayApiChannelMessage("gke", null)]);
    });

    test("the HTTP load balancing add-on disabled is caught; enabled or left to its default is clean", async () => {
        expect(await verdict({ addonsConfig: { httpLoadBalancing: { disabled: true } } })).toEqual([httpLoadBalancingMessage("gke")]);
        for (const addonsConfig of [undefined, {}, { httpLoadBalancing: {} }, { httpLoadBalancing: { disabled: false } }]) {
            expect(await verdict({ addonsConfig })).toEqual([]);
        }
    });

    test("routes-based networking is caught; VPC_NATIVE, or networkingMode left to the provider's VPC_NATIVE default, is clean", async () => {
        expect(await verdict({ networkingMode: "ROUTES", ipAllocationPolicy: undefined })).toEqual([notVpcNativeMessage("gke")]);
        expect(await verdict({ networkingMode: "VPC_NATIVE" })).toEqual([]);
        expect(await verdict({ networkingMode: undefined })).toEqual([]);
        expect(await verdict({ networkingMode: undefined, ipAllocationPolicy: undefined })).toEqual([]);
    });

    test("every problem at once: each reported in its own words", async () => {
        expect(
            await verdict({
                gatewayApiConfig: { channel: "CHANNEL_DISABLED" },
                addonsConfig: { httpLoadBalancing: { disabled: true } },
                networkingMode: "ROUTES",
            }),
        ).toEqual([gatewayApiChannelMessage("gke", "CHANNEL_DISABLED"), httpLoadBalancingMessage("gke"), notVpcNativeMessage("gke")]);
    });
});
