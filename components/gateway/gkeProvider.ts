/**
 * GKE's own Gateway controller as the gateway provider: nothing to install (the cluster has the Gateway API on), a
 * regional Application Load Balancer that waits for the region's proxy-only subnet and, for InferencePool backends, the
 * Network Services API; per model service the health checks and the long backend timeout the field reports learned it
 * needs; for Pattern 2, a routing extension to the body-based router.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { BODY_BASED_ROUTER, VLLM_PORT } from "@gke-tpu-inference/facts";
import { ROOT_INFERENCE_PATHS } from "../serving/routerRoute";
import { GatewayProvider, GatewayProviderInstallArgs, InstalledGatewayProvider, RouterExtension, ServiceBackends } from "./provider";

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

/** Both backends GKE creates for a model service, health-checked on vLLM's /health, and a long timeout on the InferencePool's. */
function addServiceObjects(name: string, service: ServiceBackends, opts: pulumi.CustomResourceOptions): void {
    // Both backends GKE creates for the service: the InferencePool and the plain-HTTP Service.
    const healthChecked: Array<[string, { group: string; kind: string; name: string }]> = [
        ["pool-health", service.inferencePool],
        ["http-health", { group: "", kind: "Service", name: service.httpServiceName }],
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
    new k8s.apiextensions.CustomResource(
        `${name}-pool-backend`,
        {
            apiVersion: "networking.gke.io/v1",
            kind: "GCPBackendPolicy",
            metadata: { name: service.inferencePool.name, namespace: service.namespace },
            spec: { default: { timeoutSec: INFERENCE_BACKEND_TIMEOUT_SECONDS }, targetRef: service.inferencePool },
        },
        opts,
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
                targetRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: router.gateway.name }],
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
export function installGkeGateway({
    proxyOnlySubnetwork,
    networkServices,
}: Pick<GatewayProviderInstallArgs, "proxyOnlySubnetwork" | "networkServices">): InstalledGatewayProvider {
    return {
        // A regional Gateway is programmed only once the region has a proxy-only subnet; InferencePool backends need Network Services.
        gatewayPrerequisites: [...(proxyOnlySubnetwork ? [proxyOnlySubnetwork] : []), ...networkServices],
        servicePrerequisites: networkServices,
        addServiceObjects,
        addRouterExtension,
    };
}

/**
 * GKE's own Gateway controller: it runs no webhook on the nodes and asks nothing of the serving namespace; its regional
 * Application Load Balancer needs the region's proxy-only subnet.
 */
export const GKE_GATEWAY_PROVIDER: GatewayProvider = {
    webhookPorts: [],
    proxyOnlySubnet: true,
    servingNamespaceLabels: {},
    install: installGkeGateway,
};
