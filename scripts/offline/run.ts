import * as path from "path";
import { INVOKE_RENDERED_TYPES, UnrenderedChart, expandComponents } from "./expand";
import type { InvokeAnswer, RecordedInvoke } from "./invokes";
import type * as MocksModule from "./mocks";
import { ProjectRun, loadProject } from "./project";
import { gcpNameInputs } from "./providerNames";
import { RecordedResource, ResourceRecorder } from "./recorder";

/** `gcp:project` the program sees when the stack sets none (a real `pulumi up` requires one). */
export const PLACEHOLDER_PROJECT = "offline-preview-project";

/**
 * The organization a program sees (`pulumi.getOrganization()`, which the SDK reads from its run's options: runtime/settings.js
 * 293-300, set by `setMockOptions`): a local (DIY) backend's, always "organization" (pulumi/pulumi@1b59498
 * pkg/backend/diy/backend.go:185-188 `diyBackendReference.Organization`, store.go:145 and 168).
 */
export const LOCAL_ORGANIZATION = "organization";

/** What a program registered when run under the mocks, with the objects of its YAML components and verbatim charts. */
export interface OfflineRun extends Recording {
    project: ProjectRun;
    /** Things the user should know about this run (placeholders used, missing stack file, missing upstream files). */
    notes: string[];
    /** Charts and components whose objects the preview could not see, so no policy judged them. */
    unrendered: UnrenderedChart[];
}

// Features the SDK's own setMocks leaves off: they need the engine's callback server.
const UNSUPPORTED_FEATURES = new Set(["outputValues", "transforms", "invokeTransforms"]);

interface Sdk {
    Output: new (
        resources: Set<unknown>,
        value: Promise<unknown>,
        isKnown: Promise<boolean>,
        isSecret: Promise<boolean>,
        allResources: Promise<Set<unknown>>,
    ) => unknown;
    runtime: {
        setAllConfig(config: Record<string, string>, secretKeys?: string[]): void;
        setMockOptions(monitor: unknown, project?: string, stack?: string, preview?: boolean, organization?: string): void;
        runInPulumiStack(init: () => Promise<unknown>): Promise<Record<string, unknown> | undefined>;
        waitForRPCs(): Promise<void>;
        rootPulumiStackTypeName: string;
    };
}

/** The SDK copy the program will load itself, so the mocks are installed where it looks for them. */
function programSdkDir(programDir: string): string {
    let sdkEntry: string;
    try {
        sdkEntry = require.resolve("@pulumi/pulumi", { paths: [programDir] });
    } catch {
        sdkEntry = require.resolve("@pulumi/pulumi");
    }
    return path.dirname(sdkEntry);
}

/** How to run a program under the recording mocks. */
export interface RecordOptions {
    projectName: string;
    stack: string;
    /** Fully qualified config keys to values. */
    config: Record<string, string>;
    secretKeys?: string[];
    /** Directory whose `@pulumi/pulumi` the program loads; defaults to this project's. */
    programDir?: string;
    /** Answers per invoke token that replace the offline defaults. */
    invokes?: Record<string, InvokeAnswer>;
    /** Hears each resource as it registers. */
    onResource?: (resource: RecordedResource) => void;
}

/** Resources, invokes and stack outputs a program registered. */
export interface Recording {
    resources: RecordedResource[];
    /** Every provider function the program called, in order. */
    invokes: RecordedInvoke[];
    outputs: Record<string, unknown>;
    /** Components whose objects the program could not read as it ran (a v1 ConfigFile whose URL did not answer). */
    unread: UnrenderedChart[];
}

/** A program that failed as a real `pulumi up` would report it: its own error, an error it logged, or a run that never finished. */
export class ProgramError extends Error {}

/** How long a program may take to register everything before the run is called stuck. */
export const DEFAULT_PROGRAM_TIMEOUT_SECONDS = 30;

interface RuntimeResourceModule {
    registerResource: (res: ProgramResource, parent: unknown, type: string, name: string, ...rest: unknown[]) => unknown;
}

/** A resource object of the program, as the SDK hands it to `registerResource`. */
interface ProgramResource {
    urn: { promise(): Promise<string> };
    __pulumiType: string;
}

