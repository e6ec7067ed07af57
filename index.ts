import * as gcp from "@pulumi/gcp";
import { MULTI_CLUSTER_INFERENCE } from "@gke-tpu-inference/facts";
import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";
import { FleetExport } from "./components/fleet/fleetExport";
import { FleetRegistration } from "./components/fleet/fleetRegistration";
import { MultiClusterGateway } from "./components/fleet/multiClusterGateway";
import { API_KEY_COMMAND, accessOutput } from "./components/gateway/accessOutput";
import { BodyBasedRouter } from "./components/gateway/bodyBasedRouter";
import { GatewayAddress } from "./components/gateway/gatewayAddress";
import { InferenceGateway, caCertificateCommand, certificateSourceOf, signedByStackCa } from "./components/gateway/inferenceGateway";
import { installGatewayProvider } from "./components/gateway/installGatewayProvider";
import { GkeCluster } from "./components/infrastructure/cluster";
import { ModelStore } from "./components/infrastructure/modelStore";
import { Network } from "./components/infrastructure/network";
import { Preflight, readLiveFacts } from "./components/infrastructure/preflight";
import { ProjectApis } from "./components/infrastructure/projectApis";
import { StackNames, memberNames, stackNames } from "./components/lib/names";
import { InferenceObservability } from "./components/observability/observability";
import { CertManager } from "./components/platform/certManager";
import { Keda } from "./components/platform/keda";
import { KServe } from "./components/platform/kserve";
import { LeaderWorkerSet } from "./components/platform/leaderWorkerSet";
import { API_KEY_PASSWORD, GATEWAY_ACCESS_LABEL, ServingNamespace } from "./components/platform/servingNamespace";
import { TpuCapacity } from "./components/platform/tpuCapacity";
import { estimateTpuHourlyCost } from "./components/serving/cost";
import { isInternalGateway } from "./components/settings/gateway";
import { GATEWAY_PROVIDERS } from "./components/settings/gatewayProviders";
import { FleetMemberSettings } from "./components/settings/fleet";
import { Settings, loadHfToken, loadIapClientSecret, loadSettings } from "./components/settings/stack";
import { ModelService } from "./components/workloads/modelService";

const name = "tpu-inference";

/**
 * What every stage reads about one cluster: the settings (a fleet member's are the stack's with its region, zone, TPU
 * capacity and address plan), what each API's callers wait for, the cluster's GCP names and the project's number.
 */
interface Context {
    settings: Settings;
    /** The project and the cluster's region, where its regional GCP resources go. */
    where: { project: string; region: string };
    preflight: Preflight;
    names: StackNames;
    /** Workload Identity principals and Google's service agents name the project by its number. */
    projectNumber: pulumi.Output<string>;
    /**
     * The Pulumi name of one of the cluster's resources: the stack's own for a single cluster; a fleet member's carries its
     * region, since a URN names no parent but the types above it and two members' resources would share one.
     */
    label: (base: string) => string;
    /** The stack's network, whose subnets in the cluster's region the cluster joins. */
    network: Network;
}

/** The stack's VPC, with the subnets, router and NAT of each cluster's region. */
function network(settings: Settings, preflight: Preflight, names: StackNames) {
    // The settings give the proxy-only subnet a range exactly where the gateway provider's load balancer needs one.
    return new Network(name, {
        project: settings.project,
        regions: (settings.fleet?.members ?? [settings]).map(({ region, network: cidrs }) => ({ region, cidrs })),
        fleet: settings.fleet !== undefined,
        names,
        protect: settings.deletionProtection,
        dependsOn: preflight.prerequisites("compute"),
    });
}

