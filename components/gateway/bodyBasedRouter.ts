import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { BODY_BASED_ROUTER } from "@gke-tpu-inference/facts";
import { pinnedChartArgs } from "../lib/charts";
import { shellCommand } from "../lib/shell";
import { ISTIO_NETWORKING_API_VERSION, Istio, tlsOriginationRule } from "../platform/istio";
import { ROOT_INFERENCE_PATHS, servicePathRouteNames } from "../serving/routerRoute";

/** What one model service answers to: its base model and the LoRA adapters it serves. */
export interface RoutedModel {
    /** The model service, which names its ConfigMap. */
    service: string;
    /** The base model's name, as clients send it in `model` and the service's route matches it. */
    baseModel: string;
    /** Adapter names, each routed to the base model's service. */
    adapters: string[];
}

/** Arguments of {@link BodyBasedRouter}. */
export interface BodyBasedRouterArgs {
    /** Provider of the target cluster. */
    provider: k8s.Provider;
    /** The Gateway it extends. Its namespace is an Output of the Gateway's namespace, so everything here waits for it. */
    gateway: { namespace: pulumi.Input<string>; name: string };
    /**
     * Istio, when it programs the Gateway: the Gateway calls the router through an ext_proc filter, whose objects wait for
     * Istio's CRDs. Absent, GKE programs it and calls the router through a routing extension.
     */
    istio?: Pick<Istio, "crds">;
    /** Every model service behind the Gateway. */
    models: RoutedModel[];
    /** The model services' namespace: behind Istio, their routes by path are named after it. */
    servingNamespace: string;
    /** The Gateway's address, for the endpoint's URL and curl example. */
    gatewayAddress: pulumi.Input<string>;
}

/** The one endpoint of every model service: its URL, which service each name reaches, and a request to paste. */
export interface ModelRoutingEndpoint {
    /** `http://<gateway>/v1`: append `/chat/completions` or `/completions`. */
    url: string;
    /** Every name a client may send as `model` (base models and adapters), and the service it reaches. */
    models: Record<string, string>;
    curl: string;
}

/** Router replicas: one may restart or be drained while the other serves (the PodDisruptionBudget keeps one). */
const ROUTER_REPLICAS = 2;

/**
 * Requests the router serves: POSTs to an inference path at the Gateway's root, where only the body names the model. The
 * per-service paths and `/health` never reach it, so they keep working whatever the router's state or the body's.
 * Source: `SOURCES.gcpRoutingExtensionMatch` in the catalog.
 */
export function rootInferenceMatcher(): string {
    return `request.method == 'POST' && (${ROOT_INFERENCE_PATHS.map((path) => `request.path == '${path}'`).join(" || ")})`;
}

/**
 * Pattern 2's body-based router: the pinned upstream chart (Deployment, Service, RBAC) beside the Gateway, run highly
 * available (two replicas on different nodes, a disruption budget, a readiness probe on its health port), and what makes
 * the Gateway call it with each request's headers and body before it picks a route, for the requests at the Gateway's root
 * only (a GKE routing extension with a match condition, or behind Istio an ext_proc filter turned off on every
 * per-service route, and the TLS to the router); and one ConfigMap per model service naming its base model and adapters.
 * The router sets `X-Gateway-Base-Model-Name` to the base model of the body's `model`, which the services' routes match
 * (see routerRoute.ts). The chart's own provider objects stay off (`provider.name: none`): they are built here, as the
 * chart's templates write them, where they are typed and checked.
 */
export class BodyBasedRouter extends pulumi.ComponentResource {
    /** The object the Gateway calls the router through: GKE's routing extension, or behind Istio its EnvoyFilter. */
    public readonly extensionName: string;
    public readonly endpoint: pulumi.Output<ModelRoutingEndpoint>;

    constructor(name: string, args: BodyBasedRouterArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:gateway:BodyBasedRouter", name, {}, opts);
        const childOpts = { parent: this, provider: args.provider };
        const namespace = args.gateway.namespace;

        const chart = new k8s.helm.v4.Chart(
            `${name}-chart`,
            pinnedChartArgs(BODY_BASED_ROUTER.chart, namespace, {
                // The image is pinned by the chart's version; pulling it again on every start buys nothing.
                bbr: { replicas: ROUTER_REPLICAS, image: { pullPolicy: "IfNotPresent" } },
                provider: { name: "none" },
            }),
            childOpts,
        );
        this.highAvailability(name, namespace, chart, childOpts);

        this.extensionName = BODY_BASED_ROUTER.name;
        if (args.istio) {
            this.istioExtension(name, args, { ...childOpts, dependsOn: [args.istio.crds] });
        } else {
            this.gkeExtension(name, args, childOpts);
        }

        // The router reads these at start and on every change; a name no ConfigMap lists gets an empty header and no route.
        for (const model of args.models) {
            new k8s.core.v1.ConfigMap(
                `${name}-${model.service}`,
                {
                    metadata: {
                        name: `${model.service}-models`,
                        namespace,
                        labels: { [BODY_BASED_ROUTER.managedLabel]: "true" },
                    },
                    data: {
                        baseModel: model.baseModel,
                        adapters: model.adapters.map((adapter) => `- ${JSON.stringify(adapter)}\n`).join(""),
                    },
                },
                childOpts,
            );
        }

        const models = Object.fromEntries(
            args.models.flatMap((model) => [model.baseModel, ...model.adapters].map((modelName) => [modelName, model.service])),
        );
        const request = JSON.stringify({
            model: args.models[0]?.baseModel,
            messages: [{ role: "user", content: "Say hello" }],
            max_tokens: 32,
        });
        this.endpoint = pulumi.output(args.gatewayAddress).apply((address) => {
            const url = `http://${address}/v1`;
            const curl = shellCommand(["curl", "-sS", `${url}/chat/completions`, "-H", "Content-Type: application/json", "-d", request]);
            return { url, models, curl };
        });
        this.registerOutputs({ extensionName: this.extensionName, endpoint: this.endpoint });
    }