/** What the offline preview replaces of the program's StackReference: how it reads an output as a plain value. */
interface StackReferenceMethods {
    readOutputValue?: (caller: string, output: string, required: boolean) => Promise<unknown>;
}

/** What the Kubernetes SDK's v1 components (helm.v3.Chart, yaml.ConfigFile, kustomize.Directory) share. */
interface CollectionComponentResource {
    getResourceImpl(this: ProgramResource, ...args: unknown[]): OutputLike;
}

interface OutputLike {
    apply(func: (value: unknown) => unknown): OutputLike;
}

/** The Kubernetes SDK's v1 ConfigFile: a `file` that is a URL, it fetches as the program runs (@pulumi/kubernetes 4.34.2 yaml/yaml.js:277-286). */
const CONFIG_FILE_V1 = "kubernetes:yaml:ConfigFile";

/** The module `request` as the program resolves it, if it can. */
function programModule<T>(programDir: string, request: string): T | undefined {
    try {
        return require(require.resolve(request, { paths: [programDir] })) as T;
    } catch {
        return undefined;
    }
}

interface LogModule {
    error: (message: string, ...rest: unknown[]) => Promise<void>;
}

/** Lets rejections the program left behind (an apply that threw after the last registration) surface before the run is judged. */
function settle(): Promise<void> {
    return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/**
 * Runs `program` as the body of a stack, as a preview under the realistic mocks, and
 * returns what it registered. Rejects with the program's error, the first failed
 * registration or rejected apply, or a {@link ProgramError} when it logged an error or did not
 * finish within `timeoutSeconds` (naming the resources that never registered: each waits on an
 * Output that never resolves, or on resources that wait for it).
 */
export async function recordResources(
    options: RecordOptions,
    program: () => unknown,
    timeoutSeconds = DEFAULT_PROGRAM_TIMEOUT_SECONDS,
): Promise<Recording> {
    const programDir = options.programDir ?? __dirname;
    const sdkDir = programSdkDir(programDir);
    const sdk = require(sdkDir) as Sdk;
    const { MockMonitor } = require(path.join(sdkDir, "runtime", "mocks")) as { MockMonitor: new (mocks: unknown) => never };
    // The mocks load the program's own modules (settings, preflight, the SDK): required here, when a program runs, so
    // that a command which starts the policy pack's process first does not wait for them.
    const { realisticMocks } = require("./mocks") as typeof MocksModule;
    const invokes: RecordedInvoke[] = [];
    const mocks = realisticMocks({
        project: options.config["gcp:project"] ?? PLACEHOLDER_PROJECT,
        awsRegion: options.config["aws:region"],
        stack: options.stack,
        invokes: options.invokes,
        onInvoke: (invoke) => invokes.push(invoke),
    });
    const recorder = new ResourceRecorder(new MockMonitor(mocks), UNSUPPORTED_FEATURES, options.onResource, gcpNameInputs(programDir));

    // The SDK's own entry points, wrapped for the run: every resource the program constructs (to name the ones that
    // never register) and every error it logs (the language host fails a run that logged one).
    const runtimeResource = require(path.join(sdkDir, "runtime", "resource")) as RuntimeResourceModule;
    const log = require(path.join(sdkDir, "log")) as LogModule;
    const { registerResource } = runtimeResource;
    const logError = log.error;
    const constructed: Array<{ res: ProgramResource; type: string; name: string; props: unknown }> = [];
    const loggedErrors: string[] = [];
    runtimeResource.registerResource = (res, parent, type, name, ...rest) => {
        // registerResource(res, parent, t, name, custom, remote, newDependency, props, ...) (runtime/resource.js:399).
        constructed.push({ res, type, name, props: rest[3] });
        return registerResource(res, parent, type, name, ...rest);
    };
    log.error = (message, ...rest) => {
        loggedErrors.push(message.trim() !== "" ? message : "(an empty message)");
        return logError(message, ...rest);
    };

    // A StackReference's outputs are unknown offline: read as an Output they stay unknown, as a preview keeps them; read
    // as a plain value (requireOutputValue, getOutputValue, getOutputDetails) the program would get undefined, so that
    // read stops the run in one line naming the reference and the output.
    const stackReference = programModule<{ StackReference: { prototype: StackReferenceMethods } }>(
        programDir,
        "@pulumi/pulumi/stackReference",
    )?.StackReference.prototype;
    const readOutputValue = stackReference?.readOutputValue;
    if (stackReference && readOutputValue) {
        stackReference.readOutputValue = async function (this: { __name?: string }, caller: string, output: string) {
            throw new ProgramError(
                `StackReference ${this.__name ?? "(unnamed)"} reads output ${JSON.stringify(output)} with ${caller.replace(/Sync$/, "Value")}: another stack's outputs have no offline answer; read it with getOutput (an Output the preview keeps unknown), or pass the value as configuration`,
            );
        };
    }

    // The Kubernetes SDK's v1 components render their objects as the program runs. Where the preview cannot see them
    // (a chart or kustomization the provider renders, a ConfigFile whose URL does not answer), a look-up of one of their
    // objects (`getResource`, `getResourceProperty`) is unknown, as any value a preview cannot know, and the component is
    // reported as not rendered.
    const unreadable = new Map<ProgramResource, { type: string; name: string; reason: string }>();
    const collection = programModule<{ CollectionComponentResource: { prototype: CollectionComponentResource } }>(
        programDir,
        "@pulumi/kubernetes/yaml/yaml",
    )?.CollectionComponentResource.prototype;
    const getResourceImpl = collection?.getResourceImpl;
    if (collection && getResourceImpl) {
        collection.getResourceImpl = function (...args) {
            // Decided once the component's objects are in: a ConfigFile learns only then that its URL did not answer.
            return getResourceImpl
                .apply(this, args)
                .apply((object) =>
                    object === undefined && (INVOKE_RENDERED_TYPES.has(this.__pulumiType) || unreadable.has(this))
                        ? new sdk.Output(
                              new Set([this]),
                              Promise.resolve(undefined),
                              Promise.resolve(false),
                              Promise.resolve(false),
                              Promise.resolve(new Set([this])),
                          )
                        : object,
                );
        };
    }
    const { fetch } = globalThis;
    // The fetches still under way: a ConfigFile (v1) reads its URL as the program runs, and registers what it read
    // after the program's own code has returned.
    const fetching = new Set<Promise<Response>>();
    const fetchObjects = async (input: Parameters<typeof fetch>[0], init: Parameters<typeof fetch>[1]): Promise<Response> => {
        try {
            return await fetch(input, init);
        } catch (err) {
            const url = input instanceof Request ? input.url : String(input);
            const file = constructed.find(
                (candidate) => candidate.type === CONFIG_FILE_V1 && (candidate.props as { file?: unknown } | undefined)?.file === url,
            );
            if (!file) {
                throw err;
            }
            // undici's `fetch failed` says why in its cause (Error objects may come from another realm: no instanceof).
            const failure = err as { message?: unknown; cause?: { message?: unknown } };
            const cause = String(failure.cause?.message ?? failure.message);
            unreadable.set(file.res, {
                type: file.type,
                name: file.name,
                reason: `fetching ${url} failed (${cause}), so the offline preview could not read its objects`,
            });
            // No objects: the program goes on, as it would have with an empty file.
            return new Response("");
        }
    };
    globalThis.fetch = (input, init) => {
        const answer = fetchObjects(input, init);
        fetching.add(answer);
        answer.then(
            () => fetching.delete(answer),
            () => fetching.delete(answer),
        );
        return answer;
    };

    // A failed registration or a rejected apply surfaces as an unhandled rejection (the real language host exits on
    // it); the run stops there instead of waiting for registrations that will never complete.
    let stopOnFailure: (reason: unknown) => void = () => undefined;
    const firstFailure = new Promise<never>((_, reject) => (stopOnFailure = reject));
    const onRejection = (reason: unknown) => stopOnFailure(reason);
    process.on("unhandledRejection", onRejection);
    /** The resources the program constructed that have not registered. */
    const unregistered = () => {
        const registered = new Set(recorder.resources.map((resource) => `${resource.type}::${resource.name}`));
        return constructed.filter((resource) => !registered.has(`${resource.type}::${resource.name}`));
    };
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
            const pending = unregistered();
            reject(
                new ProgramError(
                    pending.length > 0
                        ? `the program did not finish within ${timeoutSeconds} s: ${pending.map((resource) => `${resource.type} ${resource.name}`).join(", ")} never registered, ` +
                              "each waiting on an input or dependsOn that never resolves (an Output that never resolves, or resources that wait for each other)"
                        : `the program did not finish within ${timeoutSeconds} s: every resource it created registered, but its own code was still running (a promise it awaits that does not settle in time); --program-timeout gives it longer`,
                ),
            );
        }, timeoutSeconds * 1000);
    });

    /**
     * A failure that comes of a call the offline preview has no answer for, as one line: the call, and the resources
     * whose registration failed with it. The SDK reports it once for each resource and prefixes each property it
     * fails on, again and again (runtime/rpc.js:138-145).
     */
    const unansweredFailure = async (failure: unknown): Promise<ProgramError | undefined> => {
        const message = failure instanceof Error ? failure.message : String(failure);
        // The call this failure reports, among every one the preview had no answer for.
        const unanswered = recorder.unanswered.find((candidate) => message.includes(candidate.details));
        if (unanswered === undefined) {
            return undefined;
        }
        const outcomes = await Promise.all(
            unregistered().map(async (resource) => {
                const failed = await Promise.race([
                    resource.res.urn.promise().then(
                        () => false,
                        (err: unknown) => String((err as Error | undefined)?.message ?? err).includes(unanswered.details),
                    ),
                    settle().then(() => false),
                ]);
                return failed ? resource : undefined;
            }),
        );
        // Named by type, then the names of that type: `gcp:compute/network:Network a, b`.
        const failed = new Map<string, string[]>();
        for (const resource of outcomes) {
            if (resource) {
                failed.set(resource.type, [...(failed.get(resource.type) ?? []), resource.name]);
            }
        }
        const resources = [...failed].map(([type, names]) => `${type} ${names.join(", ")}`).join("; ");
        return new ProgramError(resources ? `${resources} could not register: ${unanswered.details}` : unanswered.details, {
            cause: failure,
        });
    };

    // The program's own error is kept out of the SDK's stack promise (which other code chains on and would leave
    // rejected), and raised once the stack has settled, as a failed update reports it.
    let programError: { error: unknown } | undefined;
    try {
        sdk.runtime.setAllConfig(options.config, options.secretKeys ?? []);
        sdk.runtime.setMockOptions(recorder.monitor, options.projectName, options.stack, true, LOCAL_ORGANIZATION);
        const run = async () => {
            await sdk.runtime.runInPulumiStack(async () => {
                try {
                    return await program();
                } catch (error) {
                    programError = { error };
                    return undefined;
                }
            });
            // Done once every fetch has answered or failed, and what came of it has registered.
            do {
                await Promise.allSettled([...fetching]);
                await sdk.runtime.waitForRPCs();
                await settle();
            } while (fetching.size > 0);
        };
        try {
            await Promise.race([run(), firstFailure, stuck]);
        } catch (err) {
            throw (await unansweredFailure(err)) ?? err;
        }
        if (programError !== undefined) {
            throw (await unansweredFailure(programError.error)) ?? programError.error;
        }
    } finally {
        clearTimeout(timer);
        process.off("unhandledRejection", onRejection);
        runtimeResource.registerResource = registerResource;
        log.error = logError;
        globalThis.fetch = fetch;
        if (stackReference && readOutputValue) {
            stackReference.readOutputValue = readOutputValue;
        }
        if (collection && getResourceImpl) {
            collection.getResourceImpl = getResourceImpl;
        }
    }
    if (loggedErrors.length > 0) {
        const logged = loggedErrors.join("; ");
        throw (
            (await unansweredFailure(logged)) ??
            new ProgramError(
                `the program logged ${loggedErrors.length === 1 ? "an error" : `${loggedErrors.length} errors`}, which fails a real run: ${logged}`,
            )
        );
    }
    const unread = [
        ...(await Promise.all([...unreadable].map(async ([res, component]) => ({ urn: await res.urn.promise(), ...component })))),
        // pulumi preview reads the other stack's outputs; offline they are unknown, so an apply on them never runs.
        ...recorder.stackReferences.map(({ urn, name, stack }) => ({
            urn,
            type: "pulumi:pulumi:StackReference",
            name,
            reason: `the outputs of stack ${stack} are unknown offline: whatever the program builds from them inside an apply is not previewed or judged`,
        })),
    ];
    const stackResource = recorder.resources.find((resource) => resource.type === sdk.runtime.rootPulumiStackTypeName);
    return { resources: recorder.resources, invokes, outputs: (stackResource && recorder.outputs.get(stackResource.urn)) ?? {}, unread };
}

