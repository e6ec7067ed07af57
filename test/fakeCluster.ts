/**
 * A loopback stand-in for the Kubernetes API server that serves recorded objects (test/fixtures/cluster),
 * enough of it for @kubernetes/client-node: API discovery, GET of one object, LIST of a kind and a pod's log. It
 * records every request, so a test can show that a reader only reads. The client runs in the CLI under
 * test (a child process), given the kubeconfig this writes.
 */
import * as fs from "fs";
import * as http from "http";
import { AddressInfo } from "net";
import * as path from "path";
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "../scripts/cluster/kube";
import { CliRun, runCli } from "./cli";
import { isKubernetesObject, recordedLog } from "./memoryCluster";

const FIXTURES = path.join(__dirname, "fixtures", "cluster");

/** Overlay annotations: `absent` removes the object of that kind and name; `merge` merges the document into it (RFC 7386). */
const OVERLAY = { absent: "test.gke-tpu-inference/absent", merge: "test.gke-tpu-inference/merge" } as const;

/** RFC 7386 JSON merge patch: objects merge, anything else replaces, null removes. */
function mergePatch(target: unknown, patch: unknown): unknown {
    if (patch === null || typeof patch !== "object" || Array.isArray(patch)) {
        return patch;
    }
    const out: Record<string, unknown> =
        target !== null && typeof target === "object" && !Array.isArray(target) ? { ...(target as object) } : {};
    for (const [key, value] of Object.entries(patch)) {
        if (value === null) {
            delete out[key];
        } else {
            out[key] = mergePatch(out[key], value);
        }
    }
    return out;
}

/** The objects of each fixture file, parsed once per test file: YAML parsing was most of the doctor's tests' time. */
const parsedFixtures = new Map<string, readonly KubeObject[]>();

function fixtureObjects(name: string): readonly KubeObject[] {
    let objects = parsedFixtures.get(name);
    if (objects === undefined) {
        objects = parseAllDocuments(fs.readFileSync(path.join(FIXTURES, `${name}.yaml`), "utf8"))
            .map((document) => document.toJSON() as KubeObject)
            .filter(Boolean);
        parsedFixtures.set(name, objects);
    }
    return objects;
}

/**
 * The objects of a recorded state: `healthy.yaml`, changed by each overlay file's documents in turn. A document replaces the
 * object of the same kind, namespace and name (or adds it); one annotated `absent` removes it; one annotated `merge` is merged
 * into it, so an overlay holds only what differs.
 */
export function clusterState(...overlays: string[]): KubeObject[] {
    // A copy of the file's objects, which a test may change: every state starts from healthy.yaml's.
    const read = (name: string) => structuredClone(fixtureObjects(name));
    const key = (object: KubeObject) => `${object.kind}/${object.metadata?.namespace ?? ""}/${object.metadata?.name}`;
    const objects = new Map(read("healthy").map((object) => [key(object), object]));
    for (const overlay of overlays) {
        for (const object of read(overlay)) {
            const annotations = object.metadata?.annotations ?? {};
            if (annotations[OVERLAY.absent] === "true") {
                objects.delete(key(object));
            } else if (annotations[OVERLAY.merge] === "true") {
                const others = Object.fromEntries(Object.entries(annotations).filter(([name]) => name !== OVERLAY.merge));
                const metadata = Object.fromEntries(Object.entries(object.metadata!).filter(([name]) => name !== "annotations"));
                const patch = { ...object, metadata: Object.keys(others).length > 0 ? { ...metadata, annotations: others } : metadata };
                objects.set(key(object), mergePatch(objects.get(key(object)), patch) as KubeObject);
            } else {
                objects.set(key(object), object);
            }
        }
    }
    return [...objects.values()];
}

/** `HealthCheckPolicy` → `healthcheckpolicies`, as the API server names resources. */
function plural(kind: string): string {
    const lower = kind.toLowerCase();
    return lower.endsWith("y") ? `${lower.slice(0, -1)}ies` : lower.endsWith("s") ? `${lower}es` : `${lower}s`;
}

/** A running fake API server. */
export interface FakeCluster {
    /** A kubeconfig file whose context (named as asked) points at it. */
    kubeconfigFile: string;
    /** `METHOD path` of every request. */
    requests: string[];
    close(): Promise<void>;
}

