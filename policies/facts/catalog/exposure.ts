/**
 * How a Kubernetes program puts a Service on the internet without a Gateway, and what keeps it internal or restricted:
 * a LoadBalancer Service on GKE, AWS or Azure, and an Ingress served by GKE, the AWS Load Balancer Controller or
 * ingress-nginx. Each value as the controller that reads it compares it. Source: {@link SOURCES.serviceExposure}.
 */

/** A LoadBalancer Service's load balancer: external unless one of these says internal, open unless a range list restricts it. */
export const LOAD_BALANCER_SERVICE = {
    /** GKE reads the first of these keys that is present; only these values make the load balancer internal. */
    gkeInternal: {
        keys: ["networking.gke.io/load-balancer-type", "cloud.google.com/load-balancer-type"],
        values: ["Internal", "internal"],
    },
    /** loadBalancerClass values that make the load balancer internal (GKE's regional internal class). */
    internalClasses: ["networking.gke.io/l4-regional-internal"],
    /** The AWS Load Balancer Controller's scheme annotation, and its value for an internal load balancer. */
    awsScheme: { key: "service.beta.kubernetes.io/aws-load-balancer-scheme", internal: "internal" },
    /** The AWS Load Balancer Controller's class: without a scheme it makes an internal load balancer. */
    awsControllerClass: "service.k8s.aws/nlb",
    /**
     * The annotations that hand a Service to the AWS Load Balancer Controller without its class (type `nlb-ip`, or
     * `external` with a target type `ip` or `instance`): without a scheme, internal too
     * (aws-load-balancer-controller@225f4456 pkg/service/service_utils.go:64-77 checkAWSLoadBalancerTypeAnnotation).
     */
    awsControllerType: {
        key: "service.beta.kubernetes.io/aws-load-balancer-type",
        nlbIp: "nlb-ip",
        external: "external",
        targetTypeKey: "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type",
        targetTypes: ["ip", "instance"],
    },
    /** The older AWS annotation: any value but "false" (the cloud provider) or a true boolean (the controller) is internal. */
    awsInternal: "service.beta.kubernetes.io/aws-load-balancer-internal",
    /** Azure's annotation; only lower-case "true" places the load balancer inside the VNet. */
    azureInternal: { key: "service.beta.kubernetes.io/azure-load-balancer-internal", value: "true" },
    /** Annotations that hold source ranges when spec.loadBalancerSourceRanges is empty (comma-separated). */
    sourceRangeAnnotations: [
        "service.beta.kubernetes.io/load-balancer-source-ranges",
        "service.beta.kubernetes.io/azure-allowed-ip-ranges",
    ],
    /** Azure's service-tag allowlist, which also restricts who reaches the load balancer. */
    azureAllowedServiceTags: "service.beta.kubernetes.io/azure-allowed-service-tags",
} as const;

/** The legacy class annotation every Ingress controller still honours, and which controller an IngressClass names. */
export const INGRESS_CLASS = {
    annotation: "kubernetes.io/ingress.class",
    /** The AWS Load Balancer Controller's, and EKS Auto Mode's (https://docs.aws.amazon.com/eks/latest/userguide/auto-configure-alb.html). */
    controllers: { alb: ["ingress.k8s.aws/alb", "eks.amazonaws.com/alb"], nginx: "k8s.io/ingress-nginx" },
    /**
     * The IngressClass annotation that makes a class the cluster's default: an Ingress with no class is given it
     * (https://kubernetes.io/docs/concepts/services-networking/ingress/#default-ingress-class).
     */
    defaultAnnotation: { key: "ingressclass.kubernetes.io/is-default-class", value: "true" },
} as const;

/**
 * GKE's Ingress controller: it serves an Ingress with no class (annotation or field) or the annotation `gce` as an
 * external Application Load Balancer, `gce-internal` as an internal one; a backend Service names its BackendConfig
 * (`{"default": name}` or `{"ports": {port: name}}`), whose Cloud Armor policy or IAP guards it.
 */
export const GKE_INGRESS = {
    externalClasses: ["gce", "gce-regional-external"],
    internalClass: "gce-internal",
    backendConfigAnnotations: ["cloud.google.com/backend-config", "beta.cloud.google.com/backend-config"],
    backendConfig: { group: "cloud.google.com", kind: "BackendConfig" },
} as const;

