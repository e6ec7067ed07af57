/**
 * What the judgements read: a Kubernetes object as plain data, whether a preview handed it to the policy pack (a
 * resource's inputs) or the API server returned it to a live tool. A program may write any shape, so every field is
 * read defensively.
 */
import { KSERVE } from "../catalog";

/** A Kubernetes object, or a part of one, as plain data. */
export type KubeProps = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** An object's API group (`""` for the core group) and kind. */
export interface KindRef {
    group: string;
    kind: string;
}

/** The group and kind of an object of `apiVersion` (`apps/v1`, or `v1` for the core group) and `kind`. */
export function kindOf(apiVersion: string, kind: string): KindRef {
    return { group: apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "", kind };
}

/** True for `kind` of `group`, or its server-side-apply patch (`DeploymentPatch`), which carries the same fields. */
export function isKindOrPatch(ref: KindRef, group: string, kind: string): boolean {
    return ref.group === group && (ref.kind === kind || ref.kind === `${kind}Patch`);
}

const KSERVE_GROUP = kindOf(KSERVE.apiVersion, "").group;

/** KServe's LLMInferenceService, in any served version. */
export const LLM_INFERENCE_SERVICE: KindRef = { group: KSERVE_GROUP, kind: "LLMInferenceService" };

/** KServe's LLMInferenceServiceConfig, in any served version. */
export const LLM_INFERENCE_SERVICE_CONFIG: KindRef = { group: KSERVE_GROUP, kind: "LLMInferenceServiceConfig" };

/** True when `ref` is `kind`. */
export function isKind(ref: KindRef, kind: KindRef): boolean {
    return ref.group === kind.group && ref.kind === kind.kind;
}

/** A label map of an object (its selector, a pod's labels), keeping only string values. */
export function labelsOf(value: unknown): Record<string, string> {
    return value !== null && typeof value === "object"
        ? Object.fromEntries(Object.entries(value as object).filter((entry): entry is [string, string] => typeof entry[1] === "string"))
        : {};
}

/** A value as the program shows it, or undefined where a preview does not know it yet (the policy SDK throws on reading one). */
export function readKnown<T>(read: () => T): { value?: T; unknown: boolean } {
    try {
        return { value: read(), unknown: false };
    } catch (err) {
        if ((err as Error | undefined)?.constructor?.name === "UnknownValueError") {
            return { unknown: true };
        }
        throw err;
    }
}
