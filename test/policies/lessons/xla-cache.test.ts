/**
 * Lesson xla-cache, the whole category: in every workload kind that carries a pod template, a vLLM TPU server whose XLA
 * compilation cache goes with the pod (unset, the container's own filesystem, an emptyDir on disk or in memory, a
 * generic ephemeral volume, the cache turned off) is caught, and every cache that outlives the pod (a
 * PersistentVolumeClaim, a GCS FUSE CSI volume, a gs:// path, a value the pack cannot read) is left alone.
 */
import { XLA_CACHE_MESSAGES as say, requirePersistentXlaCache as policy } from "../../../policies/requirePersistentXlaCache";
import { RecordedResource } from "../../../scripts/offline/recorder";
import { vllmContainer } from "../fixtures";
import { check, kube } from "../harness";
import { POD_KINDS } from "./podKinds";

type Obj = Record<string, unknown>;

const CACHE = "VLLM_XLA_CACHE_PATH";

/** A vLLM TPU pod whose server sets `env` and mounts `volume` (if any) at /cache. */
function pod(env: Obj[], volume?: Obj, extra: Obj = {}): Obj {
    const mounts = volume ? { volumeMounts: [{ name: "cache", mountPath: "/cache" }] } : {};
    return { containers: [vllmContainer({ env, ...mounts, ...extra })], ...(volume ? { volumes: [{ name: "cache", ...volume }] } : {}) };
}
const cacheAt = (path: string) => [{ name: CACHE, value: path }];

/** Pod-scoped volumes: each goes with the pod. */
const POD_SCOPED: Array<[label: string, volume: Obj, what: "emptyDir" | "generic ephemeral"]> = [
    ["emptyDir", { emptyDir: {} }, "emptyDir"],
    ["memory-backed emptyDir", { emptyDir: { medium: "Memory", sizeLimit: "8Gi" } }, "emptyDir"],
    [
        "generic ephemeral volume",
        {
            ephemeral: {
                volumeClaimTemplate: {
                    spec: { accessModes: ["ReadWriteOnce"], storageClassName: "premium-rwo", resources: { requests: { storage: "20Gi" } } },
                },
            },
        },
        "generic ephemeral",
    ],
];

/** Volumes that outlive the pod. */
const PERSISTENT: Array<[label: string, volume: Obj]> = [
    ["PersistentVolumeClaim", { persistentVolumeClaim: { claimName: "xla-cache" } }],
    [
        "GCS FUSE CSI volume",
        {
            csi: {
                driver: "gcsfuse.csi.storage.gke.io",
                volumeAttributes: { bucketName: "acme-xla-cache", mountOptions: "implicit-dirs" },
            },
        },
    ],
];

describe("lesson xla-cache: every way a TPU server's compilation cache can go with the pod", () => {
    describe.each(POD_KINDS)("%s %s at %s", (apiVersion, kind, body, podPath) => {
        const resource = (spec: Obj): RecordedResource =>
            kube(apiVersion, kind, "vllm", { metadata: { name: "vllm", namespace: "models" }, ...body(spec) });
        const where = `vllm ${podPath}.containers[0] (main)`;
        const verdict = async (spec: Obj) => (await check(policy, [resource(spec)])).map((finding) => finding.message);

        test("caught: unset, the container's own filesystem, every pod-scoped volume, the cache turned off", async () => {
            expect(await verdict(pod([]))).toEqual([say.unset(where)]);
            expect(await verdict(pod(cacheAt("/root/.cache/xla")))).toEqual([say.containerFilesystem(where, "/root/.cache/xla")]);
            // Mounted, but the cache is elsewhere.
            expect(await verdict(pod(cacheAt("/cached/xla"), PERSISTENT[0][1]))).toEqual([say.containerFilesystem(where, "/cached/xla")]);
            for (const [, volume, what] of POD_SCOPED) {
                expect(await verdict(pod(cacheAt("/cache/xla"), volume))).toEqual([say.podVolume(where, "/cache/xla", "cache", what)]);
                // A file:// URI is a path like any other.
                expect(await verdict(pod(cacheAt("file:///cache/xla"), volume))).toEqual([
                    say.podVolume(where, "file:///cache/xla", "cache", what),
                ]);
            }
            expect(await verdict(pod([...cacheAt("gs://acme-xla/qwen"), { name: "VLLM_DISABLE_COMPILE_CACHE", value: "1" }]))).toEqual([
                say.disabled(where, "1"),
            ]);
        });

        test("clean: persistent volumes, gs://, a value from a ConfigMap or Secret, a server off TPU", async () => {
            for (const [, volume] of PERSISTENT) {
                expect(await verdict(pod(cacheAt("/cache/xla"), volume))).toEqual([]);
                expect(await verdict(pod(cacheAt("/cache"), volume))).toEqual([]);
            }
            expect(await verdict(pod(cacheAt("gs://acme-xla/qwen/2x2/v0.27.0")))).toEqual([]);
            expect(await verdict(pod([{ name: CACHE, valueFrom: { configMapKeyRef: { name: "vllm", key: "cache" } } }]))).toEqual([]);
            expect(await verdict(pod([], undefined, { envFrom: [{ configMapRef: { name: "vllm-env" } }] }))).toEqual([]);
            expect(await verdict(pod([...cacheAt("gs://acme-xla/qwen"), { name: "VLLM_DISABLE_COMPILE_CACHE", value: "0" }]))).toEqual([]);
            expect(await verdict(pod([], undefined, { resources: {} }))).toEqual([]);
        });
    });
});
