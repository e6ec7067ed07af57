/** The fleet stack: a cluster per member region behind GKE's multi-cluster Inference Gateway, and the stack's outputs. */
import { MULTI_CLUSTER_INFERENCE } from "@gke-tpu-inference/facts";
import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";
import { FleetExport } from "../fleet/fleetExport";
import { FleetRegistration } from "../fleet/fleetRegistration";
import { MultiClusterGateway } from "../fleet/multiClusterGateway";
import { API_KEY_COMMAND } from "../gateway/accessOutput";
import { caCertificateCommand, certificateSourceOf, signedByStackCa } from "../gateway/inferenceGateway";
import { memberNames } from "../lib/names";
import { InferenceObservability } from "../observability/observability";
import { API_KEY_PASSWORD, GATEWAY_ACCESS_LABEL } from "../platform/servingNamespace";
import { estimateTpuHourlyCost } from "../serving/cost";
import { FleetMemberSettings } from "../settings/fleet";
import { Context, cluster, name, workloads } from "./stages";

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
export function fleet(context: Context, observability: InferenceObservability) {
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
    // Every member's service answers at the fleet's URL under the same path: the config member's name it.
    const baseUrls = new Map<string, pulumi.Output<string>>();
    const memberOutputs = members.map(({ member, context: memberCtx, infra, platformLayer }) => {
        const services = workloads(memberCtx, infra, platformLayer, endpoint.url);
        if (member.region === fleetSettings.configRegion) {
            services.forEach(({ model, service }) => baseUrls.set(model.name, service.baseUrl));
        }
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
                {
                    modelName: model.modelName,
                    pattern: model.pattern,
                    replicas: model.replicas,
                    baseUrl: baseUrls.get(model.name)!,
                    curl: endpoint.curl[model.name],
                },
            ]),
        ),
    };
}
