import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { GATEWAY_LISTENERS, MULTI_CLUSTER_INFERENCE, VLLM_HEALTH_PATH, VLLM_PORT, renderKServeRoute } from "@gke-tpu-inference/facts";
import {
    GatewayCertificateSource,
    certificateSecretName,
    gatewayCertificate,
    gatewayObject,
    httpsRedirectRoute,
} from "../gateway/inferenceGateway";
import { SERVER_PATHS, SERVICE_PATH_PREFIXES, rewriteRule } from "../serving/routerRoute";
import { serviceCurl } from "../serving/modelServiceSpecs";
import { fleetPoolName } from "./fleetExport";

/** A model service the fleet serves: every member runs it and exports its pool. */
export interface FleetService {
    /** The service's name (its LLMInferenceService's). */
    name: string;
    /** The serving namespace, the same in every member: the import the config cluster sees lives there too. */
    namespace: string;
    /** The model vLLM serves, which the publisher prefix names. */
    modelName: string;
}

/** Arguments of {@link MultiClusterGateway}. */
export interface MultiClusterGatewayArgs {
    /** Provider of the config cluster. */
    provider: k8s.Provider;
    /** The Gateway's namespace and name; its class is GKE's multi-cluster inference class. */
    gateway: { namespace: string; name: string };
    /** Every member's region, each given an address of the Gateway. */
    regions: readonly string[];
    /** Labels of the namespaces whose HTTPRoutes may attach: the serving namespace's. */
    allowedRouteNamespaceLabels: Record<string, string>;
    /**
     * The HTTPS listener's certificate: the user's Secret, or an issuer's certificate for `hostname`. The addresses are
     * ephemeral, unknown until GKE programs the Gateway, which waits for its certificate: no certificate can name them.
     */
    certificate: GatewayCertificateSource;
    /** cert-manager's webhook answering, which a Certificate needs. */
    certManagerReady: pulumi.Input<pulumi.Resource>;
    /** The services routed, one route, health check and backend policy each. */
    services: readonly FleetService[];
    /** The fleet registered (`FleetRegistration.ready`): without the feature no controller programs the Gateway. */
    fleetReady: pulumi.Input<pulumi.Resource>[];
    /** How long `pulumi up` waits for GKE to program the load balancers. Default 1800 s. */
    programmedTimeoutSeconds?: number;
}

/** Why `args` cannot make the Gateway, one line per problem (none when they can). */
export function multiClusterGatewayProblems(args: Pick<MultiClusterGatewayArgs, "regions" | "certificate" | "services">): string[] {
    const { certificate } = args;
    const names = args.services.map((service) => service.name);
    return [
        ...(args.regions.length === 0 ? ["no member region to give an address"] : []),
        ...(new Set(args.regions).size < args.regions.length ? [`a region appears twice in ${args.regions.join(", ")}`] : []),
        ...(new Set(names).size < names.length ? [`a service appears twice in ${names.join(", ")}`] : []),
        ...("issuer" in certificate && certificate.ipAddress !== undefined
            ? ["an issuer's certificate cannot name an IP address: the Gateway's addresses are ephemeral"]
            : []),
        ...("issuer" in certificate && certificate.hostname === undefined
            ? ["an issuer's certificate needs a hostname: the Gateway's addresses are ephemeral, unknown before it is programmed"]
            : []),
    ];
}

/** The import the config cluster sees for `service`'s exported pools, as a backendRef or a policy's targetRef names it. */
export function importRef(service: Pick<FleetService, "name">) {
    return { ...MULTI_CLUSTER_INFERENCE.importKind, name: fleetPoolName(service.name) };
}

/**
 * The HTTPRoute of `service` on the Gateway's HTTPS listener: what the single-cluster route template lets through to
 * vLLM's server paths ({@link SERVER_PATHS} under the service's own prefixes), every one to the service's import, with no
 * port (an import has none; GKE's setup page names it without). KServe's route-template rendering fills the prefixes in.
 */
export function fleetRoute(service: FleetService, gateway: MultiClusterGatewayArgs["gateway"]) {
    const template = {
        rules: SERVICE_PATH_PREFIXES.flatMap((prefix) => SERVER_PATHS.map((path) => rewriteRule(importRef(service), prefix, path))),
    };
    const parentRefs = [
        {
            group: "gateway.networking.k8s.io",
            kind: "Gateway",
            name: gateway.name,
            namespace: gateway.namespace,
            sectionName: GATEWAY_LISTENERS.https.name,
        },
    ];
    const rendered = renderKServeRoute(template, { ...service }, undefined, parentRefs);
    return { ...rendered, metadata: { name: fleetPoolName(service.name), namespace: service.namespace } };
}

/** GKE's health check of an import: vLLM's health path on vLLM's port, in every member. */
export function importHealthCheck(service: FleetService) {
    return {
        apiVersion: "networking.gke.io/v1",
        kind: "HealthCheckPolicy",
        metadata: { name: fleetPoolName(service.name), namespace: service.namespace },
        spec: {
            targetRef: importRef(service),
            default: {
                config: {
                    type: "HTTP",
                    // The CRD's CEL rules accept a port only with USE_FIXED_PORT (networking.gke.io_healthcheckpolicies.yaml:280-292).
                    httpHealthCheck: { requestPath: VLLM_HEALTH_PATH, port: VLLM_PORT, portSpecification: "USE_FIXED_PORT" },
                },
            },
        },
    };
}

