import * as path from "path";
import { UnrenderedChart, expandComponents } from "./expand";
import type { InvokeAnswer, RecordedInvoke } from "./invokes";
import type * as MocksModule from "./mocks";
import { ProjectRun, loadProject } from "./project";
import { RecordedResource, ResourceRecorder } from "./recorder";

/** `gcp:project` the program sees when the stack sets none (a real `pulumi up` requires one). */
export const PLACEHOLDER_PROJECT = "offline-preview-project";

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
    runtime: {
        setAllConfig(config: Record<string, string>, secretKeys?: string[]): void;
        setMockOptions(monitor: unknown, project?: string, stack?: string, preview?: boolean): void;
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
}

/** A program that failed as a real `pulumi up` would report it: its own error, an error it logged, or a run that never finished. */
export class ProgramError extends Error {}

/** How long a program may take to register everything before the run is called stuck. */
export const DEFAULT_PROGRAM_TIMEOUT_SECONDS = 30;

interface RuntimeResourceModule {
    registerResource: (res: unknown, parent: unknown, type: string, name: string, ...rest: unknown[]) => unknown;
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
    const sdkDir = programSdkDir(options.programDir ?? __dirname);
    const sdk = require(sdkDir) as Sdk;
    const { MockMonitor } = require(path.join(sdkDir, "runtime", "mocks")) as { MockMonitor: new (mocks: unknown) => never };
    // The mocks load the program's own modules (settings, preflight, the SDK): required here, when a program runs, so
    // that a command which starts the policy pack's process first does not wait for them.
    const { realisticMocks } = require("./mocks") as typeof MocksModule;
    const invokes: RecordedInvoke[] = [];
    const mocks = realisticMocks({
        project: options.config["gcp:project"] ?? PLACEHOLDER_PROJECT,
        stack: options.stack,
        invokes: options.invokes,
        onInvoke: (invoke) => invokes.push(invoke),
    });
    const recorder = new ResourceRecorder(new MockMonitor(mocks), UNSUPPORTED_FEATURES, options.onResource);

    // The SDK's own entry points, wrapped for the run: every resource the program constructs (to name the ones that
    // never register) and every error it logs (the language host fails a run that logged one).
    const runtimeResource = require(path.join(sdkDir, "runtime", "resource")) as RuntimeResourceModule;
    const log = require(path.join(sdkDir, "log")) as LogModule;
    const { registerResource } = runtimeResource;
    const logError = log.error;
    const constructed: Array<{ type: string; name: string }> = [];
    const loggedErrors: string[] = [];
    runtimeResource.registerResource = (res, parent, type, name, ...rest) => {
        constructed.push({ type, name });
        return registerResource(res, parent, type, name, ...rest);
    };
    log.error = (message, ...rest) => {
        loggedErrors.push(message);
        return logError(message, ...rest);
    };

    // A failed registration or a rejected apply surfaces as an unhandled rejection (the real language host exits on
    // it); the run stops there instead of waiting for registrations that will never complete.
    let stopOnFailure: (reason: unknown) => void = () => undefined;
    const firstFailure = new Promise<never>((_, reject) => (stopOnFailure = reject));
    const onRejection = (reason: unknown) => stopOnFailure(reason);
    process.on("unhandledRejection", onRejection);
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
            const registered = new Set(recorder.resources.map((resource) => `${resource.type}::${resource.name}`));
            const pending = constructed.filter((resource) => !registered.has(`${resource.type}::${resource.name}`));
            reject(
                new ProgramError(
                    `the program did not finish within ${timeoutSeconds} s: ${pending.map((resource) => `${resource.type} ${resource.name}`).join(", ") || "no resource"} never registered, ` +
                        "each waiting on an input or dependsOn that never resolves (an Output that never resolves, or resources that wait for each other)",
                ),
            );
        }, timeoutSeconds * 1000);
    });
    // The program's own error is kept out of the SDK's stack promise (which other code chains on and would leave
    // rejected), and raised once the stack has settled, as a failed update reports it.
    let programError: { error: unknown } | undefined;
    try {
        sdk.runtime.setAllConfig(options.config, options.secretKeys ?? []);
        sdk.runtime.setMockOptions(recorder.monitor, options.projectName, options.stack, true);
        const run = async () => {
            await sdk.runtime.runInPulumiStack(async () => {
                try {
                    return await program();
                } catch (error) {
                    programError = { error };
                    return undefined;
                }
            });
            await sdk.runtime.waitForRPCs();
            await settle();
        };
        await Promise.race([run(), firstFailure, stuck]);
    } finally {
        clearTimeout(timer);
        process.off("unhandledRejection", onRejection);
        runtimeResource.registerResource = registerResource;
        log.error = logError;
    }
    if (programError !== undefined) {
        throw programError.error;
    }
    if (loggedErrors.length > 0) {
        throw new ProgramError(
            `the program logged ${loggedErrors.length === 1 ? "an error" : `${loggedErrors.length} errors`}, which fails a real run: ${loggedErrors.join("; ")}`,
        );
    }
    const stackResource = recorder.resources.find((resource) => resource.type === sdk.runtime.rootPulumiStackTypeName);
    return { resources: recorder.resources, invokes, outputs: (stackResource && recorder.outputs.get(stackResource.urn)) ?? {} };
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
    if (project.config["gcp:project"] === undefined) {
        project.config["gcp:project"] = PLACEHOLDER_PROJECT;
        notes.push(
            `gcp:project is not set: using the placeholder "${PLACEHOLDER_PROJECT}" (pulumi up needs \`pulumi config set gcp:project <PROJECT_ID>\`)`,
        );
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
        const expansion = expandComponents(recording.resources, programDir);
        return {
            project,
            ...recording,
            resources: [...recording.resources, ...expansion.resources],
            notes: [...notes, ...expansion.notes],
            unrendered: [...expansion.unrendered, ...expansion.unread].sort((a, b) => (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0)),
        };
    } finally {
        process.chdir(cwd);
    }
}
