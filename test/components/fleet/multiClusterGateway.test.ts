import * as k8s from "@pulumi/kubernetes";
import { run } from "@bufbuild/cel";
import {
    MultiClusterGateway,
    MultiClusterGatewayArgs,
    importHealthCheck,
    multiClusterGatewayProblems,
} from "../../../components/fleet/multiClusterGateway";
import { MOCK_GATEWAY_ADDRESS } from "../../../scripts/offline/mocks";
import { CrdValidator } from "../../crds";
import { Graph, record, testProvider } from "../../harness";

const SERVICES = [
    { name: "qwen", namespace: "llm-inference", modelName: "Qwen/Qwen2.5-3B-Instruct" },
    { name: "phi3", namespace: "llm-inference", modelName: "microsoft/Phi-3-mini-4k-instruct" },
];
const REGIONS = ["us-east5", "us-south1"];
const IMPORT = (service: string) => ({ group: "networking.gke.io", kind: "GCPInferencePoolImport", name: `${service}-fleet` });

describe("MultiClusterGateway", () => {
    const validator = new CrdValidator();

    async function fleetGateway(certificate: MultiClusterGatewayArgs["certificate"] = { issuer: "ca-issuer", hostname: "llm.internal" }) {
        const outputs: { addresses?: string[]; url?: string; curl?: Record<string, unknown> } = {};
        const graph = await record(() => {
            const provider = testProvider();
            const certManager = new k8s.core.v1.Namespace("cert-manager-stand-in", { metadata: { name: "cm" } }, { provider });
            const fleet = new k8s.core.v1.Namespace("fleet-stand-in", { metadata: { name: "fleet" } }, { provider });
            const gateway = new MultiClusterGateway("fleet", {
                provider,
                gateway: { namespace: "inference-gateway", name: "inference" },
                regions: REGIONS,
                allowedRouteNamespaceLabels: { "gke-tpu-inference/routes": "true" },
                certificate,
                certManagerReady: certManager,
                services: SERVICES,
                fleetReady: [fleet],
            });
            gateway.addresses.apply((addresses) => (outputs.addresses = addresses));
            gateway.url.apply((url) => (outputs.url = url));
            for (const [service, curl] of Object.entries(gateway.curl)) {
                curl.apply((value) => (outputs.curl = { ...outputs.curl, [service]: value }));
            }
        });
        return { graph, outputs };
    }

    const customResources = (graph: Graph) => graph.resources.filter((resource) => resource.type.includes("."));

    test("the multi-cluster class with an ephemeral address per member region, HTTPS and the redirect; it waits for its certificate and the fleet", async () => {
        const { graph, outputs } = await fleetGateway();
        const gateway = graph.get("kubernetes:gateway.networking.k8s.io/v1:Gateway", "fleet-gateway");
        expect(gateway.inputs).toEqual({
            apiVersion: "gateway.networking.k8s.io/v1",
            kind: "Gateway",
            metadata: {
                name: "inference",
                namespace: "inference-gateway",
                annotations: { "pulumi.com/waitFor": "condition=Programmed", "pulumi.com/timeoutSeconds": "1800" },
            },
            spec: {
                gatewayClassName: "gke-l7-cross-regional-internal-managed-mc",
                addresses: [
                    { type: "networking.gke.io/ephemeral-ipv4-address/us-east5", value: "us-east5" },
                    { type: "networking.gke.io/ephemeral-ipv4-address/us-south1", value: "us-south1" },
                ],
                listeners: [
                    {
                        name: "https",
                        protocol: "HTTPS",
                        port: 443,
                        tls: { mode: "Terminate", certificateRefs: [{ kind: "Secret", group: "", name: "inference-tls" }] },
                        allowedRoutes: {
                            namespaces: { from: "Selector", selector: { matchLabels: { "gke-tpu-inference/routes": "true" } } },
                        },
                    },
                    { name: "http", protocol: "HTTP", port: 80, allowedRoutes: { namespaces: { from: "Same" } } },
                ],
            },
        });
        expect(graph.dependencyNames(gateway)).toEqual([
            "kubernetes:cert-manager.io/v1:Certificate fleet-certificate",
            "kubernetes:core/v1:Namespace fleet-ns",
            "kubernetes:core/v1:Namespace fleet-stand-in",
        ]);
        const certificate = graph.get("kubernetes:cert-manager.io/v1:Certificate", "fleet-certificate");
        expect(certificate.inputs.spec).toEqual({
            secretName: "inference-tls",
            dnsNames: ["llm.internal"],
            privateKey: { algorithm: "RSA", size: 2048 },
            issuerRef: { group: "cert-manager.io", kind: "ClusterIssuer", name: "ca-issuer" },
        });
        expect(graph.dependencyNames(certificate)).toEqual([
            "kubernetes:core/v1:Namespace cert-manager-stand-in",
            "kubernetes:core/v1:Namespace fleet-ns",
        ]);
        expect(graph.get("kubernetes:gateway.networking.k8s.io/v1:HTTPRoute", "fleet-https-redirect").inputs.spec).toEqual({
            parentRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: "inference", sectionName: "http" }],
            rules: [{ filters: [{ type: "RequestRedirect", requestRedirect: { scheme: "https", statusCode: 301 } }] }],
        });
        expect(outputs.addresses).toEqual([MOCK_GATEWAY_ADDRESS]);
        expect(outputs.url).toBe("https://llm.internal");
        expect(Object.keys(outputs.curl!)).toEqual(["qwen", "phi3"]);
        expect(JSON.stringify(outputs.curl!.qwen)).toContain("https://llm.internal/llm-inference/qwen/v1/models");
        // The Gateway, its Certificate and redirect, and per service the route and both policies naming the import.
        expect(customResources(graph)).toHaveLength(3 + 3 * SERVICES.length);
        for (const resource of customResources(graph)) {
            expect([resource.name, validator.errors(resource.inputs)]).toEqual([resource.name, []]);
        }
    });

    test("per service: a route of vLLM's routed prefixes and health check under its prefixes to its import, no port, after the fleet", async () => {
        const { graph } = await fleetGateway();
        for (const service of SERVICES) {
            const route = graph.get("kubernetes:gateway.networking.k8s.io/v1:HTTPRoute", `fleet-${service.name}-route`);
            const rule = (prefix: string, path: string) => ({
                backendRefs: [IMPORT(service.name)],
                matches: [{ path: { type: "PathPrefix", value: `${prefix}${path}` } }],
                filters: [{ type: "URLRewrite", urlRewrite: { path: { type: "ReplacePrefixMatch", replacePrefixMatch: path } } }],
            });
            expect(route.inputs).toEqual({
                apiVersion: "gateway.networking.k8s.io/v1",
                kind: "HTTPRoute",
                metadata: { name: `${service.name}-fleet`, namespace: "llm-inference" },
                spec: {
                    parentRefs: [
                        {
                            group: "gateway.networking.k8s.io",
                            kind: "Gateway",
                            name: "inference",
                            namespace: "inference-gateway",
                            sectionName: "https",
                        },
                    ],
                    rules: [`/llm-inference/${service.name}`, `/publishers/llm-inference/models/${service.modelName}`].flatMap((prefix) =>
                        ["/v1", "/health"].map((path) => rule(prefix, path)),
                    ),
                },
            });
            expect(graph.dependencyNames(route)).toEqual(["kubernetes:core/v1:Namespace fleet-stand-in"]);
            const health = graph.get("kubernetes:networking.gke.io/v1:HealthCheckPolicy", `fleet-${service.name}-health`);
            expect(health.inputs.spec).toEqual({
                targetRef: IMPORT(service.name),
                default: {
                    config: { type: "HTTP", httpHealthCheck: { requestPath: "/health", port: 8000, portSpecification: "USE_FIXED_PORT" } },
                },
            });
            expect(graph.dependencyNames(health)).toEqual(["kubernetes:core/v1:Namespace fleet-stand-in"]);
            const backend = graph.get("kubernetes:networking.gke.io/v1:GCPBackendPolicy", `fleet-${service.name}-backend`);
            expect(backend.inputs.spec).toEqual({ targetRef: IMPORT(service.name), default: { timeoutSec: 600 } });
            expect(graph.dependencyNames(backend)).toEqual(["kubernetes:core/v1:Namespace fleet-stand-in"]);
        }
    });

    test("the health check passes the CRD's CEL rules on the port, which a port without USE_FIXED_PORT breaks", () => {
        // networking.gke.io_healthcheckpolicies.yaml:280-292 (gke-gateway-api fc40d606), which ajv does not evaluate.
        const rules = [
            "self.portSpecification == 'USE_FIXED_PORT' ? has(self.port) && !has(self.portName) : true",
            "self.portSpecification == 'USE_NAMED_PORT' ? !has(self.port) && has(self.portName) : true",
            "self.portSpecification == 'USE_SERVING_PORT' || !has(self.portSpecification) ? !has(self.port) && !has(self.portName) : true",
        ];
        const check = importHealthCheck(SERVICES[0]).spec.default.config.httpHealthCheck;
        expect(rules.map((rule) => run(rule, { self: check }))).toEqual([true, true, true]);
        // GKE's setup page sets the port alone.
        const docsExample = { requestPath: check.requestPath, port: check.port };
        expect(run(rules[2], { self: docsExample })).toBe(false);
    });

    test("with the user's Secret: no Certificate, the listener serves the Secret, the URL is the first address GKE reports", async () => {
        const { graph, outputs } = await fleetGateway({ secretName: "corp-tls" });
        expect(graph.ofType("kubernetes:cert-manager.io/v1:Certificate")).toEqual([]);
        const gateway = graph.get("kubernetes:gateway.networking.k8s.io/v1:Gateway", "fleet-gateway");
        expect(gateway.inputs.spec).toMatchObject({
            listeners: [
                { name: "https", tls: { mode: "Terminate", certificateRefs: [{ kind: "Secret", group: "", name: "corp-tls" }] } },
                { name: "http" },
            ],
        });
        expect(graph.dependencyNames(gateway)).toEqual([
            "kubernetes:core/v1:Namespace fleet-ns",
            "kubernetes:core/v1:Namespace fleet-stand-in",
        ]);
        expect(outputs.url).toBe(`https://${MOCK_GATEWAY_ADDRESS}`);
    });

    test("refuses an issuer's certificate without a hostname or with an IP, no region, and a region or service twice", () => {
        const valid = { regions: REGIONS, services: SERVICES, certificate: { issuer: "ca", hostname: "llm.internal" } };
        expect(multiClusterGatewayProblems(valid)).toEqual([]);
        expect(multiClusterGatewayProblems({ ...valid, certificate: { issuer: "ca", ipAddress: "10.0.0.1" } })).toEqual([
            "an issuer's certificate cannot name an IP address: the Gateway's addresses are ephemeral",
            "an issuer's certificate needs a hostname: the Gateway's addresses are ephemeral, unknown before it is programmed",
        ]);
        expect(multiClusterGatewayProblems({ ...valid, regions: [] })).toEqual(["no member region to give an address"]);
        expect(multiClusterGatewayProblems({ ...valid, regions: ["us-east5", "us-east5"], services: [SERVICES[0], SERVICES[0]] })).toEqual([
            "a region appears twice in us-east5, us-east5",
            "a service appears twice in qwen, qwen",
        ]);
    });
});
