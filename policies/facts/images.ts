/** Container image references: what a tag is, and whether an image is pinned. Shared by the settings and the policy pack. */

/** The image's tag (`v0.27.0` of `docker.io/vllm/vllm-tpu:v0.27.0`), or undefined when it has none. A registry port is not a tag. */
export function imageTag(image: string): string | undefined {
    const withoutDigest = image.split("@")[0];
    const lastSegment = withoutDigest.slice(withoutDigest.lastIndexOf("/") + 1);
    const separator = lastSegment.indexOf(":");
    return separator >= 0 && separator < lastSegment.length - 1 ? lastSegment.slice(separator + 1) : undefined;
}

/** What fixes a pinned reference's contents, safe in a path: its digest (`sha256-…`) when it has one, else its tag. */
export function imagePin(image: string): string | undefined {
    const digest = image.split("@")[1];
    return digest !== undefined ? digest.replace(":", "-") : imageTag(image);
}

/** The repository without tag or digest (`ghcr.io/llm-d/llm-d-router-endpoint-picker`). */
export function imageRepository(image: string): string {
    const withoutDigest = image.split("@")[0];
    const tag = imageTag(withoutDigest);
    return tag === undefined ? withoutDigest : withoutDigest.slice(0, withoutDigest.length - tag.length - 1);
}

/**
 * An image reference as the container runtimes parse it: `[domain[:port]/]path[:tag][@digest]`. Source:
 * distribution/reference regexp.go (domain and path components, tag `[\w][\w.-]{0,127}`, digest
 * `algorithm:hex`); the OCI image spec registers sha256 (64 hex digits) and sha512 (128).
 */
const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const PATH_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*";
const IMAGE_REFERENCE = new RegExp(
    // A first component is a domain only with a dot, a port, or as localhost (distribution/reference normalize.go splitDockerDomain).
    `^(?:(?:localhost(?::[0-9]+)?|${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})+(?::[0-9]+)?|${DOMAIN_COMPONENT}:[0-9]+)/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*(?::[\\w][\\w.-]{0,127})?(?:@(?<digest>[^@]+))?$`,
);
const DIGEST = /^(?:sha256:[0-9a-f]{64}|sha512:[0-9a-f]{128})$/;

/**
 * A word of a tag (between `-`) that fixes a release: a version (`v0.10.1`, `3.11`, `16`, `1.2.3rc1`, `v0.6.3.post1`), a date or build
 * number (`20250101`, Model Garden's `20250114_0916_RC00`), or a commit (`sha-1a2b3c4`'s `1a2b3c4`).
 */
const RELEASE_WORD = /^(?:v?\d+(?:\.\d+)*(?:[.+]?[a-z][\w.+]*)?|\d{6,}(?:[_.]\w+)*|(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,64})$/i;

/**
 * True when a tag moves: it names no release, only a branch or a channel (`latest`, `nightly`, `main`, `main-slim`,
 * `latest-x86_64`) or a variant or architecture (`rocm`, `x86_64`, `alpine3.19`). Registries re-point such tags at every
 * push, as a tag is a mutable pointer to an image (https://docs.docker.com/reference/cli/docker/image/tag/): vLLM
 * re-tags `x86_64` and `latest-x86_64` at each release (vllm-project/vllm@0589f9e6
 * .buildkite/scripts/annotate-release.sh), Ollama `rocm` (ollama/ollama@3060abb scripts/tag_latest.sh), Open WebUI
 * builds `main-cuda` on every push to main (open-webui/open-webui@4fd67c4 .github/workflows/docker-build.yaml).
 */
export function isMovingTag(tag: string): boolean {
    return !tag.split("-").some((word) => RELEASE_WORD.test(word));
}

/** Why `image` is not a pinned image reference (not a reference, a malformed digest, no tag, a moving tag), or undefined when it is. */
export function imageReferenceProblem(image: string): string | undefined {
    const match = IMAGE_REFERENCE.exec(image);
    if (!match) {
        return "is not an image reference";
    }
    const digest = match.groups?.digest;
    if (digest !== undefined) {
        return DIGEST.test(digest) ? undefined : "has a malformed digest";
    }
    const tag = imageTag(image);
    return tag !== undefined && !isMovingTag(tag) ? undefined : "is not pinned";
}

/** True when `image` names a well-formed digest, or a tag that is not a moving one. */
export function isPinnedImage(image: string): boolean {
    return imageReferenceProblem(image) === undefined;
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

/**
 * How an endpoint picker image stands against the first release with ALPN `h2` on its TLS gRPC server: `fixed` true or false,
 * or undefined when only a digest pins it (its version cannot be read, and a digest cannot move). Undefined for images of
 * repositories `minimums` (first fixed version by the repository's last path segment) does not name.
 */
export function endpointPickerAlpn(
    image: string,
    minimums: Readonly<Record<string, string>>,
): { repository: string; minimum: string; fixed?: boolean; version?: number[] } | undefined {
    const repository = imageRepository(image).split("/").pop()!;
    const minimum = minimums[repository];
    if (minimum === undefined) {
        return undefined;
    }
    const tag = imageTag(image);
    if (tag === undefined && image.includes("@sha256:")) {
        return { repository, minimum };
    }
    const version = tag !== undefined ? parseVersion(tag) : undefined;
    return { repository, minimum, version, fixed: version !== undefined && versionAtLeast(version, parseVersion(minimum)!) };
}

/**
 * The path of a Docker Hub image within Docker Hub (`vllm/vllm-tpu:v0.27.0`), or undefined for another registry's. A
 * reference without a domain is Docker Hub's, a one-component one in `library/` (distribution/reference normalize.go
 * splitDockerDomain).
 */
export function dockerHubPath(image: string): string | undefined {
    const slash = image.indexOf("/");
    const first = slash < 0 ? "" : image.slice(0, slash);
    if (first === "docker.io" || first === "index.docker.io") {
        return image.slice(slash + 1);
    }
    if (slash >= 0 && (first.includes(".") || first.includes(":") || first === "localhost")) {
        return undefined;
    }
    return slash < 0 ? `library/${image}` : image;
}

/** Whether `image` is in Artifact Registry (`LOCATION-docker.pkg.dev/…`), where GKE image streaming reads it from. */
export function isArtifactRegistryImage(image: string): boolean {
    return /^[a-z0-9-]+-docker\.pkg\.dev\//.test(image);
}
