import { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { CHARTS } from "../components/catalog";
import { isHelmChart, isLlmInferenceService, transitiveDependencies } from "./support";

/** A Helm chart resource whose chart reference ends with `name`. */
function chartNamed(resource: PolicyResource, name: string): boolean {
    return isHelmChart(resource.type) && typeof resource.props.chart === "string" && resource.props.chart.replace(/\/$/, "").endsWith(`/${name}`);
}

/**
 * Seed 003, issue #7: "no matches for kind LeaderWorkerSet": KServe needs the LeaderWorkerSet
 * CRD, and looks for it when its controller starts, so both must be installed before any
 * LLMInferenceService.
 */
export const requireLwsAndKServeBeforeModelServices: StackValidationPolicy = {
    name: "require-lws-and-kserve-before-model-services",
    description: "An LLMInferenceService must depend on the LeaderWorkerSet and KServe installations the stack makes, so that their CRDs and controllers exist first.",
    enforcementLevel: "mandatory",
    severity: "medium",
    remediationSteps: "Add dependsOn from each LLMInferenceService to the LeaderWorkerSet chart and to KServe's kserve-llmisvc-resources chart (their CRDs, controllers and webhooks).",
    validateStack: (args, reportViolation) => {
        const lws = args.resources.filter((resource) => chartNamed(resource, CHARTS.leaderWorkerSet.chart.split("/").pop()!));
        const kserve = args.resources.filter((resource) => chartNamed(resource, CHARTS.kserveLlmisvcResources.chart.split("/").pop()!));
        if (lws.length === 0 && kserve.length === 0) {
            args.notApplicable("the stack installs neither LeaderWorkerSet nor KServe");
        }
        for (const service of args.resources.filter((resource) => isLlmInferenceService(resource.type))) {
            const dependencies = transitiveDependencies(service);
            const missing = [
                ...(lws.length > 0 && !lws.some((chart) => dependencies.has(chart)) ? ["LeaderWorkerSet"] : []),
                ...(kserve.length > 0 && !kserve.some((chart) => dependencies.has(chart)) ? ["KServe"] : []),
            ];
            if (missing.length > 0) {
                reportViolation(`LLMInferenceService ${service.props.metadata?.name} does not depend on the ${missing.join(" and ")} chart${missing.length > 1 ? "s" : ""} of this stack, so it can be created before their CRDs and controllers exist.`, service.urn);
            }
        }
    },
};
