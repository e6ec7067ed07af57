import { ResourceValidationPolicy } from "@pulumi/policy";
import { VLLM_TPU_LOADING, containersOf, isVllmContainer, policyText, usesTpu } from "./facts";
import { Props, kindOfType } from "./support/resources";

/** A container's literal environment variable, or undefined when unset or set from a reference the pack cannot read. */
function literalEnv(container: Props, name: string): { set: boolean; value?: string } {
    const variable = (Array.isArray(container.env) ? (container.env as Props[]) : []).find((entry) => entry?.name === name);
    return variable === undefined ? { set: false } : { set: true, value: typeof variable.value === "string" ? variable.value : undefined };
}

/** The volume behind `file` in `container`'s pod: the mount with the longest path that contains it. */
function volumeOf(container: Props, pod: Props, file: string): Props | undefined {
    const mounts = (Array.isArray(container.volumeMounts) ? (container.volumeMounts as Props[]) : []).filter(
        (mount) =>
            typeof mount?.mountPath === "string" && (file === mount.mountPath || file.startsWith(`${mount.mountPath.replace(/\/$/, "")}/`)),
    );
    const mount = mounts.sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
    return mount === undefined ? undefined : ((pod.volumes ?? []) as Props[]).find((volume) => volume?.name === mount.name);
}

/** Enforces lesson xla-cache (policies/facts/lessons). */
export const requirePersistentXlaCache: ResourceValidationPolicy = {
    ...policyText(
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
                reportViolation(
                    `${where}: ${VLLM_TPU_LOADING.disableCacheEnv}=${disabled.value} turns the XLA compilation cache off: every start compiles.`,
                );
                continue;
            }
            const cache = literalEnv(at.container, VLLM_TPU_LOADING.compilationCacheEnv);
            if (!cache.set) {
                reportViolation(
                    `${where}: ${VLLM_TPU_LOADING.compilationCacheEnv} is unset, so the XLA compilation cache lives in the container and every start compiles again.`,
                );
                continue;
            }
            // Set from a Secret or ConfigMap, or a URI (gs://): storage the pack cannot see, assumed to outlive the pod.
            if (cache.value === undefined || /^[a-z][a-z0-9+.-]*:\/\//.test(cache.value)) {
                continue;
            }
            const volume = volumeOf(at.container, at.pod.spec, cache.value);
            if (volume === undefined) {
                reportViolation(
                    `${where}: ${VLLM_TPU_LOADING.compilationCacheEnv}=${cache.value} is on the container's own filesystem, which goes with the container; every start compiles again.`,
                );
            } else if (volume.emptyDir !== undefined) {
                reportViolation(
                    `${where}: ${VLLM_TPU_LOADING.compilationCacheEnv}=${cache.value} is on emptyDir volume ${volume.name}, which goes with the pod; every restart, scale-out and resume compiles again.`,
                );
            }
        }
    },
};
