/**
 * Reading a live cluster with the Kubernetes ecosystem's own client: the kubeconfig is resolved as kubectl
 * resolves it (`KUBECONFIG`, else `~/.kube/config`, its current context unless one is named), and any kind
 * is read through API discovery. Read-only: nothing here writes to the cluster.
 */
import * as k8s from "@kubernetes/client-node";

/** A Kubernetes object as the API returns it. */
export type KubeObject = k8s.KubernetesObject & Record<string, unknown>;

/** What to read: an object's apiVersion, kind, namespace (for namespaced kinds) and name. */
export interface ObjectRef {
    apiVersion: string;
    kind: string;
    namespace?: string;
    name: string;
}

/** Which log of a pod's container to read: the running one, or the one before its last restart. */
export interface LogRef {
    namespace: string;
    pod: string;
    container: string;
    previous: boolean;
    /** Lines from the end. */
    tailLines: number;
}

/** What the checks need of a cluster: one object, every object of a kind, or the end of a container's log. */
export interface ObjectReader {
    /** The object, or undefined when it does not exist (or its kind is not served). */
    get(ref: ObjectRef): Promise<KubeObject | undefined>;
    /** Every object of a kind (in `namespace`, or cluster-wide); empty when the kind is not served. */
    list(apiVersion: string, kind: string, namespace?: string): Promise<KubeObject[]>;
    /** The log's last lines, or undefined when there is none (no such pod, container or previous run). */
    podLog(ref: LogRef): Promise<string | undefined>;
}

/**
 * Reads objects from one cluster. @kubernetes/client-node 1.x is an ES module, which Node loads through
 * `require(esm)` (Node 20.19 and later): import this module only where it runs, never in a jest test.
 */
export class ClusterReader implements ObjectReader {
    private readonly api: k8s.KubernetesObjectApi;
    private readonly core: k8s.CoreV1Api;

    constructor(readonly kubeconfig: k8s.KubeConfig) {
        this.api = k8s.KubernetesObjectApi.makeApiClient(kubeconfig);
        this.core = kubeconfig.makeApiClient(k8s.CoreV1Api);
    }

    /** The cluster of the default kubeconfig, or of `context` in it. */
    static fromDefault(context?: string): ClusterReader {
        const kubeconfig = new k8s.KubeConfig();
        kubeconfig.loadFromDefault();
        if (context !== undefined) {
            if (!kubeconfig.getContexts().some((candidate) => candidate.name === context)) {
                throw new Error(
                    `kubeconfig has no context ${JSON.stringify(context)}; it has ${
                        kubeconfig
                            .getContexts()
                            .map((candidate) => candidate.name)
                            .join(", ") || "none"
                    }`,
                );
            }
            kubeconfig.setCurrentContext(context);
        }
        return new ClusterReader(kubeconfig);
    }

    async get(ref: ObjectRef): Promise<KubeObject | undefined> {
        try {
            return (await this.api.read({
                apiVersion: ref.apiVersion,
                kind: ref.kind,
                metadata: { name: ref.name, namespace: ref.namespace },
            })) as KubeObject;
        } catch (err) {
            if (isNotFound(err)) {
                return undefined;
            }
            throw err;
        }
    }

    async list(apiVersion: string, kind: string, namespace?: string): Promise<KubeObject[]> {
        try {
            return (await this.api.list(apiVersion, kind, namespace)).items as KubeObject[];
        } catch (err) {
            if (isNotFound(err)) {
                return [];
            }
            throw err;
        }
    }

    async podLog(ref: LogRef): Promise<string | undefined> {
        try {
            return await this.core.readNamespacedPodLog({
                name: ref.pod,
                namespace: ref.namespace,
                container: ref.container,
                previous: ref.previous,
                tailLines: ref.tailLines,
            });
        } catch (err) {
            // The API answers 400 when the container has no previous run or has not started.
            if (isNotFound(err) || (err as { code?: unknown }).code === 400) {
                return undefined;
            }
            throw err;
        }
    }
}

/** A 404 from the API server, or a kind discovery does not know (client-node's message for an unserved resource). */
function isNotFound(err: unknown): boolean {
    const code = (err as { code?: unknown }).code;
    return code === 404 || /Unrecognized API version and kind/.test(String((err as Error).message));
}