/** Serves `objects` on loopback (a kind is namespaced when its objects carry a namespace); writes a kubeconfig into `dir`. */
export async function fakeCluster(objects: KubeObject[], dir: string, context = "fake"): Promise<FakeCluster> {
    const requests: string[] = [];
    const byGroupVersion = new Map<string, KubeObject[]>();
    for (const object of objects.filter(isKubernetesObject)) {
        byGroupVersion.set(object.apiVersion!, [...(byGroupVersion.get(object.apiVersion!) ?? []), object]);
    }
    const send = (res: http.ServerResponse, status: number, body: unknown) =>
        res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
    const notFound = (res: http.ServerResponse, what: string) =>
        send(res, 404, {
            kind: "Status",
            apiVersion: "v1",
            status: "Failure",
            reason: "NotFound",
            code: 404,
            message: `${what} not found`,
        });

    const server = http.createServer((req, res) => {
        requests.push(`${req.method} ${req.url}`);
        if (req.method !== "GET") {
            send(res, 405, { kind: "Status", apiVersion: "v1", status: "Failure", code: 405, message: "the fake cluster is read-only" });
            return;
        }
        const url = new URL(req.url ?? "/", "http://fake");
        const logPath = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/log$/.exec(url.pathname);
        if (logPath) {
            const log = recordedLog(objects, {
                namespace: logPath[1],
                pod: logPath[2],
                container: url.searchParams.get("container") ?? "",
                previous: url.searchParams.get("previous") === "true",
                tailLines: Number(url.searchParams.get("tailLines") ?? Number.MAX_SAFE_INTEGER),
            });
            if (log === undefined) {
                // What the API server answers for a container without that log.
                send(res, 400, {
                    kind: "Status",
                    apiVersion: "v1",
                    status: "Failure",
                    reason: "BadRequest",
                    code: 400,
                    message: `no log for ${logPath[2]}`,
                });
            } else {
                res.writeHead(200, { "Content-Type": "text/plain" }).end(log);
            }
            return;
        }
        const match = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))(?:\/namespaces\/([^/]+))?(?:\/([^/]+)(?:\/([^/]+))?)?$/.exec(url.pathname);
        if (!match) {
            notFound(res, url.pathname);
            return;
        }
        const [, coreVersion, group, version, namespace, resource, name] = match;
        const apiVersion = coreVersion ? "v1" : `${group}/${version}`;
        const served = byGroupVersion.get(apiVersion) ?? [];
        if (!resource) {
            const kinds = [...new Set(served.map((object) => object.kind!))];
            send(res, served.length > 0 ? 200 : 404, {
                kind: "APIResourceList",
                groupVersion: apiVersion,
                resources: kinds.map((kind) => ({
                    name: plural(kind),
                    kind,
                    namespaced: served.some((object) => object.kind === kind && object.metadata?.namespace),
                    verbs: ["get", "list"],
                })),
            });
            return;
        }
        const ofResource = served.filter(
            (object) => plural(object.kind!) === resource && (namespace === undefined || object.metadata?.namespace === namespace),
        );
        if (name === undefined) {
            send(res, 200, {
                apiVersion,
                kind: `${served.find((object) => plural(object.kind!) === resource)?.kind ?? "Object"}List`,
                metadata: {},
                items: ofResource,
            });
            return;
        }
        const found = ofResource.find((object) => object.metadata?.name === name);
        if (found) {
            send(res, 200, found);
        } else {
            notFound(res, `${resource} ${name}`);
        }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const kubeconfigFile = writeKubeconfig(path.join(dir, `kubeconfig-${context}.yaml`), `http://127.0.0.1:${port}`, context);
    return { kubeconfigFile, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Writes a kubeconfig whose one context, `context`, points at `server` with a token, and returns its path. */
export function writeKubeconfig(file: string, server: string, context = "fake"): string {
    const kubeconfigYaml = [
        "apiVersion: v1",
        "kind: Config",
        // client-node speaks plain HTTP only to a cluster marked insecure; this one is loopback.
        `clusters: [{name: ${context}, cluster: {server: "${server}", insecure-skip-tls-verify: true}}]`,
        `users: [{name: ${context}, user: {token: fake-token}}]`,
        `contexts: [{name: ${context}, context: {cluster: ${context}, user: ${context}}}]`,
        `current-context: ${context}`,
        "",
    ].join("\n");
    fs.writeFileSync(file, kubeconfigYaml);
    return file;
}

/** A loopback port nothing listens on: one that was free a moment ago. */
export async function closedPort(): Promise<number> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    return port;
}

/** Runs `scripts/<script>` with `args` against a fake cluster of `objects` named `context`; also returns the requests it saw. */
export async function runCliAgainstCluster(
    script: string,
    objects: KubeObject[],
    args: string[],
    options: { dir: string; context: string; env?: Record<string, string> },
): Promise<CliRun & { requests: string[] }> {
    const cluster = await fakeCluster(objects, options.dir, options.context);
    try {
        const run = await runCli(script, args, { ...options.env, KUBECONFIG: cluster.kubeconfigFile });
        return { ...run, requests: cluster.requests };
    } finally {
        await cluster.close();
    }
}

/** Writes, as `pulumi stack output --json` gives them, the outputs of a stack on the recorded cluster's namespaces and Gateway, with `extra`. */
export function writeStackOutputs(file: string, extra: Record<string, unknown>): string {
    fs.writeFileSync(
        file,
        JSON.stringify({
            servingNamespace: "llm-inference",
            gateway: { namespace: "inference-gateway", name: "inference-gateway" },
            ...extra,
        }),
    );
    return file;
}
