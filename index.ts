import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { accessOutput } from "./components/gateway/accessOutput";
import { BodyBasedRouter } from "./components/gateway/bodyBasedRouter";
import { GatewayAddress } from "./components/gateway/gatewayAddress";
import { InferenceGateway, caCertificateCommand, certificateSourceOf, signedByStackCa } from "./components/gateway/inferenceGateway";
import { installGatewayProvider } from "./components/gateway/installGatewayProvider";
import { GkeCluster } from "./components/infrastructure/cluster";
import { ModelStore } from "./components/infrastructure/modelStore";
import { Network } from "./components/infrastructure/network";
import { Preflight, readLiveFacts } from "./components/infrastructure/preflight";
import { ProjectApis } from "./components/infrastructure/projectApis";
import { StackNames, stackNames } from "./components/lib/names";
import { InferenceObservability } from "./components/observability/observability";
import { CertManager } from "./components/platform/certManager";
import { Keda } from "./components/platform/keda";
import { KServe } from "./components/platform/kserve";
import { LeaderWorkerSet } from "./components/platform/leaderWorkerSet";
import { GATEWAY_ACCESS_LABEL, ServingNamespace } from "./components/platform/servingNamespace";
import { TpuCapacity } from "./components/platform/tpuCapacity";
import { estimateTpuHourlyCost } from "./components/serving/cost";
import { isInternalGateway } from "./components/settings/gateway";
import { GATEWAY_PROVIDERS } from "./components/settings/gatewayProviders";
import { Settings, loadHfToken, loadIapClientSecret, loadSettings } from "./components/settings/stack";
import { ModelService } from "./components/workloads/modelService";

const name = "tpu-inference";

/** What every stage reads: the settings, what each API's callers wait for, the stack's GCP names and the project's number. */
interface Context {
    settings: Settings;
    /** The project and the region, where every regional GCP resource of the stack goes. */
    where: { project: string; region: string };
    preflight: Preflight;
    names: StackNames;
    /** Workload Identity principals and Google's service agents name the project by its number. */
    projectNumber: pulumi.Output<string>;
}

/** GCP: the network, the cluster, the TPU capacity and the model store. */
function infrastructure({ settings, where, preflight, names }: Context) {
    const protect = settings.deletionProtection;
    // The settings give the proxy-only subnet a range exactly where the gateway provider's load balancer needs one.
    const network = new Network(name, {
        ...where,
        cidrs: settings.network,
        names,
        protect,
        dependsOn: preflight.prerequisites("compute"),
    });
    const cluster = new GkeCluster(name, {
        ...where,
        networkId: network.networkId,
        subnetworkId: network.subnetworkId,
        releaseChannel: settings.releaseChannel,
        masterAuthorizedNetworks: settings.masterAuthorizedNetworks,
        masterCidr: settings.network.masterCidr,
        extraWebhookPorts: GATEWAY_PROVIDERS[settings.gateway.provider].webhookPorts,
        deletionProtection: protect,
        systemPool: settings.systemPool,
        imageStreaming: settings.coldStart.imageStreaming,
        names,
        prerequisites: {
            container: preflight.prerequisites("container"),
            iam: preflight.prerequisites("iam"),
            resourceManager: preflight.prerequisites("resourceManager"),
        },
    });
    const tpu = new TpuCapacity(name, { settings, cluster, preflight });
    // Where a model server's start reads from, inside the region: staged weights, the compilation cache, the vLLM image.
    const store = new ModelStore(name, {
        ...where,
        names,
        coldStart: settings.coldStart,
        models: settings.models,
        nodeServiceAccountEmail: cluster.nodeServiceAccountEmail,
        protect,
        dependsOn: [...preflight.prerequisites("storage"), ...preflight.prerequisites("artifactRegistry")],
    });
    return { network, cluster, tpu, store };
}

