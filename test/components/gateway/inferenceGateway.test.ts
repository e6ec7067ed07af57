import * as k8s from "@pulumi/kubernetes";
import { installGkeGateway } from "../../../components/gateway/gkeProvider";
import { InferenceGateway } from "../../../components/gateway/inferenceGateway";
import { MOCK_GATEWAY_ADDRESS } from "../../../scripts/offline/mocks";
import { record, testProvider } from "../../harness";

describe("InferenceGateway", () => {
    async function gatewayFor(tlsSecret?: string) {
        let address: string | undefined;
        const graph = await record(() => {
            const provider = testProvider();
            const subnet = new k8s.core.v1.Namespace("proxy-only-stand-in", { metadata: { name: "stand-in" } }, { provider });
            const gateway = new InferenceGateway("edge", {
                provider,
                gateway: { className: "gke-l7-rilb", namespace: "edge", name: "llm", ...(tlsSecret ? { tlsSecret } : {}) },
                allowedRouteNamespaceLabels: { team: "ml" },
                gatewayProvider: installGkeGateway({ proxyOnlySubnetwork: subnet, networkServices: [] }),
            });
            gateway.address.apply((value) => (address = value));
        });
        return { gateway: graph.get("kubernetes:gateway.networking.k8s.io/v1:Gateway", "edge-gateway"), graph, address };
    }

    test("an HTTP listener for labelled namespaces, waiting until GKE has programmed it", async () => {
        const { gateway, graph, address } = await gatewayFor();
        expect(gateway.inputs).toEqual({
            apiVersion: "gateway.networking.k8s.io/v1",
            kind: "Gateway",
            metadata: {
                name: "llm",
                namespace: "edge",
                annotations: { "pulumi.com/waitFor": "condition=Programmed", "pulumi.com/timeoutSeconds": "1800" },
            },
            spec: {
                gatewayClassName: "gke-l7-rilb",
                listeners: [
                    {
                        name: "http",
                        protocol: "HTTP",
                        port: 80,
                        allowedRoutes: { namespaces: { from: "Selector", selector: { matchLabels: { team: "ml" } } } },
                    },
                ],
            },
        });
        expect(graph.dependencyNames(gateway)).toEqual([
            "kubernetes:core/v1:Namespace edge-ns",
            "kubernetes:core/v1:Namespace proxy-only-stand-in",
        ]);
        expect(address).toBe(MOCK_GATEWAY_ADDRESS);
    });

    test("adds an HTTPS listener terminating TLS with the configured secret", async () => {
        const { gateway } = await gatewayFor("llm-tls");
        const listeners = (gateway.inputs.spec as { listeners: unknown[] }).listeners;
        expect(listeners[1]).toEqual({
            name: "https",
            protocol: "HTTPS",
            port: 443,
            tls: { mode: "Terminate", certificateRefs: [{ kind: "Secret", group: "", name: "llm-tls" }] },
            allowedRoutes: { namespaces: { from: "Selector", selector: { matchLabels: { team: "ml" } } } },
        });
    });
});
