/**
 * The GCP and random resources' replacement rules: Terraform schemas bridged by @pulumi/gcp 9.37.0 and @pulumi/random
 * 4.21.2 (the pins and how they were read: index.ts).
 */
import { UNKNOWN_VALUE } from "../recorder";
import { OPTIONAL_COMPUTED, ReplaceRule, block, field, lineOf, under, when } from "./rules";

const TPGB = "hashicorp/terraform-provider-google-beta@848beed88c:google-beta";
const NODE_POOL = lineOf(`${TPGB}/services/container/resource_container_node_pool.go`);
const NODE_CONFIG = lineOf(`${TPGB}/services/container/node_config.go`);
const CLUSTER = lineOf(`${TPGB}/services/container/resource_container_cluster.go`);
const IAM_MEMBER = lineOf(`${TPGB}/tpgiamresource/resource_iam_member.go`);
const REPOSITORY = lineOf(`${TPGB}/services/artifactregistry/resource_artifact_registry_repository.go`);
const ADDRESS = lineOf(`${TPGB}/services/compute/resource_compute_address.go`);
const ALERT_POLICY = lineOf(`${TPGB}/services/monitoring/resource_monitoring_alert_policy.go`);
const ARTIFACT_REGISTRY_REPOSITORY_IAM = lineOf(`${TPGB}/services/artifactregistry/iam_artifact_registry_repository.go`);
const DASHBOARD = lineOf(`${TPGB}/services/monitoring/resource_monitoring_dashboard.go`);
const FIREWALL = lineOf(`${TPGB}/services/compute/resource_compute_firewall.go`);
const IAP_WEB_IAM = lineOf(`${TPGB}/services/iap/iam_iap_web.go`);
const MODEL_ARMOR_TEMPLATE = lineOf(`${TPGB}/services/modelarmor/resource_model_armor_template.go`);
const NETWORK = lineOf(`${TPGB}/services/compute/resource_compute_network.go`);
const PROJECT_IAM = lineOf(`${TPGB}/services/resourcemanager/iam_project.go`);
const PROJECT_SERVICE = lineOf(`${TPGB}/services/resourcemanager/resource_google_project_service.go`);
const PROJECT_SERVICE_IDENTITY = lineOf(`${TPGB}/services/resourcemanager/resource_project_service_identity.go`);
const HUB_MEMBERSHIP = lineOf(`${TPGB}/services/gkehub/resource_gke_hub_membership.go`);
const HUB_FEATURE = lineOf(`${TPGB}/services/gkehub2/resource_gke_hub_feature.go`);
const REGION_SECURITY_POLICY = lineOf(`${TPGB}/services/compute/resource_compute_region_security_policy.go`);
const ROUTER = lineOf(`${TPGB}/services/compute/resource_compute_router.go`);
const ROUTER_NAT = lineOf(`${TPGB}/services/compute/resource_compute_router_nat.go`);
const SERVICE_ACCOUNT = lineOf(`${TPGB}/services/resourcemanager/resource_google_service_account.go`);
const STORAGE_BUCKET = lineOf(`${TPGB}/services/storage/resource_storage_bucket.go`);
const STORAGE_BUCKET_IAM = lineOf(`${TPGB}/services/storage/iam_storage_bucket.go`);
const SUBNETWORK = lineOf(`${TPGB}/services/compute/resource_compute_subnetwork.go`);
const RANDOM_PASSWORD = lineOf("hashicorp/terraform-provider-random@f8d869dc98d9:internal/provider/resource_password.go");

