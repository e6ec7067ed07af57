import * as pulumi from "@pulumi/pulumi";

/**
 * The Workload Identity Federation principal of Kubernetes service account `account` in `namespace`, which IAM grants
 * name directly: no Google service account, no key (GKE's "Workload Identity Federation for GKE", principal identifiers).
 */
export function workloadIdentityPrincipal(
    projectNumber: pulumi.Input<string>,
    workloadPool: string,
    namespace: pulumi.Input<string>,
    account: pulumi.Input<string>,
): pulumi.Output<string> {
    return pulumi.interpolate`principal://iam.googleapis.com/projects/${projectNumber}/locations/global/workloadIdentityPools/${workloadPool}/subject/ns/${namespace}/sa/${account}`;
}
