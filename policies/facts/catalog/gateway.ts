/**
 * The Gateway in front of the models: GKE's GatewayClasses, InferencePool as a backend, the backend timeout, Istio as
 * the other provider, and Pattern 2's body-based router.
 */

/** GatewayClasses GKE provides. Only the regional ones serve InferencePool backends. */
export const GATEWAY_CLASSES = {
    /** Source: {@link SOURCES.seed003Gateway}, {@link SOURCES.gkeInferenceGateway}. */
    regional: ["gke-l7-regional-external-managed", "gke-l7-rilb"],
    /** Global classes: a Gateway gets an address but InferencePool backends never become healthy. */
    global: ["gke-l7-global-external-managed", "gke-l7-gxlb"],
} as const;

/** GatewayClasses served by GKE's own Gateway controller start with this. Source: {@link SOURCES.gkeGatewayClasses}. */
export const GKE_GATEWAY_CLASS_PREFIX = "gke-l7-";

/** The API group and kind of an InferencePool, as a Gateway API backend or policy target names it. Source: {@link SOURCES.gkeInferenceGateway}. */
export const INFERENCE_POOL_KIND = { group: "inference.networking.k8s.io", kind: "InferencePool" } as const;

/** Both API groups an InferencePool backend is named by: v1, and the alpha group KServe's first HTTPRoute names. Source: {@link SOURCES.kserveRouteMigration}. */
export const INFERENCE_POOL_GROUPS: readonly string[] = [INFERENCE_POOL_KIND.group, "inference.networking.x-k8s.io"];

/** What a GCP backend service waits for a response when no GCPBackendPolicy says otherwise. Source: {@link SOURCES.gkeBackendPolicy}. */
export const GCP_DEFAULT_BACKEND_TIMEOUT_SECONDS = 30;

/** The shortest backend timeout an inference backend needs: a long completion runs for minutes. */
export const MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS = 300;

/**
 * Istio as the stack's gateway provider. Source: {@link SOURCES.istio}.
 */
export const ISTIO = {
    gatewayClass: "istio",
    /** The controllerName of istiod's GatewayClasses: another class naming it is Istio's too. */
    controller: "istio.io/gateway-controller",
    /** istiod's switch for InferencePool backends (and the ext_proc filter it writes for them). */
    inferenceExtensionEnv: "ENABLE_GATEWAY_API_INFERENCE_EXTENSION",
    /** istiod's webhooks listen here; a private cluster's control plane reaches it only through a firewall rule. Source: {@link SOURCES.istioPrivateCluster}. */
    webhookPort: "15017",
    /** The label that keeps a namespace's pods out of the mesh whatever istiod's injection default. */
    injectionLabel: { key: "istio-injection", disabled: "disabled" },
    /**
     * The Envoy route istiod makes of an HTTPRoute rule without a `name`: `<namespace>.<route>.<rule index>`. A named rule's
     * route takes the bare name, and istiod keys each route's InferencePool (which EPP it calls) by it across every route of
     * a Gateway, the newest winning: rules named alike in two routes share one EPP. Source: {@link SOURCES.istioRouteNames}.
     */
    generatedRouteName: (namespace: string, route: string, ruleIndex: number) => `${namespace}.${route}.${ruleIndex}`,
    /**
     * The mesh's root namespace, by default: an AuthorizationPolicy there applies in every namespace. Source:
     * {@link SOURCES.istioAuthorization}.
     */
    rootNamespace: "istio-system",
    /** The label istiod puts on a Gateway's Envoy pods, valued with the Gateway's name. Source: {@link SOURCES.istioAuthorization}. */
    gatewayPodLabel: "gateway.networking.k8s.io/gateway-name",
    /** The label istiod puts on a Gateway's Envoy pods, valued with the Gateway's class. Source: {@link SOURCES.istioAuthorization}. */
    gatewayClassPodLabel: "gateway.networking.k8s.io/gateway-class-name",
    /**
     * The Gateway annotation whose value istiod gives its Service as `type` (LoadBalancer by default): ClusterIP or NodePort
     * put no load balancer before it. Source: {@link SOURCES.istioServiceOverlay}.
     */
    serviceTypeAnnotation: "networking.istio.io/service-type",
    /**
     * Istio's classic ingress: a networking.istio.io Gateway names its Envoy pods by `spec.selector`, and the VirtualServices
     * that name the Gateway route through it. Its pods and Service come from the `gateway` chart, whose Service is a
     * LoadBalancer unless its values say otherwise (istio/istio@0293e829 manifests/charts/gateway/values.yaml `service`).
     */
    classic: { group: "networking.istio.io", gatewayChart: "gateway", serviceValues: ["service"] },
    /**
     * Token issuers that give anyone a token: a RequestAuthentication that accepts one of these lets a stranger in with
     * any token a policy takes without a claim condition. Google's ID tokens
     * (https://developers.google.com/identity/openid-connect/openid-connect: iss accounts.google.com), GitHub Actions'
     * OIDC tokens (https://docs.github.com/en/actions/security-for-github-actions/security-hardening-your-deployments/about-security-hardening-with-openid-connect:
     * https://token.actions.githubusercontent.com), Sign in with Apple (https://developer.apple.com/documentation/signinwithapple: https://appleid.apple.com).
     */
    publicTokenIssuers: [
        "https://accounts.google.com",
        "accounts.google.com",
        "https://token.actions.githubusercontent.com",
        "https://appleid.apple.com",
    ],
} as const;

