/**
 * The fixture of a real preview: what `pulumi preview --json` prints on a stack's first preview (nothing deployed, so
 * every resource is a create) of the program an offline run recorded. Shaped field by field as pulumi/pulumi
 * (1b5949891b3cefcb9974752b24a5ecef0acc86c8) prints it:
 * - a PreviewDigest (pkg/display/json.go:31-48): `config` with secrets blinded, `steps`, `duration` in nanoseconds,
 *   `changeSummary`; no policy violations (pkg/backend/display/json.go:241-244); no stack outputs, since the stack's
 *   step comes from the event of its registration, which precedes them (json.go:206-214);
 * - each step a PreviewStep (pkg/display/json.go:58-76, json.go:284-291): `op`, `urn`, the `provider` performing it,
 *   `detailedDiff` always written (null for a create);
 * - each `newState` an apitype ResourceV3 with empty fields omitted (sdk/go/common/apitype/core.go:489-565): no
 *   `outputs` for a create (pkg/resource/deploy/step_generator.go:813), `protect`, `ignoreChanges` and
 *   `customTimeouts` in seconds (pkg/resource/deploy/source_eval.go:2948-2977; pkg/resource/stack/deployment.go:737)
 *   but no deleteBeforeReplace (step_generator.go:806-843), dependencies in no particular order (a set:
 *   source_eval.go:2663); fields the diff does not read (propertyDependencies, sourcePosition, created) left out;
 * - the default provider the engine registers for each package (pkg/resource/deploy/providers/provider.go:107-128) and
 *   the version the engine adds to a provider's inputs (source_eval.go:2669-2676, providers/registry.go:166-172),
 *   providers' IDs unknown in a preview (sdk/go/common/providers/reference.go:32);
 * - the charts and YAML groups the Kubernetes provider constructs, registered alone (before the cluster exists it
 *   renders no object) as the provider registers them: without inputs or a provider, with the program's dependencies
 *   (source_eval.go:2847-2851, sdk/go/pulumi/provider.go:116-118, 176-177);
 * - unknowns (pkg/resource/stack/deployment.go:785-787): what a provider computes on create (an id, a self link, an
 *   address, an email: every output the inputs do not fix, except the auto-name its Check assigns and the default
 *   project) is unknown, and so is every input made from one.
 */
import { autoName, realisticMocks } from "../../scripts/offline/mocks";
import { PROVIDER_RENDERED_TYPES } from "../../scripts/offline/expand";
import { RecordedResource, SECRET_PLACEHOLDER, UNKNOWN_VALUE } from "../../scripts/offline/recorder";
import { OfflineRun } from "../../scripts/offline/run";

/** A step's state, as apitype ResourceV3 writes the fields this fixture sets. */
export interface PulumiState {
    urn: string;
    custom: boolean;
    type: string;
    inputs?: Record<string, unknown>;
    outputs?: Record<string, unknown>;
    parent?: string;
    protect?: boolean;
    dependencies?: string[];
    provider?: string;
    customTimeouts?: Record<string, number>;
    ignoreChanges?: string[];
}

/** A PreviewStep. */
export interface PulumiStep {
    op: string;
    urn: string;
    provider?: string;
    newState: PulumiState;
    detailedDiff: null;
}

/** A PreviewDigest. */
export interface PulumiPreview {
    config: Record<string, string>;
    steps: PulumiStep[];
    duration: number;
    changeSummary: Record<string, number>;
}

const isProvider = (resource: RecordedResource) => resource.type.startsWith("pulumi:providers:");

/** `version` as the SDK of `pkg` sends it with each registration. */
function packageVersion(pkg: string): string {
    return (require(`@pulumi/${pkg}/package.json`) as { version: string }).version;
}

/** Strings a provider computes on create, as the offline mocks make them up. */
function computedValues(run: OfflineRun): string[] {
    const mocks = realisticMocks({ project: run.project.config["gcp:project"], stack: run.project.stack });
    const leaves = (value: unknown): string[] =>
        typeof value === "string" ? [value] : value !== null && typeof value === "object" ? Object.values(value).flatMap(leaves) : [];
    return run.resources
        .filter((resource) => resource.custom && !isProvider(resource))
        .flatMap((resource) => {
            const { id, state } = mocks.newResource({
                type: resource.type,
                name: resource.name,
                inputs: resource.inputs,
                custom: true,
            }) as {
                id: string;
                state: Record<string, unknown>;
            };
            const checkedName =
                resource.inputs.name === undefined && state.name === autoName(run.project.stack, resource.type, resource.name);
            const computed = Object.keys(state).filter(
                (key) => !(key in resource.inputs) && key !== "project" && !(key === "name" && checkedName),
            );
            // The Kubernetes provider's id is the object's namespace and name, which its inputs fix.
            return [...(resource.type.startsWith("kubernetes:") ? [] : [id]), ...computed.flatMap((key) => leaves(state[key]))];
        });
}

