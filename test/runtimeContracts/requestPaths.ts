/** The request path, hop by hop, per gateway provider: ports, protocols, timeouts, what happens on failure. */
import { GATEWAY_LISTENERS, MULTI_CLUSTER_INFERENCE, SOURCES } from "@gke-tpu-inference/facts";

/** One hop of a request's way to vLLM, or of a health check, as the stack must build it. */
export interface RequestHop {
    /** What calls what. */
    readonly hop: string;
    readonly port: number;
    /** The protocol on the wire, and its TLS (with ALPN where it matters). */
    readonly protocol: string;
    /** How long it may take. */
    readonly timeout: string;
    /** What the caller does when the callee fails. */
    readonly failure: string;
    /** The object that selects or configures it. */
    readonly selectedBy: string;
    /** Where each fact comes from. */
    readonly source: string;
    /** Only with Pattern 2's body-based router. */
    readonly bodyBasedRouting?: true;
}

/** The hops every gateway provider shares: from the route's rules to vLLM, and the EPP. */
const SHARED_HOPS = {
    routeToPool: {
        hop: "Gateway → the service's InferencePool (model paths, model-routing headers)",
        port: 8000,
        protocol: "HTTP/1.1, plain",
        timeout: "the provider's (below)",
        failure: "no ready endpoint: 503",
        selectedBy:
            "the serving namespace's route template: unnamed rules, rewritten to /v1/...; KServe's InferencePool targets port 8000 on the workload pods",
        source: "kserve/kserve v0.20.0 config/llmisvcconfig/config-llm-router-route.yaml, config-llm-scheduler.yaml:8-24 (the pool's selector and targetPorts 8000)",
    },
    endpointPicker: {
        hop: "Gateway → the service's EPP (ext_proc, picks the replica)",
        port: 9002,
        protocol: "gRPC over TLS, ALPN h2 (the EPP's own certificate, not verified)",
        timeout: "per request, the proxy's ext_proc default",
        failure: "FailOpen: the pool's own endpoint choice",
        selectedBy:
            "KServe's InferencePool endpointPickerRef to <service>-epp-service:9002; the EPP's --grpc-port 9002 --secure-serving=true",
        source: "kserve/kserve v0.20.0 config/llmisvcconfig/config-llm-scheduler.yaml:10-16 (endpointPickerRef, FailOpen, port 9002); llm-d/llm-d-router v0.10.0 pkg/epp/server/runserver.go:175-208 (TLS with ALPN h2); shared/seeds/000 (without h2, routing silently stops)",
    },
    poolToVllm: {
        hop: "Gateway → vLLM (the replica the EPP picked)",
        port: 8000,
        protocol: "HTTP/1.1, plain",
        timeout: "the provider's (below)",
        failure: "the replica's error to the client",
        selectedBy: "vLLM's --port=8000 and container port 8000; probes HTTP on it",
        source: "components/serving/vllm.ts; vllm-project/vllm FrontendArgs --port",
    },
    catchAll: {
        hop: "Gateway → <service>-http (/health, and the /v1 paths the scheduler does not route: /v1/models and the rest)",
        port: 8000,
        protocol: "HTTP/1.1, plain (appProtocol http)",
        timeout: "the provider's (below)",
        failure: "no ready endpoint: 503",
        selectedBy:
            "the route template's /v1 and /health rules (no catch-all: nothing else reaches vLLM); the stack's Service selects KServe's workload labels",
        source: "components/serving/routerRoute.ts; kserve/kserve v0.20.0 config/llmisvcconfig/config-llm-scheduler.yaml:17-22 (the workload labels)",
    },
} as const satisfies Record<string, RequestHop>;

/**
 * The way of a request through each gateway provider, hop by hop, and each health check. `test/requestPath.test.ts`
 * checks that the objects every shipped stack emits build each hop.
 */
