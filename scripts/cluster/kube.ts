/**
 * Reading a live cluster with the Kubernetes ecosystem's own client: the kubeconfig is resolved as kubectl
 * resolves it (`KUBECONFIG`, else `~/.kube/config`, its current context unless one is named), and any kind
 * is read through API discovery. Read-only: nothing here writes to the cluster.
 */
import * as k8s from "@kubernetes/client-node";
import { CliError, EXIT } from "../cli";
import { ClusterAccessError, FETCH_CREDENTIALS, clusterAccessError, requireKubeconfig } from "./access";

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

/** client-node's object API, built on a given configuration, keeping the kubeconfig's default namespace as `makeApiClient` does. */
class ObjectApi extends k8s.KubernetesObjectApi {
    constructor(configuration: k8s.Configuration, kubeconfig: k8s.KubeConfig) {
        super(configuration);
        this.setDefaultNamespace(kubeconfig);
    }
}

/**
 * Reads objects from one cluster, each request given up after the request timeout. Every failure but a missing object
 * becomes a `ClusterAccessError` that names its cause in one line. @kubernetes/client-node 1.x is an ES module, which
 * Node loads through `require(esm)` (Node 20.19 and later): import this module only where it runs, never in a jest test.
 */
export class ClusterReader implements ObjectReader {
    private readonly api: k8s.KubernetesObjectApi;
    private readonly core: k8s.CoreV1Api;
    /** The API server's URL, as the kubeconfig gives it. */
    readonly server: string;

    constructor(
        kubeconfig: k8s.KubeConfig,
        private readonly requestTimeoutSeconds: number,
    ) {
        const cluster = kubeconfig.getCurrentCluster();
        if (!cluster) {
            throw new CliError(`the kubeconfig's context ${kubeconfig.getCurrentContext()} names no cluster; ${FETCH_CREDENTIALS}`);
        }
        this.server = cluster.server;
        // What KubeConfig.makeApiClient builds (dist/config.js:385-400), plus a middleware giving each request its own
        // abort signal: client-node hands it to node-fetch (dist/gen/http/isomorphic-fetch.js:12), which rejects with an
        // AbortError when it fires. The object API runs its configuration's middleware on every request, discovery
        // included (dist/object.js:408-432).
        const configuration = k8s.createConfiguration({
            baseServer: new k8s.ServerConfiguration(cluster.server, {}),
            authMethods: { default: kubeconfig },
            promiseMiddleware: [
                {
                    pre: async (request) => {
                        request.setSignal(AbortSignal.timeout(requestTimeoutSeconds * 1000));
                        return request;
                    },
                    post: async (response) => response,
                },
            ],
        });
        this.api = new ObjectApi(configuration, kubeconfig);
        this.core = new k8s.CoreV1Api(configuration);
    }

    /** The cluster of the default kubeconfig (or of `context` in it); refused when there is no kubeconfig at all. */
    static fromDefault(context: string | undefined, requestTimeoutSeconds: number): ClusterReader {
        requireKubeconfig();
        const kubeconfig = new k8s.KubeConfig();
        try {
            kubeconfig.loadFromDefault();
        } catch (err) {
            throw new CliError(`cannot read the kubeconfig: ${(err as Error).message.split("\n")[0]}`, EXIT.usage, { cause: err });
        }
        if (context !== undefined) {
            if (!kubeconfig.getContexts().some((candidate) => candidate.name === context)) {
                throw new CliError(
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
        return new ClusterReader(kubeconfig, requestTimeoutSeconds);
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
            throw this.failure(err);
        }
    }

    async list(apiVersion: string, kind: string, namespace?: string): Promise<KubeObject[]> {
        try {
            return (await this.api.list(apiVersion, kind, namespace)).items as KubeObject[];
        } catch (err) {
            if (isNotFound(err)) {
                return [];
            }
            throw this.failure(err);
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
            throw this.failure(err);
        }
    }

    private failure(err: unknown): ClusterAccessError {
        return clusterAccessError(err, this.server, this.requestTimeoutSeconds);
    }
}

/** A 404 from the API server, or a kind discovery does not know (client-node's message for an unserved resource). */
function isNotFound(err: unknown): boolean {
    const code = (err as { code?: unknown }).code;
    return code === 404 || /Unrecognized API version and kind/.test(String((err as Error).message));
}
