import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { GATEWAY_LISTENERS } from "@gke-tpu-inference/facts";
import { GatewaySettings } from "../settings/gateway";
import { GatewayProviderDescriptor } from "../settings/gatewayProviders";
import { InstalledGatewayProvider } from "./provider";

/** Where the Gateway's certificate comes from. */
export type GatewayCertificateSource =
    /** A kubernetes.io/tls Secret the user made in the Gateway's namespace. */
    | { secretName: string }
    /** A cert-manager ClusterIssuer that signs a certificate for the reserved address (and the hostname, when set). */
    | { issuer: pulumi.Input<string>; ipAddress?: pulumi.Input<string>; hostname?: string };

/** Arguments of {@link InferenceGateway}. */
export interface InferenceGatewayArgs {
    /** Provider of the target cluster. */
    provider: k8s.Provider;
    /** Class, namespace and name, validated by the settings. */
    gateway: Pick<GatewaySettings, "className" | "namespace" | "name">;
    /** Labels of the namespaces whose HTTPRoutes may attach. */
    allowedRouteNamespaceLabels: Record<string, string>;
    /**
     * What serves the Gateway: what it needs before it can program it (GKE, the region's proxy-only subnet and the Network
     * Services API for InferencePool backends; Istio, istiod), the infrastructure it reads from the Gateway, and its
     * gateway-level access control and screening, which the Gateway waits for.
     */
    gatewayProvider: Pick<InstalledGatewayProvider, "gatewayPrerequisites" | "gatewayInfrastructure" | "addGatewayObjects">;
    /** The reserved address, as the provider names it in `spec.addresses`. */
    address: { type: GatewayProviderDescriptor["addressType"]; value: pulumi.Input<string> };
    /** The HTTPS listener's certificate. */
    certificate: GatewayCertificateSource;
    /** cert-manager's webhook answering, which a Certificate needs. */
    certManagerReady: pulumi.Input<pulumi.Resource>;
    /** The URL callers use, for the provider's token audience. */
    url: pulumi.Input<string>;
    /** How long `pulumi up` waits for the provider to program the load balancer. Default 1800 s. */
    programmedTimeoutSeconds?: number;
}

/** The name of the Secret the stack's certificate is written to. */
export function certificateSecretName(gateway: string): string {
    return `${gateway}-tls`;
}

/** Whether the stack's own CA signs the Gateway's certificate: the settings name neither a Secret nor an issuer of the user's. */
export function signedByStackCa(gateway: Pick<GatewaySettings, "tlsSecret" | "certificateIssuer">): boolean {
    return gateway.tlsSecret === undefined && gateway.certificateIssuer === undefined;
}

/**
 * The Gateway's certificate as the settings choose it: the user's Secret, else the user's ClusterIssuer for the hostname,
 * else the stack's CA (`stackCa`) for the reserved address and the hostname.
 */
export function certificateSourceOf(
    gateway: Pick<GatewaySettings, "tlsSecret" | "certificateIssuer" | "hostname">,
    stackCa: { issuer: pulumi.Input<string>; ipAddress?: pulumi.Input<string> },
): GatewayCertificateSource {
    if (gateway.tlsSecret !== undefined) {
        return { secretName: gateway.tlsSecret };
    }
    return gateway.certificateIssuer !== undefined
        ? { issuer: gateway.certificateIssuer, hostname: gateway.hostname }
        : { ...stackCa, hostname: gateway.hostname };
}

/** The command that writes the CA of the stack's certificate (public; cert-manager copies it into the certificate's Secret) to ca.crt. */
export function caCertificateCommand(gateway: Pick<GatewaySettings, "namespace" | "name">): string {
    return `kubectl get secret -n ${gateway.namespace} ${certificateSecretName(gateway.name)} -o jsonpath='{.data.ca\\.crt}' | base64 -d > ca.crt`;
}

