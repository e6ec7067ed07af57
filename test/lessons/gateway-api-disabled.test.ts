/**
 * Lesson gateway-api-disabled, the whole category: a GKE cluster that something in the stack needs the Gateway API on
 * (a Gateway, a route, an InferencePool, an LLMInferenceService with a router, GKE's Gateway policies), reached through
 * a provider built from the cluster or the default provider of a one-cluster stack, and on which GKE runs no Gateway API
 * (gatewayApiConfig absent, its channel unset or CHANNEL_DISABLED) or no Gateway controller for GKE's classes (HTTP load
 * balancing off, routes-based networking) is caught. A cluster nothing needs it on, one the program does not show an
 * object reaching, the standard and experimental channels, Autopilot's default, and a stack that installs the Gateway
 * API's CRDs itself for another implementation are left alone.
 */
import {
    gatewayApiChannelMessage,
    httpLoadBalancingMessage,
    notVpcNativeMessage,
    requireGatewayApiOnCluster as policy,
} from "../../policies/requireGatewayApiOnCluster";
import { RecordedResource } from "../../scripts/offline/recorder";
import { HTTP_HEALTH, cluster, gateway, llmService, poolPolicy } from "../support/fixtures";
import { UNKNOWN, check, kube, resource } from "../support/harness";

