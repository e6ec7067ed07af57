import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { GatewaySettings } from "../settings/gateway";
import { InstalledGatewayProvider } from "./provider";

/** Arguments of {@link InferenceGateway}. */
export interface InferenceGatewayArgs {
    /** Provider of the target cluster. */
    provider: k8s.Provider;
    /** Class, namespace, name and optional TLS secret, validated by the settings. */
    gateway: Pick<GatewaySettings, "className" | "namespace" | "name" | "tlsSecret">;
    /** Labels of the namespaces whose HTTPRoutes may attach. */
    allowedRouteNamespaceLabels: Record<string, string>;
    /**
     * What serves the Gateway: what it needs before it can program it (GKE, the region's proxy-only subnet and the Network
     * Services API for InferencePool backends; Istio, istiod), and the infrastructure it reads from the Gateway.
     */
    gatewayProvider: Pick<InstalledGatewayProvider, "gatewayPrerequisites" | "gatewayInfrastructure">;
    /** How long `pulumi up` waits for the provider to program the load balancer. Default 1800 s. */
    programmedTimeoutSeconds?: number;
}

/**
 * The inference Gateway: an HTTP listener, an HTTPS listener when a TLS secret is configured,
 * and routes admitted only from labelled namespaces. GKE's regional class makes it an Application
 * Load Balancer; Istio's class an Envoy Deployment behind a LoadBalancer Service, whose external
 * or internal load balancer GKE picks from the annotations the Gateway hands the Service. `pulumi up`
 * waits until the provider reports it Programmed, so its address is real when the stack outputs it.
 */
export class InferenceGateway extends pulumi.ComponentResource {
    /** The load balancer's IP address. */
    public readonly address: pulumi.Output<string>;
    public readonly gatewayName: pulumi.Output<string>;
    public readonly gatewayNamespace: pulumi.Output<string>;
    /** The namespace as soon as it exists, for what lives beside the Gateway without waiting for it to be programmed. */
    public readonly namespaceName: pulumi.Output<string>;

    constructor(name: string, args: InferenceGatewayArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:gateway:InferenceGateway", name, {}, opts);
        const { gateway } = args;
        const childOpts = { parent: this, provider: args.provider };
        const namespace = new k8s.core.v1.Namespace(`${name}-ns`, { metadata: { name: gateway.namespace } }, childOpts);

        const allowedRoutes = { namespaces: { from: "Selector", selector: { matchLabels: args.allowedRouteNamespaceLabels } } };
        const listeners: Array<Record<string, unknown>> = [{ name: "http", protocol: "HTTP", port: 80, allowedRoutes }];
        if (gateway.tlsSecret !== undefined) {
            listeners.push({
                name: "https",
                protocol: "HTTPS",
                port: 443,
                tls: { mode: "Terminate", certificateRefs: [{ kind: "Secret", group: "", name: gateway.tlsSecret }] },
                allowedRoutes,
            });
        }

        const resource = new k8s.apiextensions.CustomResource(
            `${name}-gateway`,
            {
                apiVersion: "gateway.networking.k8s.io/v1",
                kind: "Gateway",
                metadata: {
                    name: gateway.name,
                    namespace: namespace.metadata.name,
                    annotations: {
                        "pulumi.com/waitFor": "condition=Programmed",
                        // A regional Application Load Balancer takes minutes to program; a Network Load Balancer less.
                        "pulumi.com/timeoutSeconds": String(args.programmedTimeoutSeconds ?? 1800),
                    },
                },
                spec: {
                    gatewayClassName: gateway.className,
                    listeners,
                    ...(args.gatewayProvider.gatewayInfrastructure !== undefined
                        ? { infrastructure: args.gatewayProvider.gatewayInfrastructure }
                        : {}),
                },
                // Declared (and never sent) so that the resource exposes the status GKE writes back.
                status: undefined,
            },
            { ...childOpts, dependsOn: args.gatewayProvider.gatewayPrerequisites },
        );

        // CustomResource types only apiVersion, kind and metadata; `status` exists because it was declared above.
        const { status } = resource as unknown as { status: pulumi.Output<{ addresses?: Array<{ value: string }> } | undefined> };
        this.address = status.apply((value) => value?.addresses?.[0]?.value ?? "");
        this.gatewayName = resource.metadata.name;
        this.gatewayNamespace = resource.metadata.namespace;
        this.namespaceName = namespace.metadata.name;
        this.registerOutputs({
            address: this.address,
            gatewayName: this.gatewayName,
            gatewayNamespace: this.gatewayNamespace,
            namespaceName: this.namespaceName,
        });
    }
}