/** The cert-manager Certificate an issuer signs for the Gateway's address and hostname, into the Secret its HTTPS listener serves. */
export function gatewayCertificate(
    gateway: Pick<GatewaySettings, "name">,
    certificate: Extract<GatewayCertificateSource, { issuer: unknown }>,
    namespace: pulumi.Input<string>,
) {
    return {
        apiVersion: "cert-manager.io/v1",
        kind: "Certificate",
        metadata: {
            name: certificateSecretName(gateway.name),
            namespace,
            annotations: { "pulumi.com/waitFor": "condition=Ready" },
        },
        spec: {
            secretName: certificateSecretName(gateway.name),
            ...(certificate.hostname !== undefined ? { dnsNames: [certificate.hostname] } : {}),
            ...(certificate.ipAddress !== undefined ? { ipAddresses: [certificate.ipAddress] } : {}),
            privateKey: { algorithm: "RSA", size: 2048 },
            issuerRef: { group: "cert-manager.io", kind: "ClusterIssuer", name: certificate.issuer },
        },
    };
}

/** How the Gateway object is built, besides its settings. */
export interface GatewayObjectOptions {
    namespace: pulumi.Input<string>;
    /** The Secret its HTTPS listener serves. */
    certificateSecret: string;
    /** The Gateway's addresses: the reserved one, or a multi-cluster Gateway's one per region. */
    addresses: ReadonlyArray<{ type: string; value: pulumi.Input<string> }>;
    allowedRouteNamespaceLabels: Record<string, string>;
    /** What the provider makes the load balancer's Service from, where it reads it from the Gateway. */
    infrastructure?: InstalledGatewayProvider["gatewayInfrastructure"];
    programmedTimeoutSeconds: number;
}

/**
 * The Gateway: HTTPS for routes from labelled namespaces, with the certificate's Secret; plain HTTP for the redirect of
 * its own namespace only; `pulumi up` waits until its provider reports it Programmed.
 */
export function gatewayObject(gateway: Pick<GatewaySettings, "className" | "name">, options: GatewayObjectOptions) {
    return {
        apiVersion: "gateway.networking.k8s.io/v1",
        kind: "Gateway",
        metadata: {
            name: gateway.name,
            namespace: options.namespace,
            annotations: {
                "pulumi.com/waitFor": "condition=Programmed",
                // A regional Application Load Balancer takes minutes to program; a Network Load Balancer less.
                "pulumi.com/timeoutSeconds": String(options.programmedTimeoutSeconds),
            },
        },
        spec: {
            gatewayClassName: gateway.className,
            addresses: [...options.addresses],
            listeners: [
                {
                    name: GATEWAY_LISTENERS.https.name,
                    protocol: "HTTPS",
                    port: GATEWAY_LISTENERS.https.port,
                    tls: { mode: "Terminate", certificateRefs: [{ kind: "Secret", group: "", name: options.certificateSecret }] },
                    allowedRoutes: { namespaces: { from: "Selector", selector: { matchLabels: options.allowedRouteNamespaceLabels } } },
                },
                // Plain HTTP carries only the redirect, which lives in the Gateway's namespace.
                {
                    name: GATEWAY_LISTENERS.http.name,
                    protocol: "HTTP",
                    port: GATEWAY_LISTENERS.http.port,
                    allowedRoutes: { namespaces: { from: "Same" } },
                },
            ],
            ...(options.infrastructure !== undefined ? { infrastructure: options.infrastructure } : {}),
        },
        // Declared (and never sent) so that the resource exposes the status GKE writes back.
        status: undefined,
    };
}

/** The route of the Gateway's plain-HTTP listener: every request redirected to HTTPS. */
export function httpsRedirectRoute(gateway: Pick<GatewaySettings, "name">, namespace: pulumi.Input<string>) {
    return {
        apiVersion: "gateway.networking.k8s.io/v1",
        kind: "HTTPRoute",
        metadata: { name: `${gateway.name}-https-redirect`, namespace },
        spec: {
            parentRefs: [
                { group: "gateway.networking.k8s.io", kind: "Gateway", name: gateway.name, sectionName: GATEWAY_LISTENERS.http.name },
            ],
            rules: [
                {
                    filters: [
                        { type: "RequestRedirect", requestRedirect: { scheme: "https", statusCode: GATEWAY_LISTENERS.redirectStatusCode } },
                    ],
                },
            ],
        },
    };
}

