import { Graph, record } from "./harness";

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

    test("registers the network, the cluster with its system pool and provider, and the TPU pool", () => {
        expect(graph.resources.map((resource) => `${resource.type} ${resource.name}`).sort()).toEqual([
            "gcp:compute/network:Network tpu-inference-vpc",
            "gcp:compute/router:Router tpu-inference-router",
            "gcp:compute/routerNat:RouterNat tpu-inference-nat",
            "gcp:compute/subnetwork:Subnetwork tpu-inference-node-subnet",
            "gcp:compute/subnetwork:Subnetwork tpu-inference-proxy-only",
            "gcp:container/cluster:Cluster tpu-inference-cluster",
            "gcp:container/nodePool:NodePool tpu-inference-system",
            "gcp:container/nodePool:NodePool tpu-inference-tpu-pool",
            "gcp:projects/iAMMember:IAMMember tpu-inference-nodes-container-defaultnodeserviceaccount",
            "gcp:serviceaccount/account:Account tpu-inference-nodes",
            "gke-tpu-inference:cluster:GkeCluster tpu-inference",
            "gke-tpu-inference:network:Network tpu-inference",
            "gke-tpu-inference:tpu:TpuNodePool tpu-inference-tpu",
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

    test("exports what a user needs after pulumi up", () => {
        expect(graph.recording.outputs).toEqual({
            clusterName: expect.stringMatching(/^tpu-inference-cluster-[0-9a-f]{7}$/),
            region: "europe-west4",
            tpuZone: "europe-west4-a",
            kubeconfigCommand: expect.stringMatching(/^gcloud container clusters get-credentials tpu-inference-cluster-[0-9a-f]{7} --region europe-west4 --project acme-inference$/),
            tpuNodePoolName: expect.stringMatching(/^tpu-inference-tpu-pool-[0-9a-f]{7}$/),
            tpuNodeSelector: { "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "2x2" },
            tpuPoolAutoscaling: { minNodes: 0, maxNodes: 3 },
            gatewayClass: "gke-l7-regional-external-managed",
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
