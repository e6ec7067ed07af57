/**
 * GKE's own Gateway controller as the gateway provider: nothing to install (the cluster has the Gateway API on), a
 * regional Application Load Balancer that waits for the region's proxy-only subnet and, for InferencePool backends, the
 * Network Services API; per model service the health checks and the long backend timeout the field reports learned it
 * needs; for Pattern 2, a routing extension to the body-based router.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { BODY_BASED_ROUTER, IAP, VLLM_PORT } from "@gke-tpu-inference/facts";
import { ROOT_INFERENCE_PATHS } from "../serving/routerRoute";
import { GkeGatewayAccess } from "./gkeAccess";
import { ModelArmor } from "./modelArmor";
import { GatewayProviderInstallArgs, InstalledGatewayProvider, RouterExtension, ServiceBackends } from "./provider";
import { gatewayTargetRef } from "./targets";

/** GCP's backend timeout defaults to 30 s; a long completion streams for minutes. */
export const INFERENCE_BACKEND_TIMEOUT_SECONDS = 600;

/** A GKE health check against vLLM's /health over plain HTTP on its fixed port, for `targetRef`. */
function vllmHealthCheckSpec(targetRef: { group: string; kind: string; name: string }) {
    return {
        default: {
            checkIntervalSec: 15,
            timeoutSec: 5,
            healthyThreshold: 1,
            unhealthyThreshold: 2,
            logConfig: { enabled: true },
            config: { type: "HTTP", httpHealthCheck: { portSpecification: "USE_FIXED_PORT", port: VLLM_PORT, requestPath: "/health" } },
        },
        targetRef,
    };
}

/**
 * Requests the router serves: POSTs to an inference path at the Gateway's root, where only the body names the model. The
 * per-service paths and `/health` never reach it, so they keep working whatever the router's state or the body's.
 * Source: `SOURCES.gcpRoutingExtensionMatch` in the catalog.
 */
export function rootInferenceMatcher(): string {
    return `request.method == 'POST' && (${ROOT_INFERENCE_PATHS.map((path) => `request.path == '${path}'`).join(" || ")})`;
}

/** What every backend's GCPBackendPolicy carries for access control: the Cloud Armor policy, and with IAP the OAuth client. */
export interface BackendAccess {
    securityPolicy: pulumi.Input<string>;
    iap?: { clientId: string; clientSecret: pulumi.Input<string> };
}

/**
 * Both backends GKE creates for a model service, health-checked on vLLM's /health; on each a GCPBackendPolicy naming the
 * Cloud Armor policy (and with IAP the OAuth client), and on the InferencePool's a long timeout. Returns the backend
 * policies, which the service waits for.
 */
function addServiceObjects(
    name: string,
    service: ServiceBackends,
    access: BackendAccess,
    opts: pulumi.CustomResourceOptions,
): pulumi.Resource[] {
    // Both backends GKE creates for the service: the InferencePool and the plain-HTTP Service.
    const httpService = { group: "", kind: "Service", name: service.httpServiceName };
    const healthChecked: Array<[string, { group: string; kind: string; name: string }]> = [
        ["pool-health", service.inferencePool],
        ["http-health", httpService],
    ];
    for (const [suffix, targetRef] of healthChecked) {
        new k8s.apiextensions.CustomResource(
            `${name}-${suffix}`,
            {
                apiVersion: "networking.gke.io/v1",
                kind: "HealthCheckPolicy",
                metadata: { name: targetRef.name, namespace: service.namespace },
                spec: vllmHealthCheckSpec(targetRef),
            },
            opts,
        );
    }
    // GKE reads the OAuth client's secret from a Secret beside the policies, under the key `key`.
    const iapSecret =
        access.iap !== undefined
            ? new k8s.core.v1.Secret(
                  `${name}-iap-client`,
                  {
                      metadata: { name: `${service.httpServiceName}-iap-client`, namespace: service.namespace },
                      type: "Opaque",
                      stringData: { [IAP.clientSecretKey]: pulumi.secret(access.iap.clientSecret) },
                  },
                  opts,
              )
            : undefined;
    const guarded = {
        securityPolicy: access.securityPolicy,
        ...(access.iap !== undefined && iapSecret !== undefined
            ? { iap: { enabled: true, clientID: access.iap.clientId, oauth2ClientSecret: { name: iapSecret.metadata.name } } }
            : {}),
    };
    const backendPolicies: Array<[string, { group: string; kind: string; name: string }, Record<string, unknown>]> = [
        ["pool-backend", service.inferencePool, { timeoutSec: INFERENCE_BACKEND_TIMEOUT_SECONDS, ...guarded }],
        ["http-backend", httpService, guarded],
    ];
    return backendPolicies.map(
        ([suffix, targetRef, spec]) =>
            new k8s.apiextensions.CustomResource(
                `${name}-${suffix}`,
                {
                    apiVersion: "networking.gke.io/v1",
                    kind: "GCPBackendPolicy",
                    metadata: { name: targetRef.name, namespace: service.namespace },
                    spec: { default: spec, targetRef },
                },
                opts,
            ),
    );
}

