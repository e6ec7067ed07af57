import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { GatewayAddress } from "../../../components/gateway/gatewayAddress";
import {
    GatewayCertificateSource,
    InferenceGateway,
    caCertificateCommand,
    certificateSourceOf,
    signedByStackCa,
} from "../../../components/gateway/inferenceGateway";
import { stackNames } from "../../../components/lib/names";
import { MOCK_GATEWAY_ADDRESS } from "../../../scripts/offline/mocks";
import { CrdValidator } from "../../crds";
import { record, testProvider } from "../../harness";
import { testGkeInstall } from "./gatewayArgs";

const SELECTOR = { namespaces: { from: "Selector", selector: { matchLabels: { team: "ml" } } } };

describe("InferenceGateway", () => {
    const validator = new CrdValidator();

    async function gatewayFor(certificate: GatewayCertificateSource = { issuer: "ca-issuer", ipAddress: "198.51.100.20" }) {
        let address: string | undefined;
        const graph = await record(() => {
            const provider = testProvider();
            const subnet = new k8s.core.v1.Namespace("proxy-only-stand-in", { metadata: { name: "stand-in" } }, { provider });
            const certManager = new k8s.core.v1.Namespace("cert-manager-stand-in", { metadata: { name: "cm" } }, { provider });
            const gateway = new InferenceGateway("edge", {
                provider,
                gateway: { className: "gke-l7-rilb", namespace: "edge", name: "llm" },
                allowedRouteNamespaceLabels: { team: "ml" },
                gatewayProvider: testGkeInstall(provider, { proxyOnlySubnetwork: subnet, access: { modelArmor: true } }),
                address: { type: "NamedAddress", value: "tpu-inference-test-gateway" },
                certificate,
                certManagerReady: certManager,
                url: pulumi.output("https://198.51.100.20"),
            });
            gateway.address.apply((value) => (address = value));
        });
        return { gateway: graph.get("kubernetes:gateway.networking.k8s.io/v1:Gateway", "edge-gateway"), graph, address };
    }

    test("HTTPS on the reserved address for labelled namespaces, plain HTTP for the redirect only; it waits for its certificate and its screening", async () => {
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
                addresses: [{ type: "NamedAddress", value: "tpu-inference-test-gateway" }],
                listeners: [
                    {
                        name: "https",
                        protocol: "HTTPS",
                        port: 443,
                        tls: { mode: "Terminate", certificateRefs: [{ kind: "Secret", group: "", name: "llm-tls" }] },
                        allowedRoutes: SELECTOR,
                    },
                    { name: "http", protocol: "HTTP", port: 80, allowedRoutes: { namespaces: { from: "Same" } } },
                ],
            },
        });
        expect(graph.dependencyNames(gateway)).toEqual([
            "kubernetes:cert-manager.io/v1:Certificate edge-certificate",
            "kubernetes:core/v1:Namespace edge-ns",
            "kubernetes:core/v1:Namespace proxy-only-stand-in",
            "kubernetes:networking.gke.io/v1:GCPTrafficExtension edge-model-armor-extension",
        ]);
        expect(address).toBe(MOCK_GATEWAY_ADDRESS);
        expect(validator.errors(gateway.inputs)).toEqual([]);
    });

    test("the stack's CA signs a certificate for the address (and the hostname), once cert-manager answers", async () => {
        const { graph } = await gatewayFor({ issuer: "ca-issuer", ipAddress: "198.51.100.20", hostname: "llm.example.com" });
        const certificate = graph.get("kubernetes:cert-manager.io/v1:Certificate", "edge-certificate");
        expect(certificate.inputs).toEqual({
            apiVersion: "cert-manager.io/v1",
            kind: "Certificate",
            metadata: { name: "llm-tls", namespace: "edge", annotations: { "pulumi.com/waitFor": "condition=Ready" } },
            spec: {
                secretName: "llm-tls",
                dnsNames: ["llm.example.com"],
                ipAddresses: ["198.51.100.20"],
                privateKey: { algorithm: "RSA", size: 2048 },
                issuerRef: { group: "cert-manager.io", kind: "ClusterIssuer", name: "ca-issuer" },
            },
        });
        expect(graph.dependencyNames(certificate)).toEqual([
            "kubernetes:core/v1:Namespace cert-manager-stand-in",
            "kubernetes:core/v1:Namespace edge-ns",
        ]);
        expect(validator.errors(certificate.inputs)).toEqual([]);
    });

    test("plain HTTP answers with a permanent redirect to HTTPS, from a route on the http listener", async () => {
        const { graph } = await gatewayFor();
        const redirect = graph.get("kubernetes:gateway.networking.k8s.io/v1:HTTPRoute", "edge-https-redirect");
        expect(redirect.inputs).toEqual({
            apiVersion: "gateway.networking.k8s.io/v1",
            kind: "HTTPRoute",
            metadata: { name: "llm-https-redirect", namespace: "edge" },
            spec: {
                parentRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: "llm", sectionName: "http" }],
                rules: [{ filters: [{ type: "RequestRedirect", requestRedirect: { scheme: "https", statusCode: 301 } }] }],
            },
        });
        expect(validator.errors(redirect.inputs)).toEqual([]);
    });

    test("a Secret of the user's: no certificate is issued, the listener serves that Secret", async () => {
        const { gateway, graph } = await gatewayFor({ secretName: "my-tls" });
        expect(graph.ofType("kubernetes:cert-manager.io/v1:Certificate")).toEqual([]);
        const listeners = (gateway.inputs.spec as { listeners: Array<{ tls?: unknown }> }).listeners;
        expect(listeners[0].tls).toEqual({ mode: "Terminate", certificateRefs: [{ kind: "Secret", group: "", name: "my-tls" }] });
    });
});

