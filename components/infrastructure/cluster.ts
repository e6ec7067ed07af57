import * as gcp from "@pulumi/gcp";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { GCP_NAME_RULES, IMAGE_STREAMING_NODE_ROLES, METRICS, NODE_SERVICE_ACCOUNT_ROLES, WEBHOOK_PORTS } from "@gke-tpu-inference/facts";
import { StackNames } from "../lib/names";
import { FROZEN_TYPE_TOKENS } from "../lib/typeTokens";
import { SystemPoolSettings } from "../settings/cluster";
import { SECONDARY_RANGE_NAMES } from "./network";

/** What the cluster's resources wait for before they are created, by the Google API they call. */
export interface ClusterPrerequisites {
    /** Before the cluster and its node pools: the Kubernetes Engine API, and the check that its channel's default meets the GKE floor (`GKE_VERSION.floor`). */
    container: pulumi.Input<pulumi.Input<pulumi.Resource>[]>;
    /** Before the node service account: the IAM API. */
    iam: pulumi.Input<pulumi.Input<pulumi.Resource>[]>;
    /** Before the account's project role grants: the Cloud Resource Manager API. */
    resourceManager: pulumi.Input<pulumi.Input<pulumi.Resource>[]>;
}

/** Arguments of {@link GkeCluster}. */
export interface GkeClusterArgs {
    /** GCP project of the cluster and its node service account. */
    project: string;
    /** Region of the (regional) control plane and the system node pool. */
    region: string;
    /** Self link of the VPC. */
    networkId: pulumi.Input<string>;
    /** Self link of the node subnet; it must carry the secondary ranges named in {@link SECONDARY_RANGE_NAMES}. */
    subnetworkId: pulumi.Input<string>;
    /** GKE release channel; the cluster is created at its default version (checked against the GKE floor at preview) and follows it. */
    releaseChannel: string;
    /**
     * The exact version to create the cluster at: the channel's default as the preview read it, so that the pack can
     * judge the version (a fleet's clusters must meet GKE's multi-cluster floor). Unset: GKE picks the channel's default
     * at creation. Only creation reads it: later values are ignored, and GKE upgrades the cluster along its channel.
     */
    minMasterVersion?: pulumi.Input<string>;
    /** CIDRs allowed to reach the control plane endpoint; empty leaves it open to any address with credentials. */
    masterAuthorizedNetworks: string[];
    /** Private /28 of the control plane; the webhook firewall rule admits it. */
    masterCidr: string;
    /** Ports besides {@link WEBHOOK_PORTS} the control plane must reach on pods: the gateway provider's (istiod's webhooks). */
    extraWebhookPorts?: readonly string[];
    /**
     * Refuse `pulumi destroy` and replacements of the cluster: GKE's own deletion protection, and Pulumi's
     * `protect` on the cluster and the node service account, which the engine checks before it deletes anything.
     * Leave on outside throwaway stacks.
     */
    deletionProtection: boolean;
    /** The autoscaled CPU pool that runs cert-manager, LeaderWorkerSet, KServe and the EPP. */
    systemPool: SystemPoolSettings;
    /** A node pool streams images: the node service account also gets the roles the Container File System API needs. */
    imageStreaming: boolean;
    /** GCP names of the cluster, its node service account and its firewall rule, unique per stack in the project. */
    names: StackNames;
    /** The APIs (and preview checks) each kind of resource waits for. */
    prerequisites: ClusterPrerequisites;
}

/** Scope for node VMs: access is governed by IAM on the node service account, not by scopes. */
const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";

/** Node settings every pool of this cluster shares: hardened boot and the GKE metadata server for Workload Identity. */
export function hardenedNodeConfig(serviceAccountEmail: pulumi.Input<string>) {
    return {
        serviceAccount: serviceAccountEmail,
        oauthScopes: [CLOUD_PLATFORM_SCOPE],
        shieldedInstanceConfig: { enableSecureBoot: true, enableIntegrityMonitoring: true },
        workloadMetadataConfig: { mode: "GKE_METADATA" },
    };
}

