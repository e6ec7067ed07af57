/**
 * Istio as the gateway provider: installed by the stack beside the platform, its Gateway an Envoy Deployment behind a
 * passthrough load balancer of the kind the settings ask for, TLS from its proxies to each service's EPP, and for
 * Pattern 2 an ext_proc filter to the body-based router. Its webhook port and the serving namespace's label that keeps
 * the mesh out are its descriptor's (settings/gatewayProviders.ts).
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { BODY_BASED_ROUTER, GKE_SERVICE_LOAD_BALANCER } from "@gke-tpu-inference/facts";
import { Istio } from "../platform/istio";
import { servicePathRouteNames } from "../serving/routerRoute";
import { IstioGatewayAccess, serviceOverlayName } from "./istioAccess";
import { GatewayProviderInstallArgs, InstalledGatewayProvider, RouterExtension, ServiceBackends } from "./provider";
import { GATEWAY_HTTP_FILTERS_MATCH, gatewayTargetRef } from "./targets";

/** The API version of the Istio networking objects the stack writes (the CRD's storage version). */
export const ISTIO_NETWORKING_API_VERSION = "networking.istio.io/v1";

/**
 * A DestinationRule spec that makes Istio's proxies speak TLS to `host`: a server behind a self-signed certificate
 * outside the mesh (the EPP's, which KServe issues per service; the body-based router's). The traffic is encrypted,
 * the certificate not verified, as upstream's own charts do (gateway-api-inference-extension v1.5.0
 * config/charts/inferencepool/templates/istio.yaml and body-based-routing/templates/istio.yaml).
 */
export function tlsOriginationRule(host: pulumi.Input<string>) {
    return { host, trafficPolicy: { tls: { mode: "SIMPLE", insecureSkipVerify: true } } };
}

/** TLS to a model service's EPP; its access control is the Gateway's, so the service waits for nothing more. */
function addServiceObjects(name: string, service: ServiceBackends, opts: pulumi.CustomResourceOptions): pulumi.Resource[] {
    // Istio calls the EPP's Service by its cluster name over plain HTTP/2 unless told otherwise; the EPP serves TLS only.
    new k8s.apiextensions.CustomResource(
        `${name}-epp-tls`,
        {
            apiVersion: ISTIO_NETWORKING_API_VERSION,
            kind: "DestinationRule",
            metadata: { name: service.eppServiceName, namespace: service.namespace },
            spec: tlsOriginationRule(pulumi.interpolate`${service.eppServiceName}.${service.namespace}.svc.cluster.local`),
        },
        opts,
    );
    return [];
}

/**
 * An ext_proc filter, first in the Gateway's chain, to the router's Service by its cluster name, sending what
 * the router reads and no response; off on every route a service's own path selects (Envoy decides on the route a
 * request matches before the router ran, so the root's requests, which match none yet, still reach it); and TLS to
 * the router, which serves it with a self-signed certificate.
 */
function addRouterExtension(name: string, router: RouterExtension, opts: pulumi.CustomResourceOptions): void {
    const namespace = router.gateway.namespace;
    const host = pulumi.interpolate`${BODY_BASED_ROUTER.name}.${namespace}.svc.cluster.local`;
    new k8s.apiextensions.CustomResource(
        `${name}-ext-proc`,
        {
            apiVersion: "networking.istio.io/v1alpha3",
            kind: "EnvoyFilter",
            metadata: { name: BODY_BASED_ROUTER.name, namespace },
            spec: {
                targetRefs: [gatewayTargetRef(router.gateway.name)],
                configPatches: [
                    {
                        applyTo: "HTTP_FILTER",
                        match: GATEWAY_HTTP_FILTERS_MATCH,
                        patch: {
                            operation: BODY_BASED_ROUTER.istioFilter.operation,
                            value: {
                                name: BODY_BASED_ROUTER.istioFilter.name,
                                typed_config: {
                                    "@type": "type.googleapis.com/envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor",
                                    failure_mode_allow: false,
                                    allow_mode_override: true,
                                    processing_mode: { ...BODY_BASED_ROUTER.processingMode },
                                    grpc_service: {
                                        envoy_grpc: {
                                            cluster_name: pulumi.interpolate`outbound|${BODY_BASED_ROUTER.grpcPort}||${host}`,
                                        },
                                    },
                                },
                            },
                        },
                    },
                    ...router.services.flatMap((service) =>
                        servicePathRouteNames(router.servingNamespace, service).map((route) => ({
                            applyTo: "HTTP_ROUTE",
                            match: { context: "GATEWAY", routeConfiguration: { vhost: { route: { name: route } } } },
                            patch: {
                                operation: "MERGE",
                                value: {
                                    typed_per_filter_config: {
                                        [BODY_BASED_ROUTER.istioFilter.name]: {
                                            "@type": "type.googleapis.com/envoy.extensions.filters.http.ext_proc.v3.ExtProcPerRoute",
                                            disabled: true,
                                        },
                                    },
                                },
                            },
                        })),
                    ),
                ],
            },
        },
        opts,
    );
    new k8s.apiextensions.CustomResource(
        `${name}-tls`,
        {
            apiVersion: ISTIO_NETWORKING_API_VERSION,
            kind: "DestinationRule",
            metadata: { name: BODY_BASED_ROUTER.name, namespace },
            spec: tlsOriginationRule(host),
        },
        opts,
    );
}

/** Istio installed beside the platform, its Gateway behind a load balancer of the kind the settings chose. */
export function installIstioGateway(args: GatewayProviderInstallArgs<"istio">): InstalledGatewayProvider {
    const { provider, webhookPrerequisites, gateway } = args;
    const istio = new Istio("istio", { provider, webhookPrerequisites });
    // Istio's objects wait for its CRDs.
    const afterCrds = (opts: pulumi.CustomResourceOptions) => ({ ...opts, dependsOn: [istio.crds] });
    return {
        // Nothing but istiod programs an `istio` Gateway.
        gatewayPrerequisites: [istio.istiod],
        // Istio copies these onto the Service it creates for the Gateway, and merges the overlay the ConfigMap holds (the
        // allowed ranges, the client's address kept) into that Service.
        gatewayInfrastructure: {
            annotations: { ...GKE_SERVICE_LOAD_BALANCER[gateway.loadBalancer] },
            parametersRef: { group: "", kind: "ConfigMap", name: serviceOverlayName(gateway.name) },
        },
        servicePrerequisites: [],
        addServiceObjects: (name, service, opts) => addServiceObjects(name, service, afterCrds(opts)),
        addGatewayObjects: (name, target, opts) => [
            new IstioGatewayAccess(
                `${name}-access`,
                { provider, gateway: target, access: gateway.access, audience: target.url, crds: istio.crds },
                { parent: opts.parent },
            ),
        ],
        addRouterExtension: (name, router, opts) => addRouterExtension(name, router, afterCrds(opts)),
    };
}
