import { ResourceValidationPolicy } from "@pulumi/policy";
import { policyText } from "./facts";
import { isHelmChart } from "./support/resources";

/**
 * Enforces lesson pinned-images (policies/facts/lessons). A Helm v4 `Chart` is a component the Kubernetes provider
 * constructs and registers without inputs, so its version is not there to check. A `helm.v3.Release` shows its inputs
 * after the provider's Check, which replaces a version constraint with the version it resolves (pulumi-kubernetes
 * provider/pkg/provider/helm_release.go Check) once the provider can reach the cluster: the program's own constraint
 * reaches the policy on a stack's first preview (the provider is not configured yet, so Check is skipped) and in the
 * offline preview.
 */
export const requirePinnedChartVersions: ResourceValidationPolicy = {
    ...policyText("require-pinned-chart-versions", "Every Helm release must name an exact chart version."),
    enforcementLevel: "mandatory",
    severity: "high",
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