/**
 * The inference Gateway on its reserved address: an HTTPS listener for routes from labelled namespaces, with a
 * certificate cert-manager issues (or the user's Secret), and an HTTP listener that only redirects to HTTPS (it admits
 * routes from the Gateway's own namespace, where the redirect lives). GKE's regional class makes it an Application Load
 * Balancer; Istio's class an Envoy Deployment behind a LoadBalancer Service, whose external or internal load balancer GKE
 * picks from the annotations the Gateway hands the Service. The Gateway waits for its certificate and its access control,
 * and `pulumi up` waits until the provider reports it Programmed, so its address is real when the stack outputs it.
 */
export class InferenceGateway extends pulumi.ComponentResource {
    /** The load balancer's IP address. */
    public readonly address: pulumi.Output<string>;
    public readonly gatewayName: pulumi.Output<string>;
    public readonly gatewayNamespace: pulumi.Output<string>;
    /** The namespace as soon as it exists, for what lives beside the Gateway without waiting for it to be programmed. */
    public readonly namespaceName: pulumi.Output<string>;
    /** The Secret the HTTPS listener serves. */
    public readonly certificateSecret: pulumi.Output<string>;

    constructor(name: string, args: InferenceGatewayArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:gateway:InferenceGateway", name, {}, opts);
        const { gateway } = args;
        const childOpts = { parent: this, provider: args.provider };
        const namespace = new k8s.core.v1.Namespace(`${name}-ns`, { metadata: { name: gateway.namespace } }, childOpts);

        const { certificate } = args;
        const issued =
            "issuer" in certificate
                ? new k8s.apiextensions.CustomResource(
                      `${name}-certificate`,
                      gatewayCertificate(gateway, certificate, namespace.metadata.name),
                      {
                          ...childOpts,
                          dependsOn: [args.certManagerReady],
                      },
                  )
                : undefined;
        const secretName = "secretName" in certificate ? certificate.secretName : certificateSecretName(gateway.name);
        const gatewayObjects = args.gatewayProvider.addGatewayObjects(
            name,
            { namespace: namespace.metadata.name, name: gateway.name, url: args.url },
            childOpts,
        );
        const resource = new k8s.apiextensions.CustomResource(
            `${name}-gateway`,
            gatewayObject(gateway, {
                namespace: namespace.metadata.name,
                certificateSecret: secretName,
                addresses: [args.address],
                allowedRouteNamespaceLabels: args.allowedRouteNamespaceLabels,
                infrastructure: args.gatewayProvider.gatewayInfrastructure,
                programmedTimeoutSeconds: args.programmedTimeoutSeconds ?? 1800,
            }),
            // Never programmed without its certificate, its access control or its screening.
            { ...childOpts, dependsOn: [...args.gatewayProvider.gatewayPrerequisites, ...(issued ? [issued] : []), ...gatewayObjects] },
        );
        new k8s.apiextensions.CustomResource(`${name}-https-redirect`, httpsRedirectRoute(gateway, namespace.metadata.name), childOpts);

        // CustomResource types only apiVersion, kind and metadata; `status` exists because it was declared above.
        const { status } = resource as unknown as { status: pulumi.Output<{ addresses?: Array<{ value: string }> } | undefined> };
        this.address = status.apply((value) => value?.addresses?.[0]?.value ?? "");
        this.gatewayName = resource.metadata.name;
        this.gatewayNamespace = resource.metadata.namespace;
        this.namespaceName = namespace.metadata.name;
        this.certificateSecret = pulumi.output(secretName);
        this.registerOutputs({
            address: this.address,
            gatewayName: this.gatewayName,
            gatewayNamespace: this.gatewayNamespace,
            namespaceName: this.namespaceName,
            certificateSecret: this.certificateSecret,
        });
    }
}
