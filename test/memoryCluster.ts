import type { KubeObject, LogRef, ObjectReader, ObjectRef } from "../scripts/cluster/kube";

/**
 * A recorded container log in a cluster state: `metadata` names the pod, `container` and `previous` which log, `text` its
 * lines. Not a Kubernetes kind: the fake cluster serves it at the pod's `log` subresource, never as an object.
 */
export const RECORDED_LOG = { apiVersion: "test.gke-tpu-inference/v1", kind: "RecordedPodLog" } as const;

/** Whether an object of a recorded state is a Kubernetes object (not a recorded log). */
export const isKubernetesObject = (object: KubeObject) => object.apiVersion !== RECORDED_LOG.apiVersion;

/** The last `tailLines` lines of the recorded log `ref` names, as the API server's log subresource returns them. */
export function recordedLog(objects: KubeObject[], ref: LogRef): string | undefined {
    const log = objects.find(
        (object) =>
            object.apiVersion === RECORDED_LOG.apiVersion &&
            object.metadata?.namespace === ref.namespace &&
            object.metadata?.name === ref.pod &&
            object.container === ref.container &&
            Boolean(object.previous) === ref.previous,
    );
    return log === undefined ? undefined : `${String(log.text).trimEnd().split("\n").slice(-ref.tailLines).join("\n")}\n`;
}

/** An in-memory cluster over recorded objects, for the checks' unit tests (the real client runs in the CLI tests). */
export function memoryReader(objects: KubeObject[]): ObjectReader {
    const served = objects.filter(isKubernetesObject);
    return {
        get: async (ref: ObjectRef) =>
            served.find(
                (object) =>
                    object.apiVersion === ref.apiVersion &&
                    object.kind === ref.kind &&
                    object.metadata?.name === ref.name &&
                    (ref.namespace === undefined || object.metadata?.namespace === ref.namespace),
            ),
        list: async (apiVersion: string, kind: string, namespace?: string) =>
            served.filter(
                (object) =>
                    object.apiVersion === apiVersion &&
                    object.kind === kind &&
                    (namespace === undefined || object.metadata?.namespace === namespace),
            ),
        podLog: async (ref: LogRef) => recordedLog(objects, ref),
    };
}