/**
 * The cluster: private, VPC-native and regional, with the GKE Gateway controller, Workload Identity, shielded nodes and
 * Managed Prometheus on, at its release channel's default version, its default pool removed at creation.
 */
export function clusterArgs(args: GkeClusterArgs, nodeServiceAccountEmail: pulumi.Input<string>): gcp.container.ClusterArgs {
    return {
        project: args.project,
        name: args.names.name("", GCP_NAME_RULES.cluster),
        location: args.region,
        network: args.networkId,
        subnetwork: args.subnetworkId,
        networkingMode: "VPC_NATIVE",
        ipAllocationPolicy: {
            clusterSecondaryRangeName: SECONDARY_RANGE_NAMES.pods,
            servicesSecondaryRangeName: SECONDARY_RANGE_NAMES.services,
        },
        // The provider sends minMasterVersion as the exact version to create at (TPGB v7.45.0
        // google-beta/services/container/resource_container_cluster.go:3200), and GKE refuses a patch its channel no longer
        // offers: only the channel's default as read in the same run, checked against the floors at preview, is given.
        ...(args.minMasterVersion !== undefined ? { minMasterVersion: args.minMasterVersion } : {}),
        releaseChannel: { channel: args.releaseChannel },
        // The GKE Gateway controller is off unless asked for, and it needs the HTTP load balancing add-on.
        gatewayApiConfig: { channel: "CHANNEL_STANDARD" },
        addonsConfig: { httpLoadBalancing: { disabled: false } },
        workloadIdentityConfig: { workloadPool: workloadPoolOf(args.project) },
        privateClusterConfig: { enablePrivateNodes: true, enablePrivateEndpoint: false, masterIpv4CidrBlock: args.masterCidr },
        ...(args.masterAuthorizedNetworks.length > 0
            ? {
                  masterAuthorizedNetworksConfig: {
                      cidrBlocks: args.masterAuthorizedNetworks.map((cidrBlock) => ({ cidrBlock, displayName: cidrBlock })),
                  },
              }
            : {}),
        enableShieldedNodes: true,
        // Deployments' and HPAs' kube state metrics: the dashboard's replicas and the at-maximum alert read them.
        monitoringConfig: {
            enableComponents: ["SYSTEM_COMPONENTS", ...METRICS.kubeState.components],
            managedPrometheus: { enabled: true },
        },
        loggingConfig: { enableComponents: ["SYSTEM_COMPONENTS", "WORKLOADS"] },
        deletionProtection: args.deletionProtection,
        // GKE insists on a default pool at creation; it is removed at once, and even it runs as the dedicated account.
        removeDefaultNodePool: true,
        initialNodeCount: 1,
        nodeConfig: hardenedNodeConfig(nodeServiceAccountEmail),
    };
}

/** The autoscaled CPU pool of the platform, across the region's zones, surging one node at a time. */
export function systemPoolArgs(
    args: Pick<GkeClusterArgs, "project" | "region" | "systemPool">,
    clusterId: pulumi.Input<string>,
    nodeServiceAccountEmail: pulumi.Input<string>,
): gcp.container.NodePoolArgs {
    return {
        project: args.project,
        location: args.region,
        cluster: clusterId,
        initialNodeCount: 1,
        autoscaling: {
            totalMinNodeCount: args.systemPool.minNodes,
            totalMaxNodeCount: args.systemPool.maxNodes,
            locationPolicy: "BALANCED",
        },
        management: { autoRepair: true, autoUpgrade: true },
        upgradeSettings: { maxSurge: 1, maxUnavailable: 0 },
        nodeConfig: {
            ...hardenedNodeConfig(nodeServiceAccountEmail),
            machineType: args.systemPool.machineType,
            diskType: "pd-balanced",
            diskSizeGb: 100,
            labels: { "gke-tpu-inference/pool": "system" },
        },
    };
}

/**
 * The rule that lets the control plane reach admission webhooks on the nodes' pods: private nodes accept it on 443 and
 * 10250 only, while the webhooks listen on 9443 (a gateway provider's on its own ports) and KEDA's metrics API on 6443.
 */
