/**
 * Lesson xla-cache, the whole category: in every workload kind that carries a pod template, a vLLM TPU server whose XLA
 * compilation cache goes with the pod (unset, the container's own filesystem, an emptyDir on disk or in memory, a
 * generic ephemeral volume, the cache turned off) is caught, and every cache that outlives the pod (a
 * PersistentVolumeClaim, a GCS FUSE CSI volume, a gs:// path, a value the pack cannot read) is left alone.
 */
import * as k8s from "@pulumi/kubernetes";
import { XLA_CACHE_MESSAGES as say, requirePersistentXlaCache as policy } from "../../policies/requirePersistentXlaCache";
import { RecordedResource } from "../../scripts/offline/recorder";
import { llmService, vllmContainer } from "../support/fixtures";
import { check, kube } from "../support/harness";
import { LABELS, Obj, meta, template, tpuPod, vllm } from "../support/lessonObjects";
import { summary, verdict } from "../support/pack";
import { POD_KINDS } from "../support/podKinds";
import { useWorkerPack } from "../workerPack";

const CACHE = "VLLM_XLA_CACHE_PATH";

describe("the rule", () => {
    /** A vLLM TPU container with `env` and the `extra` fields. */
    const withEnv = (env: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) => vllmContainer({ env, ...extra });

    /** A Deployment running `container` with `volumes`. */
    function deployment(container: Record<string, unknown>, volumes: Array<Record<string, unknown>>) {
        return kube("apps/v1", "Deployment", "vllm", {
            metadata: { name: "vllm", namespace: "models" },
            spec: {
                selector: { matchLabels: { app: "vllm" } },
                template: { metadata: { labels: { app: "vllm" } }, spec: { containers: [container], volumes } },
            },
        });
    }

    describe("require-persistent-xla-cache", () => {
        test("passes a gs:// cache (the stack's), a cache on a persistent volume, and one set from a reference the pack cannot read", async () => {
            expect(await check(policy, [llmService(withEnv([{ name: CACHE, value: "gs://b/xla-cache/q/2x2/v0.27.0" }]))])).toEqual([]);
            const mounted = withEnv([{ name: CACHE, value: "/cache/xla" }], { volumeMounts: [{ name: "cache", mountPath: "/cache" }] });
            expect(await check(policy, [deployment(mounted, [{ name: "cache", persistentVolumeClaim: { claimName: "xla" } }])])).toEqual(
                [],
            );
            const referenced = withEnv([{ name: CACHE, valueFrom: { configMapKeyRef: { name: "vllm", key: "cache" } } }]);
            expect(await check(policy, [llmService(referenced)])).toEqual([]);
        });

        test("fails an unset cache: vLLM's default lives in the container", async () => {
            expect(await check(policy, [llmService(vllmContainer())])).toEqual([
                {
                    level: "advisory",
                    resource: "qwen",
                    message:
                        "qwen spec.template.containers[0] (main): VLLM_XLA_CACHE_PATH is unset, so the XLA compilation cache lives in the container and every start compiles again.",
                },
            ]);
        });

        test("fails a cache on an emptyDir (the longest mount wins) or on no volume at all", async () => {
            const container = withEnv([{ name: CACHE, value: "/data/xla/cache" }], {
                volumeMounts: [
                    { name: "data", mountPath: "/data" },
                    { name: "scratch", mountPath: "/data/xla/" },
                ],
            });
            const volumes = [
                { name: "data", persistentVolumeClaim: { claimName: "data" } },
                { name: "scratch", emptyDir: { medium: "Memory" } },
            ];
            expect(await check(policy, [deployment(container, volumes)])).toEqual([
                {
                    level: "advisory",
                    resource: "vllm",
                    message:
                        "vllm spec.template.spec.containers[0] (main): VLLM_XLA_CACHE_PATH=/data/xla/cache is on emptyDir volume scratch, which goes with the pod; every restart, scale-out and resume compiles again.",
                },
            ]);
            // /database is not under /data.
            const unmounted = withEnv([{ name: CACHE, value: "/database/xla" }], { volumeMounts: [{ name: "data", mountPath: "/data" }] });
            expect((await check(policy, [deployment(unmounted, volumes)]))[0].message).toBe(
                "vllm spec.template.spec.containers[0] (main): VLLM_XLA_CACHE_PATH=/database/xla is on the container's own filesystem, which goes with the container; every start compiles again.",
            );
        });

        test("fails a cache turned off, whatever the path", async () => {
            const off = withEnv([
                { name: CACHE, value: "gs://b/xla" },
                { name: "VLLM_DISABLE_COMPILE_CACHE", value: "1" },
            ]);
            expect((await check(policy, [llmService(off)]))[0].message).toBe(
                "qwen spec.template.containers[0] (main): VLLM_DISABLE_COMPILE_CACHE=1 turns the XLA compilation cache off: every start compiles.",
            );
            const on = withEnv([
                { name: CACHE, value: "gs://b/xla" },
                { name: "VLLM_DISABLE_COMPILE_CACHE", value: "0" },
            ]);
            expect(await check(policy, [llmService(on)])).toEqual([]);
        });

        test("not applicable: vLLM without TPU chips, TPU containers that are not vLLM, the endpoint picker", async () => {
            expect(await check(policy, [llmService(vllmContainer({ resources: {} }))])).toEqual([]);
            const trainer = {
                name: "train",
                image: "python:3.12",
                command: ["python", "train.py"],
                resources: { limits: { "google.com/tpu": "4" } },
            };
            expect(await check(policy, [deployment(trainer, [])])).toEqual([]);
        });
    });
});