/** `value` with every string made from a computed one unknown as a whole, as an apply of an unknown is. */
function unknownWhereComputed(value: unknown, computed: string[]): unknown {
    if (typeof value === "string") {
        return computed.some((known) => value.includes(known)) ? UNKNOWN_VALUE : value;
    }
    if (Array.isArray(value)) {
        return value.map((inner) => unknownWhereComputed(inner, computed));
    }
    if (value !== null && typeof value === "object") {
        return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, unknownWhereComputed(inner, computed)]));
    }
    return value;
}

/** The program's timeouts are whole minutes (`45m`). */
function minutes(timeout: string): number {
    const match = /^(\d+)m$/.exec(timeout);
    if (!match) {
        throw new Error(`the fixture converts timeouts in whole minutes, not ${timeout}`);
    }
    return Number(match[1]);
}

const nonEmpty = <T extends object>(key: string, value: T | undefined) => (value && Object.keys(value).length > 0 ? { [key]: value } : {});

/** `pulumi preview --json` of the first preview of the program `run` recorded. */
export function firstPulumiPreview(run: OfflineRun): PulumiPreview {
    const { projectName, stack, config, secretKeys } = run.project;
    const computed = computedValues(run);
    const byUrn = new Map(run.resources.map((resource) => [resource.urn, resource]));
    const rendered = run.resources.filter((resource) => !PROVIDER_RENDERED_TYPES.has(byUrn.get(resource.parent ?? "")?.type ?? ""));
    const secret = new Set(secretKeys);
    const steps: PulumiStep[] = [];
    const defaultProviders = new Map<string, string>();

    // The engine registers a package's default provider before the first resource that needs it.
    const providerOf = (resource: RecordedResource): string => {
        if (resource.provider) {
            return `${resource.provider.slice(0, resource.provider.lastIndexOf("::"))}::${UNKNOWN_VALUE}`;
        }
        const pkg = resource.type.split(":")[0];
        if (!defaultProviders.has(pkg)) {
            const version = packageVersion(pkg);
            const urn = `urn:pulumi:${stack}::${projectName}::pulumi:providers:${pkg}::default_${version.replace(/\./g, "_")}`;
            const settings = Object.keys(config)
                .filter((key) => key.startsWith(`${pkg}:`))
                .map((key) => [key.slice(pkg.length + 1), secret.has(key) ? SECRET_PLACEHOLDER : config[key]]);
            steps.push({
                op: "create",
                urn,
                newState: {
                    urn,
                    custom: true,
                    type: `pulumi:providers:${pkg}`,
                    inputs: { ...Object.fromEntries(settings), __internal: {}, version },
                },
                detailedDiff: null,
            });
            defaultProviders.set(pkg, `${urn}::${UNKNOWN_VALUE}`);
        }
        return defaultProviders.get(pkg)!;
    };

    for (const resource of rendered) {
        const { options } = resource;
        const provider = resource.custom && !isProvider(resource) ? providerOf(resource) : undefined;
        const known = unknownWhereComputed(resource.inputs, computed) as Record<string, unknown>;
        const inputs = PROVIDER_RENDERED_TYPES.has(resource.type)
            ? {}
            : isProvider(resource)
              ? { ...known, __internal: {}, version: packageVersion(resource.type.split(":")[2]) }
              : known;
        const timeouts = Object.fromEntries(
            Object.entries(options.customTimeouts ?? {}).map(([operation, timeout]) => [operation, minutes(timeout) * 60]),
        );
        steps.push({
            op: "create",
            urn: resource.urn,
            ...(provider ? { provider } : {}),
            newState: {
                urn: resource.urn,
                custom: resource.custom,
                type: resource.type,
                ...nonEmpty("inputs", inputs),
                ...(resource.parent ? { parent: resource.parent } : {}),
                ...(options.protect ? { protect: true } : {}),
                ...nonEmpty("dependencies", [...resource.dependencies].reverse()),
                ...(provider ? { provider } : {}),
                ...nonEmpty("customTimeouts", timeouts),
                ...nonEmpty("ignoreChanges", options.ignoreChanges),
            },
            detailedDiff: null,
        });
    }
    return {
        config: Object.fromEntries(Object.keys(config).map((key) => [key, secret.has(key) ? SECRET_PLACEHOLDER : config[key]])),
        steps,
        duration: 41_382_000_000,
        changeSummary: { create: steps.length },
    };
}
