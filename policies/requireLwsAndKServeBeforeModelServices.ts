import { StackValidationPolicy } from "@pulumi/policy";
import { Installation, installers, transitiveDependencies } from "./support/installations";
import { isLlmInferenceService } from "./support/resources";

/** How LeaderWorkerSet and KServe's LLMInferenceService controller show up in a stack. Sources: lws v0.10.0 charts/lws; kserve v0.20.0 charts/kserve-llmisvc-crd and kserve-llmisvc-resources. */
const REQUIRED: ReadonlyArray<[label: string, Installation]> = [
    ["LeaderWorkerSet", { crd: "leaderworkersets.leaderworkerset.x-k8s.io", controller: "lws-controller-manager", chart: "lws" }],
    [
        "KServe",
        { crd: "llminferenceservices.serving.kserve.io", controller: "llmisvc-controller-manager", chart: "kserve-llmisvc-resources" },
    ],
];

/**
 * Seed 003, issue #7: "no matches for kind LeaderWorkerSet": KServe needs the LeaderWorkerSet
 * CRD, and looks for it when its controller starts, so both must be installed before any
 * LLMInferenceService. An installation is recognised by what it brings (its CRD or controller,
 * rendered by a chart or a config group, or declared) or by a Helm release of its chart.
 */
export const requireLwsAndKServeBeforeModelServices: StackValidationPolicy = {
    name: "require-lws-and-kserve-before-model-services",
    description:
        "An LLMInferenceService must depend on the LeaderWorkerSet and KServe installations the stack makes, so that their CRDs and controllers exist first.",
    enforcementLevel: "mandatory",
    severity: "medium",
    remediationSteps:
        "Add dependsOn from each LLMInferenceService to what installs LeaderWorkerSet and KServe in the stack (their charts, releases or manifests), or to something that waits for them.",
    validateStack: (args, reportViolation) => {
        const installed = REQUIRED.map(([label, what]) => [label, installers(args.resources, what)] as const).filter(
            ([, found]) => found.size > 0,
        );
        if (installed.length === 0) {
            args.notApplicable("the stack installs neither LeaderWorkerSet nor KServe");
        }
        for (const service of args.resources.filter((resource) => isLlmInferenceService(resource.type))) {
            const dependencies = transitiveDependencies(service);
            const missing = installed
                .filter(([, found]) => ![...found].some((installer) => dependencies.has(installer)))
                .map(([label]) => label);
            if (missing.length > 0) {
                reportViolation(
                    `LLMInferenceService ${service.props.metadata?.name} does not depend on the ${missing.join(" and ")} installation${missing.length > 1 ? "s" : ""} of this stack, so it can be created before their CRDs and controllers exist.`,
                    service.urn,
                );
            }
        }
    },
};
