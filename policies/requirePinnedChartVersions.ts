import { ResourceValidationPolicy } from "@pulumi/policy";
import { isHelmChart } from "./support/resources";

/**
 * Seed 003, Pattern 1 summary (the `:latest` outage), applied to Helm: a chart without a
 * version installs whatever is newest at the next `pulumi up`. A Helm v4 `Chart` is a component
 * the Kubernetes provider constructs and registers without inputs, so its version is not there to
 * check. A `helm.v3.Release` shows its inputs after the provider's Check, which replaces a version
 * constraint with the version it resolves (pulumi-kubernetes provider/pkg/provider/helm_release.go
 * Check) once the provider can reach the cluster: the program's own constraint reaches the policy
 * on a stack's first preview (the provider is not configured yet, so Check is skipped) and in the
 * offline preview.
 */
export const requirePinnedChartVersions: ResourceValidationPolicy = {
    name: "require-pinned-chart-versions",
    description:
        "Every Helm release must name an exact chart version, so that an upstream release cannot change the platform on the next update.",
    enforcementLevel: "mandatory",
    severity: "high",
    remediationSteps:
        "Set the version input to an exact release (e.g. v1.21.1 for cert-manager); ranges and an empty version are not pinned.",
    validateResource: (args, reportViolation) => {
        if (!isHelmChart(args.type)) {
            return;
        }
        const chart: unknown = args.props.chart;
        if (typeof chart !== "string") {
            args.notApplicable("the chart's inputs are not visible (a component the provider registers without them)");
        }
        const version: unknown = args.props.version;
        // An OCI reference may carry its version as a tag.
        const tagged = /^oci:\/\/.+:[^/:]+$/.test(String(chart)) && !String(chart).endsWith(":latest");
        if (!tagged && (typeof version !== "string" || version === "" || /[\^~*xX<>=| ]/.test(version))) {
            reportViolation(`Helm chart ${args.name} (${chart}) has version ${JSON.stringify(version ?? null)}; pin an exact release.`);
        }
    },
};