export const REQUEST_PATHS = {
    gke: {
        clientToGateway: {
            hop: "client → GKE's regional Application Load Balancer (the Gateway's HTTPS listener)",
            port: GATEWAY_LISTENERS.https.port,
            protocol: "HTTPS (TLS ends at the load balancer with the Gateway's certificate; plain HTTP on 80 only redirects)",
            timeout: "600 s per backend request (GCPBackendPolicy), GCP's default being 30 s",
            failure: "a backend without healthy endpoints: 503",
            selectedBy:
                "the Gateway of a regional class with an HTTPS listener on 443, which each service's route names (router.gateway.refs sectionName)",
            source: "https://cloud.google.com/kubernetes-engine/docs/concepts/about-gke-inference-gateway (regional classes serve InferencePool); shared/seeds/003 #1",
        },
        bodyBasedRouter: {
            hop: "load balancer → body-based router (routing extension, POSTs to the root's inference paths)",
            port: 9004,
            protocol: "gRPC over TLS (the chart's Service says appProtocol HTTP2; the router's self-signed certificate)",
            timeout: "1 s per call (the extension's timeout)",
            failure: "failOpen false: 500 for the root's requests only",
            selectedBy: "the GCPRoutingExtension's chain and its celMatcher",
            source: "shared/crds/gke-gateway-api/networking.gke.io_gcproutingextensions.yaml (failOpen, timeout, matchCondition); kubernetes-sigs/gateway-api-inference-extension v1.5.0 config/charts/body-based-routing/templates/bbr.yaml:86-89, pkg/bbr/server/options.go:68",
            bodyBasedRouting: true,
        },
        ...SHARED_HOPS,
        vllmHealthCheck: {
            hop: "load balancer health check → vLLM /health, for the pool and <service>-http",
            port: 8000,
            protocol: "HTTP, plain",
            timeout: "5 s, every 15 s",
            failure: "2 failures: the endpoint is unhealthy",
            selectedBy: "a HealthCheckPolicy per backend (USE_FIXED_PORT 8000, /health)",
            source: "shared/seeds/003 #5, #13 (GKE probes / over HTTPS otherwise); shared/crds/gke-gateway-api/networking.gke.io_healthcheckpolicies.yaml",
        },
        routerHealthCheck: {
            hop: "load balancer health check → body-based router",
            port: 9005,
            protocol: "gRPC health, plain",
            timeout: "GKE's default",
            failure: "the router endpoint is unhealthy",
            selectedBy: "a HealthCheckPolicy of type GRPC on the router's Service",
            source: "kubernetes-sigs/gateway-api-inference-extension v1.5.0 config/charts/body-based-routing/templates/gke.yaml (the chart's own), cmd/bbr/runner/health.go",
            bodyBasedRouting: true,
        },
    },
    istio: {
        clientToGateway: {
            hop: "client → the Gateway's passthrough Network Load Balancer → Istio's gateway Envoy (its HTTPS listener)",
            port: GATEWAY_LISTENERS.https.port,
            protocol: "HTTPS (TLS ends at the gateway Envoy with the Gateway's certificate; plain HTTP on 80 only redirects)",
            timeout: "none: a route without timeouts has none",
            failure: "no healthy endpoint: 503",
            selectedBy:
                "the Gateway of class istio with an HTTPS listener on 443, which each service's route names (router.gateway.refs sectionName); istiod's LoadBalancer Service",
            source: "istio/istio 1.29.6 pilot/pkg/config/kube/gateway/deploymentcontroller.go:176-186, pilot/pkg/networking/core/route/route.go:1336-1341",
        },
        bodyBasedRouter: {
            hop: "Envoy → body-based router (ext_proc filter, off on every per-service route)",
            port: 9004,
            protocol: "gRPC over TLS (DestinationRule SIMPLE, the router's self-signed certificate not verified)",
            timeout: "the ext_proc filter's default",
            failure: "failure_mode_allow false: the root's requests fail",
            selectedBy:
                "the EnvoyFilter (cluster outbound|9004||body-based-router.<namespace>.svc.cluster.local) and its HTTP_ROUTE patches",
            source: "kubernetes-sigs/gateway-api-inference-extension v1.5.0 config/charts/body-based-routing/templates/istio.yaml; istio/istio 1.29.6 pilot/pkg/networking/core/envoyfilter/rc_patch.go:234-258",
            bodyBasedRouting: true,
        },
        ...SHARED_HOPS,
    },
    fleet: {
        clientToGateway: {
            hop: "client inside the VPC → GKE's cross-regional internal Application Load Balancer (the Gateway's address in each member region, its HTTPS listener)",
            port: GATEWAY_LISTENERS.https.port,
            protocol:
                "HTTPS (TLS ends at the load balancer's Envoy proxies with the Gateway's certificate; plain HTTP on 80 only redirects)",
            timeout: `${MULTI_CLUSTER_INFERENCE.backendTimeoutSeconds} s per backend request (each import's GCPBackendPolicy)`,
            failure: "no member with a healthy endpoint: 503",
            selectedBy: `the config cluster's Gateway of class ${MULTI_CLUSTER_INFERENCE.gatewayClass} with an ephemeral address per member region`,
            source: `${SOURCES.gkeMultiClusterInferenceSetup}; ${SOURCES.gkeMultiClusterInferenceAbout}`,
        },
        routeToImport: {
            hop: "load balancer → the service's GCPInferencePoolImport in the config cluster (no port: the exported pools give it)",
            port: 8000,
            protocol: "HTTP/1.1, plain",
            timeout: "the client hop's",
            failure: "no import (no member exports the pool): the route's backend is unresolved",
            selectedBy: "the config cluster's HTTPRoute <service>-fleet on the HTTPS listener, every rule to the import <service>-fleet",
            source: SOURCES.gkeMultiClusterInferenceSetup,
        },
        memberPool: {
            hop: "import → each member's exported InferencePool <service>-fleet (KServe's selector, target port 8000 and endpoint picker)",
            port: 8000,
            protocol: "HTTP/1.1, plain",
            timeout: "the client hop's",
            failure: "a member without ready endpoints gets no traffic; every member without: 503",
            selectedBy: `the stack's twin pool annotated ${MULTI_CLUSTER_INFERENCE.exportAnnotation.key}=${MULTI_CLUSTER_INFERENCE.exportAnnotation.value} in every member`,
            source: `${SOURCES.gkeMultiClusterInferenceSetup}; kserve/kserve v0.20.0 config/llmisvcconfig/config-llm-scheduler.yaml:8-24`,
        },
        endpointPicker: SHARED_HOPS.endpointPicker,
        poolToVllm: SHARED_HOPS.poolToVllm,
        importHealthCheck: {
            hop: "load balancer health check → vLLM /health in every member, for the import",
            port: 8000,
            protocol: "HTTP, plain",
            timeout: "GKE's default",
            failure: "the endpoint is unhealthy; a member with none gets no traffic",
            selectedBy: "a HealthCheckPolicy per import (type HTTP, USE_FIXED_PORT 8000, /health)",
            source: `${SOURCES.gkeMultiClusterInferenceSetup}; shared/crds/gke-gateway-api/networking.gke.io_healthcheckpolicies.yaml:280-292`,
        },
        proxyFirewall: {
            hop: "the load balancer's Envoy proxies (every member region's GLOBAL_MANAGED_PROXY subnet) → the members' pods, vLLM's and the EPP's ports",
            port: 8000,
            protocol: "TCP, ingress to the nodes",
            timeout: "none",
            failure: "dropped by the VPC firewall: every backend unhealthy",
            selectedBy: "an ingress firewall rule on each member's nodes admitting every member region's proxy-only range",
            source: `${SOURCES.crossRegionInternalLoadBalancer}; kubernetes/ingress-gce acbcf5d6 pkg/loadbalancers/features/l7ilb.go:37-54 (the open-source controller opens only INTERNAL_HTTPS_LOAD_BALANCER and REGIONAL_MANAGED_PROXY ranges)`,
        },
    },
} as const satisfies Record<string, Record<string, RequestHop>>;
