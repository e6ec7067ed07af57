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
                probes: [
                    {
                        apiVersion: "cert-manager.io/v1",
                        kind: "ClusterIssuer",
                        metadata: { name: `${name}-webhook-probe` },
                        spec: { selfSigned: {} },
                    },
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
                ],
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

        const caSecretName = `${name}-ca`;
        const caCertificate = new k8s.apiextensions.CustomResource(
            `${name}-ca`,
            {
                apiVersion: "cert-manager.io/v1",
                kind: "Certificate",
                metadata: readyMetadata(`${name}-ca`, namespace.metadata.name),
                spec: {
                    isCA: true,
                    commonName: `${name}-ca`,
                    secretName: caSecretName,
                    duration: args.caDuration ?? "87600h",
                    renewBefore: args.caRenewBefore ?? "2160h",
                    // Keeping the key across renewals keeps certificates signed before a renewal valid.
                    privateKey: { algorithm: "RSA", size: 2048, rotationPolicy: "Never" },
                    issuerRef: { group: "cert-manager.io", kind: "ClusterIssuer", name: selfSigned.metadata.name },
                },
            },
            afterChart,
        );

        const caIssuer = new k8s.apiextensions.CustomResource(
            `${name}-ca-issuer`,
            {
                apiVersion: "cert-manager.io/v1",
                kind: "ClusterIssuer",
                metadata: readyMetadata(`${name}-ca-issuer`),
                // A ClusterIssuer reads its CA secret from cert-manager's namespace.
                spec: { ca: { secretName: caSecretName } },
            },
            // The CA secret exists once the certificate is Ready, which `pulumi up` waits for.
            { ...childOpts, dependsOn: [this.webhooksReady, caCertificate] },
        );

        this.caIssuerName = caIssuer.metadata.name;
        this.registerOutputs({ caIssuerName: this.caIssuerName });
    }
}
