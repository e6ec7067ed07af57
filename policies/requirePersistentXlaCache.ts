import { ResourceValidationPolicy } from "@pulumi/policy";
import { VLLM_TPU_LOADING, containersOf, isVllmContainer, PolicyText, policyText, usesTpu } from "./facts";
import { Props, kindOfType } from "./support/resources";

/**
 * A container's literal environment variable: unset, or set with its value; the value is undefined when it comes from a
 * reference the pack cannot read (`valueFrom`, or an `envFrom` ConfigMap or Secret that may carry it).
 */
function literalEnv(container: Props, name: string): { set: boolean; value?: string } {
    const variable = (Array.isArray(container.env) ? (container.env as Props[]) : []).find((entry) => entry?.name === name);
    if (variable === undefined) {
        return Array.isArray(container.envFrom) && container.envFrom.length > 0 ? { set: true } : { set: false };
    }
    return { set: true, value: typeof variable.value === "string" ? variable.value : undefined };
}

/** What the policy says, one builder per finding (the tests assert them); `where` is `<resource> <container path>`. */
export const XLA_CACHE_MESSAGES = {
    disabled: (where: string, value: string) =>
        `${where}: ${VLLM_TPU_LOADING.disableCacheEnv}=${value} turns the XLA compilation cache off: every start compiles.`,
    unset: (where: string) =>
        `${where}: ${VLLM_TPU_LOADING.compilationCacheEnv} is unset, so the XLA compilation cache lives in the container and every start compiles again.`,
    containerFilesystem: (where: string, path: string) =>
        `${where}: ${VLLM_TPU_LOADING.compilationCacheEnv}=${path} is on the container's own filesystem, which goes with the container; every start compiles again.`,
    podVolume: (where: string, path: string, volume: string, what: "emptyDir" | "generic ephemeral") =>
        `${where}: ${VLLM_TPU_LOADING.compilationCacheEnv}=${path} is on ${what} volume ${volume}, which goes with the pod; every restart, scale-out and resume compiles again.`,
};

/** The volume behind `file` in `container`'s pod: the mount with the longest path that contains it. */
function volumeOf(container: Props, pod: Props, file: string): Props | undefined {
    const mounts = (Array.isArray(container.volumeMounts) ? (container.volumeMounts as Props[]) : []).filter(
        (mount) =>
            typeof mount?.mountPath === "string" && (file === mount.mountPath || file.startsWith(`${mount.mountPath.replace(/\/$/, "")}/`)),
    );
    const mount = mounts.sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
    return mount === undefined ? undefined : ((pod.volumes ?? []) as Props[]).find((volume) => volume?.name === mount.name);
}

export const requirePersistentXlaCache: ResourceValidationPolicy & PolicyText = {
    ...policyText(
        "xla-cache",
        "require-persistent-xla-cache",
        "A vLLM server on TPU must keep its XLA compilation cache (VLLM_XLA_CACHE_PATH) on storage that outlives the pod.",
    ),
    enforcementLevel: "advisory",
    severity: "low",
    validateResource: (args, reportViolation) => {
        for (const at of containersOf(kindOfType(args.type), args.props)) {
            if (!usesTpu(at.container) || !isVllmContainer(at, kindOfType(args.type))) {
                continue;
            }
            const where = `${args.name} ${at.path}`;
            const disabled = literalEnv(at.container, VLLM_TPU_LOADING.disableCacheEnv);
            if (disabled.value !== undefined && /^-?\d+$/.test(disabled.value.trim()) && Number(disabled.value) !== 0) {
                reportViolation(XLA_CACHE_MESSAGES.disabled(where, disabled.value));
                continue;
            }
            const cache = literalEnv(at.container, VLLM_TPU_LOADING.compilationCacheEnv);
            if (!cache.set) {
                reportViolation(XLA_CACHE_MESSAGES.unset(where));
                continue;
            }
            // Set from a Secret or ConfigMap, or a URI (gs://): storage the pack cannot see, assumed to outlive the pod; a
            // file:// URI is a path in the container like any other.
            if (cache.value === undefined || (/^[a-z][a-z0-9+.-]*:\/\//i.test(cache.value) && !/^file:\/\//i.test(cache.value))) {
                continue;
            }
            const path = cache.value.replace(/^file:\/\//i, "");
            // Pod-scoped volumes: an emptyDir (on disk or in memory) and a generic ephemeral volume, whose claim Kubernetes
            // deletes with the pod. Persistent ones (a PersistentVolumeClaim, GCS FUSE's CSI volume, ...) outlive it.
            const volume = volumeOf(at.container, at.pod.spec, path);
            if (volume === undefined) {
                reportViolation(XLA_CACHE_MESSAGES.containerFilesystem(where, cache.value));
            } else if (volume.emptyDir !== undefined) {
                reportViolation(XLA_CACHE_MESSAGES.podVolume(where, cache.value, volume.name, "emptyDir"));
            } else if (volume.ephemeral !== undefined) {
                reportViolation(XLA_CACHE_MESSAGES.podVolume(where, cache.value, volume.name, "generic ephemeral"));
            }
        }
    },
};
