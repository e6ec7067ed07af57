/**
 * The pinned platform software: Helm charts (and the namespaces they and Kubernetes own), container images, and the
 * CRDs the platform needs with who installs each.
 */
import { GKE_VERSION } from "./gke";

/** A Helm chart pinned to one version. */
export interface PinnedChart {
    /** OCI reference of the chart, or its name in `repo`. */
    readonly chart: string;
    /** The HTTPS chart repository, for a chart not published as an OCI artifact. */
    readonly repo?: string;
    /** When the stack installs it, for a chart it does not always install. */
    readonly installedWhen?: string;
    readonly version: string;
    /** Namespace the chart's namespaced objects live in (KServe's charts hard-code `kserve`). */
    readonly namespace: string;
}

/** Platform charts. Sources: {@link SOURCES.certManagerChart}, {@link SOURCES.lwsChart}, {@link SOURCES.kserveCharts}. */
export const CHARTS = {
    certManager: { chart: "oci://quay.io/jetstack/charts/cert-manager", version: "v1.21.1", namespace: "cert-manager" },
    leaderWorkerSet: { chart: "oci://registry.k8s.io/lws/charts/lws", version: "0.10.0", namespace: "lws-system" },
    kserveLlmisvcCrd: { chart: "oci://ghcr.io/kserve/charts/kserve-llmisvc-crd", version: "v0.20.0", namespace: "kserve" },
    kserveLlmisvcResources: { chart: "oci://ghcr.io/kserve/charts/kserve-llmisvc-resources", version: "v0.20.0", namespace: "kserve" },
    kserveRuntimeConfigs: { chart: "oci://ghcr.io/kserve/charts/kserve-runtime-configs", version: "v0.20.0", namespace: "kserve" },
    /** Its operator's service account is `keda-operator`, the Workload Identity subject that reads Managed Prometheus. */
    keda: {
        chart: "keda",
        repo: "https://kedacore.github.io/charts",
        version: "2.20.2",
        namespace: "keda",
        installedWhen: "a model service autoscales",
    },
    /** Istio's CRDs (the base chart). Source: {@link SOURCES.istio}. */
    istioBase: {
        chart: "base",
        repo: "https://istio-release.storage.googleapis.com/charts",
        version: "1.29.6",
        namespace: "istio-system",
        installedWhen: "gatewayProvider is istio",
    },
    /** istiod, which programs the `istio` Gateway and its InferencePool routes. Source: {@link SOURCES.istio}. */
    istiod: {
        chart: "istiod",
        repo: "https://istio-release.storage.googleapis.com/charts",
        version: "1.29.6",
        namespace: "istio-system",
        installedWhen: "gatewayProvider is istio",
    },
} as const satisfies Record<string, PinnedChart>;

/**
 * Namespaces Kubernetes, GKE and this platform own, which the stack never creates or claims for its Gateway or model
 * services; every `kube-` name is Kubernetes'. Sources: {@link SOURCES.protectedNamespaces}, {@link CHARTS}.
 */
export const PROTECTED_NAMESPACES: readonly string[] = [
    "default",
    "kube-system",
    "kube-public",
    "kube-node-lease",
    "gmp-system",
    "gmp-public",
    ...new Set(Object.values(CHARTS).map((chart) => chart.namespace)),
];

/** Container images of the serving path. */
export const IMAGES = {
    /** vLLM built for TPU. Source: {@link SOURCES.vllmTpuImage}. */
    vllmTpu: "docker.io/vllm/vllm-tpu:v0.27.0",
    /** llm-d's endpoint picker (EPP). Source: {@link SOURCES.eppImage}. */
    endpointPicker: "ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.10.0",
    /** Kubernetes' own kubectl image, for the webhook readiness probes; within one minor of the GKE floor. Source: {@link SOURCES.kubectlImage}. */
    kubectl: "registry.k8s.io/kubectl:v1.34.1",
} as const;

/**
 * CRDs the platform needs, by `metadata.name` with the kind and version they serve, and who installs each: GKE (Gateway API, its
 * policies, and the v1 InferencePool from {@link GKE_VERSION.floor}) or one of this stack's charts. Source: each upstream CRD in
 * shared/crds (see its SOURCES.txt); the test checks every name against them.
 */
export const PLATFORM_CRDS: ReadonlyArray<{ name: string; kind: string; version: string; installedBy: string }> = [
    { name: "gatewayclasses.gateway.networking.k8s.io", kind: "GatewayClass", version: "v1", installedBy: "GKE (Gateway API)" },
    { name: "gateways.gateway.networking.k8s.io", kind: "Gateway", version: "v1", installedBy: "GKE (Gateway API)" },
    { name: "httproutes.gateway.networking.k8s.io", kind: "HTTPRoute", version: "v1", installedBy: "GKE (Gateway API)" },
    { name: "healthcheckpolicies.networking.gke.io", kind: "HealthCheckPolicy", version: "v1", installedBy: "GKE (Gateway API)" },
    { name: "gcpbackendpolicies.networking.gke.io", kind: "GCPBackendPolicy", version: "v1", installedBy: "GKE (Gateway API)" },
    {
        name: "inferencepools.inference.networking.k8s.io",
        kind: "InferencePool",
        version: "v1",
        installedBy: `GKE ${GKE_VERSION.floor} or later`,
    },
    { name: "leaderworkersets.leaderworkerset.x-k8s.io", kind: "LeaderWorkerSet", version: "v1", installedBy: "the LeaderWorkerSet chart" },
    {
        name: "llminferenceservices.serving.kserve.io",
        kind: "LLMInferenceService",
        version: "v1alpha2",
        installedBy: "the kserve-llmisvc-crd chart",
    },
    {
        name: "llminferenceserviceconfigs.serving.kserve.io",
        kind: "LLMInferenceServiceConfig",
        version: "v1alpha2",
        installedBy: "the kserve-llmisvc-crd chart",
    },
    { name: "certificates.cert-manager.io", kind: "Certificate", version: "v1", installedBy: "the cert-manager chart" },
    { name: "clusterissuers.cert-manager.io", kind: "ClusterIssuer", version: "v1", installedBy: "the cert-manager chart" },
];