describe("every spelling", () => {
    type Obj = Record<string, unknown>;

    /** A vLLM TPU pod whose server sets `env` and mounts `volume` (if any) at /cache. */
    function pod(env: Obj[], volume?: Obj, extra: Obj = {}): Obj {
        const mounts = volume ? { volumeMounts: [{ name: "cache", mountPath: "/cache" }] } : {};
        return {
            containers: [vllmContainer({ env, ...mounts, ...extra })],
            ...(volume ? { volumes: [{ name: "cache", ...volume }] } : {}),
        };
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
                        spec: {
                            accessModes: ["ReadWriteOnce"],
                            storageClassName: "premium-rwo",
                            resources: { requests: { storage: "20Gi" } },
                        },
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
                expect(await verdict(pod(cacheAt("/cached/xla"), PERSISTENT[0][1]))).toEqual([
                    say.containerFilesystem(where, "/cached/xla"),
                ]);
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
                expect(await verdict(pod([...cacheAt("gs://acme-xla/qwen"), { name: "VLLM_DISABLE_COMPILE_CACHE", value: "0" }]))).toEqual(
                    [],
                );
                expect(await verdict(pod([], undefined, { resources: {} }))).toEqual([]);
            });
        });
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();

    describe("the XLA compilation cache outlives the pod", () => {
        /** A Deployment whose vLLM container keeps its cache at `cachePath`, /cache mounted from `volume`. */
        const cachedAt = (cachePath: string | undefined, volume: Obj) => () =>
            new k8s.apps.v1.Deployment("w", {
                metadata: meta(),
                spec: {
                    selector: { matchLabels: LABELS },
                    template: template({
                        ...tpuPod([
                            {
                                ...vllm({ env: [] }),
                                env: cachePath === undefined ? [] : [{ name: "VLLM_XLA_CACHE_PATH", value: cachePath }],
                                volumeMounts: [{ name: "cache", mountPath: "/cache" }],
                            },
                        ]),
                        volumes: [{ name: "cache", ...volume }],
                    }) as never,
                },
            });

        test.each<[string, () => unknown, string[]]>([
            ["unset: vLLM's default in the container", cachedAt(undefined, { emptyDir: {} }), ["advisory require-persistent-xla-cache @w"]],
            ["on an emptyDir", cachedAt("/cache/xla", { emptyDir: {} }), ["advisory require-persistent-xla-cache @w"]],
            ["on a persistent volume", cachedAt("/cache/xla", { persistentVolumeClaim: { claimName: "xla" } }), []],
            ["in Cloud Storage", cachedAt("gs://acme-models/xla-cache", { emptyDir: {} }), []],
        ])("%s", async (_, program, expected) => {
            expect(summary(await verdict(pack(), program))).toEqual(expected);
        });
    });
});