/** The cluster's platform: it needs the cluster's provider (hence the system pool), never a TPU pool. */
function platform({ settings, preflight, projectNumber }: Context, { cluster }: ReturnType<typeof infrastructure>) {
    const { provider } = cluster;
    const certManager = new CertManager(name, { provider });
    const leaderWorkerSet = new LeaderWorkerSet("lws", { provider, webhookPrerequisites: [cluster.webhookFirewall] });
    const kserve = new KServe("kserve", {
        provider,
        gateway: settings.gateway,
        prerequisites: [certManager.webhooksReady, leaderWorkerSet.chart, cluster.webhookFirewall],
    });
    const serving = new ServingNamespace("serving", {
        provider,
        namespace: settings.gateway.servingNamespace,
        kserveWebhooks: kserve.webhooksReady,
        hfToken: loadHfToken(),
        bodyBasedRouting: settings.bodyBasedRouting,
        multiHost: settings.tpu.hostsPerSlice > 1 && settings.models.length > 0,
        gatewayProviderLabels: GATEWAY_PROVIDERS[settings.gateway.provider].servingNamespaceLabels,
    });
    // KEDA, when a service autoscales: it reads Managed Prometheus as itself (the grant goes through Resource Manager).
    const keda = settings.models.some((model) => model.autoscaling !== undefined)
        ? new Keda("keda", {
              provider,
              project: settings.project,
              projectNumber,
              workloadPool: cluster.workloadPool,
              dependsOn: [...preflight.prerequisites("resourceManager"), ...preflight.prerequisites("monitoring")],
          })
        : undefined;
    return { certManager, leaderWorkerSet, kserve, serving, keda };
}

/** The inference Gateway on its reserved address, what its provider adds, and Pattern 2's body-based router. */
function gateway(
    { settings, where, preflight, names, projectNumber }: Context,
    { network, cluster }: ReturnType<typeof infrastructure>,
    { certManager }: ReturnType<typeof platform>,
) {
    const { provider } = cluster;
    const gatewaySettings = settings.gateway;
    // Reserved so that the Gateway's certificate can name the address before the Gateway exists.
    const address = new GatewayAddress("inference", {
        ...where,
        internal: isInternalGateway(gatewaySettings),
        subnetworkId: network.subnetworkId,
        names,
        dependsOn: preflight.prerequisites("compute"),
    });
    const url = pulumi.interpolate`https://${gatewaySettings.hostname ?? address.ip}`;
    const installed = installGatewayProvider(gatewaySettings, {
        provider,
        webhookPrerequisites: [cluster.webhookFirewall],
        proxyOnlySubnetwork: network.proxyOnlySubnetwork,
        networkServices: preflight.prerequisites("networkServices"),
        gcp: {
            ...where,
            projectNumber,
            names,
            manageProjectApis: settings.manageProjectApis,
            compute: preflight.prerequisites("compute"),
        },
        iapClientSecret: loadIapClientSecret(),
    });
    const inference = new InferenceGateway("inference", {
        provider,
        gateway: gatewaySettings,
        allowedRouteNamespaceLabels: { ...GATEWAY_ACCESS_LABEL },
        gatewayProvider: installed,
        address: address.specAddress(GATEWAY_PROVIDERS[gatewaySettings.provider].addressType),
        certificate: certificateSourceOf(gatewaySettings, { issuer: certManager.caIssuerName, ipAddress: address.ip }),
        certManagerReady: certManager.webhooksReady,
        url,
    });
    // Pattern 2: the router sits beside the Gateway, whose namespace is all it waits for: GKE attaches the extension
    // whenever the Gateway is programmed.
    const router = settings.bodyBasedRouting
        ? new BodyBasedRouter("body-based-router", {
              provider,
              gateway: { namespace: inference.namespaceName, name: gatewaySettings.name },
              gatewayProvider: installed,
              models: settings.models.map((model) => ({ service: model.name, baseModel: model.modelName, adapters: [] })),
              servingNamespace: gatewaySettings.servingNamespace,
              gatewayUrl: url,
          })
        : undefined;
    return { url, installed, inference, router };
}

