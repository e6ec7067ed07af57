/** Workloads across the stack: the pods that serve vLLM over plain HTTP, and the start a TPU server's resource declares. */
import { PolicyResource } from "@pulumi/policy";
import { COLD_START_ANNOTATION, COLD_START_PESSIMISTIC_ANNOTATION, VllmPod, plainHttpVllmPods } from "../facts";
import { Props, kindOfType, namespaceOf } from "./resources";

/** The stack's pods that serve vLLM over plain HTTP. */
export function stackVllmPods(resources: PolicyResource[]): VllmPod[] {
    return resources.flatMap((resource) => plainHttpVllmPods(kindOfType(resource.type), resource.props, namespaceOf(resource)));
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
