import * as pulumi from "@pulumi/pulumi";
import { CertManager } from "./components/certManager";
import { GkeCluster } from "./components/cluster";
import { InferenceGateway } from "./components/inferenceGateway";
import { KServe } from "./components/kserve";
import { LeaderWorkerSet } from "./components/leaderWorkerSet";
import { ModelService } from "./components/modelService";
import { InferenceObservability } from "./components/observability";
import { Network } from "./components/network";
import { GATEWAY_ACCESS_LABEL, ServingNamespace } from "./components/servingNamespace";
import { estimateTpuHourlyCost } from "./components/cost";
import { loadHfToken, loadSettings } from "./components/settings";
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
    masterCidr: settings.network.masterCidr,
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
    paused: settings.paused,
});

// The platform layer: it needs the cluster's provider (hence the system pool), never the TPU pool.
const { provider } = cluster;
const certManager = new CertManager(name, { provider });
const leaderWorkerSet = new LeaderWorkerSet("lws", { provider });
const kserve = new KServe("kserve", {
    provider,
    gateway: { namespace: settings.gateway.namespace, name: settings.gateway.name },
    prerequisites: [certManager.chart, leaderWorkerSet.chart, cluster.webhookFirewall],
});
const serving = new ServingNamespace("serving", {
    provider,
    namespace: settings.gateway.servingNamespace,
    kserveController: kserve.controller,
    hfToken: loadHfToken(),
});
const gateway = new InferenceGateway("inference", {
    provider,
    gateway: settings.gateway,
    allowedRouteNamespaceLabels: { ...GATEWAY_ACCESS_LABEL },
    proxyOnlySubnet: network.proxyOnlySubnetwork,
});

// The workloads: the only layer that needs TPU nodes, which GKE's autoscaler adds when their pods ask.
const modelServices = settings.models.map(
    (model) =>
        new ModelService(model.name, {
            provider,
            namespace: serving.namespaceName,
            model,
            scheduling: tpuPool.scheduling,
            gateway: { name: settings.gateway.name, namespace: settings.gateway.namespace },
            gatewayAddress: gateway.address,
            hfToken: serving.hfToken,
            platform: [kserve.configs, serving.routerRouteConfig, leaderWorkerSet.chart],
            paused: settings.paused,
        }),
);

const observability = new InferenceObservability(name, { project: settings.project, stack: pulumi.getStack(), models: settings.models });

export const clusterName = cluster.clusterName;
export const region = settings.region;
export const tpuZone = settings.zone;
export const kubeconfigCommand = cluster.getCredentialsCommand;
export const tpuNodePoolName = tpuPool.nodePoolName;
export const tpuNodeSelector = tpuPool.scheduling.nodeSelector;
export const tpuPoolAutoscaling = { ...tpuPool.autoscaling, paused: settings.paused };
/** What the TPU pool costs per hour while it holds the nodes its model services keep busy (none when paused). */
export const tpuHourlyCost = estimateTpuHourlyCost(settings);
export const gatewayClass = settings.gateway.className;
export const gatewayAddress = gateway.address;
export const gatewayUrl = pulumi.interpolate`http://${gateway.address}`;
export const caIssuerName = certManager.caIssuerName;
export const servingNamespace = serving.namespaceName;
export const dashboardUrl = observability.dashboardUrl;
/** Per model service: its URL through the Gateway and requests to paste. */
export const models = Object.fromEntries(
    settings.models.map((model, index) => [
        model.name,
        { modelName: model.modelName, pattern: model.pattern, replicas: model.replicas, baseUrl: modelServices[index].baseUrl, curl: modelServices[index].curl },
    ]),
);