/** `schemaNodeConfig()`, a node pool's `nodeConfig` and a cluster's. */
const nodeConfig = (path: string): ReplaceRule[] => [
    block(path, NODE_CONFIG(284), OPTIONAL_COMPUTED),
    ...under(`${path}.`, [
        block("guestAccelerators", NODE_CONFIG(320), OPTIONAL_COMPUTED),
        ...under("guestAccelerators[].", [
            field("count", NODE_CONFIG(327)),
            field("type", NODE_CONFIG(333)),
            block("gpuDriverInstallationConfig", NODE_CONFIG(342), OPTIONAL_COMPUTED),
            field("gpuDriverInstallationConfig.gpuDriverVersion", NODE_CONFIG(349)),
            field("gpuPartitionSize", NODE_CONFIG(359)),
            block("gpuSharingConfig", NODE_CONFIG(366)),
            field("gpuSharingConfig.gpuSharingStrategy", NODE_CONFIG(373)),
            field("gpuSharingConfig.maxSharedClientsPerGpu", NODE_CONFIG(379)),
        ]),
        field("localSsdCount", NODE_CONFIG(442), OPTIONAL_COMPUTED),
        block("ephemeralStorageConfig", NODE_CONFIG(454)),
        field("ephemeralStorageConfig.localSsdCount", NODE_CONFIG(460)),
        block("ephemeralStorageLocalSsdConfig", NODE_CONFIG(473)),
        field("ephemeralStorageLocalSsdConfig.localSsdCount", NODE_CONFIG(479)),
        field("ephemeralStorageLocalSsdConfig.dataCacheCount", NODE_CONFIG(486)),
        block("localNvmeSsdBlockConfig", NODE_CONFIG(499)),
        field("localNvmeSsdBlockConfig.localSsdCount", NODE_CONFIG(505)),
        block("secondaryBootDisks", NODE_CONFIG(518)),
        field("secondaryBootDisks[].diskImage", NODE_CONFIG(524)),
        field("secondaryBootDisks[].mode", NODE_CONFIG(530)),
        field("metadata", NODE_CONFIG(566), OPTIONAL_COMPUTED),
        field("minCpuPlatform", NODE_CONFIG(575), OPTIONAL_COMPUTED),
        field("oauthScopes", NODE_CONFIG(583), OPTIONAL_COMPUTED),
        field("preemptible", NODE_CONFIG(598)),
        block("reservationAffinity", NODE_CONFIG(607)),
        field("reservationAffinity.consumeReservationType", NODE_CONFIG(613)),
        field("reservationAffinity.key", NODE_CONFIG(620)),
        field("reservationAffinity.values", NODE_CONFIG(626)),
        field("spot", NODE_CONFIG(638)),
        field("serviceAccount", NODE_CONFIG(647), OPTIONAL_COMPUTED),
        block("shieldedInstanceConfig", NODE_CONFIG(669), OPTIONAL_COMPUTED),
        field("shieldedInstanceConfig.enableSecureBoot", NODE_CONFIG(677)),
        field("shieldedInstanceConfig.enableIntegrityMonitoring", NODE_CONFIG(684)),
        block("sandboxConfig", NODE_CONFIG(764)),
        field("bootDiskKmsKey", NODE_CONFIG(790)),
        field("nodeGroup", NODE_CONFIG(1303)),
        block("advancedMachineFeatures", NODE_CONFIG(1312)),
        field("advancedMachineFeatures.threadsPerCore", NODE_CONFIG(1318)),
        field("advancedMachineFeatures.enableNestedVirtualization", NODE_CONFIG(1324)),
        block("soleTenantConfig", NODE_CONFIG(1341)),
        block("soleTenantConfig.nodeAffinities", NODE_CONFIG(1348)),
        field("soleTenantConfig.nodeAffinities[].key", NODE_CONFIG(1355)),
        field("soleTenantConfig.nodeAffinities[].operator", NODE_CONFIG(1361)),
        field("soleTenantConfig.nodeAffinities[].values", NODE_CONFIG(1368)),
        block("hostMaintenancePolicy", NODE_CONFIG(1387)),
        field("hostMaintenancePolicy.maintenanceInterval", NODE_CONFIG(1394)),
        block("hostMaintenancePolicy.opportunisticMaintenanceStrategy", NODE_CONFIG(1401)),
        field("hostMaintenancePolicy.opportunisticMaintenanceStrategy.nodeIdleTimeWindow", NODE_CONFIG(1409)),
        field("hostMaintenancePolicy.opportunisticMaintenanceStrategy.maintenanceAvailabilityWindow", NODE_CONFIG(1415)),
        field("hostMaintenancePolicy.opportunisticMaintenanceStrategy.minNodesPerPool", NODE_CONFIG(1421)),
        field("confidentialNodes.confidentialInstanceType", NODE_CONFIG(1446)),
        field("enableConfidentialStorage", NODE_CONFIG(1477)),
        field("localSsdEncryptionMode", NODE_CONFIG(1483)),
        field("maxRunDuration", NODE_CONFIG(1490)),
        field("flexStart", NODE_CONFIG(1496)),
    ]),
];