/** The AWS Load Balancer Controller's Ingress annotations (class `alb`); its scheme defaults to internal. */
export const ALB_INGRESS = {
    className: "alb",
    scheme: { key: "alb.ingress.kubernetes.io/scheme", external: "internet-facing" },
    inboundCidrs: "alb.ingress.kubernetes.io/inbound-cidrs",
    securityGroups: "alb.ingress.kubernetes.io/security-groups",
    authType: { key: "alb.ingress.kubernetes.io/auth-type", authenticating: ["oidc", "cognito"] },
    waf: { key: "alb.ingress.kubernetes.io/wafv2-acl-arn", off: "none" },
    /**
     * IngressGroups: Ingresses of one group share one load balancer, whose scheme any of them may set; an IngressClass's
     * IngressClassParams `spec.scheme` overrides every Ingress of the class (aws-load-balancer-controller@3b9bdb1e
     * pkg/ingress/model_build_load_balancer.go:138-158; docs/guide/ingress/ingress_class.md:271-278).
     */
    groupName: "alb.ingress.kubernetes.io/group.name",
    classParams: { groups: ["elbv2.k8s.aws", "eks.amazonaws.com"], kind: "IngressClassParams" },
    /** `conditions.<service>`: a JSON list of rule conditions, an `http-header` one matching literal `values`. */
    conditionsPrefix: "alb.ingress.kubernetes.io/conditions.",
} as const;

/** ingress-nginx's annotations (class `nginx`); its chart puts the controller behind an open LoadBalancer Service. */
export const NGINX_INGRESS = {
    className: "nginx",
    allowlists: ["nginx.ingress.kubernetes.io/allowlist-source-range", "nginx.ingress.kubernetes.io/whitelist-source-range"],
    authType: {
        key: "nginx.ingress.kubernetes.io/auth-type",
        values: ["basic", "digest"],
        secret: "nginx.ingress.kubernetes.io/auth-secret",
    },
    authUrl: "nginx.ingress.kubernetes.io/auth-url",
    /**
     * The chart and where its values describe the controller's Service (type, annotations, source ranges), which the
     * chart copies onto that Service (kubernetes/ingress-nginx@04b2c898 charts/ingress-nginx/templates/controller-service.yaml).
     */
    chart: "ingress-nginx",
    controllerServiceValues: ["controller", "service"],
    /** Raw nginx configuration, off by default (allow-snippet-annotations false): a header check written there checks nothing. */
    snippets: ["nginx.ingress.kubernetes.io/configuration-snippet", "nginx.ingress.kubernetes.io/server-snippet"],
} as const;

/**
 * Model servers besides vLLM, by the image repositories they ship as: each answers inference requests on its own port,
 * and none refuses a caller by default. Sources: Hugging Face TGI (https://huggingface.co/docs/text-generation-inference,
 * ghcr.io/huggingface/text-generation-inference; `--api-key` optional), Ollama (https://docs.ollama.com/docker,
 * ollama/ollama; no authentication), NVIDIA NIM (https://docs.nvidia.com/nim/large-language-models/latest/getting-started.html,
 * nvcr.io/nim/...), Triton (https://docs.nvidia.com/deeplearning/triton-inference-server, nvcr.io/nvidia/tritonserver),
 * SGLang (https://docs.sglang.ai, lmsysorg/sglang), llama.cpp's server (https://github.com/ggml-org/llama.cpp,
 * ghcr.io/ggml-org/llama.cpp), LocalAI (https://localai.io, localai/localai and quay.io/go-skynet/local-ai) and KServe's
 * Hugging Face runtime (kserve/huggingfaceserver).
 */
export const MODEL_SERVER_IMAGES: ReadonlyArray<{ server: string; repositories: readonly string[] }> = [
    { server: "TGI", repositories: ["ghcr.io/huggingface/text-generation-inference"] },
    { server: "Ollama", repositories: ["ollama/ollama", "docker.io/ollama/ollama"] },
    { server: "NVIDIA NIM", repositories: ["nvcr.io/nim/"] },
    { server: "Triton", repositories: ["nvcr.io/nvidia/tritonserver"] },
    { server: "SGLang", repositories: ["lmsysorg/sglang", "docker.io/lmsysorg/sglang"] },
    { server: "llama.cpp", repositories: ["ghcr.io/ggml-org/llama.cpp", "ghcr.io/ggerganov/llama.cpp"] },
    { server: "LocalAI", repositories: ["localai/localai", "docker.io/localai/localai", "quay.io/go-skynet/local-ai"] },
    { server: "KServe's Hugging Face runtime", repositories: ["kserve/huggingfaceserver", "docker.io/kserve/huggingfaceserver"] },
];
