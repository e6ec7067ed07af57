import { GkeCluster } from "./components/cluster";
import { Network } from "./components/network";
import { loadSettings } from "./components/settings";
import { TpuNodePool } from "./components/tpuNodePool";

// Validate all configuration before the first resource is registered.
const settings = loadSettings();
const name = "tpu-inference";

const network = new Network(name, { project: settings.project, region: settings.region, cidrs: settings.network });

const cluster = new GkeCluster(name, {
    project: settings.project,
    region: settings.region,
    networkId: network.networkId,
    subnetworkId: network.subnetworkId,
    releaseChannel: settings.releaseChannel,
    masterAuthorizedNetworks: settings.masterAuthorizedNetworks,
    deletionProtection: settings.deletionProtection,
    systemPool: settings.systemPool,
});

const tpuPool = new TpuNodePool(`${name}-tpu`, {
    project: settings.project,
    clusterId: cluster.clusterId,
    region: settings.region,
    zone: settings.zone,
    tpu: settings.tpu,
    serviceAccountEmail: cluster.nodeServiceAccountEmail,
});

export const clusterName = cluster.clusterName;
export const region = settings.region;
export const tpuZone = settings.zone;
export const kubeconfigCommand = cluster.getCredentialsCommand;
export const tpuNodePoolName = tpuPool.nodePoolName;
export const tpuNodeSelector = tpuPool.scheduling.nodeSelector;
export const tpuPoolAutoscaling = { minNodes: settings.tpu.minNodes, maxNodes: settings.tpu.maxNodes };
export const gatewayClass = settings.gatewayClass;
