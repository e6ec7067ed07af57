/** Lessons of the Gateway in front of the models: its class, its controller, routes, health checks, timeouts, protocols. */
import {
    GATEWAY_CLASSES,
    GCP_DEFAULT_BACKEND_TIMEOUT_SECONDS,
    GKE_VERSION,
    INFERENCE_POOL_KIND,
    KSERVE,
    MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS,
    VLLM_HEALTH_PATH,
    VLLM_PORT,
} from "../catalog";
import { Lesson } from "./lesson";

export const GATEWAY_LESSONS = [
    {
        id: "global-gateway-class",
        title: "Only regional GatewayClasses serve InferencePool backends; a global one gets an address and never a healthy backend",
        symptom: "The Gateway gets an address, but its InferencePool backends never become healthy and the route to them is rejected.",
        cause: `GKE serves InferencePool backends only through its regional GatewayClasses (${GATEWAY_CLASSES.regional.join(", ")}); a Gateway of a global class never does.`,
        fix: `Set the Gateway's spec.gatewayClassName to ${GATEWAY_CLASSES.regional[0]} (external) or ${GATEWAY_CLASSES.regional[1]} (internal), and give the region a proxy-only subnet.`,
        prevention: "The settings accept only the regional classes, and the network has the region's proxy-only subnet.",
        recovery: `set gatewayClass to ${GATEWAY_CLASSES.regional.join(" or ")} and run \`pulumi up\``,
        inspect: "kubectl get gateway -A -o custom-columns=NAME:.metadata.name,CLASS:.spec.gatewayClassName",
        sources: [
            "https://cloud.google.com/kubernetes-engine/docs/concepts/about-gke-inference-gateway",
            "https://cloud.google.com/kubernetes-engine/docs/how-to/gatewayclass-capabilities",
        ],
    },
    {
        id: "gateway-api-disabled",
        title: "GKE's Gateway API controller is off by default: no GatewayClass, the Gateway stays Unknown",
        symptom: "The Gateway stays Unknown, with no address, and `kubectl get gatewayclass` lists nothing.",
        cause: "GKE runs its Gateway API controller only on a cluster that enables it, and the controller needs the HTTP load balancing add-on and a VPC-native cluster.",
        fix: "Set gatewayApiConfig.channel to CHANNEL_STANDARD, leave addonsConfig.httpLoadBalancing.disabled false, and set networkingMode VPC_NATIVE with an ipAllocationPolicy.",
        prevention: "The cluster is VPC-native, with gatewayApiConfig CHANNEL_STANDARD and HttpLoadBalancing on.",
        recovery:
            "`pulumi up` turns it on (cluster gatewayApiConfig CHANNEL_STANDARD); on a cluster made elsewhere: gcloud container clusters update CLUSTER --gateway-api=standard, then wait for the GatewayClasses (up to 45 minutes)",
        inspect: "kubectl get gatewayclass",
        sources: [
            "https://cloud.google.com/kubernetes-engine/docs/how-to/deploying-gateways (enable the Gateway API: --gateway-api=standard)",
            "https://cloud.google.com/kubernetes-engine/docs/how-to/configure-gateway-resources (GKE Gateway controller requirements: VPC-native, the HttpLoadBalancing add-on)",
        ],
    },
    {
        id: "route-timeouts",
        title: 'GKE refuses HTTPRoute timeouts ("Error GWCER104: HTTPRoute is misconfigured, err: Timeouts are not supported.")',
        symptom: 'KServe\'s HTTPRoute is not accepted: "Error GWCER104: HTTPRoute is misconfigured, err: Timeouts are not supported."',
        cause: `GKE's Gateway controller rejects a route whose rules set timeouts, and KServe's well-known route template (${KSERVE.routerRouteConfigName}) writes them on every rule.`,
        fix: `Remove timeouts from the route rules (set backend timeouts with a GCPBackendPolicy instead). For KServe, ship a ${KSERVE.routerRouteConfigName} LLMInferenceServiceConfig without timeouts in each namespace that runs LLMInferenceServices.`,
        prevention: `The serving namespace has its own ${KSERVE.routerRouteConfigName} without timeouts, which KServe reads before its own.`,
        recovery: `the serving namespace's ${KSERVE.routerRouteConfigName} (this stack's, without timeouts) must be the one KServe reads; \`pulumi up\` restores it; remove timeouts from any baseRef or service route`,
        inspect: "kubectl describe httproute -n llm-inference <name>-kserve-route",
        sources: [
            "https://github.com/kserve/kserve/issues/5311 (HTTPRoute timeouts break GKE's Gateway controller)",
            "https://cloud.google.com/kubernetes-engine/docs/how-to/gatewayclass-capabilities",
            "kserve/kserve v0.20.0 config/llmisvcconfig/config-llm-router-route.yaml (timeouts on every rule), pkg/controller/v1alpha2/llmisvc/config_merge.go (the service's namespace first)",
        ],
    },
    {
        id: "inference-pool-group",
        title: "KServe's first route names the alpha InferencePool group; it moves to inference.networking.k8s.io once the Gateway rejects the old group",
        symptom: `The route's InferencePool backends are not resolved: ResolvedRefs=False (InvalidKind), backends on inference.networking.x-k8s.io.`,
        cause: `KServe's first HTTPRoute names the alpha InferencePool group and moves it to ${INFERENCE_POOL_KIND.group} only once the Gateway rejects the old one; GKE serves the v1 group, whose CRD it installs from ${GKE_VERSION.floor}.`,
        fix: `Run GKE ${GKE_VERSION.floor} or later, which installs the v1 InferencePool CRD, and give KServe a minute to move the route.`,
        prevention: `The cluster's release channel default is checked against GKE ${GKE_VERSION.floor} at preview.`,
        recovery: `give KServe a minute to move the route; if it stays, check that GKE installed the v1 InferencePool CRD (GKE ${GKE_VERSION.floor} or later)`,
        inspect: "kubectl get httproute -n llm-inference <name>-kserve-route -o jsonpath='{.metadata.annotations}'",
        sources: [
            "kserve/kserve v0.20.0 pkg/controller/v1alpha2/llmisvc/router.go:54-56 and :282-310 (the route moves to v1 once v1 is accepted or the alpha group rejected)",
            "https://llm-d.ai/docs/resources/gateway/gke (GKE 1.34.0-gke.1626000 and later install the InferencePool CRD)",
        ],
    },
    {
        id: "health-checks",
        title: `Without a HealthCheckPolicy GKE probes / (and HTTPS where the Service says so): every backend UNHEALTHY while the pods are Ready`,
        symptom: "Every backend of the Gateway is UNHEALTHY while the pods are Ready; a health check fixed by hand goes back to /.",
        cause: `GKE's default health check probes / (over HTTPS where the Service says so) and resets a check changed by hand; vLLM answers ${VLLM_HEALTH_PATH} over plain HTTP, on the port its endpoints serve.`,
        fix: `Add a networking.gke.io/v1 HealthCheckPolicy targeting the backend (the InferencePool by kind and name, or the Service) with config.type HTTP, httpHealthCheck.requestPath ${VLLM_HEALTH_PATH}, and the port the backend's endpoints serve on: port ${VLLM_PORT} with portSpecification USE_FIXED_PORT, or USE_SERVING_PORT (named ports do not apply to GKE's network endpoint groups).`,
        prevention: `A HealthCheckPolicy on the InferencePool and on the plain-HTTP Service: HTTP, ${VLLM_HEALTH_PATH}, port ${VLLM_PORT}, USE_FIXED_PORT.`,
        recovery: `a HealthCheckPolicy per backend: type HTTP, requestPath ${VLLM_HEALTH_PATH}, port ${VLLM_PORT} (this stack creates them; \`pulumi up\` restores them)`,
        inspect: "kubectl get healthcheckpolicy -n llm-inference; gcloud compute backend-services get-health <backend> --region <region>",
        sources: [
            "https://cloud.google.com/kubernetes-engine/docs/how-to/configure-gateway-resources (HealthCheckPolicy)",
            "GoogleCloudPlatform/gke-gateway-api config/crd/networking.gke.io_healthcheckpolicies.yaml (httpHealthCheck port, portName, portSpecification; USE_SERVING_PORT without port and portName)",
            "https://cloud.google.com/compute/docs/reference/rest/v1/healthChecks (portSpecification: USE_NAMED_PORT not supported; USE_SERVING_PORT probes each network endpoint's port)",
        ],
    },
    {
        id: "backend-timeout",
        title: `Long generations are cut at ${GCP_DEFAULT_BACKEND_TIMEOUT_SECONDS} s without a GCPBackendPolicy timeout`,
        symptom: `Completions longer than ${GCP_DEFAULT_BACKEND_TIMEOUT_SECONDS} seconds fail through the Gateway while shorter ones succeed.`,
        cause: `A GCP backend service gives up on a response after ${GCP_DEFAULT_BACKEND_TIMEOUT_SECONDS} seconds unless a GCPBackendPolicy says otherwise, and a long completion takes minutes.`,
        fix: `Add a networking.gke.io/v1 GCPBackendPolicy targeting the InferencePool with default.timeoutSec of at least ${MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS}.`,
        prevention: "A GCPBackendPolicy on each InferencePool with a timeout of 600 s.",
        recovery: `a GCPBackendPolicy on the InferencePool with timeoutSec of at least ${MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS} (this stack's is longer; \`pulumi up\` restores it)`,
        inspect: "kubectl get gcpbackendpolicy -n llm-inference -o yaml",
        sources: [
            "GoogleCloudPlatform/gke-gateway-api config/crd/networking.gke.io_gcpbackendpolicies.yaml (default.timeoutSec: 30 s when omitted)",
            "https://cloud.google.com/kubernetes-engine/docs/how-to/configure-gateway-resources (timeoutSec defaults to 30 seconds)",
        ],
    },
    {
        id: "https-app-protocol",
        title: "A Service saying appProtocol https makes GKE speak TLS to vLLM, which serves HTTP: WRONG_VERSION_NUMBER",
        symptom:
            "/health and /v1/models fail through the Gateway with a TLS error (WRONG_VERSION_NUMBER) while completions through the InferencePool work.",
        cause: "GKE's Gateway takes a Service port's protocol from its appProtocol, or from its name when appProtocol is unset; KServe's workload Service said https, and vLLM serves plain HTTP.",
        fix: "Give the Service port appProtocol http (and a name other than https), or route non-inference paths to a plain-HTTP Service you own.",
        prevention: "Non-inference paths go to the stack's own plain-HTTP <name>-http Service.",
        recovery: "leave KServe's EnableTLS off and route /health and /v1/models to this stack's plain-HTTP -http Service (`pulumi up`)",
        inspect:
            "curl -sS $(pulumi stack output gatewayUrl)/llm-inference/<name>/health; kubectl get svc -n llm-inference -o yaml | grep appProtocol",
        sources: [
            "https://github.com/kserve/kserve/issues/5531 (the LLMInferenceService workload Service says appProtocol https for a plain-HTTP vLLM)",
            "https://github.com/kserve/kserve/pull/5533 (appProtocol from the TLS setting)",
        ],
    },
    {
        id: "body-based-routing",
        title: "Requests at the Gateway's root reach a model only through the body-based router, its routing extension and the ConfigMap naming the model",
        symptom: "A request at the Gateway's root naming a model in its body gets 404, or reaches another service.",
        cause: "GKE calls the body-based router only through a GCPRoutingExtension on the Gateway; the router sets the base-model header from the ConfigMaps labelled for it, and an empty header for a name none lists.",
        fix: "Run the router with more than one replica, attach a GCPRoutingExtension to the Gateway, and label a ConfigMap per service (baseModel and adapters) with inference.networking.k8s.io/bbr-managed=true.",
        prevention: "With bodyBasedRouting on, the stack installs the router, its extension and a ConfigMap per service.",
        recovery: "run `pulumi up` with bodyBasedRouting on; the router, extension and ConfigMap checks name the broken part",
        sources: [
            "kubernetes-sigs/gateway-api-inference-extension v1.5.0 site-src/guides/serving-multiple-inference-pools-latest.md",
            "kubernetes-sigs/gateway-api-inference-extension v1.5.0 pkg/bbr/plugins/basemodelextractor (base_model_to_header.go, configmap_reconciler.go)",
        ],
    },
] as const satisfies readonly Lesson[];