/** GCP: the cluster, the TPU capacity and the model store. */
function infrastructure({ settings, where, preflight, names, label, network }: Context) {
    const protect = settings.deletionProtection;
    const cluster = new GkeCluster(label(name), {
        ...where,
        networkId: network.networkId,
        subnetworkId: network.subnetsOf(where.region).subnetworkId,
        releaseChannel: settings.releaseChannel,
        // A fleet's clusters name the version they are created at, so that the pack can judge it against the fleet's floor.
        ...(settings.fleet !== undefined ? { minMasterVersion: preflight.channelDefaultVersion(where.region) } : {}),
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
    const tpu = new TpuCapacity(label(name), { settings, cluster, preflight });
    // Where a model server's start reads from, inside the region: staged weights, the compilation cache, the vLLM image.
    const store = new ModelStore(label(name), {
        ...where,
        names,
        coldStart: settings.coldStart,
        models: settings.models,
        nodeServiceAccountEmail: cluster.nodeServiceAccountEmail,
        protect,
        dependsOn: [...preflight.prerequisites("storage"), ...preflight.prerequisites("artifactRegistry")],
    });
    return { cluster, tpu, store };
}

/**
 * The cluster's platform: it needs the cluster's provider (hence the system pool), never a TPU pool. `apiKey`: the key a
 * fleet's members share; a single cluster's serving namespace makes its own.
 */
function platform(
    { settings, preflight, projectNumber, label }: Context,
    { cluster }: ReturnType<typeof infrastructure>,
    apiKey?: pulumi.Output<string>,
) {
    const { provider } = cluster;
    const certManager = new CertManager(label(name), { provider });
    const leaderWorkerSet = new LeaderWorkerSet(label("lws"), { provider, webhookPrerequisites: [cluster.webhookFirewall] });
    const kserve = new KServe(label("kserve"), {
        provider,
        gateway: settings.gateway,
        prerequisites: [certManager.webhooksReady, leaderWorkerSet.chart, cluster.webhookFirewall],
    });
    const serving = new ServingNamespace(label("serving"), {
        provider,
        namespace: settings.gateway.servingNamespace,
        kserveWebhooks: kserve.webhooksReady,
        hfToken: loadHfToken(),
        bodyBasedRouting: settings.bodyBasedRouting,
        multiHost: settings.tpu.hostsPerSlice > 1 && settings.models.length > 0,
        gatewayProviderLabels: GATEWAY_PROVIDERS[settings.gateway.provider].servingNamespaceLabels,
        apiKey,
    });
    // KEDA, when a service autoscales: it reads Managed Prometheus as itself (the grant goes through Resource Manager).
    const keda = settings.models.some((model) => model.autoscaling !== undefined)
        ? new Keda(label("keda"), {
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
    { settings, where, preflight, names, projectNumber, network }: Context,
    { cluster }: ReturnType<typeof infrastructure>,
    { certManager }: ReturnType<typeof platform>,
) {
    const { provider } = cluster;
    const gatewaySettings = settings.gateway;
    // Reserved so that the Gateway's certificate can name the address before the Gateway exists.
    const address = new GatewayAddress("inference", {
        ...where,
        internal: isInternalGateway(gatewaySettings),
        subnetworkId: network.subnetsOf(where.region).subnetworkId,
        names,
        dependsOn: preflight.prerequisites("compute"),
    });
    const url = pulumi.interpolate`https://${gatewaySettings.hostname ?? address.ip}`;
    const installed = installGatewayProvider(gatewaySettings, {
        provider,
        webhookPrerequisites: [cluster.webhookFirewall],
        proxyOnlySubnetwork: network.subnetsOf(where.region).proxyOnlySubnetwork,
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

/**
 * The model services: the only layer that needs TPU nodes, which GKE's autoscaler adds when their pods ask. `front`: the
 * cluster's Gateway and its provider; none on a fleet member, whose services have no route.
 */
function workloads(
    { settings, projectNumber, label }: Context,
    { cluster, tpu, store }: ReturnType<typeof infrastructure>,
    { kserve, serving, leaderWorkerSet, keda }: ReturnType<typeof platform>,
    url: pulumi.Input<string>,
    front?: Pick<ReturnType<typeof gateway>, "installed">,
) {
    return settings.models.map((model) => ({
        model,
        service: new ModelService(label(model.name), {
            provider: cluster.provider,
            namespace: serving.namespaceName,
            model,
            scheduling: tpu.scheduling,
            ...(front !== undefined ? { front: { gateway: settings.gateway, gatewayProvider: front.installed } } : {}),
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

/** One cluster's layers: a single cluster's with its Gateway, a fleet member's without. */
function cluster(context: Context, apiKey?: pulumi.Output<string>) {
    const infra = infrastructure(context);
    const platformLayer = platform(context, infra, apiKey);
    return { infra, platformLayer };
}

/** The single-cluster stack: the cluster, its Gateway and its services, and its outputs. */
function singleCluster(context: Context, observability: InferenceObservability) {
    const { settings } = context;
    const { infra, platformLayer } = cluster(context);
    const front = gateway(context, infra, platformLayer);
    const services = workloads(context, infra, platformLayer, front.url, front);

    // Each output is described once, in scripts/docs/outputs.ts, which docs/reference/outputs.md shows.
    const { cluster: gke, tpu, store } = infra;
    const [firstPool] = tpu.pools;
    return {
        clusterName: gke.clusterName,
        region: settings.region,
        tpuZone: settings.zone,
        kubeconfigCommand: gke.getCredentialsCommand,
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
}

/** A member's context: the stack's, at the member's region with its zone, capacity and addresses, its names carrying the region. */
function memberContext(context: Context, member: FleetMemberSettings): Context {
    const { region, zone, tpu, network: cidrs } = member;
    return {
        ...context,
        settings: { ...context.settings, region, zone, tpu, network: cidrs },
        where: { ...context.where, region },
        names: memberNames(context.names, region),
        label: (base) => `${base}-${region}`,
    };
}

/**
 * The fleet: a cluster per member with the same services, unrouted, each exporting its pools; the clusters registered to
 * the project's fleet; in the config member's cluster the multi-cluster Gateway routing to the pools every member
 * exports. One key for every member: a client uses one.
 */
function fleet(context: Context, observability: InferenceObservability) {
    const { settings, preflight } = context;
    const fleetSettings = settings.fleet!;
    const apiKey = new random.RandomPassword(`${name}-api-key`, API_KEY_PASSWORD).result;
    const members = fleetSettings.members.map((member) => {
        const memberCtx = memberContext(context, member);
        return { member, context: memberCtx, ...cluster(memberCtx, pulumi.secret(apiKey)) };
    });
    const registration = new FleetRegistration(name, {
        project: settings.project,
        projectNumber: context.projectNumber,
        members: members.map(({ member, infra }) => ({
            region: member.region,
            clusterName: infra.cluster.clusterName,
            clusterId: infra.cluster.clusterId,
        })),
        configRegion: fleetSettings.configRegion,
        gkeHub: preflight.prerequisites("gkeHub"),
        multiClusterIngress: preflight.prerequisites("multiClusterIngress"),
    });
    const config = members.find(({ member }) => member.region === fleetSettings.configRegion)!;
    const endpoint = new MultiClusterGateway(name, {
        provider: config.infra.cluster.provider,
        gateway: { namespace: settings.gateway.namespace, name: settings.gateway.name },
        regions: members.map(({ member }) => member.region),
        allowedRouteNamespaceLabels: { ...GATEWAY_ACCESS_LABEL },
        certificate: certificateSourceOf(settings.gateway, { issuer: config.platformLayer.certManager.caIssuerName }),
        certManagerReady: config.platformLayer.certManager.webhooksReady,
        services: settings.models.map((model) => ({
            name: model.name,
            namespace: settings.gateway.servingNamespace,
            modelName: model.modelName,
        })),
        fleetReady: registration.ready,
    });
    const memberOutputs = members.map(({ member, context: memberCtx, infra, platformLayer }) => {
        const services = workloads(memberCtx, infra, platformLayer, endpoint.url);
        for (const { model, service } of services) {
            // GKE exports nothing from a cluster outside the fleet; KServe makes the EPP the exported pool names.
            new FleetExport(memberCtx.label(model.name), {
                provider: infra.cluster.provider,
                service: model.name,
                namespace: settings.gateway.servingNamespace,
                dependsOn: [service, ...registration.ready],
            });
        }
        return [
            member.region,
            {
                clusterName: infra.cluster.clusterName,
                tpuZone: member.zone,
                kubeconfigCommand: infra.cluster.getCredentialsCommand,
                tpuCapacityPlan: infra.tpu.plan,
                tpuHourlyCost: estimateTpuHourlyCost(memberCtx.settings),
                ...(infra.store.bucketName ? { modelBucket: infra.store.bucketName } : {}),
            },
        ] as const;
    });

    // Each output is described once, in scripts/docs/outputs.ts, which docs/reference/outputs.md shows.
    return {
        configRegion: fleetSettings.configRegion,
        members: Object.fromEntries(memberOutputs),
        gatewayClass: MULTI_CLUSTER_INFERENCE.gatewayClass,
        gateway: { namespace: settings.gateway.namespace, name: settings.gateway.name },
        gatewayAddresses: endpoint.addresses,
        gatewayUrl: endpoint.url,
        caIssuerName: config.platformLayer.certManager.caIssuerName,
        ...(signedByStackCa(settings.gateway) ? { caCertificateCommand: caCertificateCommand(settings.gateway) } : {}),
        access: {
            reachableFrom: "the VPC network: the multi-cluster Gateway's load balancer is internal (see docs/explanation/fleet.md)",
            apiKey: pulumi.secret(apiKey),
            apiKeyCommand: API_KEY_COMMAND,
        },
        servingNamespace: settings.gateway.servingNamespace,
        dashboardUrl: observability.dashboardUrl,
        models: Object.fromEntries(
            settings.models.map((model) => [
                model.name,
                { modelName: model.modelName, pattern: model.pattern, replicas: model.replicas, curl: endpoint.curl[model.name] },
            ]),
        ),
    };
}

/** The stack: settings are validated and the live facts read before the first resource is registered; then each layer. */
export = async () => {
    const settings = loadSettings();
    const isFleet = settings.fleet !== undefined;
    const withApis = await readLiveFacts(settings, new pulumi.Config().name, settings.manageProjectApis);
    const preflight = withApis(new ProjectApis(name, { project: settings.project, manage: settings.manageProjectApis, fleet: isFleet }));
    const names = stackNames(name, pulumi.getStack());
    const context: Context = {
        settings,
        where: { project: settings.project, region: settings.region },
        preflight,
        names,
        projectNumber: gcp.organizations.getProjectOutput({ projectId: settings.project }).number,
        label: (base) => base,
        network: network(settings, preflight, names),
    };
    const observability = new InferenceObservability(name, {
        project: settings.project,
        stack: pulumi.getStack(),
        models: settings.models,
        dependsOn: preflight.prerequisites("monitoring"),
    });
    return isFleet ? fleet(context, observability) : singleCluster(context, observability);
};
