import { StackValidationPolicy } from "@pulumi/policy";
import { MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS, backendKey, backendTimeoutProblem } from "./facts";
import { gkeInferencePools, gkePoliciesByTarget } from "./support/routes";

/** DESIGN lesson 17: a GCP backend service times out after 30 s unless told otherwise, which cuts long completions short. */
export const requireLongInferenceBackendTimeout: StackValidationPolicy = {
    name: "require-long-inference-backend-timeout",
    description:
        "Every InferencePool behind a GKE Gateway must have a GCPBackendPolicy whose timeout covers a long completion, since GCP's default is 30 seconds.",
    enforcementLevel: "advisory",
    severity: "medium",
    remediationSteps: "Add a networking.gke.io/v1 GCPBackendPolicy targeting the InferencePool with default.timeoutSec of at least 300.",
    configSchema: {
        properties: {
            minimumTimeoutSec: {
                type: "integer",
                default: MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS,
                description: "Shortest acceptable backend timeout for inference.",
            },
        },
    },
    validateStack: (args, reportViolation) => {
        const minimum = args.getConfig<{ minimumTimeoutSec?: number }>().minimumTimeoutSec ?? MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS;
        const pools = gkeInferencePools(args.resources);
        if (pools.length === 0) {
            args.notApplicable("no InferencePool is routed through a GKE Gateway");
        }
        const backendPolicies = gkePoliciesByTarget(args.resources, "GCPBackendPolicy");
        for (const pool of pools) {
            const policy = backendPolicies.get(backendKey(pool));
            const problem = backendTimeoutProblem(pool, policy?.props, minimum);
            if (problem !== undefined) {
                reportViolation(problem, (policy ?? pool.source).urn);
            }
        }
    },
};
