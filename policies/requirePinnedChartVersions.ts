import { ResourceValidationPolicy } from "@pulumi/policy";
import { isHelmChart } from "./support";

/**
 * Seed 003, Pattern 1 summary (the `:latest` outage), applied to Helm: a chart without a
 * version installs whatever is newest at the next `pulumi up`.
 */
export const requirePinnedChartVersions: ResourceValidationPolicy = {
    name: "require-pinned-chart-versions",
    description: "Every Helm chart must name an exact version, so that an upstream release cannot change the platform on the next update.",
    enforcementLevel: "mandatory",
    severity: "high",
    remediationSteps: "Set the chart's version input to an exact release (e.g. v1.21.1 for cert-manager); ranges and an empty version are not pinned.",
    validateResource: (args, reportViolation) => {
        if (!isHelmChart(args.type)) {
            return;
        }
        const version: unknown = args.props.version;
        if (typeof version !== "string" || version === "" || /[\^~*xX<>=| ]/.test(version)) {
            reportViolation(`Helm chart ${args.name} (${args.props.chart}) has version ${JSON.stringify(version ?? null)}; pin an exact release.`);
        }
    },
};