/** The model services: the only layer that needs TPU nodes, which GKE's autoscaler adds when their pods ask. */
function workloads(
    { settings, projectNumber }: Context,
    { cluster, tpu, store }: ReturnType<typeof infrastructure>,
    { kserve, serving, leaderWorkerSet, keda }: ReturnType<typeof platform>,
    { url, installed }: ReturnType<typeof gateway>,
) {
    return settings.models.map((model) => ({
        model,
        service: new ModelService(model.name, {
            provider: cluster.provider,
            namespace: serving.namespaceName,
            model,
            scheduling: tpu.scheduling,
            gateway: settings.gateway,
            gatewayProvider: installed,
            gatewayUrl: url,
            apiKeySecret: serving.apiKey.secretName,
            hfToken: serving.hfToken,
            platform: [
                kserve.configs,
                serving.routerRouteConfig,
                ...(serving.multiHostPreset ? [serving.multiHostPreset] : []),
                leaderWorkerSet.webhooksReady,
                // No TPU pod before the plan's order exists: without the class the autoscaler may buy any option first.
                ...tpu.ready,
            ],
            paused: settings.paused,
            coldStart: settings.coldStart,
            store,
            identity: { project: settings.project, projectNumber, workloadPool: cluster.workloadPool },
            topology: settings.tpu.topology,
            keda,
        }),
    }));
}

/** The stack: settings are validated and the live facts read before the first resource is registered; then each layer. */
export = async () => {
    const settings = loadSettings();
    const withApis = await readLiveFacts(settings, new pulumi.Config().name, settings.manageProjectApis);
    const preflight = withApis(new ProjectApis(name, { project: settings.project, manage: settings.manageProjectApis }));
    const context: Context = {
        settings,
        where: { project: settings.project, region: settings.region },
        preflight,
        names: stackNames(name, pulumi.getStack()),
        projectNumber: gcp.organizations.getProjectOutput({ projectId: settings.project }).number,
    };
    const infra = infrastructure(context);
    const platformLayer = platform(context, infra);
    const front = gateway(context, infra, platformLayer);
    const services = workloads(context, infra, platformLayer, front);
    const observability = new InferenceObservability(name, {
        project: settings.project,
        stack: pulumi.getStack(),
        models: settings.models,
        dependsOn: preflight.prerequisites("monitoring"),
    });

    // Each output is described once, in scripts/docs/outputs.ts, which docs/reference/outputs.md shows.
    const { cluster, tpu, store } = infra;
    const [firstPool] = tpu.pools;
    return {
        clusterName: cluster.clusterName,
        region: settings.region,
        tpuZone: settings.zone,
        kubeconfigCommand: cluster.getCredentialsCommand,
        tpuNodePoolName: firstPool.nodePoolName,
        tpuNodeSelector: tpu.scheduling.nodeSelector,
        tpuPoolAutoscaling: { ...firstPool.autoscaling, paused: settings.paused },
        tpuCapacityPlan: tpu.plan,
        tpuHourlyCost: estimateTpuHourlyCost(settings),
        gatewayProvider: settings.gateway.provider,
        gatewayClass: settings.gateway.className,
        gateway: { namespace: settings.gateway.namespace, name: settings.gateway.name },
        gatewayAddress: front.inference.address,
        gatewayUrl: front.url,
        caIssuerName: platformLayer.certManager.caIssuerName,
        ...(signedByStackCa(settings.gateway) ? { caCertificateCommand: caCertificateCommand(settings.gateway) } : {}),
        access: accessOutput(settings.gateway, platformLayer.serving.apiKey.value, front.url),
        servingNamespace: platformLayer.serving.namespaceName,
        dashboardUrl: observability.dashboardUrl,
        ...(front.router ? { modelRouting: front.router.endpoint } : {}),
        ...(store.bucketName ? { modelBucket: store.bucketName } : {}),
        models: Object.fromEntries(
            services.map(({ model, service }) => [
                model.name,
                {
                    modelName: model.modelName,
                    pattern: model.pattern,
                    replicas: model.replicas,
                    baseUrl: service.baseUrl,
                    curl: service.curl,
                    coldStart: service.coldStart,
                },
            ]),
        ),
    };
};