export function webhookFirewallArgs(
    args: Pick<GkeClusterArgs, "project" | "names" | "networkId" | "masterCidr" | "extraWebhookPorts">,
    nodeServiceAccountEmail: pulumi.Input<string>,
): gcp.compute.FirewallArgs {
    return {
        project: args.project,
        name: args.names.name("webhooks", GCP_NAME_RULES.compute),
        network: args.networkId,
        direction: "INGRESS",
        sourceRanges: [args.masterCidr],
        allows: [{ protocol: "tcp", ports: [...WEBHOOK_PORTS, ...(args.extraWebhookPorts ?? [])] }],
        targetServiceAccounts: [nodeServiceAccountEmail],
        description: "GKE control plane to admission webhooks on nodes",
    };
}

/** The cluster's Workload Identity pool. */
function workloadPoolOf(project: string): string {
    return `${project}.svc.id.goog`;
}

/**
 * A private, VPC-native, regional GKE Standard cluster with the GKE Gateway controller on,
 * a dedicated least-privilege node service account, an autoscaled system node pool, and a
 * Kubernetes provider that targets it. The provider waits for the system pool only, so the
 * platform layer installs while TPU capacity is still being found.
 */
export class GkeCluster extends pulumi.ComponentResource {
    public readonly clusterName: pulumi.Output<string>;
    /** `projects/<p>/locations/<region>/clusters/<name>`: what node pools attach to. */
    public readonly clusterId: pulumi.Output<string>;
    public readonly endpoint: pulumi.Output<string>;
    /** Email of the node service account; TPU pools run as it too. */
    public readonly nodeServiceAccountEmail: pulumi.Output<string>;
    /** Workload Identity pool, `<project>.svc.id.goog`. */
    public readonly workloadPool: string;
    /** Kubeconfig that authenticates with gke-gcloud-auth-plugin; it holds no credential. */
    public readonly kubeconfig: pulumi.Output<string>;
    /** `gcloud container clusters get-credentials …` for this cluster. */
    public readonly getCredentialsCommand: pulumi.Output<string>;
    /** Provider for every Kubernetes object of the stack. */
    public readonly provider: k8s.Provider;
    /** Lets the control plane call admission webhooks on their pod ports; whatever installs such a webhook waits for it. */
    public readonly webhookFirewall: gcp.compute.Firewall;
    /** The node service account's project roles; every node pool waits for them, since nodes log and report metrics from their first boot. */
    public readonly nodeRoleGrants: gcp.projects.IAMMember[];
    /** With image streaming, the node account's use of the Container File System API; only a streaming pool waits for it. */
    public readonly imageStreamingGrants: gcp.projects.IAMMember[];

