import * as k8s from "@pulumi/kubernetes";
import { IstioGatewayAccess, authorizationSpec, serviceOverlay } from "../../../components/gateway/istioAccess";
import { CrdValidator } from "../../crds";
import { record, testProvider } from "../../harness";
import { TEST_ACCESS } from "./gatewayArgs";

const GATEWAY_REF = [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: "llm" }];

describe("IstioGatewayAccess", () => {
    const validator = new CrdValidator();

    async function accessFor(access = TEST_ACCESS) {
        return record(() => {
            const provider = testProvider();
            const crds = new k8s.core.v1.Namespace("istio-crds-stand-in", { metadata: { name: "crds" } }, { provider });
            new IstioGatewayAccess("edge", {
                provider,
                gateway: { namespace: "edge", name: "llm" },
                access,
                audience: "https://llm.example.com",
                crds,
            });
        });
    }

    test("no range: the firewall keeps the client's address and an ALLOW policy matching nothing refuses every request", () => {
        expect(serviceOverlay([])).toBe("spec:\n  externalTrafficPolicy: Local\n");
        expect(authorizationSpec("llm", { ...TEST_ACCESS, allowedSourceRanges: [] })).toEqual({ targetRefs: GATEWAY_REF, action: "ALLOW" });
    });

    test("the ranges at the load balancer's firewall and in the AuthorizationPolicy, a per-client rate limit first in the chain", async () => {
        const graph = await accessFor({ ...TEST_ACCESS, allowedSourceRanges: ["203.0.113.0/24", "198.51.100.7/32"] });
        expect(graph.get("kubernetes:core/v1:ConfigMap", "edge-service").inputs).toEqual({
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "llm-service", namespace: "edge" },
            data: {
                service: "spec:\n  externalTrafficPolicy: Local\n  loadBalancerSourceRanges:\n  - 203.0.113.0/24\n  - 198.51.100.7/32\n",
            },
        });
        const allow = graph.get("kubernetes:security.istio.io/v1:AuthorizationPolicy", "edge-allow");
        expect(allow.inputs).toEqual({
            apiVersion: "security.istio.io/v1",
            kind: "AuthorizationPolicy",
            metadata: { name: "llm-allowed-sources", namespace: "edge" },
            spec: {
                targetRefs: GATEWAY_REF,
                action: "ALLOW",
                rules: [{ from: [{ source: { ipBlocks: ["203.0.113.0/24", "198.51.100.7/32"] } }] }],
            },
        });
        expect(graph.dependencyNames(allow)).toEqual(["kubernetes:core/v1:Namespace istio-crds-stand-in"]);
        const rateLimit = graph.get("kubernetes:networking.istio.io/v1alpha3:EnvoyFilter", "edge-rate-limit");
        const bucket = { max_tokens: 600, tokens_per_fill: 600, fill_interval: "60s" };
        expect(rateLimit.inputs.spec).toEqual({
            targetRefs: GATEWAY_REF,
            priority: 10,
            configPatches: [
                {
                    applyTo: "HTTP_FILTER",
                    match: {
                        context: "GATEWAY",
                        listener: { filterChain: { filter: { name: "envoy.filters.network.http_connection_manager" } } },
                    },
                    patch: {
                        operation: "INSERT_FIRST",
                        value: {
                            name: "envoy.filters.http.local_ratelimit",
                            typed_config: {
                                "@type": "type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit",
                                stat_prefix: "inference_client_rate_limit",
                                token_bucket: bucket,
                                filter_enabled: {
                                    runtime_key: "inference_client_rate_limit_enabled",
                                    default_value: { numerator: 100, denominator: "HUNDRED" },
                                },
                                filter_enforced: {
                                    runtime_key: "inference_client_rate_limit_enforced",
                                    default_value: { numerator: 100, denominator: "HUNDRED" },
                                },
                                rate_limits: [{ actions: [{ remote_address: {} }] }],
                                descriptors: [{ entries: [{ key: "remote_address" }], token_bucket: bucket }],
                                max_dynamic_descriptors: 10000,
                                always_consume_default_token_bucket: false,
                            },
                        },
                    },
                },
            ],
        });
        expect(graph.ofType("kubernetes:security.istio.io/v1:RequestAuthentication")).toEqual([]);
        expect([...validator.errors(allow.inputs), ...validator.errors(rateLimit.inputs)]).toEqual([]);
    });

    test("google-id-token: Google's ID tokens for the stack's audience in Proxy-Authorization, and only the listed principals from the ranges", async () => {
        const graph = await accessFor({
            ...TEST_ACCESS,
            identity: "google-id-token",
            allowedIdentities: ["serviceAccount:caller@acme.iam.gserviceaccount.com", "user:me@example.com"],
        });
        const jwt = graph.get("kubernetes:security.istio.io/v1:RequestAuthentication", "edge-jwt");
        expect(jwt.inputs).toEqual({
            apiVersion: "security.istio.io/v1",
            kind: "RequestAuthentication",
            metadata: { name: "llm-google-id-token", namespace: "edge" },
            spec: {
                targetRefs: GATEWAY_REF,
                jwtRules: [
                    {
                        issuer: "https://accounts.google.com",
                        jwksUri: "https://www.googleapis.com/oauth2/v3/certs",
                        audiences: ["https://llm.example.com"],
                        fromHeaders: [{ name: "Proxy-Authorization", prefix: "Bearer " }],
                    },
                ],
            },
        });
        const allow = graph.get("kubernetes:security.istio.io/v1:AuthorizationPolicy", "edge-allow");
        expect(allow.inputs.spec).toEqual({
            targetRefs: GATEWAY_REF,
            action: "ALLOW",
            rules: [
                {
                    from: [{ source: { ipBlocks: ["203.0.113.0/24"], requestPrincipals: ["https://accounts.google.com/*"] } }],
                    when: [{ key: "request.auth.claims[email]", values: ["caller@acme.iam.gserviceaccount.com", "me@example.com"] }],
                },
            ],
        });
        expect([...validator.errors(jwt.inputs), ...validator.errors(allow.inputs)]).toEqual([]);
    });
});