/**
 * The body-based router of Pattern 2: the last release of gateway-api-inference-extension's BBR (its successor, llm-d's
 * payload processor, publishes only a `main` image). It reads `model` from each request body, looks the name up in the
 * ConfigMaps of its own namespace that carry {@link BODY_BASED_ROUTER.managedLabel} (`baseModel` and its `adapters`),
 * and sets {@link BODY_BASED_ROUTER.baseModelHeader} to the base model, or to nothing for a name none lists.
 * Source: {@link SOURCES.bodyBasedRouter}.
 */
export const BODY_BASED_ROUTER = {
    chart: {
        chart: "oci://registry.k8s.io/gateway-api-inference-extension/charts/body-based-routing",
        version: "v1.5.0",
        installedWhen: "bodyBasedRouting is on",
    },
    /** The chart's default image at that version. */
    image: "registry.k8s.io/gateway-api-inference-extension/bbr:v1.5.0",
    /** The chart's Deployment and Service (`bbr.name`). */
    name: "body-based-router",
    /** The label on the chart's pods, which its Service selects (templates/bbr.yaml:8-14), and the container's name (:18). */
    podLabels: { app: "body-based-router" },
    container: "bbr",
    grpcPort: 9004,
    healthPort: 9005,
    modelHeader: "X-Gateway-Model-Name",
    baseModelHeader: "X-Gateway-Base-Model-Name",
    managedLabel: "inference.networking.k8s.io/bbr-managed",
    /** Behind Istio: the chart's ext_proc filter, first in the Gateway's chain (templates/istio.yaml, values.yaml provider.istio). */
    istioFilter: { name: "envoy.filters.http.ext_proc.bbr", operation: "INSERT_FIRST" },
    /**
     * What the router reads: each request's headers, its body in the one mode it serves (with the trailers that mode needs),
     * and nothing of the response. The chart sends the response too, which the router holds until it ends before handing
     * it back unchanged (pkg/bbr/handlers/server.go:141-148, response.go:62-73): a streamed completion would arrive in one
     * piece. Envoy's SKIP sends no headers or trailers and NONE no body. Source: {@link SOURCES.extProcModes}.
     */
    processingMode: {
        request_header_mode: "SEND",
        request_body_mode: "FULL_DUPLEX_STREAMED",
        request_trailer_mode: "SEND",
        response_header_mode: "SKIP",
        response_body_mode: "NONE",
        response_trailer_mode: "SKIP",
    },
    /** Routing extensions are called before the route is chosen. Source: {@link SOURCES.gcpRoutingExtension}. */
    extension: {
        supportedEvents: ["RequestHeaders", "RequestBody", "RequestTrailers"],
        requestBodySendMode: "FullDuplexStreamed",
        /** Reading a JSON body's `model` takes milliseconds; the chart's own value. */
        timeout: "1s",
    },
} as const;