    /**
     * What the chart cannot be told: its pods spread over nodes (and zones where it can), ready only once the router's
     * health server answers, and never all disrupted at once. The chart's Deployment is patched server-side with the
     * fields it leaves unset.
     */
    private highAvailability(
        name: string,
        namespace: pulumi.Input<string>,
        chart: pulumi.Resource,
        childOpts: pulumi.CustomResourceOptions,
    ) {
        const selector = { matchLabels: { ...BODY_BASED_ROUTER.podLabels } };
        new k8s.apps.v1.DeploymentPatch(
            `${name}-availability`,
            {
                metadata: { name: BODY_BASED_ROUTER.name, namespace },
                spec: {
                    template: {
                        spec: {
                            // Only nodes the router may run on count: TPU nodes, tainted, would otherwise be empty domains
                            // that no spread could ever even out, and a rolling update would need a third system node.
                            topologySpreadConstraints: [
                                {
                                    maxSkew: 1,
                                    topologyKey: "kubernetes.io/hostname",
                                    whenUnsatisfiable: "DoNotSchedule",
                                    nodeTaintsPolicy: "Honor",
                                    labelSelector: selector,
                                },
                                {
                                    maxSkew: 1,
                                    topologyKey: "topology.kubernetes.io/zone",
                                    whenUnsatisfiable: "ScheduleAnyway",
                                    nodeTaintsPolicy: "Honor",
                                    labelSelector: selector,
                                },
                            ],
                            containers: [
                                {
                                    name: BODY_BASED_ROUTER.container,
                                    // The router's gRPC health service, plain text, answers SERVING once it runs.
                                    readinessProbe: { grpc: { port: BODY_BASED_ROUTER.healthPort }, periodSeconds: 5, failureThreshold: 2 },
                                },
                            ],
                        },
                    },
                },
            },
            // The chart creates the Deployment this patches.
            { ...childOpts, dependsOn: [chart] },
        );
        new k8s.policy.v1.PodDisruptionBudget(
            `${name}-disruption`,
            { metadata: { name: BODY_BASED_ROUTER.name, namespace }, spec: { minAvailable: ROUTER_REPLICAS - 1, selector } },
            childOpts,
        );
    }

    /** GKE: a routing extension on the Gateway to the router, for the requests at its root, which GKE health-checks like any backend. */
    private gkeExtension(name: string, args: BodyBasedRouterArgs, childOpts: pulumi.CustomResourceOptions) {
        const namespace = args.gateway.namespace;
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
            childOpts,
        );

        new k8s.apiextensions.CustomResource(
            `${name}-extension`,
            {
                apiVersion: "networking.gke.io/v1",
                kind: "GCPRoutingExtension",
                metadata: { name: BODY_BASED_ROUTER.name, namespace },
                spec: {
                    targetRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: args.gateway.name }],
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
            childOpts,
        );
    }

    /**
     * Istio: an ext_proc filter, first in the Gateway's chain, to the router's Service by its cluster name, sending what
     * the router reads and no response; off on every route a service's own path selects (Envoy decides on the route a
     * request matches before the router ran, so the root's requests, which match none yet, still reach it); and TLS to
     * the router, which serves it with a self-signed certificate.
     */
    private istioExtension(name: string, args: BodyBasedRouterArgs, childOpts: pulumi.CustomResourceOptions) {
        const namespace = args.gateway.namespace;
        const host = pulumi.interpolate`${BODY_BASED_ROUTER.name}.${namespace}.svc.cluster.local`;
        new k8s.apiextensions.CustomResource(
            `${name}-ext-proc`,
            {
                apiVersion: "networking.istio.io/v1alpha3",
                kind: "EnvoyFilter",
                metadata: { name: BODY_BASED_ROUTER.name, namespace },
                spec: {
                    targetRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: args.gateway.name }],
                    configPatches: [
                        {
                            applyTo: "HTTP_FILTER",
                            match: {
                                context: "GATEWAY",
                                listener: { filterChain: { filter: { name: "envoy.filters.network.http_connection_manager" } } },
                            },
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
                        ...args.models.flatMap((model) =>
                            servicePathRouteNames(args.servingNamespace, model.service).map((route) => ({
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
            childOpts,
        );
        new k8s.apiextensions.CustomResource(
            `${name}-tls`,
            {
                apiVersion: ISTIO_NETWORKING_API_VERSION,
                kind: "DestinationRule",
                metadata: { name: BODY_BASED_ROUTER.name, namespace },
                spec: tlsOriginationRule(host),
            },
            childOpts,
        );
    }
}
