/**
 * Which HTTPRoute rule of a Gateway listener a request reaches, and the path its backend receives, as Gateway API v1.4.0
 * has every implementation decide (GKE's Gateway controller and Istio alike): the match with an Exact path first, then
 * the longest path prefix, a method match, the most header matches, the most query matches; then the oldest route, the
 * first by `namespace/name`, and the first rule of a route. A prefix matches whole path elements, a trailing `/` aside;
 * header names match whatever their case. A URLRewrite's ReplacePrefixMatch replaces the matched prefix. Source:
 * kubernetes-sigs/gateway-api v1.4.0 gateway.networking.k8s.io_httproutes.yaml:2170-2198 (precedence), :765-776
 * (ReplacePrefixMatch, whole path elements), :481 (header names case-insensitive).
 */
import { BackendRef } from "./backends";
import { KubeProps } from "./objects";

/** A request as a client sends it to a Gateway listener. */
export interface ClientRequest {
    method: string;
    /** The path, without the query string. */
    path: string;
    headers: Readonly<Record<string, string>>;
}

/** An HTTPRoute attached to the listener; routes are given oldest first (the order Gateway API breaks ties in after precedence). */
export interface AttachedRoute {
    namespace: string;
    name: string;
    spec: KubeProps;
}

/** The rule a request reaches, and what its backends receive. */
export interface ResolvedRequest {
    route: AttachedRoute;
    ruleIndex: number;
    backendRefs: BackendRef[];
    /** The path the backends receive, after the rule's URLRewrite. */
    forwardedPath: string;
    /** A RequestRedirect rule answers the client itself. */
    redirects: boolean;
}

/** `path` without one trailing `/`, except the root. */
function trimSlash(path: string): string {
    return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

/** True when `prefix` is a PathPrefix of `path`: whole path elements, a trailing `/` ignored. */
export function prefixMatches(prefix: string, path: string): boolean {
    const base = trimSlash(prefix);
    return base === "/" || path === base || path.startsWith(`${base}/`);
}

/** The path ReplacePrefixMatch makes of `path` matched by `prefix`. */
export function replacePrefix(path: string, prefix: string, replacement: string): string {
    const base = trimSlash(prefix);
    const rest = base === "/" ? path : path.slice(base.length);
    const head = replacement.endsWith("/") ? replacement.slice(0, -1) : replacement;
    const joined = `${head}${rest}`;
    return joined === "" ? "/" : joined.startsWith("/") ? joined : `/${joined}`;
}

/** What a match ranks by, highest first: Exact path, prefix length, method, headers, query parameters. */
type Rank = [exact: number, prefixLength: number, method: number, headers: number, queries: number];

/** The rank of one match of a rule for `request`, or undefined when it does not match. */
function matchRank(match: KubeProps, request: ClientRequest): Rank | undefined {
    const path: KubeProps = match?.path ?? { type: "PathPrefix", value: "/" };
    const type = path.type ?? "PathPrefix";
    const value = typeof path.value === "string" ? path.value : "/";
    if (type === "Exact" ? request.path !== value : type === "PathPrefix" ? !prefixMatches(value, request.path) : true) {
        return undefined;
    }
    if (typeof match?.method === "string" && match.method !== request.method) {
        return undefined;
    }
    const headers: KubeProps[] = Array.isArray(match?.headers) ? match.headers : [];
    const sent = new Map(Object.entries(request.headers).map(([name, headerValue]) => [name.toLowerCase(), headerValue]));
    if (!headers.every((header) => (header.type ?? "Exact") === "Exact" && sent.get(String(header.name).toLowerCase()) === header.value)) {
        return undefined;
    }
    // A request of this model carries no query string: a rule that requires a parameter is not reached.
    const queries: unknown[] = Array.isArray(match?.queryParams) ? match.queryParams : [];
    if (queries.length > 0) {
        return undefined;
    }
    return [type === "Exact" ? 1 : 0, value.length, typeof match?.method === "string" ? 1 : 0, headers.length, 0];
}

/** Negative when `a` ranks before `b`. */
function compareRanks(a: Rank, b: Rank): number {
    for (let index = 0; index < a.length; index++) {
        if (a[index] !== b[index]) {
            return b[index] - a[index];
        }
    }
    return 0;
}

/** The path a rule's backends receive: the request's, or its URLRewrite's. */
function forwarded(rule: KubeProps, match: KubeProps, path: string): string {
    const filters: KubeProps[] = Array.isArray(rule.filters) ? rule.filters : [];
    const rewrite = filters.find((filter) => filter?.type === "URLRewrite")?.urlRewrite?.path;
    if (rewrite?.type === "ReplacePrefixMatch" && match?.path?.type === "PathPrefix") {
        return replacePrefix(path, match.path.value, rewrite.replacePrefixMatch ?? "/");
    }
    if (rewrite?.type === "ReplaceFullPath") {
        return rewrite.replaceFullPath ?? "/";
    }
    return path;
}

/** The rule of `routes` (oldest first) that `request` reaches, or undefined when none matches (the Gateway answers 404). */
export function resolveRequest(routes: readonly AttachedRoute[], request: ClientRequest): ResolvedRequest | undefined {
    let best: { rank: Rank; resolved: ResolvedRequest } | undefined;
    routes.forEach((route) => {
        const rules: KubeProps[] = Array.isArray(route.spec?.rules) ? route.spec.rules : [];
        rules.forEach((rule, ruleIndex) => {
            const matches: KubeProps[] = Array.isArray(rule?.matches) && rule.matches.length > 0 ? rule.matches : [{}];
            for (const match of matches) {
                const rank = matchRank(match, request);
                // Ties keep the earlier candidate: the older route, then the earlier rule.
                if (rank !== undefined && (best === undefined || compareRanks(rank, best.rank) < 0)) {
                    const refs: KubeProps[] = Array.isArray(rule.backendRefs) ? rule.backendRefs : [];
                    const filters: KubeProps[] = Array.isArray(rule.filters) ? rule.filters : [];
                    best = {
                        rank,
                        resolved: {
                            route,
                            ruleIndex,
                            backendRefs: refs.map((ref) => ({
                                namespace: ref.namespace ?? route.namespace,
                                group: ref.group ?? "",
                                kind: ref.kind ?? "Service",
                                name: ref.name,
                                ...(typeof ref.port === "number" ? { port: ref.port } : {}),
                            })),
                            forwardedPath: forwarded(rule, match, request.path),
                            redirects: filters.some((filter) => filter?.type === "RequestRedirect"),
                        },
                    };
                }
            }
        });
    });
    return best?.resolved;
}
