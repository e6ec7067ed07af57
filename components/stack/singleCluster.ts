/** The single-cluster stack: one cluster, its Gateway and its model services, and the stack's outputs. */
import { accessOutput } from "../gateway/accessOutput";
import { caCertificateCommand, signedByStackCa } from "../gateway/inferenceGateway";
import { InferenceObservability } from "../observability/observability";
import { estimateTpuHourlyCost } from "../serving/cost";
import { Context, cluster, gateway, workloads } from "./stages";

/** The single-cluster stack: the cluster, its Gateway and its services, and its outputs. */
export function singleCluster(context: Context, observability: InferenceObservability) {
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
