import * as gcp from "@pulumi/gcp";
import { GkeCluster, GkeClusterArgs, clusterArgs, gkeKubeconfig, webhookFirewallArgs } from "../../../components/infrastructure/cluster";
import { stackNames } from "../../../components/lib/names";
import { MOCK_CLUSTER_CA, MOCK_CLUSTER_ENDPOINT } from "../../../scripts/offline/mocks";
import { Graph, record } from "../../harness";

/** The cluster with one stand-in API service per prerequisite, so that each edge can be told apart. */
function cluster(overrides: Partial<GkeClusterArgs> = {}): GkeCluster {
    const api = (service: string) => [
        new gcp.projects.Service(service, { project: "acme-inference", service: `${service}.googleapis.com` }),
    ];
    return new GkeCluster("gke", {
        ...baseArgs,
        names: stackNames("gke", "test"),
        prerequisites: { container: api("container"), iam: api("iam"), resourceManager: api("cloudresourcemanager") },
        ...overrides,
    });
}

const baseArgs = {
    project: "acme-inference",
    region: "europe-west4",
    networkId: "projects/acme-inference/global/networks/vpc",
    subnetworkId: "projects/acme-inference/regions/europe-west4/subnetworks/nodes",
    releaseChannel: "REGULAR",
    masterAuthorizedNetworks: [] as string[],
    masterCidr: "172.16.0.0/28",
    deletionProtection: true,
    systemPool: { machineType: "e2-standard-4", minNodes: 1, maxNodes: 4 },
    imageStreaming: false,
};

/** The cluster's name (base and stack) and id. */
const CLUSTER_NAME = "gke-test";
const CLUSTER_ID = `projects/acme-inference/locations/europe-west4/clusters/${CLUSTER_NAME}`;

const HARDENED_NODE_CONFIG = {
    serviceAccount: "gke-test-nodes@acme-inference.iam.gserviceaccount.com",
    oauthScopes: ["https://www.googleapis.com/auth/cloud-platform"],
    shieldedInstanceConfig: { enableSecureBoot: true, enableIntegrityMonitoring: true },
    workloadMetadataConfig: { mode: "GKE_METADATA" },
};

