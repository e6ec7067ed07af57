import { requirePersistentXlaCache as policy } from "../../policies/requirePersistentXlaCache";
import { check, kube } from "./harness";
import { llmService, vllmContainer } from "./fixtures";

const CACHE = "VLLM_XLA_CACHE_PATH";

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
        expect(await check(policy, [deployment(mounted, [{ name: "cache", persistentVolumeClaim: { claimName: "xla" } }])])).toEqual([]);
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
