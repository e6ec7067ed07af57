import { RecordedResource } from "../scripts/offline/recorder";
import { MOCK_GATEWAY_ADDRESS } from "../scripts/offline/mocks";
import { Graph, record } from "./harness";

/** URNs `resource` waits for, directly or through its dependencies and its provider. */
function transitiveDependencies(graph: Graph, resource: RecordedResource): Set<string> {
    const byUrn = new Map(graph.resources.map((candidate) => [candidate.urn, candidate]));
    const seen = new Set<string>();
    const visit = (current: RecordedResource) => {
        const providerUrn = current.provider?.split("::").slice(0, -1).join("::");
        for (const urn of [...current.dependencies, ...(providerUrn ? [providerUrn] : [])]) {
            if (!seen.has(urn)) {
                seen.add(urn);
                visit(byUrn.get(urn)!);
            }
        }
    };
    visit(resource);
    return seen;
}

/** The dev stack's model list (Pulumi.dev.yaml). */
const DEV_MODELS = JSON.stringify([{ name: "qwen2-3b", pattern: "pattern1", modelUri: "hf://Qwen/Qwen2.5-3B-Instruct", modelName: "Qwen/Qwen2.5-3B-Instruct", replicas: 1 }]);

/** Runs the real program (index.ts) with `config`, in a fresh module registry. */
function runProgram(config: Record<string, string> = {}): Promise<Graph> {
    return record(() => {
        let exports: unknown;
        jest.isolateModules(() => {
            exports = require("../index");
        });
        return exports;
    }, config);
}