describe("GkeCluster", () => {
    let graph: Graph;
    beforeAll(async () => {
        graph = await record(() => cluster());
    });

    test("the cluster is regional, VPC-native, private, shielded, with Workload Identity and managed Prometheus, created at its channel's default", () => {
        const cluster = graph.get("gcp:container/cluster:Cluster", "gke-cluster");
        expect(cluster.inputs).toEqual({
            project: "acme-inference",
            name: CLUSTER_NAME,
            location: "europe-west4",
            network: baseArgs.networkId,
            subnetwork: baseArgs.subnetworkId,
            networkingMode: "VPC_NATIVE",
            ipAllocationPolicy: { clusterSecondaryRangeName: "pods", servicesSecondaryRangeName: "services" },
            releaseChannel: { channel: "REGULAR" },
            gatewayApiConfig: { channel: "CHANNEL_STANDARD" },
            addonsConfig: { httpLoadBalancing: { disabled: false } },
            workloadIdentityConfig: { workloadPool: "acme-inference.svc.id.goog" },
            privateClusterConfig: { enablePrivateNodes: true, enablePrivateEndpoint: false, masterIpv4CidrBlock: "172.16.0.0/28" },
            enableShieldedNodes: true,
            monitoringConfig: { enableComponents: ["SYSTEM_COMPONENTS", "DEPLOYMENT", "HPA"], managedPrometheus: { enabled: true } },
            loggingConfig: { enableComponents: ["SYSTEM_COMPONENTS", "WORKLOADS"] },
            deletionProtection: true,
            removeDefaultNodePool: true,
            initialNodeCount: 1,
            nodeConfig: HARDENED_NODE_CONFIG,
        });
        expect(cluster.options).toEqual({
            ignoreChanges: ["initialNodeCount", "nodeConfig"],
            customTimeouts: { create: "45m", update: "45m", delete: "45m" },
            protect: true,
            deleteBeforeReplace: true,
        });
        expect(graph.dependencyNames(cluster)).toEqual([
            "gcp:projects/service:Service container",
            "gcp:serviceaccount/account:Account gke-nodes",
        ]);
    });

    test("given the version to create at (a fleet's clusters), the cluster asks for it and ignores it afterwards; without one it asks for none", async () => {
        const versioned = (await record(() => cluster({ minMasterVersion: "1.34.2-gke.1127000" }))).get(
            "gcp:container/cluster:Cluster",
            "gke-cluster",
        );
        expect(versioned.inputs.minMasterVersion).toBe("1.34.2-gke.1127000");
        expect(versioned.inputs.releaseChannel).toEqual({ channel: "REGULAR" });
        expect(versioned.options.ignoreChanges).toEqual(["initialNodeCount", "nodeConfig", "minMasterVersion"]);
        expect(graph.get("gcp:container/cluster:Cluster", "gke-cluster").inputs).not.toHaveProperty("minMasterVersion");
    });

    test("without deletion protection nothing is protected", async () => {
        const unprotected = await record(() => cluster({ deletionProtection: false }));
        expect(unprotected.resources.filter((resource) => resource.options.protect).map((resource) => resource.name)).toEqual([]);
        expect(
            graph.resources
                .filter((resource) => resource.options.protect)
                .map((resource) => resource.name)
                .sort(),
        ).toEqual(["gke-cluster", "gke-nodes"]);
    });

    test("the node service account is dedicated and holds only the default node role", () => {
        const account = graph.get("gcp:serviceaccount/account:Account", "gke-nodes");
        expect(account.inputs).toEqual({
            project: "acme-inference",
            accountId: "gke-test-nodes",
            displayName: "GKE nodes of gke (stack test)",
        });
        expect(account.options).toEqual({ protect: true, deleteBeforeReplace: true });
        expect(graph.dependencyNames(account)).toEqual(["gcp:projects/service:Service iam"]);
        const grants = graph.ofType("gcp:projects/iAMMember:IAMMember");
        expect(grants.map((grant) => grant.inputs)).toEqual([
            {
                project: "acme-inference",
                role: "roles/container.defaultNodeServiceAccount",
                member: "serviceAccount:gke-test-nodes@acme-inference.iam.gserviceaccount.com",
            },
        ]);
        expect(graph.dependencyNames(grants[0])).toEqual([
            "gcp:projects/service:Service cloudresourcemanager",
            "gcp:serviceaccount/account:Account gke-nodes",
        ]);
    });

    test("with image streaming, the node account may also use the Container File System API, which the default node role lacks", async () => {
        const streaming = await record(() => cluster({ imageStreaming: true }));
        expect(streaming.ofType("gcp:projects/iAMMember:IAMMember").map((grant) => [grant.name, grant.inputs.role])).toEqual([
            ["gke-nodes-container-defaultnodeserviceaccount", "roles/container.defaultNodeServiceAccount"],
            ["gke-nodes-serviceusage-serviceusageconsumer", "roles/serviceusage.serviceUsageConsumer"],
        ]);
        // Only the streaming TPU pool waits for it (index.ts); the system pool, which streams nothing, does not.
        expect(streaming.dependencyNames(streaming.get("gcp:container/nodePool:NodePool", "gke-system"))).not.toContain(
            "gcp:projects/iAMMember:IAMMember gke-nodes-serviceusage-serviceusageconsumer",
        );
    });

    test("the system pool autoscales across zones as the node account, after its role is granted", () => {
        const pool = graph.get("gcp:container/nodePool:NodePool", "gke-system");
        expect(pool.inputs).toEqual({
            // The name the provider gives a pool that sets none (the offline preview's, as the engine hands the pack).
            name: "gke-system-d7b7a34",
            project: "acme-inference",
            location: "europe-west4",
            cluster: CLUSTER_ID,
            initialNodeCount: 1,
            autoscaling: { totalMinNodeCount: 1, totalMaxNodeCount: 4, locationPolicy: "BALANCED" },
            management: { autoRepair: true, autoUpgrade: true },
            upgradeSettings: { maxSurge: 1, maxUnavailable: 0 },
            nodeConfig: {
                ...HARDENED_NODE_CONFIG,
                machineType: "e2-standard-4",
                diskType: "pd-balanced",
                diskSizeGb: 100,
                labels: { "gke-tpu-inference/pool": "system" },
            },
        });
        expect(graph.dependencyNames(pool)).toEqual([
            "gcp:container/cluster:Cluster gke-cluster",
            "gcp:projects/iAMMember:IAMMember gke-nodes-container-defaultnodeserviceaccount",
            "gcp:serviceaccount/account:Account gke-nodes",
        ]);
        expect(pool.options.ignoreChanges).toEqual(["initialNodeCount"]);
    });

    test("the Kubernetes provider uses the exec kubeconfig, a stable cluster identifier, and waits for the system pool only", () => {
        const provider = graph.get("pulumi:providers:kubernetes", "gke-k8s");
        expect(provider.inputs).toEqual({
            kubeconfig: gkeKubeconfig(CLUSTER_NAME, MOCK_CLUSTER_ENDPOINT, MOCK_CLUSTER_CA),
            clusterIdentifier: CLUSTER_ID,
            enableServerSideApply: "true",
        });
        expect(graph.dependencyNames(provider)).toEqual([
            "gcp:container/cluster:Cluster gke-cluster",
            "gcp:container/nodePool:NodePool gke-system",
        ]);
    });

    test("the control plane may call admission webhooks on the nodes' port 9443 and KEDA's metrics API on 6443, and nothing else beyond GKE's defaults", () => {
        expect(graph.get("gcp:compute/firewall:Firewall", "gke-webhooks").inputs).toEqual({
            project: "acme-inference",
            name: "gke-test-webhooks",
            network: baseArgs.networkId,
            direction: "INGRESS",
            sourceRanges: ["172.16.0.0/28"],
            allows: [{ protocol: "tcp", ports: ["9443", "6443"] }],
            targetServiceAccounts: ["gke-test-nodes@acme-inference.iam.gserviceaccount.com"],
            description: "GKE control plane to admission webhooks on nodes",
        });
    });

    test("authorized networks restrict the control plane when given", async () => {
        const restricted = await record(() => cluster({ masterAuthorizedNetworks: ["203.0.113.0/24"] }));
        expect(restricted.get("gcp:container/cluster:Cluster", "gke-cluster").inputs.masterAuthorizedNetworksConfig).toEqual({
            cidrBlocks: [{ cidrBlock: "203.0.113.0/24", displayName: "203.0.113.0/24" }],
        });
        expect(graph.get("gcp:container/cluster:Cluster", "gke-cluster").inputs).not.toHaveProperty("masterAuthorizedNetworksConfig");
    });
});

