/**
 * A fleet: GKE clusters in several regions registered to one GKE fleet, whose TPU capacity one multi-cluster Inference
 * Gateway in a config cluster pools behind one endpoint (Preview in GKE). Each member exports its InferencePools; the
 * config cluster sees each as a GCPInferencePoolImport of the same namespace and name, to which its HTTPRoutes and
 * policies point.
 */

/** GKE's multi-cluster Inference Gateway. Source: {@link SOURCES.gkeMultiClusterInferenceSetup}. */
export const MULTI_CLUSTER_INFERENCE = {
    /** The class GKE's setup page serves multi-cluster inference with: an internal load balancer across regions. */
    gatewayClass: "gke-l7-cross-regional-internal-managed-mc",
    /** The multi-cluster GatewayClasses GKE installs. Source: {@link SOURCES.gkeMultiClusterGatewayPrep}. */
    gatewayClasses: [
        "gke-l7-global-external-managed-mc",
        "gke-l7-regional-external-managed-mc",
        "gke-l7-cross-regional-internal-managed-mc",
        "gke-l7-rilb-mc",
        "gke-l7-gxlb-mc",
    ],
    /** The oldest GKE version every cluster of the fleet, the config cluster included, runs. */
    minimumGkeVersion: "1.34.1-gke.1127000",
    /** The annotation that exports an InferencePool from a member cluster to the fleet. */
    exportAnnotation: { key: "networking.gke.io/export", value: "True" },
    /** What the config cluster's routes and policies name an exported pool by (same namespace and name). */
    importKind: { group: "networking.gke.io", kind: "GCPInferencePoolImport" },
    /** The proxy-only subnet a cross-regional class needs in each region; a region has one proxy-only subnet per network. */
    proxyOnlySubnetPurpose: "GLOBAL_MANAGED_PROXY",
    /** A Gateway address per region: this type with the region appended, and the region as its value. */
    ephemeralAddressTypePrefix: "networking.gke.io/ephemeral-ipv4-address/",
    /** The fleet feature that lets one Gateway span the fleet, and where it and the memberships live. Source: {@link SOURCES.gkeHubResources}. */
    fleetFeature: { name: "multiclusteringress", location: "global" },
    membershipLocation: "global",
    /**
     * The multi-cluster Gateway controller's service agent, and the roles it needs on the project: GKE's guide grants
     * roles/container.admin (the member clusters' credentials; source: {@link SOURCES.gkeMultiClusterGatewayPrep}); its
     * own agent role holds the load balancer's Compute Engine permissions, which an agent made on request
     * (generateServiceIdentity) is not granted by itself (source: {@link SOURCES.multiClusterIngressAgentRole}).
     */
    serviceAgent: {
        domain: "gcp-sa-multiclusteringress.iam.gserviceaccount.com",
        roles: ["roles/container.admin", "roles/multiclusteringress.serviceAgent"],
    },
    /** Network endpoint groups one backend service holds: each port of a pool in each zone of each cluster is one. */
    maxNegsPerBackendService: 50,
    /** What the multi-cluster Gateway does not support. Source: {@link SOURCES.gkeMultiClusterInferenceAbout}. */
    unsupported: { modelArmor: "GKE's multi-cluster Inference Gateway does not support Model Armor" },
    /** The request timeout GKE suggests on an import's backend policy. Source: {@link SOURCES.gkeMultiClusterInferenceAbout}. */
    backendTimeoutSeconds: 600,
} as const;
