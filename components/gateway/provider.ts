/**
 * What a gateway provider adds to the stack, behind one interface: everything that GKE's own Gateway controller or
 * Istio needs or creates comes through a {@link GatewayProvider}, which `index.ts` chooses once from the
 * `gatewayProvider` setting: the webhook ports the control plane must reach, whether the region gets a proxy-only subnet,
 * the serving namespace's labels, what the Gateway waits for, the objects each model service gets, and the body-based
 * router's extension. The proxy-only subnet's range is a setting (`settings/gateway.ts`, whose rules check it); the
 * network creates the subnet only for a provider that has one.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { StackNames } from "../lib/names";
import { GatewayAccessSettings } from "../settings/gateway";

/** What a provider needs of the cluster and the network to be installed. */
export interface GatewayProviderInstallArgs {
    /** Provider of the target cluster. */
    provider: k8s.Provider;
    /** What lets the control plane reach the provider's webhooks: the firewall rule that opens {@link GatewayProvider.webhookPorts}. */
    webhookPrerequisites: pulumi.Input<pulumi.Resource>[];
    /** The region's proxy-only subnet, where the settings give it a range. */
    proxyOnlySubnetwork?: pulumi.Resource;
    /** The Network Services API enabled: GKE accepts an InferencePool backend only with it. */
    networkServices: pulumi.Input<pulumi.Resource>[];
    /** The Gateway's name, which the provider's policies target. */
    gatewayName: string;
    /** Who may reach the models, validated by the settings. */
    access: GatewayAccessSettings;
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

/** A provider as chosen from the settings: what the cluster must allow for it, and how it is installed. */
export interface GatewayProvider {
    /** Ports, beside the platform's webhooks, that the control plane must reach on the nodes' pods. */
    readonly webhookPorts: readonly string[];
    /** Whether the provider's load balancer needs the region's proxy-only subnet (an Envoy-based regional one does; a passthrough one not). */
    readonly proxyOnlySubnet: boolean;
    /** Labels the model services' namespace carries for the provider. */
    readonly servingNamespaceLabels: Readonly<Record<string, string>>;
    /** How the Gateway's `spec.addresses` names the reserved address: GKE by the address resource's name, Istio by the IP. */
    readonly addressType: "NamedAddress" | "IPAddress";
    /** Installs what programs the Gateway beside the platform, and gives what the gateway and the model services get from it. */
    install(args: GatewayProviderInstallArgs): InstalledGatewayProvider;
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