describe("the cluster's builders, without the engine", () => {
    const args: GkeClusterArgs = {
        ...baseArgs,
        names: stackNames("gke", "test"),
        prerequisites: { container: [], iam: [], resourceManager: [] },
    };

    test("the control plane's endpoint is open to any address with credentials unless the settings name networks", () => {
        expect(clusterArgs(args, "nodes@acme-inference.iam.gserviceaccount.com")).not.toHaveProperty("masterAuthorizedNetworksConfig");
        expect(
            clusterArgs({ ...args, masterAuthorizedNetworks: ["203.0.113.0/24"] }, "nodes@acme-inference.iam.gserviceaccount.com")
                .masterAuthorizedNetworksConfig,
        ).toEqual({ cidrBlocks: [{ cidrBlock: "203.0.113.0/24", displayName: "203.0.113.0/24" }] });
    });

    test("the webhook rule opens the platform's ports, and a gateway provider's beside them", () => {
        const ports = (extraWebhookPorts?: readonly string[]) =>
            webhookFirewallArgs(
                { ...args, ...(extraWebhookPorts ? { extraWebhookPorts } : {}) },
                "nodes@acme-inference.iam.gserviceaccount.com",
            ).allows;
        expect(ports()).toEqual([{ protocol: "tcp", ports: ["9443", "6443"] }]);
        expect(ports(["15017"])).toEqual([{ protocol: "tcp", ports: ["9443", "6443", "15017"] }]);
    });
});

describe("gkeKubeconfig", () => {
    test("authenticates with gke-gcloud-auth-plugin and carries no credential", () => {
        const kubeconfig = JSON.parse(gkeKubeconfig("c1", "203.0.113.5", "Q0E="));
        expect(kubeconfig.clusters).toEqual([
            { name: "gke_c1", cluster: { server: "https://203.0.113.5", "certificate-authority-data": "Q0E=" } },
        ]);
        expect(kubeconfig.users[0].user).toEqual({
            exec: expect.objectContaining({
                apiVersion: "client.authentication.k8s.io/v1beta1",
                command: "gke-gcloud-auth-plugin",
                provideClusterInfo: true,
            }),
        });
        expect(kubeconfig["current-context"]).toBe("gke_c1");
    });
});
