import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { CHARTS } from "@gke-tpu-inference/facts";
import { pinnedChartArgs } from "../lib/charts";
import { WebhookGate } from "./webhookGate";

/** Arguments of {@link CertManager}. */
export interface CertManagerArgs {
    /** Provider of the target cluster. */
    provider: k8s.Provider;
    /** Lifetime of the CA certificate; cert-manager renews it `caRenewBefore` ahead. Default 87600h (10 years). */
    caDuration?: string;
    /** Default 2160h (90 days). */
    caRenewBefore?: string;
}

/** The object metadata, `pulumi.com/waitFor` included, that makes `pulumi up` wait until cert-manager reports the object Ready. */
function readyMetadata(name: string, namespace?: pulumi.Input<string>) {
    return { name, ...(namespace !== undefined ? { namespace } : {}), annotations: { "pulumi.com/waitFor": "condition=Ready" } };
}

/**
 * What shows cert-manager's webhook answers: a self-signed ClusterIssuer and a Certificate from it, both validated by the
 * webhook, whose caBundle comes from the cainjector.
 */
export function certManagerProbes(name: string) {
    return [
        { apiVersion: "cert-manager.io/v1", kind: "ClusterIssuer", metadata: { name: `${name}-webhook-probe` }, spec: { selfSigned: {} } },
        {
            apiVersion: "cert-manager.io/v1",
            kind: "Certificate",
            metadata: { name: `${name}-webhook-probe`, namespace: CHARTS.certManager.namespace },
            spec: {
                secretName: `${name}-webhook-probe`,
                dnsNames: ["webhook-probe.invalid"],
                issuerRef: { kind: "ClusterIssuer", name: `${name}-webhook-probe` },
            },
        },
    ];
}

/** The stack's CA: an RSA 2048 certificate `issuer` signs, kept across renewals, in cert-manager's namespace. */
export function caCertificate(
    name: string,
    namespace: pulumi.Input<string>,
    issuer: pulumi.Input<string>,
    lifetime: Pick<CertManagerArgs, "caDuration" | "caRenewBefore">,
) {
    return {
        apiVersion: "cert-manager.io/v1",
        kind: "Certificate",
        metadata: readyMetadata(`${name}-ca`, namespace),
        spec: {
            isCA: true,
            commonName: `${name}-ca`,
            secretName: caSecretName(name),
            duration: lifetime.caDuration ?? "87600h",
            renewBefore: lifetime.caRenewBefore ?? "2160h",
            // Keeping the key across renewals keeps certificates signed before a renewal valid.
            privateKey: { algorithm: "RSA", size: 2048, rotationPolicy: "Never" },
            issuerRef: { group: "cert-manager.io", kind: "ClusterIssuer", name: issuer },
        },
    };
}

/** The Secret the CA's certificate and key are written to. */
function caSecretName(name: string): string {
    return `${name}-ca`;
}

/**
 * cert-manager from its pinned chart (CRDs included), and the CA chain KServe expects: a
 * self-signed ClusterIssuer signs an RSA 2048 CA certificate, which backs a CA ClusterIssuer.
 * KServe rejects ECDSA here, so the key algorithm is fixed.
 */
export class CertManager extends pulumi.ComponentResource {
    /** The chart. */
    public readonly chart: k8s.helm.v4.Chart;
    /** Passes once cert-manager's webhook answers; anything that creates cert-manager objects (KServe's chart too) waits for it. */
    public readonly webhooksReady: pulumi.Resource;
    /** Name of the CA ClusterIssuer that signs the platform's internal certificates. */
    public readonly caIssuerName: pulumi.Output<string>;

    constructor(name: string, args: CertManagerArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:platform:CertManager", name, {}, opts);
        const childOpts = { parent: this, provider: args.provider };

        const namespace = new k8s.core.v1.Namespace(`${name}-ns`, { metadata: { name: CHARTS.certManager.namespace } }, childOpts);

        this.chart = new k8s.helm.v4.Chart(
            `${name}-chart`,
            pinnedChartArgs(CHARTS.certManager, namespace.metadata.name, {
                crds: { enabled: true },
                webhook: {
                    // The most the API server allows; calls from GKE's control plane can be slow on a fresh cluster.
                    timeoutSeconds: 30,
                    // GKE private nodes accept the control plane only on 443 and 10250.
                    securePort: 10250,
                },
            }),
            childOpts,
        );
        // cert-manager's webhook validates every cert-manager.io object; its caBundle comes from the cainjector.
        this.webhooksReady = new WebhookGate(
            `${name}-webhooks`,
            {
                provider: args.provider,
                namespace: namespace.metadata.name,
                probes: certManagerProbes(name),
                resources: [{ apiGroup: "cert-manager.io", resources: ["clusterissuers", "certificates"] }],
                version: CHARTS.certManager.version,
                dependsOn: [this.chart],
            },
            { parent: this },
        ).ready;
        // The issuers and the certificate are cert-manager objects: they need its CRDs and its webhook answering.
        const afterChart = { ...childOpts, dependsOn: [this.webhooksReady] };

        const selfSigned = new k8s.apiextensions.CustomResource(
            `${name}-selfsigned-issuer`,
            {
                apiVersion: "cert-manager.io/v1",
                kind: "ClusterIssuer",
                metadata: readyMetadata(`${name}-selfsigned`),
                spec: { selfSigned: {} },
            },
            afterChart,
        );

        const ca = new k8s.apiextensions.CustomResource(
            `${name}-ca`,
            caCertificate(name, namespace.metadata.name, selfSigned.metadata.name, args),
            afterChart,
        );

        const caIssuer = new k8s.apiextensions.CustomResource(
            `${name}-ca-issuer`,
            {
                apiVersion: "cert-manager.io/v1",
                kind: "ClusterIssuer",
                metadata: readyMetadata(`${name}-ca-issuer`),
                // A ClusterIssuer reads its CA secret from cert-manager's namespace.
                spec: { ca: { secretName: caSecretName(name) } },
            },
            // The CA secret exists once the certificate is Ready, which `pulumi up` waits for.
            { ...childOpts, dependsOn: [this.webhooksReady, ca] },
        );

        this.caIssuerName = caIssuer.metadata.name;
        this.registerOutputs({ caIssuerName: this.caIssuerName });
    }
}
