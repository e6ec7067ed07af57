/**
 * The stack's stages, one per layer of the program, each registering what one cluster needs: its network share, the
 * cluster with its TPU capacity and model store, its platform, its Gateway, its model services. index.ts runs them for
 * a single cluster (components/stack/singleCluster.ts) or for each member of a fleet (components/stack/fleet.ts).
 */
import * as pulumi from "@pulumi/pulumi";
import { BodyBasedRouter } from "../gateway/bodyBasedRouter";
import { GatewayAddress } from "../gateway/gatewayAddress";
import { InferenceGateway, certificateSourceOf } from "../gateway/inferenceGateway";
import { installGatewayProvider } from "../gateway/installGatewayProvider";
import { GkeCluster } from "../infrastructure/cluster";
import { ModelStore } from "../infrastructure/modelStore";
import { Network } from "../infrastructure/network";
import { Preflight } from "../infrastructure/preflight";
import { StackNames } from "../lib/names";
import { CertManager } from "../platform/certManager";
import { Keda } from "../platform/keda";
import { KServe } from "../platform/kserve";
import { LeaderWorkerSet } from "../platform/leaderWorkerSet";
import { GATEWAY_ACCESS_LABEL, ServingNamespace } from "../platform/servingNamespace";
import { TpuCapacity } from "../platform/tpuCapacity";
import { isInternalGateway } from "../settings/gateway";
import { GATEWAY_PROVIDERS } from "../settings/gatewayProviders";
import { Settings, loadHfToken, loadIapClientSecret } from "../settings/stack";
import { ModelService } from "../workloads/modelService";

/** The stack's base name: its resources' Pulumi names and its GCP names start with it. */
export const name = "tpu-inference";

/**
 * What every stage reads about one cluster: the settings (a fleet member's are the stack's with its region, zone, TPU
 * capacity and address plan), what each API's callers wait for, the cluster's GCP names and the project's number.
 */
export interface Context {
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
export function network(settings: Settings, preflight: Preflight, names: StackNames) {
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
export function infrastructure({ settings, where, preflight, names, label, network }: Context) {
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
export function platform(
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
export function gateway(
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
export function workloads(
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
export function cluster(context: Context, apiKey?: pulumi.Output<string>) {
    const infra = infrastructure(context);
    const platformLayer = platform(context, infra, apiKey);
    return { infra, platformLayer };
}
