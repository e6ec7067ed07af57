/**
 * GKE and Google Cloud: versions and release channels, limits and IPv4 ranges, node roles, the
 * proxy-only subnet, naming rules and the APIs the stack calls.
 */

/**
 * GKE versions. The cluster is created at its release channel's default version, never at an exact
 * patch (GKE withdraws patches within months); the floor is checked against the channel's default at
 * preview.
 */
export const GKE_VERSION = {
    releaseChannel: "REGULAR",
    /** The first GKE version that installs the `inference.networking.k8s.io/v1` InferencePool CRD itself. Source: {@link SOURCES.gkeInferencePoolFloor}. */
    floor: "1.34.0-gke.1626000",
} as const;

/** GKE release channels the cluster may follow; whether a channel's default meets {@link GKE_VERSION.floor} is read from GKE at preview. */
export const RELEASE_CHANNELS: readonly string[] = ["RAPID", "REGULAR", "STABLE"];

/** GKE's limits that the settings check. Sources: {@link SOURCES.gkeQuotas}, {@link SOURCES.gkeAliasIps}, {@link SOURCES.gcpSubnetRanges}. */
export const GKE_LIMITS = {
    nodesPerPoolZone: 1000,
    /** Master authorized networks of a private cluster (this stack's nodes are private). */
    authorizedNetworks: 100,
    /** Prefix lengths: the smallest range is the longest prefix. */
    subnetRange: { smallest: 29, largest: 8 },
    podRange: { smallest: 24, largest: 9 },
    serviceRange: { smallest: 28, largest: 16 },
    controlPlaneRangePrefix: 28,
} as const;

/** An IPv4 range with what it is. */
export interface NamedRange {
    readonly cidr: string;
    readonly name: string;
}

/** IPv4 ranges by what GCP and GKE make of them. Sources: {@link SOURCES.gcpSubnetRanges}, {@link SOURCES.gkeAliasIps}. */
export const IPV4_RANGES = {
    /** Ranges no subnet may use. */
    prohibited: [
        { cidr: "0.0.0.0/8", name: "the current network (RFC 1122)" },
        { cidr: "127.0.0.0/8", name: "loopback (RFC 1122)" },
        { cidr: "169.254.0.0/16", name: "link-local (RFC 3927)" },
        { cidr: "224.0.0.0/4", name: "multicast (RFC 5771)" },
        { cidr: "255.255.255.255/32", name: "the limited broadcast address" },
        { cidr: "199.36.153.4/30", name: "Private Google Access's virtual IPs" },
        { cidr: "199.36.153.8/30", name: "Private Google Access's virtual IPs" },
    ],
    /** Ranges that are not public addresses, which GCP accepts for subnets. */
    private: [
        { cidr: "10.0.0.0/8", name: "RFC 1918" },
        { cidr: "172.16.0.0/12", name: "RFC 1918" },
        { cidr: "192.168.0.0/16", name: "RFC 1918" },
        { cidr: "100.64.0.0/10", name: "shared address space (RFC 6598)" },
        { cidr: "192.0.0.0/24", name: "IETF protocol assignments (RFC 6890)" },
        { cidr: "192.0.2.0/24", name: "TEST-NET-1 (RFC 5737)" },
        { cidr: "198.51.100.0/24", name: "TEST-NET-2 (RFC 5737)" },
        { cidr: "203.0.113.0/24", name: "TEST-NET-3 (RFC 5737)" },
        { cidr: "192.88.99.0/24", name: "IPv6-to-IPv4 relay (RFC 7526)" },
        { cidr: "198.18.0.0/15", name: "benchmark testing (RFC 2544)" },
        { cidr: "240.0.0.0/4", name: "reserved, class E (RFC 1112)" },
    ],
    /** The RFC 1918 ranges, which the control plane's range comes from. */
    rfc1918: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"],
    /** Ranges no cluster range may overlap. */
    avoided: [{ cidr: "172.17.0.0/16", name: "Docker's default bridge, which GKE nodes use" }],
} as const satisfies Record<string, readonly (NamedRange | string)[]>;

/**
 * Ports the GKE control plane must reach on pods for this stack's admission webhooks (9443: KServe, LeaderWorkerSet and
 * KEDA) and for KEDA's external metrics API, which the HPA controller calls through the API aggregator (6443).
 * Source: {@link SOURCES.webhookPorts}.
 */
export const WEBHOOK_PORTS: readonly string[] = ["9443", "6443"];

/** How GKE makes a LoadBalancer Service's load balancer, by what a user asks for. Source: {@link SOURCES.gkeServiceLoadBalancer}. */
export const GKE_SERVICE_LOAD_BALANCER = {
    external: { "cloud.google.com/l4-rbs": "enabled" },
    internal: { "networking.gke.io/load-balancer-type": "Internal" },
} as const satisfies Record<string, Record<string, string>>;

/** Least-privilege role for a dedicated node service account. Source: {@link SOURCES.nodeServiceAccount}. */
export const NODE_SERVICE_ACCOUNT_ROLES: readonly string[] = ["roles/container.defaultNodeServiceAccount"];

