/**
 * What a replacement rule is: a path of a resource's inputs and when its change makes the provider replace the
 * resource, with the provider's source. The catalog (index.ts) holds the rules of every type the program emits.
 */
export type Inputs = Record<string, unknown> | undefined;

/** When a change of a field makes the provider replace the resource. */
export type ReplaceOn =
    /**
     * Any change of it or under it, an unknown new value included: a ForceNew attribute, or a list, set or map of
     * primitives, whose ForceNew each element inherits (SDK:575, 1445, 1548-1566, 1691).
     */
    | "change"
    /**
     * A ForceNew block of objects: replaces only when it is added or removed, an unknown included, or a list of them
     * changes length; a field inside replaces where it is ForceNew itself (SDK:1383-1418, the count's ForceNew).
     */
    | "count"
    /**
     * Kubernetes: a change of it or under it, or above it where the new value holds it; removing one of its parents does
     * not (pulumi-kubernetes provider/pkg/provider/provider.go:3343-3357 matches each changed leaf's patch against the
     * field's JSONPath, provider/pkg/openapi/match.go:29-49).
     */
    | "patch"
    /** A provider's own condition on the values before and after, given both resources' inputs. */
    | ((before: unknown, after: unknown, inputs: ReplaceContext) => boolean);

/** What a provider's condition may read: both resources' inputs, and the inputs of the provider the resource is on. */
export interface ReplaceContext {
    before: Inputs;
    after: Inputs;
    provider?: Inputs;
}

/** One field whose change replaces the resource. */
export interface ReplaceRule {
    path: string;
    on: ReplaceOn;
    /**
     * Optional and Computed in the Terraform schema: removing it from the inputs keeps the value the provider holds, a
     * change neither of it nor of anything under it (SDK:589-592, 1351-1353, 1747-1752).
     */
    computed?: true;
    /** Where the provider says so: repo@ref:path:line. */
    source: string;
}

export const OPTIONAL_COMPUTED = { computed: true } as const;

/** A ForceNew attribute. */
export const field = (path: string, source: string, options: { computed?: true } = {}): ReplaceRule => ({
    path,
    on: "change",
    ...options,
    source,
});
/** A ForceNew block of objects. */
export const block = (path: string, source: string, options: { computed?: true } = {}): ReplaceRule => ({
    path,
    on: "count",
    ...options,
    source,
});
/** A provider's condition. */
export const when = (path: string, on: Extract<ReplaceOn, (...args: never[]) => boolean>, source: string): ReplaceRule => ({
    path,
    on,
    source,
});

/** The rules of a Terraform schema nested under `prefix` (`""` or `name.` or `name[].`). */
export const under = (prefix: string, rules: ReplaceRule[]): ReplaceRule[] =>
    rules.map((rule) => ({ ...rule, path: `${prefix}${rule.path}` }));

/** Cites a line of `file`. */
export const lineOf = (file: string) => (line: number) => `${file}:${line}`;