/** How {@link runOffline} runs a stack besides its directory and name. */
export interface OfflineOptions {
    /** `key=value` overrides, like `pulumi -c`. */
    overrides?: readonly string[];
    /** `key=value` overrides that are secrets. */
    secretOverrides?: readonly string[];
    /** Runs a stack that has no stack file, with project defaults and overrides alone. */
    allowBareStack?: boolean;
    timeoutSeconds?: number;
    /** Hears the project and stack once they are read, before the program runs. */
    onProject?: (project: ProjectRun) => void;
    /** Hears each resource as it registers (the stack's components' expanded objects come after the run). */
    onResource?: (resource: RecordedResource) => void;
}

/**
 * Runs the Pulumi program in `dir` as a preview of `stack` under mocks, recording every
 * resource it registers.
 */
export async function runOffline(dir: string, stack: string, options: OfflineOptions = {}): Promise<OfflineRun> {
    const { overrides = [], secretOverrides = [], allowBareStack = false, timeoutSeconds = DEFAULT_PROGRAM_TIMEOUT_SECONDS } = options;
    const programDir = path.resolve(dir);
    const project = loadProject(programDir, stack, overrides, secretOverrides, allowBareStack);
    options.onProject?.(project);
    const notes: string[] = [];
    if (!project.hasStackFile) {
        notes.push(`no Pulumi.${stack}.yaml in ${programDir}: running with project defaults and --config values only`);
    }
    if (project.environment.length > 0) {
        notes.push(
            `Pulumi.${stack}.yaml's ESC environment (${project.environment.join(", ")}) is not read: its values need Pulumi Cloud; ` +
                "set the configuration the program needs from it with --config (or --secret)",
        );
    }
    const placeholderProject = project.config["gcp:project"] === undefined;
    if (placeholderProject) {
        project.config["gcp:project"] = PLACEHOLDER_PROJECT;
    }
    const cwd = process.cwd();
    // Pulumi runs programs from their project directory; relative reads must resolve there.
    process.chdir(programDir);
    try {
        const recording = await recordResources(
            {
                projectName: project.projectName,
                stack,
                config: project.config,
                secretKeys: project.secretKeys,
                programDir,
                onResource: options.onResource,
            },
            async () => {
                const loaded = require(project.main) as { default?: unknown; __esModule?: boolean };
                const entry = loaded.__esModule && "default" in loaded ? loaded.default : loaded;
                return typeof entry === "function" ? await (entry as () => unknown)() : loaded;
            },
            timeoutSeconds,
        );
        // The placeholder matters only to a program that uses GCP: its resources, its provider or its functions.
        if (
            placeholderProject &&
            (recording.resources.some((resource) => isGcp(resource.type)) || recording.invokes.some((invoke) => isGcp(invoke.token)))
        ) {
            notes.push(
                `gcp:project is not set: using the placeholder "${PLACEHOLDER_PROJECT}" (pulumi up needs \`pulumi config set gcp:project <PROJECT_ID>\`)`,
            );
        }
        const expansion = expandComponents(recording.resources, programDir);
        return {
            project,
            ...recording,
            resources: [...recording.resources, ...expansion.resources],
            notes: [...notes, ...expansion.notes],
            unrendered: [...expansion.unrendered, ...expansion.unread, ...recording.unread].sort((a, b) =>
                a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0,
            ),
        };
    } finally {
        process.chdir(cwd);
    }
}

/** Whether a resource type or function token is the GCP provider's. */
function isGcp(token: string): boolean {
    return token.startsWith("gcp:") || token === "pulumi:providers:gcp";
}
