import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { GOOGLE_ID_TOKEN } from "@gke-tpu-inference/facts";
import { BodyBasedRouter } from "./components/gateway/bodyBasedRouter";
import { GatewayAddress } from "./components/gateway/gatewayAddress";
import { GKE_GATEWAY_PROVIDER } from "./components/gateway/gkeProvider";
import { InferenceGateway, certificateSecretName } from "./components/gateway/inferenceGateway";
import { istioGatewayProvider } from "./components/gateway/istioProvider";
import { GatewayProvider } from "./components/gateway/provider";
import { GkeCluster } from "./components/infrastructure/cluster";
import { ModelStore } from "./components/infrastructure/modelStore";
import { Network } from "./components/infrastructure/network";
import { readLiveFacts } from "./components/infrastructure/preflight";
import { ProjectApis } from "./components/infrastructure/projectApis";
import { TpuNodePool, tpuPoolName } from "./components/infrastructure/tpuNodePool";
import { stackNames } from "./components/lib/names";
import { InferenceObservability } from "./components/observability/observability";
import { CertManager } from "./components/platform/certManager";
import { Keda } from "./components/platform/keda";
import { KServe } from "./components/platform/kserve";
import { LeaderWorkerSet } from "./components/platform/leaderWorkerSet";
import { GATEWAY_ACCESS_LABEL, ServingNamespace } from "./components/platform/servingNamespace";
import { TpuComputeClass } from "./components/platform/tpuComputeClass";
import { capacityPlan } from "./components/serving/capacityPlan";
import { estimateTpuHourlyCost } from "./components/serving/cost";
import { GatewaySettings, isInternalGateway, opensToInternet } from "./components/settings/gateway";
import { loadHfToken, loadIapClientSecret, loadSettings } from "./components/settings/stack";
import { ModelService } from "./components/workloads/modelService";

const name = "tpu-inference";

/** What serves the inference Gateway: everything GKE's own controller or Istio adds to the stack comes through it. */
function gatewayProviderFor(gateway: GatewaySettings): GatewayProvider {
    switch (gateway.provider) {
        case "gke":
            return GKE_GATEWAY_PROVIDER;
        case "istio":
            return istioGatewayProvider(gateway.loadBalancer);
    }
}

/** The command that writes the CA of the Gateway's certificate (public; cert-manager copies it into the certificate's Secret). */
function caCertificateCommand(namespace: string, gateway: string): string {
    return `kubectl get secret -n ${namespace} ${certificateSecretName(gateway)} -o jsonpath='{.data.ca\\.crt}' | base64 -d > ca.crt`;
}

/** The `access` output: who is let in, and how a caller gets each credential; the key is a secret, shown only with --show-secrets. */
function accessOutput(gateway: GatewaySettings, apiKey: pulumi.Output<string>, gatewayUrl: pulumi.Output<string>) {
    const { access } = gateway;
    const ranges = access.allowedSourceRanges;
    const publicToInternet = opensToInternet(ranges);
    const reachableFrom =
        ranges.length === 0
            ? "nobody: allowedSourceRanges is empty, so the Gateway refuses every request; set it to your network (pulumi config set --path 'allowedSourceRanges[0]' <CIDR>)"
            : publicToInternet
              ? "the whole internet (allowedSourceRanges has 0.0.0.0/0): only the key and the identity check stand between it and the models"
              : ranges.join(", ");
    if (ranges.length === 0) {
        void pulumi.log.warn(`the inference Gateway is closed: ${reachableFrom}`);
    } else if (publicToInternet) {
        void pulumi.log.warn(`the inference Gateway is open to ${reachableFrom}`);
    }
    return {
        reachableFrom,
        publicToInternet,
        rateLimitPerMinute: access.rateLimitPerMinute,
        identity: access.identity,
        apiKey,
        apiKeyCommand: "export API_KEY=$(pulumi stack output access --show-secrets --json | jq -r .apiKey)",
        ...(access.identity !== "api-key"
            ? {
                  idTokenCommand: gatewayUrl.apply(
                      (url) =>
                          `gcloud auth print-identity-token --impersonate-service-account=<ALLOWED_SA> --include-email --audiences=${access.identity === "iap" ? access.iapClientId : url}`,
                  ),
                  idTokenHeader: `${GOOGLE_ID_TOKEN.header}: ${GOOGLE_ID_TOKEN.prefix}<ID_TOKEN>`,
              }
            : {}),
        ...(access.modelArmor ? { screening: "Model Armor, failing closed" } : {}),
    };
}