/**
 * GKE's backend policy of an import: the request timeout GKE suggests. The docs' balancing modes (`balancingMode`,
 * `customMetrics`, `maxInFlightRequestsPerEndpoint`) are not in the published GCPBackendPolicy schema, so none is set.
 */
export function importBackendPolicy(service: FleetService) {
    return {
        apiVersion: "networking.gke.io/v1",
        kind: "GCPBackendPolicy",
        metadata: { name: fleetPoolName(service.name), namespace: service.namespace },
        spec: { targetRef: importRef(service), default: { timeoutSec: MULTI_CLUSTER_INFERENCE.backendTimeoutSeconds } },
    };
}

/**
 * The fleet's one endpoint, in the config cluster: a Gateway of GKE's cross-regional internal multi-cluster class with an
 * ephemeral address in every member region, HTTPS with the stack's certificate for routes from the labelled namespaces
 * and plain HTTP that only redirects (as the single-cluster Gateway), and per service a route to its import, the import's
 * health check and its backend policy. Source: `SOURCES.gkeMultiClusterInferenceSetup` in the catalog.
 */
export class MultiClusterGateway extends pulumi.ComponentResource {
    /**
     * The Gateway's addresses as GKE reports them in its status, one per member region: unknown until GKE has programmed
     * the Gateway, and the status does not say which region each is in (GKE's setup page reads the first).
     */
    public readonly addresses: pulumi.Output<string[]>;
    /** The base URL: the hostname when the certificate names one, else the first address. */
    public readonly url: pulumi.Output<string>;
    /** Per service, requests to paste from inside the VPC (the load balancer is internal). */
    public readonly curl: Record<string, pulumi.Output<{ models: string; completions: string }>>;

    constructor(name: string, args: MultiClusterGatewayArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:fleet:MultiClusterGateway", name, {}, opts);
        const problems = multiClusterGatewayProblems(args);
        if (problems.length > 0) {
            throw new Error(`MultiClusterGateway ${name}: ${problems.join("; ")}`);
        }
        const { gateway, certificate } = args;
        const childOpts = { parent: this, provider: args.provider };
        const namespace = new k8s.core.v1.Namespace(`${name}-ns`, { metadata: { name: gateway.namespace } }, childOpts);
        const issued =
            "issuer" in certificate
                ? [
                      new k8s.apiextensions.CustomResource(
                          `${name}-certificate`,
                          gatewayCertificate(gateway, certificate, namespace.metadata.name),
                          // cert-manager's webhook admits the Certificate.
                          { ...childOpts, dependsOn: [args.certManagerReady] },
                      ),
                  ]
                : [];
        const resource = new k8s.apiextensions.CustomResource(
            `${name}-gateway`,
            gatewayObject(
                { className: MULTI_CLUSTER_INFERENCE.gatewayClass, name: gateway.name },
                {
                    namespace: namespace.metadata.name,
                    certificateSecret: "secretName" in certificate ? certificate.secretName : certificateSecretName(gateway.name),
                    addresses: args.regions.map((region) => ({
                        type: `${MULTI_CLUSTER_INFERENCE.ephemeralAddressTypePrefix}${region}`,
                        value: region,
                    })),
                    allowedRouteNamespaceLabels: args.allowedRouteNamespaceLabels,
                    programmedTimeoutSeconds: args.programmedTimeoutSeconds ?? 1800,
                },
            ),
            // Never programmed without its certificate; no controller programs it before the fleet's feature names this cluster.
            { ...childOpts, dependsOn: [...issued, ...args.fleetReady] },
        );
        new k8s.apiextensions.CustomResource(`${name}-https-redirect`, httpsRedirectRoute(gateway, namespace.metadata.name), childOpts);
        for (const service of args.services) {
            // The policies and the route name an import the controller makes from the members' exports, once the fleet exists.
            const serviceOpts = { ...childOpts, dependsOn: args.fleetReady };
            new k8s.apiextensions.CustomResource(`${name}-${service.name}-route`, fleetRoute(service, gateway), serviceOpts);
            new k8s.apiextensions.CustomResource(`${name}-${service.name}-health`, importHealthCheck(service), serviceOpts);
            new k8s.apiextensions.CustomResource(`${name}-${service.name}-backend`, importBackendPolicy(service), serviceOpts);
        }

        // CustomResource types only apiVersion, kind and metadata; `status` exists because gatewayObject declares it.
        const { status } = resource as unknown as { status: pulumi.Output<{ addresses?: Array<{ value: string }> } | undefined> };
        this.addresses = status.apply((value) => (value?.addresses ?? []).map((address) => address.value));
        const hostname = "hostname" in certificate ? certificate.hostname : undefined;
        this.url =
            hostname !== undefined ? pulumi.output(`https://${hostname}`) : this.addresses.apply(([first]) => `https://${first ?? ""}`);
        this.curl = Object.fromEntries(
            args.services.map((service) => [
                service.name,
                this.url.apply((url) => serviceCurl(service, `${url}/${service.namespace}/${service.name}`)),
            ]),
        );
        this.registerOutputs({ addresses: this.addresses, url: this.url, curl: this.curl });
    }
}
