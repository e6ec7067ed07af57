/**
 * Records what a Pulumi program registers: wraps the SDK's MockMonitor (whatever copy of
 * the SDK the program itself loads) and keeps, for every resource, what `pulumi preview`
 * would show — type, URN, parent, provider, inputs, dependencies and resource options.
 */

/** `pulumi preview --json` spells secret values like this. */
export const SECRET_PLACEHOLDER = "[secret]";
/**
 * The SDK's marker for a value that is unknown until apply; `pulumi preview --json` writes it too (pulumi/pulumi@1b59498
 * pkg/resource/stack/deployment.go:66 `computedValuePlaceholder`).
 */
export const UNKNOWN_VALUE = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
/** How `pulumi preview` shows an unknown value (pulumi/pulumi@1b59498 pkg/backend/display/object_diff.go:1010-1011). */
export const UNKNOWN_DISPLAY = "[unknown]";

// Wire signatures of special values (sdk/nodejs/runtime/rpc.ts).
const SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270";
const RESOURCE_REFERENCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e";
const OUTPUT_VALUE_SIG = "d0e6a833031e9bbcd3f4e8bde6ca49a4";

/** The Error the SDK can report from a monitor call: it shows the failure's `details`, not its message. */
export class InvokeFailure extends Error {
    readonly details: string;
    constructor(message: string) {
        super(message);
        this.details = message;
    }
}

/** What the offline preview has no answer for (a provider function, a method a provider runs): a run it fails stops naming it. */
export class NoOfflineAnswer extends InvokeFailure {}

/** One registered resource. */
export interface RecordedResource {
    type: string;
    urn: string;
    name: string;
    custom: boolean;
    /** URN of the parent, absent for the stack. */
    parent?: string;
    /** `urn::id` of an explicit provider. */
    provider?: string;
    inputs: Record<string, unknown>;
    /** URNs this resource waits for: explicit `dependsOn` and those carried by its input Outputs; sorted. */
    dependencies: string[];
    /** A multi-language component the provider constructs (Helm v4 Chart, yaml/v2 ConfigGroup): the engine registers it without inputs. */
    remote?: boolean;
    /** The URNs of this stack the resource was known by ({@link aliasUrns}), present only when it has any. */
    aliases?: string[];
    /**
     * The inputs and the outputs as the engine hands them to a policy pack (secrets wrapped, unknowns kept, resource
     * references as their id or URN). Never written to a report: secrets are in clear inside their wrapper.
     */
    wire: { inputs: Record<string, unknown>; outputs: Record<string, unknown> };
    /** Resource options a reviewer cares about, present only when set. */
    options: {
        ignoreChanges?: string[];
        customTimeouts?: { create?: string; update?: string; delete?: string };
        protect?: boolean;
        deleteBeforeReplace?: boolean;
        /** Input paths whose change replaces the resource, whatever its provider says (`*`: any). */
        replaceOnChanges?: string[];
        /** Resources whose replacement replaces this one, by URN. */
        replaceWith?: string[];
    };
}

/** What a conversion of wire values makes of the three special values; plain values, lists and maps are walked. */
interface WireConversion {
    /** A secret, given its converted value. */
    secret: (value: unknown) => unknown;
    reference: (record: Record<string, unknown>) => unknown;
    unknown: unknown;
}

/** Converts a wire value with `conversion`; an output value is its value (a secret when marked so), or unknown. */
function convertWire(value: unknown, conversion: WireConversion): unknown {
    if (Array.isArray(value)) {
        return value.map((inner) => convertWire(inner, conversion));
    }
    if (value === null || typeof value !== "object") {
        return value;
    }
    const record = value as Record<string, unknown>;
    switch (record[SIG_KEY]) {
        case SECRET_SIG:
            return conversion.secret(convertWire(record.value, conversion));
        case RESOURCE_REFERENCE_SIG:
            return conversion.reference(record);
        case OUTPUT_VALUE_SIG: {
            if (!("value" in record)) {
                return conversion.unknown;
            }
            const inner = convertWire(record.value, conversion);
            return record.secret ? conversion.secret(inner) : inner;
        }
        default:
            return Object.fromEntries(Object.entries(record).map(([key, inner]) => [key, convertWire(inner, conversion)]));
    }
}