/** `schemaNodePool`, a NodePool's own fields and a cluster's `nodePools[]`. */
const nodePool: ReplaceRule[] = [
    field("maxPodsPerNode", NODE_POOL(430), OPTIONAL_COMPUTED),
    block("placementPolicy", NODE_POOL(386)),
    field("placementPolicy.policyName", NODE_POOL(397)),
    block("queuedProvisioning", NODE_POOL(414)),
    field("queuedProvisioning.enabled", NODE_POOL(420)),
    field("initialNodeCount", NODE_POOL(483), OPTIONAL_COMPUTED),
    field("name", NODE_POOL(531), OPTIONAL_COMPUTED),
    field("namePrefix", NODE_POOL(539), OPTIONAL_COMPUTED),
    ...nodeConfig("nodeConfig"),
    ...under("networkConfig.", [
        field("acceleratorNetworkProfile", NODE_POOL(572)),
        field("createPodRange", NODE_POOL(577)),
        field("podRange", NODE_POOL(589), OPTIONAL_COMPUTED),
        field("podIpv4CidrBlock", NODE_POOL(596), OPTIONAL_COMPUTED),
        block("additionalNodeNetworkConfigs", NODE_POOL(605), OPTIONAL_COMPUTED),
        field("additionalNodeNetworkConfigs[].network", NODE_POOL(613), OPTIONAL_COMPUTED),
        field("additionalNodeNetworkConfigs[].subnetwork", NODE_POOL(620), OPTIONAL_COMPUTED),
        block("additionalPodNetworkConfigs", NODE_POOL(629)),
        field("additionalPodNetworkConfigs[].subnetwork", NODE_POOL(636)),
        field("additionalPodNetworkConfigs[].secondaryPodRange", NODE_POOL(642)),
        field("additionalPodNetworkConfigs[].maxPodsPerNode", NODE_POOL(648), OPTIONAL_COMPUTED),
        block("podCidrOverprovisionConfig", NODE_POOL(659), OPTIONAL_COMPUTED),
        field("subnetwork", NODE_POOL(690), OPTIONAL_COMPUTED),
    ]),
];

/** `IamMemberBaseSchema`, which every IAM member resource shares: each of its inputs. */
const iamMember: ReplaceRule[] = [
    field("role", IAM_MEMBER(67)),
    field("member", IAM_MEMBER(72)),
    block("condition", IAM_MEMBER(80)),
    field("condition.expression", IAM_MEMBER(86)),
    field("condition.title", IAM_MEMBER(91)),
    field("condition.description", IAM_MEMBER(96)),
];

/** A remote repository's upstream: `customRepository.uri` and `publicRepository` (a string), as each format spells it. */
const remoteUpstream = (format: string, lines: { block: number; custom: number; uri: number; public: number }): ReplaceRule[] => [
    block(format, REPOSITORY(lines.block)),
    block(`${format}.customRepository`, REPOSITORY(lines.custom)),
    field(`${format}.customRepository.uri`, REPOSITORY(lines.uri)),
    field(`${format}.publicRepository`, REPOSITORY(lines.public)),
];