describe("every spelling", () => {
    type Obj = Record<string, unknown>;

    const verdict = async (...resources: RecordedResource[]) =>
        (await check(policy, resources)).map((finding) => `${finding.resource}: ${finding.message}`);
    const OFF = { gatewayApiConfig: undefined };
    const GATEWAY = ["Gateway gateway/inference-gateway"];

    /** A Kubernetes provider configured from `target`'s outputs (it waits for the cluster). */
    const providerFor = (target: RecordedResource, name = `${target.name}-k8s`) =>
        resource("pulumi:providers:kubernetes", name, { kubeconfig: "apiVersion: v1" }, { dependencies: [target] });
    /** `object` registered with `provider`. */
    const on = (object: RecordedResource, provider: RecordedResource): RecordedResource => ({
        ...object,
        provider: `${provider.urn}::${provider.name}-id`,
    });
    const route = (body: Obj = {}) =>
        kube("gateway.networking.k8s.io/v1", "HTTPRoute", "qwen", {
            metadata: { name: "qwen", namespace: "models" },
            spec: { parentRefs: [{ name: "inference-gateway", namespace: "gateway" }], ...body },
        });
    const gatewayApiCrd = (kind: string) =>
        kube("apiextensions.k8s.io/v1", "CustomResourceDefinition", `${kind.toLowerCase()}s`, {
            metadata: { name: `${kind.toLowerCase()}s.gateway.networking.k8s.io` },
            spec: { group: "gateway.networking.k8s.io", names: { kind } },
        });

    describe("lesson gateway-api-disabled: a cluster serving Gateway API objects without GKE's Gateway API", () => {
        test.each([
            ["no gatewayApiConfig", { gatewayApiConfig: undefined }, undefined],
            ["gatewayApiConfig without a channel", { gatewayApiConfig: {} }, undefined],
            ["CHANNEL_DISABLED", { gatewayApiConfig: { channel: "CHANNEL_DISABLED" } }, "CHANNEL_DISABLED"],
            [
                "Autopilot with CHANNEL_DISABLED",
                { enableAutopilot: true, gatewayApiConfig: { channel: "CHANNEL_DISABLED" } },
                "CHANNEL_DISABLED",
            ],
        ])("%s is caught, in words that say what was set", async (_, props, channel) => {
            expect(await verdict(cluster(props), gateway())).toEqual([`gke: ${gatewayApiChannelMessage("gke", channel, GATEWAY)}`]);
        });

        test("the message says a channel was never set, and sets one only when one was", () => {
            expect(gatewayApiChannelMessage("gke", undefined, GATEWAY)).toBe(
                "Cluster gke does not set gatewayApiConfig.channel, so GKE installs neither the Gateway API nor its controller there; Gateway gateway/inference-gateway needs them: set it to CHANNEL_STANDARD.",
            );
            expect(gatewayApiChannelMessage("gke", "CHANNEL_DISABLED", ["a", "b", "c", "d", "e"])).toBe(
                "Cluster gke sets gatewayApiConfig.channel CHANNEL_DISABLED, so GKE installs neither the Gateway API nor its controller there; a, b, c and 2 more need them: set it to CHANNEL_STANDARD.",
            );
        });

        test.each([
            ["a Gateway of GKE's classes", () => gateway(), GATEWAY],
            ["a Gateway of another implementation", () => gateway("istio"), GATEWAY],
            ["an HTTPRoute", () => route(), ["HTTPRoute models/qwen"]],
            [
                "an InferencePool",
                () => kube("inference.networking.k8s.io/v1", "InferencePool", "pool", { metadata: { name: "pool", namespace: "models" } }),
                ["InferencePool models/pool"],
            ],
            ["an LLMInferenceService with a router", () => llmService(), ["LLMInferenceService models/qwen"]],
            ["a HealthCheckPolicy", () => poolPolicy("HealthCheckPolicy", HTTP_HEALTH), ["HealthCheckPolicy models/qwen-inference-pool"]],
        ])("caught: %s on the cluster", async (_, object, needing) => {
            expect(await verdict(cluster(OFF), object())).toEqual([`gke: ${gatewayApiChannelMessage("gke", undefined, needing)}`]);
        });

        test("clean: a cluster with nothing that needs the Gateway API, whatever its channel", async () => {
            const web = kube("apps/v1", "Deployment", "web", { metadata: { name: "web", namespace: "default" }, spec: {} });
            const service = kube("v1", "Service", "web", { metadata: { name: "web" }, spec: { type: "LoadBalancer" } });
            expect(await verdict(cluster(OFF), web, service)).toEqual([]);
            expect(await verdict(cluster({ gatewayApiConfig: { channel: "CHANNEL_DISABLED" } }))).toEqual([]);
            const withoutRouter = llmService();
            (withoutRouter.wire.inputs.spec as Obj).router = undefined;
            expect(await verdict(cluster(OFF), withoutRouter)).toEqual([]);
        });

        test("only the cluster an object reaches is judged: through its provider, or the default provider of a one-cluster stack", async () => {
            const serving = cluster(OFF);
            const batch = resource("gcp:container/cluster:Cluster", "batch", { ...cluster(OFF).wire.inputs, name: "batch" });
            const servingK8s = providerFor(serving);
            const batchK8s = providerFor(batch);
            expect(await verdict(serving, batch, servingK8s, batchK8s, on(gateway(), servingK8s))).toEqual([
                `gke: ${gatewayApiChannelMessage("gke", undefined, GATEWAY)}`,
            ]);
            // Through a provider built from a kubeconfig the cluster's outputs went into.
            const kubeconfig = resource("random:index:RandomString", "kubeconfig", {}, { dependencies: [batch] });
            const viaKubeconfig = resource("pulumi:providers:kubernetes", "via", {}, { dependencies: [kubeconfig] });
            expect(await verdict(serving, batch, kubeconfig, viaKubeconfig, on(gateway(), viaKubeconfig))).toEqual([
                `batch: ${gatewayApiChannelMessage("batch", undefined, GATEWAY)}`,
            ]);
            // The default provider of a stack with two clusters, or a provider the program builds from elsewhere: not shown.
            expect(await verdict(serving, batch, gateway())).toEqual([]);
            const elsewhere = resource("pulumi:providers:kubernetes", "elsewhere", { kubeconfig: "~/.kube/config" });
            expect(await verdict(serving, elsewhere, on(gateway(), elsewhere))).toEqual([]);
        });

        test("a chart's objects reach the cluster of the chart's provider", async () => {
            const serving = cluster(OFF);
            const k8s = providerFor(serving);
            const chart = on(resource("kubernetes:helm.sh/v4:Chart", "gateway-chart", {}), k8s);
            const rendered: RecordedResource = { ...gateway(), parent: chart.urn };
            const other = resource("gcp:container/cluster:Cluster", "other", { ...serving.wire.inputs, name: "other" });
            expect(await verdict(serving, other, k8s, chart, rendered)).toEqual([
                `gke: ${gatewayApiChannelMessage("gke", undefined, GATEWAY)}`,
            ]);
        });

        test("another implementation with the Gateway API's CRDs installed by the stack is clean; a GKE class still needs GKE's", async () => {
            expect(await verdict(cluster(OFF), gatewayApiCrd("Gateway"), gatewayApiCrd("HTTPRoute"), gateway("istio"), route())).toEqual(
                [],
            );
            expect(await verdict(cluster(OFF), gatewayApiCrd("Gateway"), gateway("istio"), route())).toEqual([
                `gke: ${gatewayApiChannelMessage("gke", undefined, ["HTTPRoute models/qwen"])}`,
            ]);
            expect(await verdict(cluster(OFF), gatewayApiCrd("Gateway"), gateway())).toEqual([
                `gke: ${gatewayApiChannelMessage("gke", undefined, GATEWAY)}`,
            ]);
        });

        test("another implementation's objects with an installer the stack does not show (a Helm release, a manifest not rendered) are left alone: it may bring the CRDs; a GKE class is not", async () => {
            const envoyClass = kube("gateway.networking.k8s.io/v1", "GatewayClass", "eg", {
                metadata: { name: "eg" },
                spec: { controllerName: "gateway.envoyproxy.io/gatewayclass-controller" },
            });
            const release = resource("kubernetes:helm.sh/v3:Release", "envoy-gateway", {
                chart: "oci://docker.io/envoyproxy/gateway-helm",
                version: "v1.2.6",
            });
            const manifest = resource("kubernetes:yaml/v2:ConfigFile", "gateway-api", {
                file: "https://github.com/kubernetes-sigs/gateway-api/releases/download/v1.2.1/standard-install.yaml",
            });
            for (const installer of [release, manifest]) {
                expect(await verdict(cluster(OFF), installer, envoyClass, gateway("eg"), route())).toEqual([]);
                expect(await verdict(cluster(OFF), installer, gateway())).toEqual([
                    `gke: ${gatewayApiChannelMessage("gke", undefined, GATEWAY)}`,
                ]);
            }
            // A manifest whose objects the stack shows brings no CRD it does not show; a cluster-scoped class is named without a namespace.
            const rendered: RecordedResource = {
                ...kube("v1", "Namespace", "envoy", { metadata: { name: "envoy" } }),
                parent: manifest.urn,
            };
            expect(await verdict(cluster(OFF), manifest, rendered, envoyClass, gateway("eg"))).toEqual([
                `gke: ${gatewayApiChannelMessage("gke", undefined, ["Gateway gateway/inference-gateway", "GatewayClass eg"])}`,
            ]);
        });

        test("the default provider is the only cluster's only when the program reaches it no other way", async () => {
            const batch = cluster(OFF);
            const k8s = providerFor(batch);
            expect(await verdict(batch, k8s, on(kube("v1", "Namespace", "apps", { metadata: { name: "apps" } }), k8s), route())).toEqual(
                [],
            );
            expect(await verdict(batch, route())).toEqual([
                `gke: ${gatewayApiChannelMessage("gke", undefined, ["HTTPRoute models/qwen"])}`,
            ]);
        });

        test.each(["CHANNEL_STANDARD", "CHANNEL_EXPERIMENTAL"])("%s is clean, on Standard and Autopilot", async (channel) => {
            expect(await verdict(cluster({ gatewayApiConfig: { channel } }), gateway())).toEqual([]);
            expect(await verdict(cluster({ enableAutopilot: true, gatewayApiConfig: { channel } }), gateway())).toEqual([]);
        });

        test("an Autopilot cluster without gatewayApiConfig is clean: GKE enables the Gateway API there by default", async () => {
            const autopilot = {
                enableAutopilot: true,
                gatewayApiConfig: undefined,
                networkingMode: undefined,
                ipAllocationPolicy: undefined,
            };
            expect(await verdict(cluster(autopilot), gateway())).toEqual([]);
            expect(await verdict(cluster({ enableAutopilot: false, gatewayApiConfig: undefined }), gateway())).toEqual([
                `gke: ${gatewayApiChannelMessage("gke", undefined, GATEWAY)}`,
            ]);
        });

        test("the HTTP load balancing add-on disabled is caught where GKE's controller serves something; left alone otherwise", async () => {
            const off = { addonsConfig: { httpLoadBalancing: { disabled: true } } };
            expect(await verdict(cluster(off), gateway())).toEqual([`gke: ${httpLoadBalancingMessage("gke", GATEWAY)}`]);
            expect(await verdict(cluster(off), gateway("istio"))).toEqual([]);
            for (const addonsConfig of [undefined, {}, { httpLoadBalancing: {} }, { httpLoadBalancing: { disabled: false } }]) {
                expect(await verdict(cluster({ addonsConfig }), gateway())).toEqual([]);
            }
        });

        test("routes-based networking is caught where GKE's controller serves something; VPC_NATIVE or the provider's default is clean", async () => {
            expect(await verdict(cluster({ networkingMode: "ROUTES", ipAllocationPolicy: undefined }), gateway())).toEqual([
                `gke: ${notVpcNativeMessage("gke", GATEWAY)}`,
            ]);
            expect(await verdict(cluster({ networkingMode: "ROUTES" }), gateway("istio"))).toEqual([]);
            expect(await verdict(cluster({ networkingMode: "VPC_NATIVE" }), gateway())).toEqual([]);
            expect(await verdict(cluster({ networkingMode: undefined, ipAllocationPolicy: undefined }), gateway())).toEqual([]);
        });

        test("preview: a channel unknown until the cluster exists is not judged (the SDK's advisory note), and no violation", async () => {
            const findings = await check(policy, [cluster({ gatewayApiConfig: UNKNOWN }), gateway()]);
            expect(findings.map((finding) => finding.level)).toEqual(["advisory"]);
        });

        test("every problem at once: each reported in its own words", async () => {
            const broken = cluster({
                gatewayApiConfig: { channel: "CHANNEL_DISABLED" },
                addonsConfig: { httpLoadBalancing: { disabled: true } },
                networkingMode: "ROUTES",
            });
            expect(await verdict(broken, gateway())).toEqual([
                `gke: ${gatewayApiChannelMessage("gke", "CHANNEL_DISABLED", GATEWAY)}`,
                `gke: ${httpLoadBalancingMessage("gke", GATEWAY)}`,
                `gke: ${notVpcNativeMessage("gke", GATEWAY)}`,
            ]);
        });
    });
});
