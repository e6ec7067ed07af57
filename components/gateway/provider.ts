/**
 * What a gateway provider adds to the stack, behind one interface: everything that GKE's own Gateway controller or
 * Istio creates comes through the {@link InstalledGatewayProvider} its module's installer returns (`installGkeGateway`,
 * `installIstioGateway`, both of the same arguments, called at the same point of `index.ts`): what the Gateway waits for,
 * the objects each model service gets, and the body-based router's extension. What the stack knows of a provider
 * without creating anything (its classes, the proxy-only subnet and its range, the address type, the webhook ports, the
 * identity checks, the serving namespace's labels) is its descriptor in the settings layer (settings/gatewayProviders.ts).
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { StackNames } from "../lib/names";
import { GatewaySettings } from "../settings/gateway";
import { GatewayProviderName } from "../settings/gatewayProviders";

/** What a provider needs of the cluster and the network to be installed, whichever it is. */
export interface GatewayProviderContext {
    /** Provider of the target cluster. */
    provider: k8s.Provider;
    /** What lets the control plane reach the provider's webhooks: the firewall rule that opens its descriptor's `webhookPorts`. */
    webhookPrerequisites: pulumi.Input<pulumi.Resource>[];
    /** The region's proxy-only subnet, where the settings give it a range. */
    proxyOnlySubnetwork?: pulumi.Resource;
    /** The Network Services API enabled: GKE accepts an InferencePool backend only with it. */
    networkServices: pulumi.Input<pulumi.Resource>[];
    /** Where the provider's GCP objects go, and their names. */
    gcp: {
        project: string;
        region: string;
        projectNumber: pulumi.Input<string>;
        names: StackNames;
        /** Enable the APIs an opt-in layer needs (Model Armor's). */
        manageProjectApis: boolean;
        /** The Compute Engine API enabled. */
        compute: pulumi.Input<pulumi.Resource>[];
    };
    /** With `iap`: the OAuth client's secret, a Pulumi secret. */
    iapClientSecret?: pulumi.Input<string>;
}

/** What provider `P`'s installer takes: the context, and the Gateway as the settings give it for `P`. */
export interface GatewayProviderInstallArgs<P extends GatewayProviderName> extends GatewayProviderContext {
    /** Its name (which the provider's policies target), who may reach the models, and the provider's own choices (Istio's load balancer kind). */
    gateway: Extract<GatewaySettings, { provider: P }>;
}

/** A model service's backends, as the provider's objects name them. */
export interface ServiceBackends {
    /** The serving namespace. */
    namespace: pulumi.Input<string>;
    /** The InferencePool KServe creates for the service. */
    inferencePool: { group: string; kind: string; name: string };
    /** The plain-HTTP Service of the paths the scheduler does not handle. */
    httpServiceName: string;
    /** The Service of the service's EPP. */
    eppServiceName: string;
}

/** The body-based router, as the Gateway's extension reaches it. */
export interface RouterExtension {
    /** The Gateway it extends; the router runs in its namespace. */
    gateway: { namespace: pulumi.Input<string>; name: string };
    /** The model services behind the Gateway and their namespace, which name their routes. */
    services: string[];
    servingNamespace: string;
}

/** The Gateway the provider's gateway-level objects attach to. */
export interface GatewayObjectsTarget {
    namespace: pulumi.Input<string>;
    name: string;
    /** The HTTPS URL callers use, the audience of their ID tokens. */
    url: pulumi.Input<string>;
}

/** A provider installed on the cluster: what the Gateway, each model service and the body-based router get from it. */
export interface InstalledGatewayProvider {
    /** What the Gateway waits for before the provider can program it. */
    readonly gatewayPrerequisites: pulumi.Input<pulumi.Resource>[];
    /** The Gateway's `spec.infrastructure`, where the provider makes the load balancer's Service from it. */
    readonly gatewayInfrastructure?: {
        annotations: Record<string, string>;
        parametersRef?: { group: string; kind: string; name: string };
    };
    /** What every model service waits for beside the platform. */
    readonly servicePrerequisites: pulumi.Input<pulumi.Resource>[];
    /**
     * Adds the objects a model service needs behind this provider, as the service's children (`opts`); returns those the
     * service waits for (its backends' access control), so that no route reaches an unprotected backend.
     */
    addServiceObjects(name: string, service: ServiceBackends, opts: pulumi.CustomResourceOptions): pulumi.Resource[];
    /**
     * Adds the Gateway's own access control and screening, as the Gateway's children (`opts`); returns what the Gateway
     * waits for, so that it is never programmed without them.
     */
    addGatewayObjects(name: string, gateway: GatewayObjectsTarget, opts: pulumi.CustomResourceOptions): pulumi.Resource[];
    /** Adds what makes the Gateway call the body-based router for the requests at its root, as the router's children (`opts`). */
    addRouterExtension(name: string, router: RouterExtension, opts: pulumi.CustomResourceOptions): void;
}
