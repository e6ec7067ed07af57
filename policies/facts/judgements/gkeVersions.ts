/**
 * GKE versions as a cluster asks for them (min_master_version, which the provider sends as the Container API's
 * initialClusterVersion): an exact version `1.X.Y-gke.N`, or an alias GKE resolves when it creates the cluster.
 * Source: {@link SOURCES.gkeVersionAliases}.
 */

/** The numbers of a GKE version or version alias: `1.34.1-gke.1127000` → [1, 34, 1, 1127000], `1.34` → [1, 34]; undefined otherwise. */
export function parseGkeVersion(version: string): number[] | undefined {
    const match = /^(\d+)\.(\d+)(?:\.(\d+)(?:-gke\.(\d+))?)?$/.exec(version);
    return match
        ? match
              .slice(1)
              .filter((part) => part !== undefined)
              .map(Number)
        : undefined;
}

/** Negative when exact version `a` is older than `b`, 0 when equal, positive when newer. */
export function compareGkeVersions(a: string, b: string): number {
    const [left, right] = [parseGkeVersion(a), parseGkeVersion(b)];
    if (left?.length !== 4 || right?.length !== 4) {
        throw new Error(`not a GKE version: ${JSON.stringify(left?.length === 4 ? b : a)}`);
    }
    const index = left.findIndex((part, i) => part !== right[i]);
    return index < 0 ? 0 : left[index] - right[index];
}

/**
 * Where the version GKE creates a cluster at stands against exact version `floor`, when the cluster asks for `requested`:
 * `meets` or `below` when every version the request can resolve to is on that side (an exact version; `1.X` or
 * `1.X.Y` of another minor or patch than the floor's; `latest`), `undecided` when only GKE knows at creation (the
 * default version, asked by leaving it unset, `""` or `-`; an alias of the floor's own minor or patch, resolved to the
 * newest one GKE offers then), `unknown` for what is no version.
 */
export function gkeVersionStanding(requested: string | undefined, floor: string): "meets" | "below" | "undecided" | "unknown" {
    if (requested === undefined || requested === "" || requested === "-") {
        return "undecided";
    }
    if (requested === "latest") {
        return "meets";
    }
    const asked = parseGkeVersion(requested);
    const minimum = parseGkeVersion(floor)!;
    if (asked === undefined) {
        return "unknown";
    }
    const index = asked.findIndex((part, i) => part !== minimum[i]);
    if (index >= 0) {
        return asked[index] > minimum[index] ? "meets" : "below";
    }
    return asked.length === minimum.length ? "meets" : "undecided";
}
