import { ResourceValidationPolicy } from "@pulumi/policy";
import {
    COLD_START_ANNOTATION,
    COLD_START_PESSIMISTIC_ANNOTATION,
    containersOf,
    PolicyText,
    policyText,
    probeWindowSeconds,
    usesTpu,
} from "./facts";
import { kindOfType } from "./support/resources";
import { STARTUP_BUDGET_CONFIG, declaredStart, minimumStartupSeconds, startupBudgetSeconds } from "./support/workloads";

/** What the policy reports; `why` names the budget the resource needs (`needs` for one without an estimate). */
export const STARTUP_BUDGET_MESSAGES = {
    needs: (required: number) => `the ${required} s a TPU pod needs to load its model and compile`,
    tooShort: (name: string, path: string, budget: number, why: string, required: number) =>
        `${name} ${path}: liveness may restart the TPU container after ${budget} s, before ${why}; add a startupProbe that allows ${required} s.`,
    badAnnotation: (name: string, annotation: unknown) =>
        `${name}: ${COLD_START_ANNOTATION} is ${JSON.stringify(annotation)}, not a number of seconds above 0.`,
};

/**
 * How many minutes depends on the model: a resource that carries its estimated first start (the stack's annotation)
 * needs twice that, and at least its pessimistic start where it carries one (on a multi-host slice, with the whole wait
 * for its group), a resource without them the configured minimum.
 */
export const enforceTpuStartupBudget: ResourceValidationPolicy & PolicyText = {
    ...policyText(
        "startup-budget",
        "enforce-tpu-startup-budget",
        "A TPU container with a liveness probe must give it a startup budget long enough for loading the model and XLA compilation before liveness can restart it: twice the estimated first start and at least the pessimistic start where the resource carries them, at least the configured minimum.",
    ),
    enforcementLevel: "advisory",
    severity: "medium",
    configSchema: STARTUP_BUDGET_CONFIG,
    validateResource: (args, reportViolation) => {
        const minimum = minimumStartupSeconds(args);
        const annotation: unknown = args.props.metadata?.annotations?.[COLD_START_ANNOTATION];
        const tpuContainers = containersOf(kindOfType(args.type), args.props).filter(({ container }) => usesTpu(container));
        const start = declaredStart(args.props);
        if (annotation !== undefined && start === undefined && tpuContainers.length > 0) {
            reportViolation(STARTUP_BUDGET_MESSAGES.badAnnotation(args.name, annotation));
            return;
        }
        const required = startupBudgetSeconds(start, minimum);
        const why =
            start === undefined
                ? STARTUP_BUDGET_MESSAGES.needs(required)
                : start.pessimisticSeconds !== undefined && start.pessimisticSeconds > 2 * start.firstSeconds
                  ? `the ${required} s its pessimistic start of ${start.pessimisticSeconds} s calls for (${COLD_START_PESSIMISTIC_ANNOTATION})`
                  : `the ${required} s its estimated first start of ${start.firstSeconds} s calls for (${COLD_START_ANNOTATION}, twice the estimate)`;
        for (const { path, container } of tpuContainers) {
            if (container.livenessProbe === undefined) {
                continue;
            }
            const budget =
                container.startupProbe !== undefined
                    ? probeWindowSeconds(container.startupProbe)
                    : probeWindowSeconds(container.livenessProbe);
            if (budget < required) {
                reportViolation(STARTUP_BUDGET_MESSAGES.tooShort(args.name, path, budget, why, required));
            }
        }
    },
};
