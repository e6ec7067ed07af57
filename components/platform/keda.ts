import * as gcp from "@pulumi/gcp";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { CHARTS, KEDA_OPERATOR_ACCOUNT } from "@gke-tpu-inference/facts";
import { pinnedChartArgs } from "../lib/charts";
import { workloadIdentityPrincipal } from "../lib/workloadIdentity";

/** Arguments of {@link Keda}. */
export interface KedaArgs {
    /** Provider of the target cluster. */
    provider: k8s.Provider;
    /** GCP project whose Managed Service for Prometheus the operator reads. */
    project: string;
    /** The project's number and the cluster's workload pool, which name the operator's Workload Identity principal. */
    projectNumber: pulumi.Input<string>;
    workloadPool: string;
    /** The Cloud Monitoring API enabled (the grant calls Resource Manager, the operator reads Monitoring). */
    dependsOn: pulumi.Input<pulumi.Resource>[];
}

/**
 * KEDA from its pinned chart, reading Google Cloud Managed Service for Prometheus as itself: its operator's
 * Kubernetes service account is granted `roles/monitoring.viewer` through Workload Identity (no key, no Google
 * service account), and one ClusterTriggerAuthentication tells every ScaledObject's Prometheus trigger to use it.
 */
export class Keda extends pulumi.ComponentResource {
    /** What a ScaledObject waits for: the CRDs and the operator, and the authentication it names. */
    public readonly ready: pulumi.Resource[];
    /** The ClusterTriggerAuthentication a ScaledObject's Prometheus trigger references. */
    public readonly triggerAuthenticationName: pulumi.Output<string>;

    constructor(name: string, args: KedaArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:platform:Keda", name, {}, opts);
        const childOpts = { parent: this, provider: args.provider };
        const namespace = new k8s.core.v1.Namespace(`${name}-ns`, { metadata: { name: CHARTS.keda.namespace } }, childOpts);
        const chart = new k8s.helm.v4.Chart(`${name}-chart`, pinnedChartArgs(CHARTS.keda, namespace.metadata.name), childOpts);
        const reader = new gcp.projects.IAMMember(
            `${name}-metrics-reader`,
            {
                project: args.project,
                role: "roles/monitoring.viewer",
                member: workloadIdentityPrincipal(args.projectNumber, args.workloadPool, CHARTS.keda.namespace, KEDA_OPERATOR_ACCOUNT),
            },
            { parent: this, dependsOn: args.dependsOn },
        );
        const authentication = new k8s.apiextensions.CustomResource(
            `${name}-gmp`,
            {
                apiVersion: "keda.sh/v1alpha1",
                kind: "ClusterTriggerAuthentication",
                metadata: { name: `${name}-managed-prometheus` },
                // The operator's own Workload Identity: KEDA's Prometheus scaler then sends Google OAuth tokens.
                spec: { podIdentity: { provider: "gcp" } },
            },
            // Its CRD comes with the chart.
            { ...childOpts, dependsOn: [chart] },
        );
        this.triggerAuthenticationName = authentication.metadata.name;
        this.ready = [chart, reader, authentication];
        this.registerOutputs({ triggerAuthenticationName: this.triggerAuthenticationName });
    }
}
