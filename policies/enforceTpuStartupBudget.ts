import { ResourceValidationPolicy } from "@pulumi/policy";
import { MINIMUM_TPU_STARTUP_SECONDS } from "@gke-tpu-inference/facts";
import { Props, containersOf, usesTpu } from "./support";

/** Seconds a probe tolerates failure before it acts: initial delay plus period times failure threshold (Kubernetes defaults 0, 10, 3). */
function probeWindowSeconds(probe: Props): number {
    return (probe.initialDelaySeconds ?? 0) + (probe.periodSeconds ?? 10) * (probe.failureThreshold ?? 3);
}

/**
 * Seed 003, issue #8: a TPU pod needs 4–6 minutes to download its model and compile XLA
 * graphs before it serves; a liveness probe that fires earlier restarts it in a loop.
 */
export const enforceTpuStartupBudget: ResourceValidationPolicy = {
    name: "enforce-tpu-startup-budget",
    description:
        "A TPU container with a liveness probe must give it a startup budget long enough for model download and XLA compilation before liveness can restart it.",
    enforcementLevel: "advisory",
    severity: "medium",
    remediationSteps:
        "Add a startupProbe on the same endpoint with a short period and periodSeconds x failureThreshold of at least 600 s, instead of a long fixed initialDelaySeconds.",
    configSchema: {
        properties: {
            minimumStartupSeconds: {
                type: "integer",
                default: MINIMUM_TPU_STARTUP_SECONDS,
                description: "Startup budget a TPU pod needs before liveness may act.",
            },
        },
    },
    validateResource: (args, reportViolation) => {
        const minimum = args.getConfig<{ minimumStartupSeconds?: number }>().minimumStartupSeconds ?? MINIMUM_TPU_STARTUP_SECONDS;
        for (const { path, container } of containersOf(args.type, args.props)) {
            if (!usesTpu(container) || container.livenessProbe === undefined) {
                continue;
            }
            const budget =
                container.startupProbe !== undefined
                    ? probeWindowSeconds(container.startupProbe)
                    : probeWindowSeconds(container.livenessProbe);
            if (budget < minimum) {
                reportViolation(
                    `${args.name} ${path}: liveness may restart the TPU container after ${budget} s, before the ${minimum} s a TPU pod needs to load its model and compile; add a startupProbe that allows ${minimum} s.`,
                );
            }
        }
    },
};