/** Turns wire values into report values: secrets become {@link SECRET_PLACEHOLDER}, resource references their URN. */
export function plainValue(value: unknown): unknown {
    return convertWire(value, { secret: () => SECRET_PLACEHOLDER, reference: (record) => record.urn, unknown: UNKNOWN_VALUE });
}

/**
 * Turns wire values into the values the engine marshals for an analyzer (`KeepUnknowns`, `KeepSecrets`, no resource
 * references): secrets stay wrapped, output values become their value (wrapped when secret) or the unknown marker,
 * resource references become their id, or URN for components.
 */
export function analyzerValue(value: unknown): unknown {
    return convertWire(value, {
        secret: wireSecret,
        reference: (record) => (typeof record.id === "string" && record.id !== "" ? record.id : record.urn),
        unknown: UNKNOWN_VALUE,
    });
}

/** A secret as an analyzer receives it: the value, wrapped in the secret signature. */
export function wireSecret(value: unknown): Record<string, unknown> {
    return { [SIG_KEY]: SECRET_SIG, value };
}

/** Whether a wire value is a secret made by {@link wireSecret}. */
export function isWireSecret(value: unknown): boolean {
    return value !== null && typeof value === "object" && (value as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

interface Struct {
    toJavaScript(): Record<string, unknown>;
}

/** The subset of the SDK's RegisterResourceRequest that is recorded. */
interface RegisterResourceRequest {
    getType(): string;
    getName(): string;
    getParent(): string;
    getCustom(): boolean;
    getObject(): Struct | undefined;
    getProvider(): string;
    getRemote(): boolean;
    getDependenciesList(): string[];
    getIgnorechangesList(): string[];
    getProtect(): boolean;
    getDeletebeforereplace(): boolean;
    getCustomtimeouts(): { getCreate(): string; getUpdate(): string; getDelete(): string } | undefined;
    getAliasesList(): AliasRequest[];
    getAdditionalsecretoutputsList(): string[];
    getReplaceonchangesList(): string[];
    getReplaceWithList?(): string[];
}

/** An alias as the SDK sends it to a monitor that supports alias specs (proto/alias.proto): a URN, or a spec of one. */
interface AliasRequest {
    getUrn(): string;
    getSpec():
        | { getName(): string; getType(): string; getParenturn(): string; getNoparent(): boolean; getStack(): string; getProject(): string }
        | undefined;
}

type Callback = (
    err: unknown,
    response: { getUrn(): string; setUrn(urn: string): void; getObject(): Struct | undefined; setObject(value: Struct): void } | undefined,
) => void;

/** The type of the stack resource, the root of every other. */
export const ROOT_STACK_TYPE = "pulumi:pulumi:Stack";

/**
 * The URN the Pulumi engine gives a resource: its type is qualified by its parent's
 * qualified type, except under the root stack. (The SDK's MockMonitor qualifies by the
 * parent's last type only and keeps the stack's, which no real preview shows.)
 */
function engineUrn(mockUrn: string, req: RegisterResourceRequest): string {
    return urnUnder(mockUrn, req.getParent(), req.getType(), req.getName());
}

/** The URN the engine gives, in the stack of `stackUrn` (any URN of it), a resource of `type` and `name` under `parent`. */
function urnUnder(stackUrn: string, parent: string, type: string, name: string): string {
    const [prefix, project] = stackUrn.split("::");
    const parentType = parent ? parent.split("::")[2] : ROOT_STACK_TYPE;
    const qualifiedType = parentType === ROOT_STACK_TYPE ? type : `${parentType}$${type}`;
    return [prefix, project, qualifiedType, name].join("::");
}

/**
 * The URNs of this stack a resource was known by, as the engine matches it to its old state: each alias it names (a
 * spec's unset name, type and parent are the resource's own; `noParent`, the stack), and the same resource under each
 * URN its parent was known by (pulumi/pulumi@v3.259.0 pkg/resource/deploy/step_generator.go:545-584
 * `collapseAliasToUrn`, :590-619 `inheritedChildAlias`, :621-653 `generateAliases`). An alias in another stack or
 * project is left out: this stack's old state holds nothing there.
 */
function aliasUrns(req: RegisterResourceRequest, urn: string, parentAliases: readonly string[]): string[] {
    const own = req.getAliasesList().flatMap((alias) => {
        const spec = alias.getSpec();
        if (spec === undefined) {
            return [alias.getUrn()];
        }
        if (spec.getStack() || spec.getProject()) {
            return [];
        }
        const parent = spec.getNoparent() ? "" : spec.getParenturn() || req.getParent();
        return [urnUnder(urn, parent, spec.getType() || req.getType(), spec.getName() || req.getName())];
    });
    const inherited = parentAliases.map((parent) => urnUnder(urn, parent, req.getType(), req.getName()));
    return [...new Set([...own, ...inherited])].filter((alias) => alias !== urn);
}

/** `type name` of a URN, as a message names a resource. */
function describeUrn(urn: string): string {
    const [, , qualifiedType = "", name = ""] = urn.split("::");
    return `${qualifiedType.split("$").pop()} ${name}`;
}

type RpcCallback = (err: unknown, response: unknown) => void;

interface Monitor {
    /** The SDK MockMonitor's registered resources by URN, which its `pulumi:pulumi:getResource` invoke answers from. */
    readonly resources: Map<string, { urn: string }>;
    invoke(req: { getTok(): string }, callback: RpcCallback): unknown;
    supportsFeature(req: { getId(): string }, callback: RpcCallback): unknown;
    registerResource(req: RegisterResourceRequest, callback: Callback): unknown;
    registerResourceOutputs(req: { getUrn(): string; getOutputs(): Struct | undefined }, callback: RpcCallback): unknown;
    readResource(req: ReadResourceRequest, callback: RpcCallback): unknown;
}

/** What the SDK sends to read a resource (`Resource.get`, a StackReference). */
interface ReadResourceRequest {
    getType(): string;
    getName(): string;
    getProperties(): Struct | undefined;
}

/** A monitor that forwards every call to `inner` and records each registration and the stack's outputs. */
export class ResourceRecorder {
    readonly resources: RecordedResource[] = [];
    /** Outputs registered per URN (the stack's are the program's exports). */
    readonly outputs = new Map<string, Record<string, unknown>>();
    /** Every call of the run that the offline preview had no answer for, in order. */
    readonly unanswered: NoOfflineAnswer[] = [];
    /** Other stacks the program reads (StackReferences), whose outputs are unknown offline, by URN and name. */
    readonly stackReferences: Array<{ urn: string; name: string; stack: string }> = [];
    readonly monitor: Monitor;
    /** The URNs each registered resource was known by, which its children inherit. */
    private readonly aliases = new Map<string, string[]>();

    /**
     * @param inner the SDK's MockMonitor
     * @param unsupportedFeatures features to report as unsupported, whatever `inner` says
     * @param onRecord hears each resource as it registers (as the engine hands it to a policy pack then)
     */
    constructor(
        inner: Monitor,
        unsupportedFeatures: ReadonlySet<string>,
        onRecord: (resource: RecordedResource) => void = () => undefined,
        private readonly autonamed: (type: string) => boolean = () => false,
    ) {
        this.monitor = new Proxy(inner, {
            get: (target, property, receiver) => {
                if (property === "supportsFeature") {
                    return (req: { getId(): string }, callback: (err: unknown, response: unknown) => void) =>
                        unsupportedFeatures.has(req.getId())
                            ? callback(null, { getHassupport: () => false })
                            : target.supportsFeature(req, callback);
                }
                if (property === "invoke") {
                    return (req: { getTok(): string }, callback: RpcCallback) =>
                        target.invoke(req, (err, response) => {
                            if (err instanceof NoOfflineAnswer) {
                                this.unanswered.push(err);
                            }
                            // The SDK reports an invoke's failure by its `details`: without them (the inner monitor's
                            // own errors, such as a `getResource` of a URN it does not know), the message would be empty.
                            if (err instanceof Error && !(err instanceof InvokeFailure)) {
                                callback(new InvokeFailure(err.message), response);
                                return;
                            }
                            callback(err, response);
                        });
                }
                if (property === "call") {
                    // A method of a multi-language component runs in its provider (the SDK's MockMonitor has no `call`).
                    return (req: { getTok(): string; getArgs(): Struct | undefined }, callback: RpcCallback) => {
                        const self = (req.getArgs()?.toJavaScript().__self__ as { urn?: unknown } | undefined)?.urn;
                        const failure = new NoOfflineAnswer(
                            `the offline preview has no answer for ${req.getTok()}${typeof self === "string" ? ` on ${describeUrn(self)}` : ""}, a method its provider runs`,
                        );
                        this.unanswered.push(failure);
                        callback(failure, undefined);
                    };
                }
                if (property === "registerResource") {
                    return (req: RegisterResourceRequest, callback: Callback) =>
                        target.registerResource(req, (err, response) => {
                            if (!err && response) {
                                markSecretOutputs(req, response);
                                // The engine's URN, which the program then uses for parents and dependencies.
                                const mockUrn = response.getUrn();
                                const urn = engineUrn(mockUrn, req);
                                response.setUrn(urn);
                                // The SDK rebuilds a resource passed by reference (as into a multi-language component)
                                // with a `getResource` invoke of its URN, which the inner monitor answers from its own
                                // URNs: it keeps the resource under the engine's URN instead.
                                const state = target.resources.get(mockUrn);
                                if (state) {
                                    target.resources.delete(mockUrn);
                                    target.resources.set(urn, { ...state, urn });
                                }
                                const aliases = aliasUrns(req, urn, this.aliases.get(req.getParent()) ?? []);
                                this.aliases.set(urn, aliases);
                                const resource = record(req, urn, response.getObject()?.toJavaScript() ?? {}, aliases, this.autonamed);
                                this.resources.push(resource);
                                onRecord(resource);
                            }
                            callback(err, response);
                        });
                }
                if (property === "readResource") {
                    return (req: ReadResourceRequest, callback: (err: unknown, response: { getUrn(): string } | undefined) => void) =>
                        target.readResource(req, (err, response) => {
                            const read = response as { getUrn(): string } | undefined;
                            if (!err && read && req.getType() === "pulumi:pulumi:StackReference") {
                                const stack = req.getProperties()?.toJavaScript().name;
                                this.stackReferences.push({
                                    urn: read.getUrn(),
                                    name: req.getName(),
                                    stack: String(stack ?? req.getName()),
                                });
                            }
                            callback(err, read);
                        });
                }
                if (property === "registerResourceOutputs") {
                    return (
                        req: { getUrn(): string; getOutputs(): Struct | undefined },
                        callback: (err: unknown, response: unknown) => void,
                    ) => {
                        // Kept here: the inner monitor knows resources by its own URNs, not the engine's.
                        this.outputs.set(req.getUrn(), plainValue(req.getOutputs()?.toJavaScript() ?? {}) as Record<string, unknown>);
                        callback(null, {});
                    };
                }
                const value = Reflect.get(target, property, receiver);
                return typeof value === "function" ? value.bind(target) : value;
            },
        });
    }
}

/**
 * A Kubernetes object's inputs as the provider's Check returns them, which the engine hands the pack: one without a name
 * (nor generateName) gets the name the provider gives it, the mocks' as in its outputs, marked autonamed
 * (pulumi/pulumi-kubernetes@94977969d6 provider/pkg/provider/provider.go:1271, provider/pkg/metadata/naming.go:29-55).
 * A `*Patch` names the object it patches; a Helm release has no metadata.
 */
function checkedInputs(
    type: string,
    inputs: Record<string, unknown>,
    outputs: Record<string, unknown>,
    autonamed: (type: string) => boolean,
): Record<string, unknown> {
    // A bridged provider's Check gives a resource that sets no `name` the one it auto-names (pulumi-gcp
    // provider/resources.go SetAutonaming; pulumi-terraform-bridge pkg/tfbridge/info/autonaming.go:43-63): the mocks' name.
    if (type.startsWith("gcp:") && inputs.name === undefined && typeof outputs.name === "string" && autonamed(type)) {
        return { ...inputs, name: outputs.name };
    }
    const kind = /^kubernetes:[^:]+\/[^:/]+:([^:]+)$/.exec(type)?.[1];
    const metadata = (inputs.metadata ?? {}) as Record<string, unknown>;
    const named = (outputs.metadata as Record<string, unknown> | undefined)?.name;
    if (
        kind === undefined ||
        kind.endsWith("Patch") ||
        type.startsWith("kubernetes:helm.sh/") ||
        metadata.name !== undefined ||
        metadata.generateName !== undefined ||
        typeof named !== "string"
    ) {
        return inputs;
    }
    const annotations = { ...((metadata.annotations ?? {}) as Record<string, unknown>), "pulumi.com/autonamed": "true" };
    return { ...inputs, metadata: { ...metadata, name: named, annotations } };
}

/**
 * The outputs a resource's provider or program names secret (`additionalSecretOutputs`: @pulumi/random's
 * RandomPassword `result`) made secret in the response, as the engine does (pulumi/pulumi@1b5949891b
 * pkg/resource/deploy/step_executor.go, "Ensure that any secrets properties in the output are marked"): the mocks'
 * made-up value is then shown as a secret is.
 */
function markSecretOutputs(req: RegisterResourceRequest, response: { getObject(): Struct | undefined; setObject(value: Struct): void }) {
    const keys = req.getAdditionalsecretoutputsList();
    const object = response.getObject();
    if (object === undefined || keys.length === 0) {
        return;
    }
    const outputs = object.toJavaScript() as Record<string, unknown>;
    for (const key of keys.filter((name) => name in outputs)) {
        const value = outputs[key] as Record<string, unknown> | undefined;
        if (value?.[SIG_KEY] !== SECRET_SIG) {
            outputs[key] = { [SIG_KEY]: SECRET_SIG, value };
        }
    }
    response.setObject((object.constructor as unknown as { fromJavaScript(value: unknown): Struct }).fromJavaScript(outputs));
}

function record(
    req: RegisterResourceRequest,
    urn: string,
    outputs: Record<string, unknown>,
    aliases: string[],
    autonamed: (type: string) => boolean,
): RecordedResource {
    const timeouts = req.getCustomtimeouts();
    const customTimeouts = Object.fromEntries(
        Object.entries({ create: timeouts?.getCreate(), update: timeouts?.getUpdate(), delete: timeouts?.getDelete() }).filter(
            ([, value]) => value,
        ),
    );
    const ignoreChanges = req.getIgnorechangesList();
    const checked = req.getCustom()
        ? checkedInputs(req.getType(), req.getObject()?.toJavaScript() ?? {}, outputs, autonamed)
        : (req.getObject()?.toJavaScript() ?? {});
    return {
        type: req.getType(),
        urn,
        name: req.getName(),
        custom: req.getCustom(),
        ...(req.getParent() ? { parent: req.getParent() } : {}),
        ...(req.getProvider() ? { provider: req.getProvider() } : {}),
        inputs: plainValue(checked) as Record<string, unknown>,
        ...(req.getRemote() ? { remote: true } : {}),
        ...(aliases.length > 0 ? { aliases } : {}),
        wire: {
            inputs: analyzerValue(checked) as Record<string, unknown>,
            outputs: analyzerValue(outputs) as Record<string, unknown>,
        },
        dependencies: [...new Set(req.getDependenciesList())].sort(),
        options: {
            ...(ignoreChanges.length > 0 ? { ignoreChanges } : {}),
            ...(Object.keys(customTimeouts).length > 0 ? { customTimeouts } : {}),
            ...(req.getProtect() ? { protect: true } : {}),
            ...(req.getDeletebeforereplace() ? { deleteBeforeReplace: true } : {}),
            ...(req.getReplaceonchangesList().length > 0 ? { replaceOnChanges: req.getReplaceonchangesList() } : {}),
            ...((req.getReplaceWithList?.() ?? []).length > 0 ? { replaceWith: req.getReplaceWithList!() } : {}),
        },
    };
}
