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

/** A label map of an object (its selector, a pod's labels), keeping only string values (a value unknown during preview is none). */
export function labelsOf(value: unknown): Record<string, string> {
    return value !== null && typeof value === "object"
        ? Object.fromEntries(
              Object.keys(value)
                  .map((key): [string, unknown] => [key, readKnown(() => (value as Record<string, unknown>)[key]).value])
                  .filter((entry): entry is [string, string] => typeof entry[1] === "string"),
          )
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

/**
 * A word of a command line that a preview does not know yet (an argument built from another resource's output): a
 * reference the kubelet or a shell resolves at run time, never a literal the program wrote.
 */
export const UNKNOWN_WORD = "$(unknown until the update)";

/** A list of words (a command, args), each read around values a preview does not know, which become {@link UNKNOWN_WORD}. */
export function knownWords(read: () => unknown): unknown[] {
    const list = readKnown(read).value;
    // Index by index: Array.prototype.map would read every item first, an unknown one included.
    return Array.isArray(list) ? Array.from({ length: list.length }, (_, index) => readKnown(() => list[index]).value ?? UNKNOWN_WORD) : [];
}