/** The stack: settings are validated and the live facts read before the first resource is registered. */
export = async () => {
    const settings = loadSettings();
    const withApis = await readLiveFacts(settings, new pulumi.Config().name, settings.manageProjectApis);

    const preflight = withApis(new ProjectApis(name, { project: settings.project, manage: settings.manageProjectApis }));
    const names = stackNames(name, pulumi.getStack());
    const protect = settings.deletionProtection;
    const gatewayProvider = gatewayProviderFor(settings.gateway);
    // The proxy-only subnet only for a provider whose load balancer needs one (the settings give it no range otherwise).
    const { proxyOnlyCidr, ...cidrs } = settings.network;

    const network = new Network(name, {
        project: settings.project,
        region: settings.region,
        cidrs: { ...cidrs, ...(gatewayProvider.proxyOnlySubnet && proxyOnlyCidr !== undefined ? { proxyOnlyCidr } : {}) },
        names,
        protect,
        dependsOn: preflight.prerequisites("compute"),
    });

    const cluster = new GkeCluster(name, {
        project: settings.project,
        region: settings.region,
        networkId: network.networkId,
        subnetworkId: network.subnetworkId,
        releaseChannel: settings.releaseChannel,
        masterAuthorizedNetworks: settings.masterAuthorizedNetworks,
        masterCidr: settings.network.masterCidr,
        extraWebhookPorts: gatewayProvider.webhookPorts,
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

    // One node pool per option of the capacity plan, in its order; a plan of several is ordered by a ComputeClass.
    const fallback = settings.tpu.capacity.length > 1;
    const computeClassName = fallback ? `${name}-tpu` : undefined;
    const tpuPools = settings.tpu.capacity.map(
        (capacity, index) =>
            new TpuNodePool(tpuPoolName(name, capacity, index), {
                project: settings.project,
                clusterId: cluster.clusterId,
                region: settings.region,
                zone: settings.zone,
                tpu: settings.tpu,
                capacity,
                // The first option holds the floor; a fallback pool only grows when the options above it have no capacity.
                minNodes: index === 0 ? settings.tpu.minNodes : 0,
                computeClass: computeClassName,
                serviceAccountEmail: cluster.nodeServiceAccountEmail,
                paused: settings.paused,
                imageStreaming: settings.coldStart.imageStreaming,
                // The machine-type check reads the Compute Engine API; the node account's roles must exist before nodes boot.
                dependsOn: [
                    ...cluster.nodeRoleGrants,
                    ...preflight.prerequisites("compute"),
                    // Image streaming is served by the Container File System API, which the node account must be allowed to use.
                    ...(settings.coldStart.imageStreaming
                        ? [...preflight.prerequisites("containerFilesystem"), ...cluster.imageStreamingGrants]
                        : []),
                ],
            }),
    );
    const [tpuPool] = tpuPools;

    // The platform layer: it needs the cluster's provider (hence the system pool), never the TPU pool.
    const { provider } = cluster;
    // The plan's order, for GKE's autoscaler: it needs the cluster and the pools' names; the model services wait for it.
    const computeClass =
        computeClassName !== undefined
            ? new TpuComputeClass(computeClassName, {
                  provider,
                  className: computeClassName,
                  rungs: tpuPools.map((pool, index) => ({ nodePoolName: pool.nodePoolName, capacity: settings.tpu.capacity[index] })),
                  poolScheduling: tpuPool.scheduling,
              })
            : undefined;
    const certManager = new CertManager(name, { provider });
    const leaderWorkerSet = new LeaderWorkerSet("lws", { provider, webhookPrerequisites: [cluster.webhookFirewall] });
    const networkServices = preflight.prerequisites("networkServices");
    // Workload Identity principals and Google's service agents name the project by its number.
    const projectNumber = gcp.organizations.getProjectOutput({ projectId: settings.project }).number;
    // The Gateway's address, reserved so that its certificate can name it before the Gateway exists.
    const access = settings.gateway.access;
    const gatewayAddress = new GatewayAddress("inference", {
        project: settings.project,
        region: settings.region,
        internal: isInternalGateway(settings.gateway),
        subnetworkId: network.subnetworkId,
        names,
        dependsOn: preflight.prerequisites("compute"),
    });
    const gatewayHost = settings.gateway.hostname ?? gatewayAddress.ip;
    const gatewayUrl = pulumi.interpolate`https://${gatewayHost}`;
    // What programs the Gateway, beside the platform: istiod, or GKE's own controller, which needs nothing installed.
    const installedGatewayProvider = gatewayProvider.install({
        provider,
        webhookPrerequisites: [cluster.webhookFirewall],
        proxyOnlySubnetwork: network.proxyOnlySubnetwork,
        networkServices,
        gatewayName: settings.gateway.name,
        access,
        gcp: {
            project: settings.project,
            region: settings.region,
            projectNumber,
            names,
            manageProjectApis: settings.manageProjectApis,
            compute: preflight.prerequisites("compute"),
        },
        iapClientSecret: loadIapClientSecret(),
    });
    const kserve = new KServe("kserve", {
        provider,
        gateway: { namespace: settings.gateway.namespace, name: settings.gateway.name },
        prerequisites: [certManager.webhooksReady, leaderWorkerSet.chart, cluster.webhookFirewall],
    });
    const serving = new ServingNamespace("serving", {
        provider,
        namespace: settings.gateway.servingNamespace,
        kserveWebhooks: kserve.webhooksReady,
        hfToken: loadHfToken(),
        bodyBasedRouting: settings.bodyBasedRouting,
        multiHost: settings.tpu.hostsPerSlice > 1 && settings.models.length > 0,
        gatewayProviderLabels: gatewayProvider.servingNamespaceLabels,
    });
    const gateway = new InferenceGateway("inference", {
        provider,
        gateway: settings.gateway,
        allowedRouteNamespaceLabels: { ...GATEWAY_ACCESS_LABEL },
        gatewayProvider: installedGatewayProvider,
        address: {
            type: gatewayProvider.addressType,
            value: gatewayProvider.addressType === "NamedAddress" ? gatewayAddress.name : gatewayAddress.ip,
        },
        certificate:
            settings.gateway.tlsSecret !== undefined
                ? { secretName: settings.gateway.tlsSecret }
                : settings.gateway.certificateIssuer !== undefined
                  ? { issuer: settings.gateway.certificateIssuer, hostname: settings.gateway.hostname }
                  : { issuer: certManager.caIssuerName, ipAddress: gatewayAddress.ip, hostname: settings.gateway.hostname },
        certManagerReady: certManager.webhooksReady,
        url: gatewayUrl,
    });

    // Pattern 2: requests at the Gateway's root routed by the model their body names. The router sits beside the Gateway,
    // whose namespace is all it waits for: GKE attaches the extension whenever the Gateway is programmed.
    const bodyBasedRouter = settings.bodyBasedRouting
        ? new BodyBasedRouter("body-based-router", {
              provider,
              gateway: { namespace: gateway.namespaceName, name: settings.gateway.name },
              gatewayProvider: installedGatewayProvider,
              models: settings.models.map((model) => ({ service: model.name, baseModel: model.modelName, adapters: [] })),
              servingNamespace: settings.gateway.servingNamespace,
              gatewayUrl,
          })
        : undefined;

    // Where a model server's start reads from, inside the region: staged weights, the compilation cache, the vLLM image.
    const store = new ModelStore(name, {
        project: settings.project,
        region: settings.region,
        names,
        coldStart: settings.coldStart,
        models: settings.models,
        nodeServiceAccountEmail: cluster.nodeServiceAccountEmail,
        protect,
        dependsOn: [...preflight.prerequisites("storage"), ...preflight.prerequisites("artifactRegistry")],
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

    // The workloads: the only layer that needs TPU nodes, which GKE's autoscaler adds when their pods ask.
    const modelServices = settings.models.map(
        (model) =>
            new ModelService(model.name, {
                provider,
                namespace: serving.namespaceName,
                model,
                scheduling: computeClass?.scheduling ?? tpuPool.scheduling,
                gateway: { name: settings.gateway.name, namespace: settings.gateway.namespace },
                gatewayProvider: installedGatewayProvider,
                gatewayUrl,
                apiKeySecret: serving.apiKey.secretName,
                hfToken: serving.hfToken,
                platform: [
                    kserve.configs,
                    serving.routerRouteConfig,
                    ...(serving.multiHostPreset ? [serving.multiHostPreset] : []),
                    leaderWorkerSet.webhooksReady,
                    // No TPU pod before the plan's order exists: without the class the autoscaler may buy any option first.
                    ...(computeClass ? [computeClass.ready] : []),
                ],
                paused: settings.paused,
                coldStart: settings.coldStart,
                store,
                identity: { project: settings.project, projectNumber, workloadPool: cluster.workloadPool },
                topology: settings.tpu.topology,
                keda,
            }),
    );

    const observability = new InferenceObservability(name, {
        project: settings.project,
        stack: pulumi.getStack(),
        models: settings.models,
        dependsOn: preflight.prerequisites("monitoring"),
    });

    return {
        clusterName: cluster.clusterName,
        region: settings.region,
        tpuZone: settings.zone,
        kubeconfigCommand: cluster.getCredentialsCommand,
        tpuNodePoolName: tpuPool.nodePoolName,
        tpuNodeSelector: (computeClass?.scheduling ?? tpuPool.scheduling).nodeSelector,
        tpuPoolAutoscaling: { ...tpuPool.autoscaling, paused: settings.paused },
        /** Which capacity option GKE tries first, second…, in which zone and pool, and each one's cost per hour. */
        tpuCapacityPlan: capacityPlan(
            settings,
            tpuPools.map((pool, index) => ({
                capacity: settings.tpu.capacity[index],
                nodePoolName: pool.nodePoolName,
                ...pool.autoscaling,
            })),
            computeClassName,
        ),
        /** What the TPU pools cost per hour while they hold the nodes the model services keep busy (none when paused), from the plan's cheapest to its dearest option. */
        tpuHourlyCost: estimateTpuHourlyCost(settings),
        gatewayProvider: settings.gateway.provider,
        gatewayClass: settings.gateway.className,
        /** Where the Gateway is, for `npm run smoke` and `npm run doctor`. */
        gateway: { namespace: settings.gateway.namespace, name: settings.gateway.name },
        gatewayAddress: gateway.address,
        /** HTTPS only: plain HTTP redirects here. */
        gatewayUrl,
        caIssuerName: certManager.caIssuerName,
        /** Writes the CA that signed the Gateway's certificate to ca.crt, for `curl --cacert ca.crt` and `npm run smoke -- --cacert ca.crt`. */
        ...(settings.gateway.tlsSecret === undefined && settings.gateway.certificateIssuer === undefined
            ? { caCertificateCommand: caCertificateCommand(settings.gateway.namespace, settings.gateway.name) }
            : {}),
        /** Who may reach the models, and how a caller gets its credentials. */
        access: accessOutput(settings.gateway, serving.apiKey.value, gatewayUrl),
        servingNamespace: serving.namespaceName,
        dashboardUrl: observability.dashboardUrl,
        /** Pattern 2: one OpenAI-compatible endpoint for every model service, which the body's `model` picks. */
        ...(bodyBasedRouter ? { modelRouting: bodyBasedRouter.endpoint } : {}),
        /** The bucket of staged weights and the compilation cache (see the README's "Cold start"); none when nothing is staged. */
        ...(store.bucketName ? { modelBucket: store.bucketName } : {}),
        /** Per model service: its URL through the Gateway and requests to paste. */
        models: Object.fromEntries(
            settings.models.map((model, index) => [
                model.name,
                {
                    modelName: model.modelName,
                    pattern: model.pattern,
                    replicas: model.replicas,
                    baseUrl: modelServices[index].baseUrl,
                    curl: modelServices[index].curl,
                    /** Estimated seconds per phase from pod creation to Ready, first start and warm, and the startup budget. */
                    coldStart: modelServices[index].coldStart,
                },
            ]),
        ),
    };
};