/**
 * What a node service account other than Compute Engine's default needs besides, where a node pool streams images: the
 * permission to use the Container File System API (`serviceusage.services.use`), which the default node role lacks.
 * Source: {@link SOURCES.imageStreamingNodeRole}.
 */
export const IMAGE_STREAMING_NODE_ROLES: readonly string[] = ["roles/serviceusage.serviceUsageConsumer"];

/** Proxy-only subnet settings for regional Envoy-based load balancers. Source: {@link SOURCES.proxyOnlySubnet}. */
export const PROXY_ONLY_SUBNET = {
    purpose: "REGIONAL_MANAGED_PROXY",
    role: "ACTIVE",
    /** Largest prefix length Google accepts; /23 is recommended. */
    maxPrefixLength: 26,
} as const;

/** The region a zone belongs to (`europe-west4-a` → `europe-west4`). */
export function regionOfZone(zone: string): string {
    return zone.replace(/-[a-z]$/, "");
}

/** The longest name a GCP resource type accepts for the names this stack chooses (lowercase letters, digits and hyphens, starting with a letter). */
export interface GcpNameRule {
    readonly description: string;
    readonly maxLength: number;
}

/** Naming rules of the project-global resources the stack names. Source: {@link SOURCES.gcpNames}. */
export const GCP_NAME_RULES = {
    compute: { description: "Compute Engine resource", maxLength: 63 },
    cluster: { description: "GKE cluster", maxLength: 40 },
    serviceAccount: { description: "service account ID", maxLength: 30 },
    /** Bucket names are global: room is left for a hyphen and a suffix of {@link COLD_START_STORAGE.bucketSuffixBytes} bytes in hex. */
    bucket: { description: "Cloud Storage bucket", maxLength: 63 - 9 },
    /** Artifact Registry repository IDs. */
    repository: { description: "Artifact Registry repository", maxLength: 63 },
    /**
     * Model Armor template IDs, per project and region. Google documents no rule for them; the stack's names (lowercase
     * letters, digits and hyphens within 63 characters) fit every ID its pages use.
     */
    modelArmorTemplate: { description: "Model Armor template", maxLength: 63 },
} as const satisfies Record<string, GcpNameRule>;

/**
 * Google Cloud APIs the stack calls, by what calls them. The stack enables them (never disabling them on
 * destroy) unless `manageProjectApis` is off. Source: {@link SOURCES.projectApis}.
 */
export const PROJECT_APIS = {
    /** The VPC, subnets, router, NAT and firewall; the load balancers GKE's Gateway controller builds. */
    compute: "compute.googleapis.com",
    /** The cluster and its node pools. */
    container: "container.googleapis.com",
    /** The node service account. */
    iam: "iam.googleapis.com",
    /** The node service account's project role grants. */
    resourceManager: "cloudresourcemanager.googleapis.com",
    /** GKE Inference Gateway: without it GKE never accepts an InferencePool backend. */
    networkServices: "networkservices.googleapis.com",
    /** The dashboard, the alert policies and Managed Service for Prometheus. */
    monitoring: "monitoring.googleapis.com",
    /** The bucket of staged weights and the compilation cache. */
    storage: "storage.googleapis.com",
    /** The remote repository the vLLM image is pulled through. */
    artifactRegistry: "artifactregistry.googleapis.com",
    /** Image streaming on the TPU pool. Source: {@link SOURCES.imageStreaming}. */
    containerFilesystem: "containerfilesystem.googleapis.com",
    /** A fleet's memberships and its multi-cluster Ingress feature. Source: {@link SOURCES.gkeMultiClusterInferenceSetup}. */
    gkeHub: "gkehub.googleapis.com",
    /** The multi-cluster Gateway controller, which programs the fleet's Gateway from the config cluster. Source: {@link SOURCES.gkeMultiClusterApis}. */
    multiClusterIngress: "multiclusteringress.googleapis.com",
} as const;

/** A key of {@link PROJECT_APIS}. */
export type ProjectApi = keyof typeof PROJECT_APIS;

/** The APIs only a fleet calls: a single-cluster stack neither enables nor checks them. */
export const FLEET_ONLY_APIS: readonly ProjectApi[] = ["gkeHub", "multiClusterIngress"];

/** The APIs a stack calls: every one of {@link PROJECT_APIS}, the fleet's only when it builds a fleet. */
export function stackApis(fleet: boolean): ProjectApi[] {
    return (Object.keys(PROJECT_APIS) as ProjectApi[]).filter((api) => fleet || !FLEET_ONLY_APIS.includes(api));
}

/** Docker Hub as an Artifact Registry remote repository names it. Source: {@link SOURCES.artifactRegistryRemote}. */
export const DOCKER_HUB = { remoteRepository: "DOCKER_HUB" } as const;

/** The well-known label of a node's zone, which the kubelet sets from the cloud provider. Source: kubernetes/api@10b39a39b core/v1/well_known_labels.go:26. */
export const NODE_ZONE_LABEL = "topology.kubernetes.io/zone";
