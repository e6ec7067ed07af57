import type { KubeObject, ObjectReader, ObjectRef } from "../scripts/cluster/kube";

/** An in-memory cluster over recorded objects, for the checks' unit tests (the real client runs in the CLI tests). */
export function memoryReader(objects: KubeObject[]): ObjectReader {
    return {
        get: async (ref: ObjectRef) =>
            objects.find(
                (object) =>
                    object.apiVersion === ref.apiVersion &&
                    object.kind === ref.kind &&
                    object.metadata?.name === ref.name &&
                    (ref.namespace === undefined || object.metadata?.namespace === ref.namespace),
            ),
        list: async (apiVersion: string, kind: string, namespace?: string) =>
            objects.filter(
                (object) =>
                    object.apiVersion === apiVersion &&
                    object.kind === kind &&
                    (namespace === undefined || object.metadata?.namespace === namespace),
            ),
    };
}
