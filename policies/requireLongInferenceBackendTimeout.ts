import { StackValidationPolicy } from "@pulumi/policy";
import { MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS, backendKey, backendTimeoutProblem, PolicyText, policyText } from "./facts";
import { gkeInferencePools, gkePoliciesByTarget } from "./support/routes";

export const requireLongInferenceBackendTimeout: StackValidationPolicy & PolicyText = {
    ...policyText(
        "backend-timeout",
        "require-long-inference-backend-timeout",
        "Every InferencePool behind a GKE Gateway must have a GCPBackendPolicy whose timeout covers a long completion.",
    ),
    enforcementLevel: "advisory",
    severity: "medium",
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