describe("the program (index.ts)", () => {
    let graph: Graph;
    beforeAll(async () => {
        graph = await runProgram({ deletionProtection: "false" });
    });

    test("registers the network, the cluster, the TPU pool and the platform layer", () => {
        expect(graph.resources.map((resource) => `${resource.type} ${resource.name}`).sort()).toEqual([
            "gcp:compute/firewall:Firewall tpu-inference-webhooks",
            "gcp:compute/network:Network tpu-inference-vpc",
            "gcp:compute/router:Router tpu-inference-router",
            "gcp:compute/routerNat:RouterNat tpu-inference-nat",
            "gcp:compute/subnetwork:Subnetwork tpu-inference-node-subnet",
            "gcp:compute/subnetwork:Subnetwork tpu-inference-proxy-only",
            "gcp:container/cluster:Cluster tpu-inference-cluster",
            "gcp:container/nodePool:NodePool tpu-inference-system",
            "gcp:container/nodePool:NodePool tpu-inference-tpu-pool",
            "gcp:monitoring/dashboard:Dashboard tpu-inference-dashboard",
            "gcp:projects/iAMMember:IAMMember tpu-inference-nodes-container-defaultnodeserviceaccount",
            "gcp:serviceaccount/account:Account tpu-inference-nodes",
            "gke-tpu-inference:cluster:GkeCluster tpu-inference",
            "gke-tpu-inference:gateway:InferenceGateway inference",
            "gke-tpu-inference:network:Network tpu-inference",
            "gke-tpu-inference:observability:InferenceObservability tpu-inference",
            "gke-tpu-inference:platform:CertManager tpu-inference",
            "gke-tpu-inference:platform:KServe kserve",
            "gke-tpu-inference:platform:LeaderWorkerSet lws",
            "gke-tpu-inference:platform:ServingNamespace serving",
            "gke-tpu-inference:tpu:TpuNodePool tpu-inference-tpu",
            "kubernetes:cert-manager.io/v1:Certificate tpu-inference-ca",
            "kubernetes:cert-manager.io/v1:ClusterIssuer tpu-inference-ca-issuer",
            "kubernetes:cert-manager.io/v1:ClusterIssuer tpu-inference-selfsigned-issuer",
            "kubernetes:core/v1:Namespace inference-ns",
            "kubernetes:core/v1:Namespace kserve-ns",
            "kubernetes:core/v1:Namespace lws-ns",
            "kubernetes:core/v1:Namespace serving-ns",
            "kubernetes:core/v1:Namespace tpu-inference-ns",
            "kubernetes:gateway.networking.k8s.io/v1:Gateway inference-gateway",
            "kubernetes:helm.sh/v4:Chart kserve-configs",
            "kubernetes:helm.sh/v4:Chart kserve-controller",
            "kubernetes:helm.sh/v4:Chart kserve-crd",
            "kubernetes:helm.sh/v4:Chart lws-chart",
            "kubernetes:helm.sh/v4:Chart tpu-inference-chart",
            "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceServiceConfig serving-router-route",
            "pulumi:providers:kubernetes tpu-inference-k8s",
            "pulumi:pulumi:Stack gke-tpu-inference-test",
        ]);
    });

    test("the Kubernetes provider depends on the system pool and never on the TPU pool", () => {
        const provider = graph.get("pulumi:providers:kubernetes", "tpu-inference-k8s");
        const tpuPool = graph.get("gcp:container/nodePool:NodePool", "tpu-inference-tpu-pool");
        expect(graph.dependencyNames(provider)).toEqual([
            "gcp:container/cluster:Cluster tpu-inference-cluster",
            "gcp:container/nodePool:NodePool tpu-inference-system",
        ]);
        expect(provider.dependencies).not.toContain(tpuPool.urn);
    });

    test("the cluster is wired to the node subnet and the TPU pool to the cluster and the node account", () => {
        const cluster = graph.get("gcp:container/cluster:Cluster", "tpu-inference-cluster");
        expect(graph.dependencyNames(cluster)).toEqual([
            "gcp:compute/network:Network tpu-inference-vpc",
            "gcp:compute/subnetwork:Subnetwork tpu-inference-node-subnet",
            "gcp:serviceaccount/account:Account tpu-inference-nodes",
        ]);
        expect(cluster.inputs.deletionProtection).toBe(false);
        expect(graph.dependencyNames(graph.get("gcp:container/nodePool:NodePool", "tpu-inference-tpu-pool"))).toEqual([
            "gcp:container/cluster:Cluster tpu-inference-cluster",
            "gcp:serviceaccount/account:Account tpu-inference-nodes",
        ]);
    });

    test("nothing on the platform layer waits for the TPU pool, directly or through its provider", () => {
        const tpuPool = graph.get("gcp:container/nodePool:NodePool", "tpu-inference-tpu-pool");
        const kubernetesObjects = graph.resources.filter((resource) => resource.type.startsWith("kubernetes:"));
        expect(kubernetesObjects).toHaveLength(15);
        for (const resource of kubernetesObjects) {
            expect({ resource: resource.name, waitsForTpuPool: transitiveDependencies(graph, resource).has(tpuPool.urn) }).toEqual({
                resource: resource.name,
                waitsForTpuPool: false,
            });
        }
    });

    test("KServe installs after cert-manager, LeaderWorkerSet and the webhook firewall rule; its configs after its controller", () => {
        expect(graph.dependencyNames(graph.get("kubernetes:helm.sh/v4:Chart", "kserve-controller"))).toEqual([
            "gcp:compute/firewall:Firewall tpu-inference-webhooks",
            "kubernetes:core/v1:Namespace kserve-ns",
            "kubernetes:helm.sh/v4:Chart kserve-crd",
            "kubernetes:helm.sh/v4:Chart lws-chart",
            "kubernetes:helm.sh/v4:Chart tpu-inference-chart",
        ]);
        expect(graph.dependencyNames(graph.get("kubernetes:helm.sh/v4:Chart", "kserve-configs"))).toEqual([
            "kubernetes:core/v1:Namespace kserve-ns",
            "kubernetes:helm.sh/v4:Chart kserve-controller",
        ]);
        expect(graph.dependencyNames(graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceServiceConfig", "serving-router-route"))).toEqual([
            "kubernetes:core/v1:Namespace serving-ns",
            "kubernetes:helm.sh/v4:Chart kserve-controller",
        ]);
    });

    test("the Gateway waits for the region's proxy-only subnet", () => {
        expect(graph.dependencyNames(graph.get("kubernetes:gateway.networking.k8s.io/v1:Gateway", "inference-gateway"))).toEqual([
            "gcp:compute/subnetwork:Subnetwork tpu-inference-proxy-only",
            "kubernetes:core/v1:Namespace inference-ns",
        ]);
    });

    test("every Kubernetes object and chart goes through the cluster's provider", () => {
        const provider = graph.get("pulumi:providers:kubernetes", "tpu-inference-k8s");
        const kubernetesResources = graph.resources.filter((resource) => resource.type.startsWith("kubernetes:"));
        expect(new Set(kubernetesResources.map((resource) => resource.provider?.split("::").slice(0, -1).join("::")))).toEqual(new Set([provider.urn]));
    });

    test("exports what a user needs after pulumi up", () => {
        expect(graph.recording.outputs).toEqual({
            clusterName: expect.stringMatching(/^tpu-inference-cluster-[0-9a-f]{7}$/),
            region: "europe-west4",
            tpuZone: "europe-west4-a",
            kubeconfigCommand: expect.stringMatching(/^gcloud container clusters get-credentials tpu-inference-cluster-[0-9a-f]{7} --region europe-west4 --project acme-inference$/),
            tpuNodePoolName: expect.stringMatching(/^tpu-inference-tpu-pool-[0-9a-f]{7}$/),
            tpuNodeSelector: { "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "2x2" },
            tpuPoolAutoscaling: { minNodes: 0, maxNodes: 3, paused: false },
            tpuHourlyCost: {
                nodes: 0,
                chips: 0,
                usdPerHour: 0,
                rate: { usdPerChipHour: 2.7, basis: "on-demand US list price per chip-hour; other regions, spot and commitments differ", reviewed: "2026-11-21" },
            },
            dashboardUrl: expect.stringMatching(/^https:\/\/console\.cloud\.google\.com\/monitoring\/dashboards\/builder\/[0-9a-f]{7}\?project=acme-inference$/),
            gatewayClass: "gke-l7-regional-external-managed",
            gatewayAddress: MOCK_GATEWAY_ADDRESS,
            gatewayUrl: `http://${MOCK_GATEWAY_ADDRESS}`,
            caIssuerName: "tpu-inference-ca-issuer",
            servingNamespace: "llm-inference",
            models: {},
        });
    });

    test("deletion protection is on unless the stack turns it off", async () => {
        const production = await runProgram();
        expect(production.get("gcp:container/cluster:Cluster", "tpu-inference-cluster").inputs.deletionProtection).toBe(true);
    });

    test("invalid configuration stops the program before any resource is registered", async () => {
        let error: unknown;
        const failed = await record(() => {
            try {
                jest.isolateModules(() => require("../index"));
            } catch (err) {
                error = err;
            }
        }, { zone: "us-central1-a" });
        expect((error as Error).message).toMatch(/^gke-tpu-inference:zone = "us-central1-a" is not a zone where GKE offers TPU v6e node pools/);
        expect(failed.resources.map((resource) => resource.type)).toEqual(["pulumi:pulumi:Stack"]);
    });
});

describe("the program's workloads", () => {
    let graph: Graph;
    beforeAll(async () => {
        graph = await runProgram({ models: DEV_MODELS, hfToken: "hf_test_token" });
    });

    test("each model service waits for KServe's configs, LeaderWorkerSet and the namespace's route template, never for the TPU pool", () => {
        const llmisvc = graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService", "qwen2-3b-llmisvc");
        expect(graph.dependencyNames(llmisvc)).toEqual([
            "kubernetes:core/v1:Namespace serving-ns",
            "kubernetes:core/v1:Secret serving-hf-token",
            "kubernetes:core/v1:ServiceAccount serving-model-server",
            "kubernetes:helm.sh/v4:Chart kserve-configs",
            "kubernetes:helm.sh/v4:Chart lws-chart",
            "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceServiceConfig serving-router-route",
        ]);
        const tpuPool = graph.get("gcp:container/nodePool:NodePool", "tpu-inference-tpu-pool");
        expect(transitiveDependencies(graph, llmisvc).has(tpuPool.urn)).toBe(false);
    });

    test("health checks and the backend policy wait for nothing but their namespace, so GKE has them before the first pod", () => {
        for (const [type, name] of [
            ["kubernetes:networking.gke.io/v1:HealthCheckPolicy", "qwen2-3b-pool-health"],
            ["kubernetes:networking.gke.io/v1:HealthCheckPolicy", "qwen2-3b-http-health"],
            ["kubernetes:networking.gke.io/v1:GCPBackendPolicy", "qwen2-3b-pool-backend"],
            ["kubernetes:core/v1:Service", "qwen2-3b-http"],
        ]) {
            expect({ name, dependencies: graph.dependencyNames(graph.get(type, name)) }).toEqual({ name, dependencies: ["kubernetes:core/v1:Namespace serving-ns"] });
        }
    });

    test("the service selects the pool's shape from the catalog and the token stays a secret", () => {
        const spec = graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService", "qwen2-3b-llmisvc").inputs.spec as {
            template: { nodeSelector: unknown; containers: Array<{ resources: unknown }> };
        };
        expect(spec.template.nodeSelector).toEqual(graph.recording.outputs.tpuNodeSelector);
        expect(spec.template.containers[0].resources).toEqual({ requests: { "google.com/tpu": "4" }, limits: { "google.com/tpu": "4" } });
        expect(graph.get("kubernetes:core/v1:Secret", "serving-hf-token").inputs.stringData).toBe("[secret]");
        expect(JSON.stringify(graph.resources)).not.toContain("hf_test_token");
    });

    test("outputs per service the URL through the Gateway and curl commands", () => {
        expect(graph.recording.outputs.models).toEqual({
            "qwen2-3b": {
                modelName: "Qwen/Qwen2.5-3B-Instruct",
                pattern: "pattern1",
                replicas: 1,
                baseUrl: `http://${MOCK_GATEWAY_ADDRESS}/llm-inference/qwen2-3b`,
                curl: {
                    models: `curl -sS http://${MOCK_GATEWAY_ADDRESS}/llm-inference/qwen2-3b/v1/models`,
                    completions:
                        `curl -sS http://${MOCK_GATEWAY_ADDRESS}/llm-inference/qwen2-3b/v1/completions -H 'Content-Type: application/json' ` +
                        `-d '{"model":"Qwen/Qwen2.5-3B-Instruct","prompt":"Say hello","max_tokens":32}'`,
                },
            },
        });
    });
});
