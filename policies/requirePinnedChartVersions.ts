import { ResourceValidationPolicy } from "@pulumi/policy";
import { PolicyText, policyText } from "./facts";
import { isHelmChart } from "./support/resources";

/** What the policy reports of chart `chart` of release `name`. */
export const PINNED_CHART_MESSAGES = {
    unpinned: (name: string, chart: unknown, version: unknown) =>
        `Helm chart ${name} (${chart}) ${version === undefined ? "sets no version, so it installs the newest release" : `has version ${JSON.stringify(version)}`}; pin an exact release.`,
};

/**
 * An exact chart version: a whole SemVer 2 version (Helm requires one of every chart), `v` or `=` before it allowed. A
 * partial version (`1.2`), a wildcard (`1.2.x`, `*`) or a range (`^1.2`, `~1.2.0`, `>=1.0`, `1.0 - 2.0`, `a || b`) is a
 * constraint Helm resolves to the newest match.
 */
const EXACT_VERSION = /^=?v?\d+\.\d+\.\d+(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** A chart that fixes its own contents: a local directory or archive, a packaged chart by URL (`…/lws-0.10.0.tgz`), an OCI reference with a tag other than `latest` or a digest. */
function isPinnedReference(chart: string): boolean {
    if (/^(\.{1,2}\/|\/|file:\/\/)/.test(chart) || /-v?\d+\.\d+\.\d+[^/]*\.tgz$/.test(chart)) {
        return true;
    }
    return /^oci:\/\/.+(:[^/:]+|@sha256:[0-9a-f]{64})$/.test(chart) && !chart.endsWith(":latest");
}

/**
 * A Helm v4 `Chart` is a component the Kubernetes provider constructs and registers without inputs, so `pulumi preview`
 * does not show the pack its version; the offline preview does, and there it is checked. A `helm.v3.Release` shows its
 * inputs after the provider's Check, which replaces a version constraint with the version it resolves
 * (pulumi-kubernetes provider/pkg/provider/helm_release.go Check) once the provider can reach the cluster: the
 * program's own constraint reaches the policy on a stack's first preview (the provider is not configured yet, so Check
 * is skipped) and in the offline preview.
 */
export const requirePinnedChartVersions: ResourceValidationPolicy & PolicyText = {
    ...policyText("pinned-images", "require-pinned-chart-versions", "Every Helm release must name an exact chart version."),
    enforcementLevel: "mandatory",
    severity: "high",
    validateResource: (args, reportViolation) => {
        if (!isHelmChart(args.type)) {
            return;
        }
        const chart: unknown = args.props.chart;
        if (typeof chart !== "string") {
            args.notApplicable("the chart's inputs are not visible (a component the provider registers without them)");
            return;
        }
        // A helm.v3.Chart may give its version among its fetch options.
        const version: unknown = args.props.version ?? args.props.fetchOpts?.version;
        if (!isPinnedReference(chart) && (typeof version !== "string" || !EXACT_VERSION.test(version.trim()))) {
            reportViolation(PINNED_CHART_MESSAGES.unpinned(args.name, chart, version));
        }
    },
};
