/**
 * What can stop a command from reading the cluster, each said in one line with the next step: no kubeconfig at all,
 * an API server that cannot be reached, does not answer, fails TLS, or refuses the credentials. Pure (no Kubernetes
 * client here), so that tests judge each case in-process; cluster/kube.ts applies it to what the client throws.
 */
import * as fs from "fs";
import * as path from "path";
import { CliError, EXIT } from "../cli";

/** The stack output that prints the command writing this cluster's kubeconfig entry (index.ts). */
export const FETCH_CREDENTIALS = "run $(pulumi stack output kubeconfigCommand)";

/** Where a pod finds its service account's token: @kubernetes/client-node then reads the cluster from inside. */
const SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token";

/**
 * Refuses to go on without a kubeconfig, resolved as @kubernetes/client-node's `loadFromDefault` does
 * (dist/config.js:324-383 in 1.4.0, on Linux and macOS): the files `KUBECONFIG` lists, else `$HOME/.kube/config`, else
 * a pod's service account. Without any, the client falls back to http://localhost:8080 and fails with a TLS message
 * that hides the cause.
 */
export function requireKubeconfig(env: NodeJS.ProcessEnv = process.env, serviceAccountToken = SERVICE_ACCOUNT_TOKEN): void {
    const listed = (env.KUBECONFIG ?? "").split(path.delimiter).filter(Boolean);
    if (listed.length > 0) {
        const missing = listed.filter((file) => !fs.existsSync(file));
        if (missing.length === listed.length) {
            throw new CliError(`no kubeconfig: KUBECONFIG names ${missing.join(", ")}, which does not exist; ${FETCH_CREDENTIALS}`);
        }
        if (missing.length > 0) {
            // The client reads every file listed, and fails on the first missing one.
            throw new CliError(`KUBECONFIG names ${missing.join(", ")}, which does not exist: take it out of KUBECONFIG`);
        }
        return;
    }
    if (env.HOME && fs.existsSync(path.join(env.HOME, ".kube", "config"))) {
        return;
    }
    if (!fs.existsSync(serviceAccountToken)) {
        throw new CliError(`no kubeconfig: ${FETCH_CREDENTIALS}`);
    }
}

/** A failure to read the cluster, said in one line; `status` and `reason` when the API server answered with an error. */
export class ClusterAccessError extends CliError {
    constructor(
        message: string,
        exitCode: number,
        readonly status?: number,
        readonly reason?: string,
        options?: ErrorOptions,
    ) {
        super(message, exitCode, options);
        this.name = "ClusterAccessError";
    }
}

/** Node's and OpenSSL's codes for a failed TLS handshake or certificate check. */
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|EPROTO$)|CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

/** Codes of a network that does not lead to the API server. */
const UNREACHABLE_CODE = new Set(["ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ECONNRESET", "EPIPE", "EADDRNOTAVAIL"]);

/** The first line of what went wrong, without client-node's and node-fetch's prefixes (the URL is named separately). */
function firstLine(message: string): string {
    return message
        .split("\n")[0]
        .replace(/^Failed to fetch resource metadata for [^:]+: /, "")
        .replace(/^request to \S+ failed, reason: /, "");
}

/**
 * The message of the Status the API server answered with: the object API keeps the body as text
 * (dist/object.js:448, `getBodyAsAny`), the generated APIs parse it.
 */
function statusMessage(body: unknown): string | undefined {
    let status = body;
    if (typeof body === "string") {
        try {
            status = JSON.parse(body);
        } catch {
            return body || undefined;
        }
    }
    const message = (status as { message?: unknown } | undefined)?.message;
    return typeof message === "string" ? message : undefined;
}

/**
 * What `err`, thrown while reading the cluster at `server`, means for the user. The shapes are node-fetch 2.7's, which
 * client-node sends requests with: an `AbortError` when a request's signal fires (node-fetch lib/index.js:1458; only
 * the request timeout aborts here), a `FetchError` carrying the socket's `code`; an `ApiException` with the HTTP `code`
 * and the Status `body` when the API server answered (client-node dist/gen/apis/exception.js:11); a spawn error when
 * the kubeconfig's exec credential plugin is missing (dist/exec_auth.js:89-94).
 */
export function clusterAccessError(err: unknown, server: string, requestTimeoutSeconds: number): ClusterAccessError {
    if (err instanceof ClusterAccessError) {
        return err;
    }
    const {
        name,
        code,
        body,
        syscall,
        path: executable,
    } = (err ?? {}) as {
        name?: string;
        code?: unknown;
        body?: unknown;
        syscall?: string;
        path?: string;
    };
    const message = firstLine(err instanceof Error ? err.message : String(err));
    const options = { cause: err };
    if (name === "AbortError") {
        return new ClusterAccessError(
            `the API server at ${server} did not answer within ${requestTimeoutSeconds} s (--request-timeout): check that the cluster is up and reachable from here`,
            EXIT.timedOut,
            undefined,
            undefined,
            options,
        );
    }
    if (typeof code === "number") {
        const reason = statusMessage(body)?.split("\n")[0] ?? message;
        const said =
            code === 401
                ? `the API server at ${server} refused the kubeconfig's credentials (401 Unauthorized): they may have expired; ${FETCH_CREDENTIALS}`
                : code === 403
                  ? `the kubeconfig's user is not allowed this read (403 Forbidden: ${reason}): ask for read access to the cluster, for example roles/container.viewer`
                  : `the API server at ${server} answered HTTP ${code}: ${reason}`;
        return new ClusterAccessError(said, EXIT.usage, code, reason, options);
    }
    const said =
        code === "ECONNREFUSED"
            ? `cannot reach the API server at ${server}: connection refused; check that the cluster is up, or ${FETCH_CREDENTIALS} if its address changed`
            : code === "ENOTFOUND" || code === "EAI_AGAIN"
              ? `cannot resolve the API server's host in ${server}; check the kubeconfig's server, or ${FETCH_CREDENTIALS}`
              : typeof code === "string" && UNREACHABLE_CODE.has(code)
                ? `cannot reach the API server at ${server} (${code}): check the network path to the cluster (VPN, authorized networks)`
                : (typeof code === "string" && TLS_CODE.test(code)) || /HTTP protocol is not allowed/.test(message)
                  ? `TLS with the API server at ${server} failed (${typeof code === "string" ? `${code}: ` : ""}${message}): the kubeconfig does not match the cluster; ${FETCH_CREDENTIALS}`
                  : code === "ENOENT" && syscall?.startsWith("spawn")
                    ? `the kubeconfig's credential plugin ${executable} is not on PATH: install it (for GKE: gcloud components install gke-gcloud-auth-plugin)`
                    : `cannot read the cluster at ${server}: ${message}`;
    return new ClusterAccessError(said, EXIT.usage, undefined, undefined, options);
}