/** Bool conditions of `customdiff.ForceNewIfChange`: true before, not after (a missing bool reads false). */
const wasTrue = (before: unknown, after: unknown) => before === true && after !== true;

/** IPv4 `a.b.c.d/n` as its first and last address, or undefined when it is not one. */
function ipv4Range(cidr: unknown): [number, number] | undefined {
    const match = typeof cidr === "string" ? /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr) : null;
    if (!match) {
        return undefined;
    }
    const [a, b, c, d, bits] = match.slice(1).map(Number);
    if ([a, b, c, d].some((octet) => octet > 255) || bits > 32) {
        return undefined;
    }
    const size = 2 ** (32 - bits);
    const start = Math.floor((((a * 256 + b) * 256 + c) * 256 + d) / size) * size;
    return [start, start + size - 1];
}

/** `IsShrinkageIpCidr`: the new range does not hold the old one; unparsable ranges never replace. */
function shrinks(before: unknown, after: unknown): boolean {
    const [old, next] = [ipv4Range(before), ipv4Range(after)];
    return old !== undefined && next !== undefined && !(next[0] <= old[0] && old[1] <= next[1]);
}

export const GCP: Record<string, ReplaceRule[]> = {
    "gcp:container/nodePool:NodePool": [
        field("project", NODE_POOL(243), OPTIONAL_COMPUTED),
        field("cluster", NODE_POOL(249)),
        field("location", NODE_POOL(256), OPTIONAL_COMPUTED),
        ...nodePool,
    ],
    "gcp:container/cluster:Cluster": [
        field("name", CLUSTER(298)),
        field("location", CLUSTER(332), OPTIONAL_COMPUTED),
        field("clusterAutoscaling.autoProvisioningDefaults.bootDiskKmsKey", CLUSTER(877)),
        field("clusterIpv4Cidr", CLUSTER(1070), OPTIONAL_COMPUTED),
        field("description", CLUSTER(1079)),
        field("enableKubernetesAlpha", CLUSTER(1113)),
        field("enableTpu", CLUSTER(1138), OPTIONAL_COMPUTED),
        field("tpuConfig.enabled", CLUSTER(1157)),
        field("tpuConfig.useServiceNetworking", CLUSTER(1168)),
        field("enableAutopilot", CLUSTER(1193)),
        field("initialNodeCount", CLUSTER(1235)),
        block("confidentialNodes", CLUSTER(1717), OPTIONAL_COMPUTED),
        field("confidentialNodes.enabled", CLUSTER(1725)),
        field("confidentialNodes.confidentialInstanceType", CLUSTER(1731)),
        block("masterAuth.clientCertificateConfig", CLUSTER(1752)),
        field("masterAuth.clientCertificateConfig.issueClientCertificate", CLUSTER(1759)),
        field("network", CLUSTER(1816)),
        ...nodeConfig("nodeConfig"),
        block("nodePools", CLUSTER(1852), OPTIONAL_COMPUTED),
        ...under("nodePools[].", nodePool),
        field("project", CLUSTER(2022), OPTIONAL_COMPUTED),
        field("subnetwork", CLUSTER(2030), OPTIONAL_COMPUTED),
        block("ipAllocationPolicy", CLUSTER(2062), OPTIONAL_COMPUTED),
        field("ipAllocationPolicy.clusterIpv4CidrBlock", CLUSTER(2074), OPTIONAL_COMPUTED),
        field("ipAllocationPolicy.servicesIpv4CidrBlock", CLUSTER(2084), OPTIONAL_COMPUTED),
        field("ipAllocationPolicy.clusterSecondaryRangeName", CLUSTER(2095), OPTIONAL_COMPUTED),
        field("ipAllocationPolicy.servicesSecondaryRangeName", CLUSTER(2104), OPTIONAL_COMPUTED),
        block("ipAllocationPolicy.podCidrOverprovisionConfig", CLUSTER(2120), OPTIONAL_COMPUTED),
        field("networkingMode", CLUSTER(2234), OPTIONAL_COMPUTED),
        field("privateClusterConfig.masterIpv4CidrBlock", CLUSTER(2344), OPTIONAL_COMPUTED),
        field("privateClusterConfig.privateEndpointSubnetwork", CLUSTER(2362)),
        field("defaultMaxPodsPerNode", CLUSTER(2425), OPTIONAL_COMPUTED),
        field("datapathProvider", CLUSTER(2627), OPTIONAL_COMPUTED),
        field("dataplaneOptimizationMode", CLUSTER(2636)),
        field("userManagedKeysConfig.clusterCa", CLUSTER(2841)),
        field("userManagedKeysConfig.etcdApiCa", CLUSTER(2847)),
        field("userManagedKeysConfig.etcdPeerCa", CLUSTER(2853)),
        field("userManagedKeysConfig.aggregationCa", CLUSTER(2859)),
        // CustomizeDiff (L256-271): subsetting and FQDN network policy cannot be turned off once on (isBeenEnabled L228-239).
        when("enableL4IlbSubsetting", wasTrue, CLUSTER(259)),
        when("enableFqdnNetworkPolicy", wasTrue, CLUSTER(260)),
        when(
            "dnsConfig.additiveVpcScopeDnsDomain",
            (before, after, inputs) => inputs.after?.enableAutopilot === true && JSON.stringify(before) !== JSON.stringify(after),
            CLUSTER(9145),
        ),
        when(
            "enableK8sBetaApis.enabledApis",
            (before, after) => Array.isArray(before) && before.some((api) => !(Array.isArray(after) && after.includes(api))),
            CLUSTER(9341),
        ),
    ],
    "gcp:compute/network:Network": [
        field("name", NETWORK(143)),
        field("autoCreateSubnetworks", NETWORK(156)),
        field("description", NETWORK(168)),
        field("internalIpv6Range", NETWORK(182), OPTIONAL_COMPUTED),
        field("networkProfile", NETWORK(209)),
        block("params", NETWORK(220)),
        field("params.resourceManagerTags", NETWORK(228)),
        field("project", NETWORK(305), OPTIONAL_COMPUTED),
    ],
    "gcp:compute/subnetwork:Subnetwork": [
        // CustomizeDiff `ForceNewIfChange("ip_cidr_range", IsShrinkageIpCidr)` (IsShrinkageIpCidr L63-80): growing is an update.
        when("ipCidrRange", shrinks, SUBNETWORK(512)),
        field("name", SUBNETWORK(547)),
        field("network", SUBNETWORK(560)),
        field("description", SUBNETWORK(577)),
        field("externalIpv6Prefix", SUBNETWORK(586), OPTIONAL_COMPUTED),
        field("internalIpv6Prefix", SUBNETWORK(593), OPTIONAL_COMPUTED),
        block("params", SUBNETWORK(698)),
        field("params.resourceManagerTags", SUBNETWORK(706)),
        field("region", SUBNETWORK(748), OPTIONAL_COMPUTED),
        field("reservedInternalRange", SUBNETWORK(755)),
        field("resolveSubnetMask", SUBNETWORK(763)),
        field("project", SUBNETWORK(903), OPTIONAL_COMPUTED),
    ],
    "gcp:compute/router:Router": [
        field("name", ROUTER(166)),
        field("encryptedInterconnectRouter", ROUTER(259)),
        field("nccGateway", ROUTER(287)),
        field("network", ROUTER(295)),
        block("params", ROUTER(303)),
        field("region", ROUTER(323), OPTIONAL_COMPUTED),
        field("project", ROUTER(336), OPTIONAL_COMPUTED),
    ],
    "gcp:compute/routerNat:RouterNat": [
        field("name", ROUTER_NAT(307)),
        field("router", ROUTER_NAT(315)),
        field("endpointTypes", ROUTER_NAT(378), OPTIONAL_COMPUTED),
        field("initialNatIps", ROUTER_NAT(397)),
        field("region", ROUTER_NAT(475), OPTIONAL_COMPUTED),
        field("type", ROUTER_NAT(528)),
        field("project", ROUTER_NAT(546), OPTIONAL_COMPUTED),
    ],
    "gcp:compute/firewall:Firewall": [
        field("name", FIREWALL(249)),
        field("direction", FIREWALL(306), OPTIONAL_COMPUTED),
        block("params", FIREWALL(341)),
        field("project", FIREWALL(476), OPTIONAL_COMPUTED),
    ],
    "gcp:compute/address:Address": [
        field("name", ADDRESS(175)),
        field("address", ADDRESS(188), OPTIONAL_COMPUTED),
        field("addressType", ADDRESS(196)),
        field("description", ADDRESS(205)),
        field("ipCollection", ADDRESS(211)),
        field("ipVersion", ADDRESS(226)),
        field("ipv6EndpointType", ADDRESS(234)),
        field("network", ADDRESS(253)),
        field("networkTier", ADDRESS(263), OPTIONAL_COMPUTED),
        field("prefixLength", ADDRESS(273), OPTIONAL_COMPUTED),
        field("purpose", ADDRESS(280), OPTIONAL_COMPUTED),
        field("region", ADDRESS(305), OPTIONAL_COMPUTED),
        field("subnetwork", ADDRESS(314), OPTIONAL_COMPUTED),
        field("project", ADDRESS(362), OPTIONAL_COMPUTED),
    ],
    "gcp:compute/regionSecurityPolicy:RegionSecurityPolicy": [
        field("name", REGION_SECURITY_POLICY(153)),
        field("region", REGION_SECURITY_POLICY(242), OPTIONAL_COMPUTED),
        field("type", REGION_SECURITY_POLICY(713)),
        field("project", REGION_SECURITY_POLICY(789), OPTIONAL_COMPUTED),
    ],
    "gcp:storage/bucket:Bucket": [
        // CustomizeDiff `ForceNewIfChange("retention_policy.0.is_locked", isPolicyLocked)` (L874-885): a lock stays.
        when("retentionPolicy.isLocked", wasTrue, STORAGE_BUCKET(80)),
        field("name", STORAGE_BUCKET(135)),
        // Its StateFunc upper-cases it (L197-199): a change of case is none.
        when(
            "location",
            (before, after) => after === UNKNOWN_VALUE || String(before).toUpperCase() !== String(after).toUpperCase(),
            STORAGE_BUCKET(196),
        ),
        field("project", STORAGE_BUCKET(207), OPTIONAL_COMPUTED),
        field("enableObjectRetention", STORAGE_BUCKET(375)),
        field("customPlacementConfig.dataLocations", STORAGE_BUCKET(576)),
        block("hierarchicalNamespace", STORAGE_BUCKET(628)),
        field("hierarchicalNamespace.enabled", STORAGE_BUCKET(636)),
    ],
    "gcp:storage/bucketIAMMember:BucketIAMMember": [...iamMember, field("bucket", STORAGE_BUCKET_IAM(36))],
    "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember": [
        ...iamMember,
        field("project", ARTIFACT_REGISTRY_REPOSITORY_IAM(76), OPTIONAL_COMPUTED),
        field("location", ARTIFACT_REGISTRY_REPOSITORY_IAM(82), OPTIONAL_COMPUTED),
        field("repository", ARTIFACT_REGISTRY_REPOSITORY_IAM(87)),
    ],
    "gcp:projects/iAMMember:IAMMember": [...iamMember, field("project", PROJECT_IAM(38))],
    "gcp:iap/webIamMember:WebIamMember": [...iamMember, field("project", IAP_WEB_IAM(76), OPTIONAL_COMPUTED)],
    "gcp:artifactregistry/repository:Repository": [
        field("format", REPOSITORY(305)),
        field("repositoryId", REPOSITORY(315)),
        field("kmsKeyName", REPOSITORY(448)),
        field("location", REPOSITORY(472), OPTIONAL_COMPUTED),
        field("mavenConfig.allowSnapshotOverwrites", REPOSITORY(493)),
        field("mavenConfig.versionPolicy", REPOSITORY(500)),
        field("mode", REPOSITORY(511)),
        block("remoteRepositoryConfig", REPOSITORY(519)),
        ...under("remoteRepositoryConfig.", [
            block("aptRepository", REPOSITORY(527)),
            block("aptRepository.publicRepository", REPOSITORY(535)),
            field("aptRepository.publicRepository.repositoryBase", REPOSITORY(543)),
            field("aptRepository.publicRepository.repositoryPath", REPOSITORY(550)),
            block("commonRepository", REPOSITORY(563)),
            field("commonRepository.uri", REPOSITORY(571)),
            field("description", REPOSITORY(584)),
            ...remoteUpstream("dockerRepository", { block: 596, custom: 604, uri: 612, public: 622 }),
            ...remoteUpstream("mavenRepository", { block: 634, custom: 642, uri: 650, public: 660 }),
            field("noCache", REPOSITORY(672)),
            ...remoteUpstream("npmRepository", { block: 682, custom: 690, uri: 698, public: 708 }),
            ...remoteUpstream("pythonRepository", { block: 720, custom: 728, uri: 736, public: 746 }),
            block("yumRepository", REPOSITORY(790)),
            block("yumRepository.publicRepository", REPOSITORY(798)),
            field("yumRepository.publicRepository.repositoryBase", REPOSITORY(806)),
            field("yumRepository.publicRepository.repositoryPath", REPOSITORY(813)),
        ]),
        field("project", REPOSITORY(930), OPTIONAL_COMPUTED),
    ],
    "gcp:projects/service:Service": [field("service", PROJECT_SERVICE(136)), field("project", PROJECT_SERVICE(143), OPTIONAL_COMPUTED)],
    "gcp:projects/serviceIdentity:ServiceIdentity": [
        field("service", PROJECT_SERVICE_IDENTITY(53)),
        field("project", PROJECT_SERVICE_IDENTITY(59), OPTIONAL_COMPUTED),
    ],
    "gcp:gkehub/membership:Membership": [
        field("membershipId", HUB_MEMBERSHIP(167)),
        field("authority.issuer", HUB_MEMBERSHIP(182)),
        block("endpoint", HUB_MEMBERSHIP(192)),
        block("endpoint.gkeCluster", HUB_MEMBERSHIP(200)),
        field("endpoint.gkeCluster.resourceLink", HUB_MEMBERSHIP(208)),
        field("location", HUB_MEMBERSHIP(235)),
        field("project", HUB_MEMBERSHIP(262), OPTIONAL_COMPUTED),
    ],
    "gcp:gkehub/feature:Feature": [
        field("location", HUB_FEATURE(148)),
        field("name", HUB_FEATURE(572)),
        field("project", HUB_FEATURE(848), OPTIONAL_COMPUTED),
    ],
    "gcp:serviceaccount/account:Account": [
        field("accountId", SERVICE_ACCOUNT(93)),
        field("project", SERVICE_ACCOUNT(118), OPTIONAL_COMPUTED),
    ],
    "gcp:monitoring/dashboard:Dashboard": [field("project", DASHBOARD(114), OPTIONAL_COMPUTED)],
    "gcp:monitoring/alertPolicy:AlertPolicy": [field("project", ALERT_POLICY(1313), OPTIONAL_COMPUTED)],
    "gcp:modelarmor/template:Template": [
        field("location", MODEL_ARMOR_TEMPLATE(303)),
        field("templateId", MODEL_ARMOR_TEMPLATE(309)),
        field("project", MODEL_ARMOR_TEMPLATE(455), OPTIONAL_COMPUTED),
    ],
};

