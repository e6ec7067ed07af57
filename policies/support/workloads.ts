/**
 * Workloads across the stack: the pods that serve vLLM over plain HTTP, the start a TPU server's resource declares, and
 * the startup budget that start calls for.
 */
import { PolicyConfigSchema, PolicyResource, ResourceValidationArgs } from "@pulumi/policy";
import {
    COLD_START_ANNOTATION,
    COLD_START_PESSIMISTIC_ANNOTATION,
    MINIMUM_TPU_STARTUP_SECONDS,
    VllmPod,
    otherModelServerPods,
    plainHttpVllmPods,
    tpuStartupBudgetSeconds,
} from "../facts";
import { Props, kindOfType, namespaceOf } from "./resources";

/** Per stack (its resources array), what a scan over every resource found: the same for every Service a policy asks about. */
const scans = new WeakMap<PolicyResource[], Map<string, unknown>>();
function scanned<T>(resources: PolicyResource[], key: string, scan: () => T): T {
    const found = scans.get(resources) ?? new Map<string, unknown>();
    scans.set(resources, found);
    if (!found.has(key)) {
        found.set(key, scan());
    }
    return found.get(key) as T;
}

/** The stack's pods that serve vLLM over plain HTTP, or, `withTls`, over either (TLS restricts nobody: vLLM asks no client certificate by default). */
export function stackVllmPods(resources: PolicyResource[], withTls = false): VllmPod[] {
    return scanned(resources, `vllm:${withTls}`, () =>
        resources.flatMap((resource) => plainHttpVllmPods(kindOfType(resource.type), resource.props, namespaceOf(resource), withTls)),
    );
}

/** The stack's pods that run a model server other than vLLM (TGI, Ollama, NIM, ...). */
export function stackOtherModelServerPods(resources: PolicyResource[]): Array<{ namespace: string; labels: Record<string, string> }> {
    return scanned(resources, "other", () =>
        resources.flatMap((resource) => otherModelServerPods(kindOfType(resource.type), resource.props, namespaceOf(resource))),
    );
}

/** A positive number of seconds from an annotation's value, else undefined. */
function secondsOf(value: unknown): number | undefined {
    const seconds = value === undefined ? NaN : Number(value);
    return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

/**
 * The start a TPU server's resource declares in the stack's annotations: its estimated first start and, where given, its
 * pessimistic one (on a multi-host slice, with the wait for its group). Undefined without a valid first start.
 */
export function declaredStart(props: Props): { firstSeconds: number; pessimisticSeconds?: number } | undefined {
    const annotations = props.metadata?.annotations ?? {};
    const firstSeconds = secondsOf(annotations[COLD_START_ANNOTATION]);
    const pessimisticSeconds = secondsOf(annotations[COLD_START_PESSIMISTIC_ANNOTATION]);
    return firstSeconds === undefined ? undefined : { firstSeconds, ...(pessimisticSeconds !== undefined ? { pessimisticSeconds } : {}) };
}

/**
 * The pack configuration of the policies that size a TPU server's start (enforce-tpu-startup-budget,
 * require-tpu-aware-autoscaling): the shortest startup budget.
 */
export const STARTUP_BUDGET_CONFIG: PolicyConfigSchema = {
    properties: {
        minimumStartupSeconds: {
            type: "integer",
            default: MINIMUM_TPU_STARTUP_SECONDS,
            description:
                "The shortest startup budget a TPU pod gets before liveness may act: a resource that carries no estimate of its start gets this, one that does at least this.",
        },
    },
};

/** The shortest startup budget the pack configuration sets ({@link STARTUP_BUDGET_CONFIG}). */
export function minimumStartupSeconds(args: Pick<ResourceValidationArgs, "getConfig">): number {
    return args.getConfig<{ minimumStartupSeconds?: number }>().minimumStartupSeconds ?? MINIMUM_TPU_STARTUP_SECONDS;
}

/** The startup budget of a resource that declares `start` ({@link declaredStart}); `minimum` for one that declares none. */
export function startupBudgetSeconds(start: ReturnType<typeof declaredStart>, minimum: number): number {
    return start !== undefined ? tpuStartupBudgetSeconds(start, minimum) : minimum;
}
