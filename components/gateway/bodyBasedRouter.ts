import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { BODY_BASED_ROUTER, NODE_ZONE_LABEL } from "@gke-tpu-inference/facts";
import { pinnedChartArgs } from "../lib/charts";
import { authorizedCurl } from "../lib/shell";
import { InstalledGatewayProvider } from "./provider";

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
    /** What serves the Gateway: it adds what makes the Gateway call the router (GKE's routing extension, Istio's ext_proc filter). */
    gatewayProvider: Pick<InstalledGatewayProvider, "addRouterExtension">;
    /** Every model service behind the Gateway. */
    models: RoutedModel[];
    /** The model services' namespace, which names their routes (behind Istio, the ext_proc filter is off on their own paths). */
    servingNamespace: string;
    /** The Gateway's HTTPS URL, for the endpoint's URL and curl example. */
    gatewayUrl: pulumi.Input<string>;
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
 * Pattern 2's body-based router: the pinned upstream chart (Deployment, Service, RBAC) beside the Gateway, run highly
 * available (two replicas on different nodes, a disruption budget, a readiness probe on its health port), and what makes
 * the Gateway call it with each request's headers and body before it picks a route, for the requests at the Gateway's root
 * only (a GKE routing extension with a match condition, or behind Istio an ext_proc filter turned off on every
 * per-service route, and the TLS to the router); and one ConfigMap per model service naming its base model and adapters.
 * The router sets `X-Gateway-Base-Model-Name` to the base model of the body's `model`, which the services' routes match
 * (see serving/routerRoute.ts). The chart's own provider objects stay off (`provider.name: none`): the gateway provider
 * builds them (gkeProvider.ts, istioProvider.ts) as the chart's templates write them, where they are typed and checked.
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
        args.gatewayProvider.addRouterExtension(
            name,
            { gateway: args.gateway, services: args.models.map((model) => model.service), servingNamespace: args.servingNamespace },
            childOpts,
        );

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
        this.endpoint = pulumi.output(args.gatewayUrl).apply((gatewayUrl) => {
            const url = `${gatewayUrl}/v1`;
            const curl = authorizedCurl([`${url}/chat/completions`, "-H", "Content-Type: application/json", "-d", request]);
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
                                    topologyKey: NODE_ZONE_LABEL,
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
}