/**
 * A GCP type the catalog does not list: its project, which every resource magic-modules generates declares ForceNew,
 * and its name and location, on which every type above that has them replaces (a test holds the catalog to that).
 */
export const GCP_GENERIC: ReplaceRule[] = [
    field("project", "GoogleCloudPlatform/magic-modules@d57784406a:mmv1/templates/terraform/resource.go.tmpl:231", OPTIONAL_COMPUTED),
    field("name", "every catalogued GCP type with a name"),
    field("location", "every catalogued GCP type with a location", OPTIONAL_COMPUTED),
];

export const RANDOM: Record<string, ReplaceRule[]> = {
    // Plugin-framework plan modifiers: RequiresReplace() replaces on any change, an unknown included.
    "random:index/randomPassword:RandomPassword": [
        // RequiresReplaceIfValuesNotNull (internal/planmodifiers/map/mapplanmodifiers.go:12-98): a key added, removed or changed.
        field("keepers", RANDOM_PASSWORD(576)),
        field("length", RANDOM_PASSWORD(585)),
        field("special", RANDOM_PASSWORD(604)),
        field("upper", RANDOM_PASSWORD(614)),
        field("lower", RANDOM_PASSWORD(624)),
        field("number", RANDOM_PASSWORD(637)),
        field("numeric", RANDOM_PASSWORD(657)),
        field("minNumeric", RANDOM_PASSWORD(674)),
        field("minUpper", RANDOM_PASSWORD(684)),
        field("minLower", RANDOM_PASSWORD(694)),
        field("minSpecial", RANDOM_PASSWORD(704)),
        // RequiresReplaceUnlessEmptyStringToNull (internal/planmodifiers/string/stringplanmodifier.go:21-46).
        when(
            "overrideSpecial",
            (before, after) => after !== UNKNOWN_VALUE && before !== after && !(before === "" && after === undefined),
            RANDOM_PASSWORD(714),
        ),
    ],
};

