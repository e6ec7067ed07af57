/** `gs://bucket/path` split into bucket and object prefix (no leading or trailing slash; empty for the whole bucket). */
export function parseGsUri(uri: string): { bucket: string; prefix: string } {
    const [bucket, ...path] = uri.slice("gs://".length).split("/");
    return { bucket, prefix: path.filter((part) => part !== "").join("/") };
}
