import { RecordedResource } from "../../scripts/offline/recorder";
import { kube, resource } from "./harness";

/** A regional GKE Gateway and a global one. */
export function gateway(className = "gke-l7-regional-external-managed", name = "inference-gateway"): RecordedResource {
    return kube("gateway.networking.k8s.io/v1", "Gateway", name, {
        metadata: { name, namespace: "gateway" },
        spec: { gatewayClassName: className, listeners: [{ name: "http", protocol: "HTTP", port: 80 }] },
    });
}

/** A vLLM TPU container as this project builds it. */
export function vllmContainer(overrides: Record<string, unknown> = {}): Record<string, unknown> {
    return {
        name: "main",
        image: "docker.io/vllm/vllm-tpu:v0.27.0",
        command: ["vllm", "serve"],
        args: ["/mnt/models", "--port=8000", "--tensor-parallel-size=4", "--max-model-len=2048"],
        resources: { requests: { "google.com/tpu": "4" }, limits: { "google.com/tpu": "4" } },
        startupProbe: { httpGet: { path: "/health", port: 8000, scheme: "HTTP" }, periodSeconds: 5, failureThreshold: 180 },
        livenessProbe: { httpGet: { path: "/health", port: 8000, scheme: "HTTP" }, periodSeconds: 10, failureThreshold: 6 },
        readinessProbe: { httpGet: { path: "/v1/models", port: 8000, scheme: "HTTP" }, periodSeconds: 5, failureThreshold: 3 },
        ...overrides,
    };
}

/** An LLMInferenceService on a 2x2 v6e slice attached to `gatewayName`, with `main` as its vLLM container. */
export function llmService(
    main: Record<string, unknown> = vllmContainer(),
    options: { gatewayName?: string; topology?: string; dependencies?: RecordedResource[]; name?: string } = {},
) {
    const name = options.name ?? "qwen";
    return kube(
        "serving.kserve.io/v1alpha2",
        "LLMInferenceService",
        name,
        {
            metadata: { name, namespace: "models" },
            spec: {
                model: { uri: "hf://Qwen/Qwen2.5-3B-Instruct", name: "Qwen/Qwen2.5-3B-Instruct" },
                router: {
                    route: {},
                    gateway: { refs: [{ name: options.gatewayName ?? "inference-gateway", namespace: "gateway" }] },
                    scheduler: {
                        template: { containers: [{ name: "main", image: "ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.10.0" }] },
                    },
                },
                template: {
                    nodeSelector: {
                        "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
                        "cloud.google.com/gke-tpu-topology": options.topology ?? "2x2",
                    },
                    tolerations: [{ key: "google.com/tpu", operator: "Equal", value: "present", effect: "NoSchedule" }],
                    containers: [main],
                },
            },
        },
        { dependencies: options.dependencies },
    );
}

/** A GKE TPU v6e node pool. */
export function tpuPool(props: Record<string, unknown> = {}): RecordedResource {
    return resource("gcp:container/nodePool:NodePool", "tpu", {
        location: "europe-west4",
        nodeLocations: ["europe-west4-a"],
        nodeConfig: {
            machineType: "ct6e-standard-4t",
            serviceAccount: "nodes@acme.iam.gserviceaccount.com",
            workloadMetadataConfig: { mode: "GKE_METADATA" },
            shieldedInstanceConfig: { enableSecureBoot: true },
        },
        ...props,
    });
}

/** A GKE cluster with every baseline setting right. */
export function cluster(props: Record<string, unknown> = {}, stack?: string): RecordedResource {
    return resource(
        "gcp:container/cluster:Cluster",
        "gke",
        {
            location: "europe-west4",
            networkingMode: "VPC_NATIVE",
            ipAllocationPolicy: { clusterSecondaryRangeName: "pods", servicesSecondaryRangeName: "services" },
            gatewayApiConfig: { channel: "CHANNEL_STANDARD" },
            addonsConfig: { httpLoadBalancing: { disabled: false } },
            workloadIdentityConfig: { workloadPool: "acme.svc.id.goog" },
            privateClusterConfig: { enablePrivateNodes: true },
            enableShieldedNodes: true,
            deletionProtection: true,
            removeDefaultNodePool: true,
            nodeConfig: { serviceAccount: "nodes@acme.iam.gserviceaccount.com" },
            ...props,
        },
        { stack },
    );
}

/** A GKE policy (HealthCheckPolicy, GCPBackendPolicy) on the InferencePool of service `service`. */
export function poolPolicy(
    kind: "HealthCheckPolicy" | "GCPBackendPolicy",
    spec: Record<string, unknown>,
    service = "qwen",
): RecordedResource {
    return kube("networking.gke.io/v1", kind, `${service}-${kind}`, {
        metadata: { name: `${service}-inference-pool`, namespace: "models" },
        spec: { ...spec, targetRef: { group: "inference.networking.k8s.io", kind: "InferencePool", name: `${service}-inference-pool` } },
    });
}

/** The health check this project ships. */
export const HTTP_HEALTH = {
    default: { config: { type: "HTTP", httpHealthCheck: { portSpecification: "USE_FIXED_PORT", port: 8000, requestPath: "/health" } } },
};
