/** Container image references: what a tag is, and whether an image is pinned. Shared by the settings and the policy pack. */

/** The image's tag (`v0.27.0` of `docker.io/vllm/vllm-tpu:v0.27.0`), or undefined when it has none. A registry port is not a tag. */
export function imageTag(image: string): string | undefined {
    const withoutDigest = image.split("@")[0];
    const lastSegment = withoutDigest.slice(withoutDigest.lastIndexOf("/") + 1);
    const separator = lastSegment.indexOf(":");
    return separator >= 0 && separator < lastSegment.length - 1 ? lastSegment.slice(separator + 1) : undefined;
}

/** The repository without tag or digest (`ghcr.io/llm-d/llm-d-router-endpoint-picker`). */
export function imageRepository(image: string): string {
    const withoutDigest = image.split("@")[0];
    const tag = imageTag(withoutDigest);
    return tag === undefined ? withoutDigest : withoutDigest.slice(0, withoutDigest.length - tag.length - 1);
}

/** True when `image` names a digest, or a tag other than `latest`. */
export function isPinnedImage(image: string): boolean {
    if (/\s/.test(image)) {
        return false;
    }
    if (/@sha256:[0-9a-f]{64}$/.test(image)) {
        return true;
    }
    const tag = imageTag(image);
    return tag !== undefined && tag !== "latest";
}

/** `v0.10.0` → [0, 10, 0]; undefined for a tag that is not a version (`main`, `alpn-fix`). */
export function parseVersion(tag: string): number[] | undefined {
    const match = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(tag);
    return match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : undefined;
}

/** True when version `a` is at or above `b`. */
export function versionAtLeast(a: number[], b: number[]): boolean {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
        if ((a[i] ?? 0) !== (b[i] ?? 0)) {
            return (a[i] ?? 0) > (b[i] ?? 0);
        }
    }
    return true;
}
