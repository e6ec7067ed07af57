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

/** What the checks need of a cluster: one object, or every object of a kind. */
export interface ObjectReader {
    /** The object, or undefined when it does not exist (or its kind is not served). */
    get(ref: ObjectRef): Promise<KubeObject | undefined>;
    /** Every object of a kind (in `namespace`, or cluster-wide); empty when the kind is not served. */
    list(apiVersion: string, kind: string, namespace?: string): Promise<KubeObject[]>;
}

/**
 * Reads objects from one cluster. @kubernetes/client-node 1.x is an ES module, which Node loads through
 * `require(esm)` (Node 20.19 and later): import this module only where it runs, never in a jest test.
 */
export class ClusterReader implements ObjectReader {
    private readonly api: k8s.KubernetesObjectApi;

    constructor(readonly kubeconfig: k8s.KubeConfig) {
        this.api = k8s.KubernetesObjectApi.makeApiClient(kubeconfig);
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
}

/** A 404 from the API server, or a kind discovery does not know (client-node's message for an unserved resource). */
function isNotFound(err: unknown): boolean {
    const code = (err as { code?: unknown }).code;
    return code === 404 || /Unrecognized API version and kind/.test(String((err as Error).message));
}