/**
 * How the GCP provider reads inputs before it diffs them, for the types the stacks emit: Terraform sets, whose order is
 * no change (the bridge diffs them as sets: pulumi/pulumi-terraform-bridge#2478); OAuth scopes by their canonical URL
 * (the set hashes the canonical scope, `canonicalizeServiceScope`); and defaults a program may write or leave out,
 * which the bridge's Check fills in (pulumi/pulumi-terraform-bridge@v3.136.0 pkg/tfbridge/provider.go:1065).
 */
export const GCP_INPUT_READING: Record<string, { sets: Array<[string, string]>; defaults: Array<[string, unknown, string]> }> = {
    "gcp:container/cluster:Cluster": {
        sets: [
            ["nodeLocations", `${TPGB}/services/container/resource_container_cluster.go (node_locations, a TypeSet)`],
            ["masterAuthorizedNetworksConfig.cidrBlocks", CLUSTER(67)],
        ],
        defaults: [],
    },
    "gcp:container/nodePool:NodePool": {
        sets: [
            ["nodeLocations", `${TPGB}/services/container/resource_container_node_pool.go (node_locations, a TypeSet)`],
            ["nodeConfig.oauthScopes", NODE_CONFIG(579)],
        ],
        defaults: [
            ["nodeConfig.spot", false, NODE_CONFIG(635)],
            ["nodeConfig.preemptible", false, NODE_CONFIG(595)],
        ],
    },
    "gcp:compute/firewall:Firewall": {
        sets: ["sourceRanges", "targetTags", "sourceTags", "destinationRanges", "allows", "denies"].map((path) => [path, FIREWALL(372)]),
        defaults: [],
    },
    "gcp:compute/address:Address": { sets: [], defaults: [["addressType", "EXTERNAL", ADDRESS(200)]] },
    "gcp:compute/network:Network": { sets: [], defaults: [["autoCreateSubnetworks", true, NETWORK(163)]] },
};

/** An OAuth scope as the provider hashes it: a short name (`cloud-platform`) is the scope's URL. */
export function canonicalScope(scope: unknown): unknown {
    return typeof scope === "string" && !scope.includes("://") ? `https://www.googleapis.com/auth/${scope}` : scope;
}