/** A routing extension on the Gateway to the router, for the requests at its root, which GKE health-checks like any backend. */
function addRouterExtension(name: string, router: RouterExtension, opts: pulumi.CustomResourceOptions): void {
    const namespace = router.gateway.namespace;
    // GKE health-checks an extension backend like any other: over gRPC, on the router's health port.
    new k8s.apiextensions.CustomResource(
        `${name}-health`,
        {
            apiVersion: "networking.gke.io/v1",
            kind: "HealthCheckPolicy",
            metadata: { name: BODY_BASED_ROUTER.name, namespace },
            spec: {
                default: {
                    logConfig: { enabled: true },
                    config: {
                        type: "GRPC",
                        grpcHealthCheck: { portSpecification: "USE_FIXED_PORT", port: BODY_BASED_ROUTER.healthPort },
                    },
                },
                targetRef: { group: "", kind: "Service", name: BODY_BASED_ROUTER.name },
            },
        },
        opts,
    );

    new k8s.apiextensions.CustomResource(
        `${name}-extension`,
        {
            apiVersion: "networking.gke.io/v1",
            kind: "GCPRoutingExtension",
            metadata: { name: BODY_BASED_ROUTER.name, namespace },
            spec: {
                targetRefs: [gatewayTargetRef(router.gateway.name)],
                extensionChains: [
                    {
                        name: "model-from-body",
                        matchCondition: { celExpressions: [{ celMatcher: rootInferenceMatcher() }] },
                        extensions: [
                            {
                                name: "body-based-router",
                                // The :authority of the gRPC calls; the router answers any.
                                authority: pulumi.interpolate`${BODY_BASED_ROUTER.name}.${namespace}.svc`,
                                timeout: BODY_BASED_ROUTER.extension.timeout,
                                supportedEvents: [...BODY_BASED_ROUTER.extension.supportedEvents],
                                requestBodySendMode: BODY_BASED_ROUTER.extension.requestBodySendMode,
                                backendRef: {
                                    group: "",
                                    kind: "Service",
                                    name: BODY_BASED_ROUTER.name,
                                    port: BODY_BASED_ROUTER.grpcPort,
                                },
                            },
                        ],
                    },
                ],
            },
        },
        opts,
    );
}

/** GKE's Gateway once the network is up: the Gateway and each model service wait for what GKE needs of the project. */
export function installGkeGateway(args: GatewayProviderInstallArgs<"gke">): InstalledGatewayProvider {
    const { proxyOnlySubnetwork, networkServices, gcp } = args;
    const { access } = args.gateway;
    const guard = new GkeGatewayAccess("gateway-access", {
        project: gcp.project,
        region: gcp.region,
        access,
        names: gcp.names,
        dependsOn: gcp.compute,
    });
    if (access.identity === "iap" && (access.iapClientId === undefined || args.iapClientSecret === undefined)) {
        throw new Error("gatewayIdentity iap without iapClientId and the iapClientSecret secret: the settings should have refused it");
    }
    const backendAccess: BackendAccess = {
        securityPolicy: guard.securityPolicyName,
        ...(access.identity === "iap" ? { iap: { clientId: access.iapClientId!, clientSecret: args.iapClientSecret! } } : {}),
    };
    return {
        // A regional Gateway is programmed only once the region has a proxy-only subnet; InferencePool backends need Network Services.
        gatewayPrerequisites: [...(proxyOnlySubnetwork ? [proxyOnlySubnetwork] : []), ...networkServices],
        servicePrerequisites: networkServices,
        addServiceObjects: (name, service, opts) => addServiceObjects(name, service, backendAccess, opts),
        addGatewayObjects: (name, gateway, opts) =>
            access.modelArmor
                ? [
                      new ModelArmor(
                          `${name}-model-armor`,
                          {
                              provider: args.provider,
                              project: gcp.project,
                              projectNumber: gcp.projectNumber,
                              region: gcp.region,
                              gateway,
                              manageApi: gcp.manageProjectApis,
                              names: gcp.names,
                              networkServices,
                          },
                          { parent: opts.parent },
                      ).extension,
                  ]
                : [],
        addRouterExtension,
    };
}
