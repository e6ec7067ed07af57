import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { run } from "@bufbuild/cel";
import { BodyBasedRouter, ModelRoutingEndpoint } from "../../../components/gateway/bodyBasedRouter";
import { rootInferenceMatcher } from "../../../components/gateway/gkeProvider";
import { testGkeInstall } from "./gatewayArgs";
import { CrdValidator } from "../../crds";
import { Graph, record } from "../../harness";

describe("BodyBasedRouter", () => {
    let graph: Graph;
    let endpoint: ModelRoutingEndpoint | undefined;
    beforeAll(async () => {
        graph = await record(() => {
            const provider = new k8s.Provider("k8s", { kubeconfig: "{}" });
            const namespace = new k8s.core.v1.Namespace("gateway-ns", { metadata: { name: "inference-gateway" } }, { provider });
            const router = new BodyBasedRouter("bbr", {
                provider,
                gateway: { namespace: namespace.metadata.name, name: "inference-gateway" },
                gatewayProvider: testGkeInstall(provider),
                models: [
                    { service: "qwen", baseModel: "Qwen/Qwen2.5-3B-Instruct", adapters: ["qwen-sql", "qwen-chat"] },
                    { service: "phi", baseModel: "microsoft/Phi-3-mini-4k-instruct", adapters: [] },
                ],
                servingNamespace: "llm-inference",
                gatewayUrl: pulumi.output("https://203.0.113.7"),
            });
            router.endpoint.apply((value) => (endpoint = value));
        });
    });

    test("the pinned upstream chart beside the Gateway, with its own GKE objects off", () => {
        const chart = graph.get("kubernetes:helm.sh/v4:Chart", "bbr-chart");
        expect(chart.inputs).toMatchObject({
            chart: "oci://registry.k8s.io/gateway-api-inference-extension/charts/body-based-routing",
            version: "v1.5.0",
            namespace: "inference-gateway",
            values: { bbr: { replicas: 2, image: { pullPolicy: "IfNotPresent" } }, provider: { name: "none" } },
        });
        expect(graph.dependencyNames(chart)).toEqual(["kubernetes:core/v1:Namespace gateway-ns"]);
    });

    test("a routing extension on the Gateway sends the router headers, the whole body and trailers, as GKE's CRD requires", () => {
        const extension = graph.get("kubernetes:networking.gke.io/v1:GCPRoutingExtension", "bbr-extension");
        expect(extension.inputs).toEqual({
            apiVersion: "networking.gke.io/v1",
            kind: "GCPRoutingExtension",
            metadata: { name: "body-based-router", namespace: "inference-gateway" },
            spec: {
                targetRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: "inference-gateway" }],
                extensionChains: [
                    {
                        name: "model-from-body",
                        matchCondition: {
                            celExpressions: [
                                {
                                    celMatcher:
                                        "request.method == 'POST' && (" +
                                        [
                                            "/v1/completions",
                                            "/v1/completions/",
                                            "/v1/chat/completions",
                                            "/v1/chat/completions/",
                                            "/v1/responses",
                                            "/v1/responses/",
                                            "/v1/messages",
                                            "/v1/messages/",
                                        ]
                                            .map((path) => `request.path == '${path}'`)
                                            .join(" || ") +
                                        ")",
                                },
                            ],
                        },
                        extensions: [
                            {
                                name: "body-based-router",
                                authority: "body-based-router.inference-gateway.svc",
                                timeout: "1s",
                                supportedEvents: ["RequestHeaders", "RequestBody", "RequestTrailers"],
                                requestBodySendMode: "FullDuplexStreamed",
                                backendRef: { group: "", kind: "Service", name: "body-based-router", port: 9004 },
                            },
                        ],
                    },
                ],
            },
        });
        const validator = new CrdValidator();
        expect(validator.errors(extension.inputs)).toEqual([]);
        // The CRD's CEL rules, which a JSON-Schema validator does not run: a 10 ms-10 s timeout, an authority with a
        // backendRef, and RequestBody and RequestTrailers for FullDuplexStreamed.
        const [ext] = (extension.inputs.spec as { extensionChains: Array<{ extensions: Array<Record<string, unknown>> }> })
            .extensionChains[0].extensions;
        expect(ext.authority).not.toBe("");
        expect(ext.supportedEvents).toEqual(expect.arrayContaining(["RequestBody", "RequestTrailers"]));
    });

    test("the extension runs for POSTs to the root's inference paths only: per-service paths, /health and GETs never wait on the router", () => {
        const matcher = rootInferenceMatcher();
        const evaluate = (method: string, path: string) =>
            run(matcher, {
                request: new Map([
                    ["method", method],
                    ["path", path],
                ]),
            });
        expect(evaluate("POST", "/v1/chat/completions")).toBe(true);
        expect(evaluate("POST", "/v1/completions/")).toBe(true);
        expect(evaluate("GET", "/v1/chat/completions")).toBe(false);
        expect(evaluate("POST", "/llm-inference/qwen/v1/chat/completions")).toBe(false);
        expect(evaluate("POST", "/publishers/llm-inference/models/Qwen/v1/completions")).toBe(false);
        expect(evaluate("GET", "/llm-inference/qwen/health")).toBe(false);
        // GKE's CRD allows at most 512 characters; the schema validation above checks its token pattern.
        expect(matcher.length).toBeLessThanOrEqual(512);
    });

    test("highly available: two replicas spread over nodes, ready on the router's gRPC health, and a budget that keeps one", () => {
        const patch = graph.get("kubernetes:apps/v1:DeploymentPatch", "bbr-availability");
        const selector = { matchLabels: { app: "body-based-router" } };
        expect(patch.inputs).toEqual({
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name: "body-based-router", namespace: "inference-gateway" },
            spec: {
                template: {
                    spec: {
                        topologySpreadConstraints: [
                            {
                                maxSkew: 1,
                                topologyKey: "kubernetes.io/hostname",
                                whenUnsatisfiable: "DoNotSchedule",
                                // Tainted TPU nodes are no domains: a rolling update needs no third system node.
                                nodeTaintsPolicy: "Honor",
                                labelSelector: selector,
                            },
                            {
                                maxSkew: 1,
                                topologyKey: "topology.kubernetes.io/zone",
                                whenUnsatisfiable: "ScheduleAnyway",
                                nodeTaintsPolicy: "Honor",
                                labelSelector: selector,
                            },
                        ],
                        containers: [{ name: "bbr", readinessProbe: { grpc: { port: 9005 }, periodSeconds: 5, failureThreshold: 2 } }],
                    },
                },
            },
        });
        expect(graph.dependencyNames(patch)).toEqual(["kubernetes:core/v1:Namespace gateway-ns", "kubernetes:helm.sh/v4:Chart bbr-chart"]);
        expect(graph.get("kubernetes:policy/v1:PodDisruptionBudget", "bbr-disruption").inputs).toEqual({
            apiVersion: "policy/v1",
            kind: "PodDisruptionBudget",
            metadata: { name: "body-based-router", namespace: "inference-gateway" },
            spec: { minAvailable: 1, selector },
        });
    });

    test("GKE health-checks the router over gRPC on its health port", () => {
        expect(graph.get("kubernetes:networking.gke.io/v1:HealthCheckPolicy", "bbr-health").inputs.spec).toEqual({
            default: {
                logConfig: { enabled: true },
                config: { type: "GRPC", grpcHealthCheck: { portSpecification: "USE_FIXED_PORT", port: 9005 } },
            },
            targetRef: { group: "", kind: "Service", name: "body-based-router" },
        });
    });

    test("one ConfigMap per service, labelled for the router, naming its base model and adapters", () => {
        expect(graph.get("kubernetes:core/v1:ConfigMap", "bbr-qwen").inputs).toEqual({
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: {
                name: "qwen-models",
                namespace: "inference-gateway",
                labels: { "inference.networking.k8s.io/bbr-managed": "true" },
            },
            data: { baseModel: "Qwen/Qwen2.5-3B-Instruct", adapters: '- "qwen-sql"\n- "qwen-chat"\n' },
        });
        expect(graph.get("kubernetes:core/v1:ConfigMap", "bbr-phi").inputs.data).toEqual({
            baseModel: "microsoft/Phi-3-mini-4k-instruct",
            adapters: "",
        });
    });

    test("the endpoint names every model and adapter with the service it reaches, and a request to paste", () => {
        expect(endpoint).toEqual({
            url: "https://203.0.113.7/v1",
            models: {
                "Qwen/Qwen2.5-3B-Instruct": "qwen",
                "qwen-sql": "qwen",
                "qwen-chat": "qwen",
                "microsoft/Phi-3-mini-4k-instruct": "phi",
            },
            curl:
                "curl -sS --cacert ca.crt -H \"Authorization: Bearer $API_KEY\" https://203.0.113.7/v1/chat/completions -H 'Content-Type: application/json' -d " +
                `'{"model":"Qwen/Qwen2.5-3B-Instruct","messages":[{"role":"user","content":"Say hello"}],"max_tokens":32}'`,
        });
    });
});