    constructor(name: string, args: GkeClusterArgs, opts?: pulumi.ComponentResourceOptions) {
        super(FROZEN_TYPE_TOKENS.GkeCluster, name, {}, opts);
        const { project, region, names, prerequisites } = args;
        const protect = args.deletionProtection;

        const nodeServiceAccount = new gcp.serviceaccount.Account(
            `${name}-nodes`,
            {
                project,
                accountId: names.name("nodes", GCP_NAME_RULES.serviceAccount),
                displayName: `GKE nodes of ${name} (stack ${names.stack})`,
            },
            // A new account ID cannot be created while the old one exists; nodes running as it are lost with it.
            { parent: this, deleteBeforeReplace: true, protect, dependsOn: prerequisites.iam },
        );
        const nodeRoles = (roles: readonly string[]) =>
            roles.map(
                (role) =>
                    new gcp.projects.IAMMember(
                        `${name}-nodes-${role.split("/")[1].replace(/\./g, "-").toLowerCase()}`,
                        { project, role, member: pulumi.interpolate`serviceAccount:${nodeServiceAccount.email}` },
                        { parent: this, dependsOn: prerequisites.resourceManager },
                    ),
            );
        this.nodeRoleGrants = nodeRoles(NODE_SERVICE_ACCOUNT_ROLES);
        this.imageStreamingGrants = nodeRoles(args.imageStreaming ? IMAGE_STREAMING_NODE_ROLES : []);
        this.workloadPool = workloadPoolOf(project);

        const cluster = new gcp.container.Cluster(`${name}-cluster`, clusterArgs(args, nodeServiceAccount.email), {
            parent: this,
            // Both describe only the default pool that is removed at creation; GKE reports them differently afterwards.
            // minMasterVersion, when given, is what the cluster was created at: a later channel default moved on would
            // otherwise make the next `pulumi up` upgrade the control plane at once (resource_container_cluster.go:4913-4950).
            ignoreChanges: ["initialNodeCount", "nodeConfig", ...(args.minMasterVersion !== undefined ? ["minMasterVersion"] : [])],
            customTimeouts: { create: "45m", update: "45m", delete: "45m" },
            protect,
            // The name is fixed, so a replacement must delete first (and protection refuses one in protected stacks).
            deleteBeforeReplace: true,
            dependsOn: prerequisites.container,
        });
        const systemPool = new gcp.container.NodePool(`${name}-system`, systemPoolArgs(args, cluster.id, nodeServiceAccount.email), {
            parent: this,
            // Nodes log and report metrics from their first boot, so their role must exist before they do.
            dependsOn: this.nodeRoleGrants,
            // The autoscaler owns the node count after creation.
            ignoreChanges: ["initialNodeCount"],
            customTimeouts: { create: "30m", update: "30m", delete: "30m" },
        });
        this.webhookFirewall = new gcp.compute.Firewall(`${name}-webhooks`, webhookFirewallArgs(args, nodeServiceAccount.email), {
            parent: this,
            deleteBeforeReplace: true,
        });

        this.clusterName = cluster.name;
        this.clusterId = cluster.id;
        this.endpoint = cluster.endpoint;
        this.nodeServiceAccountEmail = nodeServiceAccount.email;
        this.kubeconfig = pulumi
            .all([cluster.name, cluster.endpoint, cluster.masterAuth.clusterCaCertificate])
            .apply(([clusterName, endpoint, caCertificate]) => gkeKubeconfig(clusterName, endpoint, caCertificate ?? ""));
        this.getCredentialsCommand = pulumi.interpolate`gcloud container clusters get-credentials ${cluster.name} --region ${region} --project ${project}`;

        this.provider = new k8s.Provider(
            `${name}-k8s`,
            {
                kubeconfig: this.kubeconfig,
                // Only a different cluster replaces the provider (and with it every Kubernetes object);
                // a kubeconfig change such as a rotated CA is an update.
                clusterIdentifier: cluster.id,
                // The LeaderWorkerSet CRD is over the 256 KiB client-side annotation limit.
                enableServerSideApply: true,
            },
            {
                parent: this,
                // The platform charts need schedulable CPU nodes; waiting on the TPU pool would stall them behind TPU capacity.
                dependsOn: [systemPool],
            },
        );

        this.registerOutputs({
            clusterName: this.clusterName,
            clusterId: this.clusterId,
            endpoint: this.endpoint,
            nodeServiceAccountEmail: this.nodeServiceAccountEmail,
            getCredentialsCommand: this.getCredentialsCommand,
        });
    }
}

/** A kubeconfig for a GKE cluster that authenticates through gke-gcloud-auth-plugin. */
export function gkeKubeconfig(clusterName: string, endpoint: string, caCertificate: string): string {
    const context = `gke_${clusterName}`;
    return JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: context, cluster: { server: `https://${endpoint}`, "certificate-authority-data": caCertificate } }],
        contexts: [{ name: context, context: { cluster: context, user: context } }],
        "current-context": context,
        users: [
            {
                name: context,
                user: {
                    exec: {
                        apiVersion: "client.authentication.k8s.io/v1beta1",
                        command: "gke-gcloud-auth-plugin",
                        installHint:
                            "Install gke-gcloud-auth-plugin: https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin",
                        provideClusterInfo: true,
                    },
                },
            },
        ],
    });
}
