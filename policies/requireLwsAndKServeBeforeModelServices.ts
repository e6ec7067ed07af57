import { StackValidationPolicy } from "@pulumi/policy";
import { PolicyText, policyText } from "./facts";
import { Installation, installers, transitiveDependencies } from "./support/installations";
import { isLlmInferenceService } from "./support/resources";

/**
 * How LeaderWorkerSet and KServe's LLMInferenceService controller show up in a stack. Sources: lws v0.10.0 charts/lws
 * and site/content/en/docs/installation ("Install by kubectl": the release's manifests.yaml under
 * github.com/kubernetes-sigs/lws/releases/download/); kserve v0.20.0 charts/kserve-llmisvc-crd and kserve-llmisvc-resources.
 */
const REQUIRED: ReadonlyArray<[label: string, Installation]> = [
    [
        "LeaderWorkerSet",
        {
            crd: "leaderworkersets.leaderworkerset.x-k8s.io",
            controller: "lws-controller-manager",
            chart: "lws",
            releaseManifests: "github.com/kubernetes-sigs/lws/releases/download/",
        },
    ],
    [
        "KServe",
        { crd: "llminferenceservices.serving.kserve.io", controller: "llmisvc-controller-manager", chart: "kserve-llmisvc-resources" },
    ],
];

/** What the policy says of service `name` that does not wait for the installations labelled `missing` (the tests assert it). */
export function notWaitingMessage(name: string, missing: readonly string[]): string {
    return `LLMInferenceService ${name} does not depend on the ${missing.join(" and ")} installation${missing.length > 1 ? "s" : ""} of this stack, so it can be created before their CRDs and controllers exist.`;
}

/**
 * An installation is recognised by what it brings (its CRD or controller, rendered by a chart or a config group, or
 * declared) or by a Helm release of its chart.
 */
export const requireLwsAndKServeBeforeModelServices: StackValidationPolicy & PolicyText = {
    ...policyText(
        "lws-missing",
        "require-lws-and-kserve-before-model-services",
        "An LLMInferenceService must depend on the LeaderWorkerSet and KServe installations the stack makes, so that their CRDs and controllers exist first.",
    ),
    enforcementLevel: "mandatory",
    severity: "medium",
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
                reportViolation(notWaitingMessage(service.props.metadata?.name, missing), service.urn);
            }
        }
    },
};