describe("where the Gateway's certificate comes from, as the settings choose it", () => {
    const STACK_CA = { issuer: "tpu-inference-ca-issuer", ipAddress: "198.51.100.20" };
    const gateway = (settings: { tlsSecret?: string; certificateIssuer?: string; hostname?: string }) => ({
        namespace: "inference-gateway",
        name: "inference-gateway",
        ...settings,
    });

    test.each([
        ["nothing of the user's: the stack's CA, for the address", gateway({}), { ...STACK_CA, hostname: undefined }, true],
        [
            "a hostname: the stack's CA, for the address and the name",
            gateway({ hostname: "llm.example.com" }),
            { ...STACK_CA, hostname: "llm.example.com" },
            true,
        ],
        [
            "an issuer of the user's: it signs the hostname",
            gateway({ certificateIssuer: "letsencrypt", hostname: "llm.example.com" }),
            { issuer: "letsencrypt", hostname: "llm.example.com" },
            false,
        ],
        ["a Secret of the user's: no certificate is issued", gateway({ tlsSecret: "my-tls" }), { secretName: "my-tls" }, false],
    ])("%s", (_case, settings, source, stackCa) => {
        expect(certificateSourceOf(settings, STACK_CA)).toEqual(source);
        expect(signedByStackCa(settings)).toBe(stackCa);
    });

    test("the command that writes the stack's CA reads the certificate's Secret in the Gateway's namespace", () => {
        expect(caCertificateCommand(gateway({}))).toBe(
            "kubectl get secret -n inference-gateway inference-gateway-tls -o jsonpath='{.data.ca\\.crt}' | base64 -d > ca.crt",
        );
    });
});

describe("the reserved address as a Gateway names it", () => {
    test.each([
        ["NamedAddress", "tpu-inference-test-gateway"],
        ["IPAddress", MOCK_GATEWAY_ADDRESS],
    ] as const)("%s: %s", async (type, value) => {
        let address: { type: string; value: pulumi.Output<string> } | undefined;
        await record(() => {
            const reserved = new GatewayAddress("inference", {
                project: "acme-inference",
                region: "europe-west4",
                internal: false,
                subnetworkId: "nodes",
                names: stackNames("tpu-inference", "test"),
                dependsOn: [],
            });
            address = reserved.specAddress(type);
        });
        expect(address!.type).toBe(type);
        expect(await new Promise((resolve) => address!.value.apply(resolve))).toBe(value);
    });
});
