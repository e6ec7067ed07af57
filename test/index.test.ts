import { TPU_CAPACITY_OPTIONS } from "@gke-tpu-inference/facts";
import { INVOKE_TOKENS } from "../scripts/offline/invokes";
import { MOCK_GATEWAY_ADDRESS } from "../scripts/offline/mocks";
import { Graph, programFailure, runProgram, transitiveDependencies } from "./harness";

describe("the program (index.ts)", () => {
    let graph: Graph;
    beforeAll(async () => {
        graph = await runProgram({ deletionProtection: "false" });
    });

    test("registers the project's APIs, the network, the cluster, the TPU pool and the platform layer", () => {
        const gate = (name: string) => [
            `gke-tpu-inference:platform:WebhookGate ${name}`,
            `kubernetes:batch/v1:Job ${name}-probe`,
            `kubernetes:core/v1:ConfigMap ${name}-probes`,
            `kubernetes:core/v1:ServiceAccount ${name}-probe`,
            `kubernetes:rbac.authorization.k8s.io/v1:ClusterRole ${name}-probe`,
            `kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding ${name}-probe`,
        ];
        expect(graph.resources.map((resource) => `${resource.type} ${resource.name}`).sort()).toEqual(
            [
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
                "gcp:projects/iAMMember:IAMMember tpu-inference-nodes-serviceusage-serviceusageconsumer",
                "gcp:projects/service:Service tpu-inference-cloudresourcemanager",
                "gcp:projects/service:Service tpu-inference-compute",
                "gcp:projects/service:Service tpu-inference-container",
                "gcp:projects/service:Service tpu-inference-iam",
                "gcp:projects/service:Service tpu-inference-monitoring",
                "gcp:projects/service:Service tpu-inference-networkservices",
                "gcp:projects/service:Service tpu-inference-storage",
                "gcp:projects/service:Service tpu-inference-artifactregistry",
                "gcp:projects/service:Service tpu-inference-containerfilesystem",
                "gcp:serviceaccount/account:Account tpu-inference-nodes",
                "gke-tpu-inference:cluster:GkeCluster tpu-inference",
                "gcp:compute/address:Address inference-address",
                "gcp:compute/regionSecurityPolicy:RegionSecurityPolicy gateway-access-policy",
                "gke-tpu-inference:gateway:GatewayAddress inference",
                "gke-tpu-inference:gateway:GkeGatewayAccess gateway-access",
                "gke-tpu-inference:gateway:InferenceGateway inference",
                "gke-tpu-inference:network:Network tpu-inference",
                "gke-tpu-inference:observability:InferenceObservability tpu-inference",
                "gke-tpu-inference:platform:CertManager tpu-inference",
                "gke-tpu-inference:platform:KServe kserve",
                "gke-tpu-inference:platform:LeaderWorkerSet lws",
                "gke-tpu-inference:platform:ServingNamespace serving",
                // The TPU pools' own component, which makes the ComputeClass with them when the plan has several options.
                "gke-tpu-inference:platform:TpuCapacity tpu-inference",
                "gke-tpu-inference:project:ProjectApis tpu-inference",
                // Without model services: no bucket and no repository.
                "gke-tpu-inference:storage:ModelStore tpu-inference",
                "gke-tpu-inference:tpu:TpuNodePool tpu-inference-tpu",
                "kubernetes:cert-manager.io/v1:Certificate inference-certificate",
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
                // The key vLLM requires, generated by the stack; plain HTTP only redirects.
                "kubernetes:core/v1:Secret serving-api-key",
                "kubernetes:gateway.networking.k8s.io/v1:HTTPRoute inference-https-redirect",
                "random:index/randomPassword:RandomPassword serving-api-key",
                ...gate("kserve-webhooks"),
                ...gate("lws-webhooks"),
                ...gate("tpu-inference-webhooks"),
            ].sort(),
        );
    });

    test("enables every API it calls, never disabling one on destroy", () => {
        expect(graph.ofType("gcp:projects/service:Service").map((service) => service.inputs)).toEqual(
            [
                "compute",
                "container",
                "iam",
                "cloudresourcemanager",
                "networkservices",
                "monitoring",
                "storage",
                "artifactregistry",
                "containerfilesystem",
            ].map((api) => ({
                project: "acme-inference",
                service: `${api}.googleapis.com`,
                disableOnDestroy: false,
                disableDependentServices: false,
            })),
        );
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

    test("each GCP resource waits for the API it calls; the TPU pool also for the node account's role and image streaming's API", () => {
        expect(graph.dependencyNames(graph.get("gcp:container/cluster:Cluster", "tpu-inference-cluster"))).toEqual([
            "gcp:compute/network:Network tpu-inference-vpc",
            "gcp:compute/subnetwork:Subnetwork tpu-inference-node-subnet",
            "gcp:projects/service:Service tpu-inference-container",
            "gcp:serviceaccount/account:Account tpu-inference-nodes",
        ]);
        expect(graph.dependencyNames(graph.get("gcp:container/nodePool:NodePool", "tpu-inference-tpu-pool"))).toEqual([
            "gcp:container/cluster:Cluster tpu-inference-cluster",
            "gcp:projects/iAMMember:IAMMember tpu-inference-nodes-container-defaultnodeserviceaccount",
            "gcp:projects/iAMMember:IAMMember tpu-inference-nodes-serviceusage-serviceusageconsumer",
            "gcp:projects/service:Service tpu-inference-compute",
            "gcp:projects/service:Service tpu-inference-containerfilesystem",
            "gcp:serviceaccount/account:Account tpu-inference-nodes",
        ]);
        expect(graph.dependencyNames(graph.get("gcp:compute/network:Network", "tpu-inference-vpc"))).toEqual([
            "gcp:projects/service:Service tpu-inference-compute",
        ]);
        expect(graph.dependencyNames(graph.get("gcp:serviceaccount/account:Account", "tpu-inference-nodes"))).toEqual([
            "gcp:projects/service:Service tpu-inference-iam",
        ]);
        expect(graph.dependencyNames(graph.get("gcp:monitoring/dashboard:Dashboard", "tpu-inference-dashboard"))).toEqual([
            "gcp:projects/service:Service tpu-inference-monitoring",
        ]);
        expect(graph.get("gcp:container/cluster:Cluster", "tpu-inference-cluster").inputs).not.toHaveProperty("minMasterVersion");
    });

    test("nothing on the platform layer waits for the TPU pool, directly or through its provider", () => {
        const tpuPool = graph.get("gcp:container/nodePool:NodePool", "tpu-inference-tpu-pool");
        const kubernetesObjects = graph.resources.filter((resource) => resource.type.startsWith("kubernetes:"));
        expect(kubernetesObjects).toHaveLength(33);
        for (const resource of kubernetesObjects) {
            expect({ resource: resource.name, waitsForTpuPool: transitiveDependencies(graph, resource).has(tpuPool.urn) }).toEqual({
                resource: resource.name,
                waitsForTpuPool: false,
            });
        }
    });

    test("KServe installs once cert-manager's webhook answers, after LeaderWorkerSet and the webhook firewall rule; its configs once its own webhooks answer", () => {
        expect(graph.dependencyNames(graph.get("kubernetes:helm.sh/v4:Chart", "kserve-controller"))).toEqual([
            "gcp:compute/firewall:Firewall tpu-inference-webhooks",
            "kubernetes:batch/v1:Job tpu-inference-webhooks-probe",
            "kubernetes:core/v1:Namespace kserve-ns",
            "kubernetes:helm.sh/v4:Chart kserve-crd",
            "kubernetes:helm.sh/v4:Chart lws-chart",
        ]);
        expect(graph.dependencyNames(graph.get("kubernetes:helm.sh/v4:Chart", "kserve-configs"))).toEqual([
            "kubernetes:batch/v1:Job kserve-webhooks-probe",
            "kubernetes:core/v1:Namespace kserve-ns",
        ]);
        expect(
            graph.dependencyNames(graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceServiceConfig", "serving-router-route")),
        ).toEqual(["kubernetes:batch/v1:Job kserve-webhooks-probe", "kubernetes:core/v1:Namespace serving-ns"]);
    });

    test("the Gateway waits for the region's proxy-only subnet, the Network Services API, its reserved address and its certificate", () => {
        expect(graph.dependencyNames(graph.get("kubernetes:gateway.networking.k8s.io/v1:Gateway", "inference-gateway"))).toEqual([
            "gcp:compute/address:Address inference-address",
            "gcp:compute/subnetwork:Subnetwork tpu-inference-proxy-only",
            "gcp:projects/service:Service tpu-inference-networkservices",
            "kubernetes:cert-manager.io/v1:Certificate inference-certificate",
            "kubernetes:core/v1:Namespace inference-ns",
        ]);
    });

    test("every Kubernetes object and chart goes through the cluster's provider", () => {
        const provider = graph.get("pulumi:providers:kubernetes", "tpu-inference-k8s");
        const kubernetesResources = graph.resources.filter((resource) => resource.type.startsWith("kubernetes:"));
        expect(new Set(kubernetesResources.map((resource) => resource.provider?.split("::").slice(0, -1).join("::")))).toEqual(
            new Set([provider.urn]),
        );
    });

    test("reads the live facts it checks: API states, the region's GKE versions, the zone's machine types", () => {
        expect(graph.recording.invokes.map((invoke) => `${invoke.token} ${JSON.stringify(invoke.args)}`).sort()).toEqual(
            [
                ...[
                    "artifactregistry",
                    "cloudresourcemanager",
                    "compute",
                    "container",
                    "containerfilesystem",
                    "iam",
                    "monitoring",
                    "networkservices",
                    "storage",
                ].map((api) => `${INVOKE_TOKENS.projectService} {"project":"acme-inference","service":"${api}.googleapis.com"}`),
                `${INVOKE_TOKENS.engineVersions} {"location":"europe-west4","project":"acme-inference"}`,
                // The project's number, which Workload Identity principals name.
                `${INVOKE_TOKENS.project} {"projectId":"acme-inference"}`,
                `${INVOKE_TOKENS.machineTypes} {"filter":"name = \\"ct6e-standard-4t\\"","project":"acme-inference","zone":"europe-west4-a"}`,
                `${INVOKE_TOKENS.machineTypes} {"filter":"name = \\"e2-standard-4\\"","project":"acme-inference","zone":"europe-west4-a"}`,
            ].sort(),
        );
    });

    test("exports what a user needs after pulumi up", () => {
        expect(graph.recording.outputs).toEqual({
            clusterName: "tpu-inference-test",
            region: "europe-west4",
            tpuZone: "europe-west4-a",
            kubeconfigCommand:
                "gcloud container clusters get-credentials tpu-inference-test --region europe-west4 --project acme-inference",
            tpuNodePoolName: expect.stringMatching(/^tpu-inference-tpu-pool-[0-9a-f]{7}$/),
            tpuNodeSelector: { "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "2x2" },
            tpuPoolAutoscaling: { minNodes: 0, maxNodes: 3, paused: false },
            tpuCapacityPlan: {
                options: [
                    {
                        option: "on-demand",
                        zone: "europe-west4-a",
                        nodePool: expect.stringMatching(/^tpu-inference-tpu-pool-[0-9a-f]{7}$/),
                        minNodes: 0,
                        maxNodes: 3,
                        limits: TPU_CAPACITY_OPTIONS["on-demand"].limits,
                        usdPerHour: 0,
                    },
                ],
                ceilingNodes: 3,
            },
            tpuHourlyCost: {
                nodes: 0,
                chips: 0,
                usdPerHour: { cheapest: 0, cheapestOption: "on-demand", dearest: 0, dearestOption: "on-demand" },
                // The one pool full: 3 VMs of 4 chips at the on-demand rate.
                atCeiling: { nodes: 3, chips: 12, usdPerHour: 32.4 },
                rates: [
                    {
                        option: "on-demand",
                        usdPerChipHour: 2.7,
                        basis: "on-demand starting-at US list price per chip-hour; other regions differ",
                        source: TPU_CAPACITY_OPTIONS["on-demand"].rate.source,
                        reviewed: "2026-11-21",
                    },
                ],
            },
            dashboardUrl: expect.stringMatching(
                /^https:\/\/console\.cloud\.google\.com\/monitoring\/dashboards\/builder\/[0-9a-f]{7}\?project=acme-inference$/,
            ),
            gatewayProvider: "gke",
            gatewayClass: "gke-l7-regional-external-managed",
            gateway: { namespace: "inference-gateway", name: "inference-gateway" },
            gatewayAddress: MOCK_GATEWAY_ADDRESS,
            gatewayUrl: `https://${MOCK_GATEWAY_ADDRESS}`,
            caIssuerName: "tpu-inference-ca-issuer",
            caCertificateCommand:
                "kubectl get secret -n inference-gateway inference-gateway-tls -o jsonpath='{.data.ca\\.crt}' | base64 -d > ca.crt",
            // Closed until the stack names its network; the key is a secret, shown only with --show-secrets.
            access: {
                reachableFrom:
                    "nobody: allowedSourceRanges is empty, so the Gateway refuses every request; set it to your network (pulumi config set --path 'allowedSourceRanges[0]' <CIDR>)",
                publicToInternet: false,
                rateLimitPerMinute: 600,
                identity: "api-key",
                apiKey: "[secret]",
                apiKeyCommand: "export API_KEY=$(pulumi stack output access --show-secrets --json | jq -r .apiKey)",
            },
            servingNamespace: "llm-inference",
            models: {},
        });
    });

    test("a protected stack protects the cluster, its node account, the VPC and the node subnet; an unprotected one nothing", async () => {
        const production = await runProgram();
        expect(production.get("gcp:container/cluster:Cluster", "tpu-inference-cluster").inputs.deletionProtection).toBe(true);
        expect(
            production.resources
                .filter((resource) => resource.options.protect)
                .map((resource) => `${resource.type} ${resource.name}`)
                .sort(),
        ).toEqual([
            "gcp:compute/network:Network tpu-inference-vpc",
            "gcp:compute/subnetwork:Subnetwork tpu-inference-node-subnet",
            "gcp:container/cluster:Cluster tpu-inference-cluster",
            "gcp:serviceaccount/account:Account tpu-inference-nodes",
        ]);
        expect(graph.resources.filter((resource) => resource.options.protect)).toEqual([]);
    });

    test("a stack whose plan comes from the deprecated tpuProvisioning is warned at preview, with what to run instead", async () => {
        const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
        try {
            await runProgram({ tpuProvisioning: "spot" });
            expect(warn.mock.calls.map(([message]) => String(message)).filter((line) => line.includes("deprecated"))).toEqual([
                "warning: [runtime] gke-tpu-inference:tpuProvisioning is deprecated: tpuCapacity replaces it, and release 0.3.0 removes it; " +
                    "run pulumi config set --path 'tpuCapacity[0].type' spot && pulumi config rm tpuProvisioning (the same plan of one option: the TPU pool stays)",
            ]);
        } finally {
            warn.mockRestore();
        }
    });

    test("invalid configuration stops the program before any resource is registered", async () => {
        expect(await programFailure(() => runProgram({ zone: "us-central1-a" }))).toMatch(
            /^gke-tpu-inference:zone = "us-central1-a" is not a zone where GKE offers TPU v6e node pools/,
        );
    });
});
