import * as path from "path";
import { UnrenderedChart, expandComponents } from "./expand";
import { InvokeAnswer, RecordedInvoke } from "./invokes";
import { realisticMocks } from "./mocks";
import { ProjectRun, loadProject } from "./project";
import { RecordedResource, ResourceRecorder } from "./recorder";

/** `gcp:project` the program sees when the stack sets none (a real `pulumi up` requires one). */
export const PLACEHOLDER_PROJECT = "offline-preview-project";

/** What a program registered when run under the mocks, with the objects of its YAML components and verbatim charts. */
export interface OfflineRun extends Recording {
    project: ProjectRun;
    /** Things the user should know about this run (placeholders used, missing stack file). */
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
}

/** Resources, invokes and stack outputs a program registered. */
export interface Recording {
    resources: RecordedResource[];
    /** Every provider function the program called, in order. */
    invokes: RecordedInvoke[];
    outputs: Record<string, unknown>;
}

/**
 * Runs `program` as the body of a stack, as a preview under the realistic mocks, and
 * returns what it registered. Rejects with the program's error, or with the first failed
 * registration.
 */
export async function recordResources(options: RecordOptions, program: () => unknown): Promise<Recording> {
    const sdkDir = programSdkDir(options.programDir ?? __dirname);
    const sdk = require(sdkDir) as Sdk;
    const { MockMonitor } = require(path.join(sdkDir, "runtime", "mocks")) as { MockMonitor: new (mocks: unknown) => never };
    const invokes: RecordedInvoke[] = [];
    const mocks = realisticMocks({
        project: options.config["gcp:project"] ?? PLACEHOLDER_PROJECT,
        stack: options.stack,
        invokes: options.invokes,
        onInvoke: (invoke) => invokes.push(invoke),
    });
    const recorder = new ResourceRecorder(new MockMonitor(mocks), UNSUPPORTED_FEATURES);

    // A failed registration surfaces as an unhandled rejection (the real language host exits on it); the run stops
    // there instead of waiting for registrations that will never complete.
    let stopOnFailure: (reason: unknown) => void = () => undefined;
    const firstFailure = new Promise<never>((_, reject) => (stopOnFailure = reject));
    const onRejection = (reason: unknown) => stopOnFailure(reason);
    process.on("unhandledRejection", onRejection);
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
        };
        await Promise.race([run(), firstFailure]);
    } finally {
        process.off("unhandledRejection", onRejection);
    }
    if (programError !== undefined) {
        throw programError.error;
    }
    const stackResource = recorder.resources.find((resource) => resource.type === sdk.runtime.rootPulumiStackTypeName);
    return { resources: recorder.resources, invokes, outputs: (stackResource && recorder.outputs.get(stackResource.urn)) ?? {} };
}

/**
 * Runs the Pulumi program in `dir` as a preview of `stack` under mocks, recording every
 * resource it registers.
 */
export async function runOffline(dir: string, stack: string, overrides: readonly string[], secretOverrides: readonly string[] = []): Promise<OfflineRun> {
    const programDir = path.resolve(dir);
    const project = loadProject(programDir, stack, overrides, secretOverrides);
    const notes: string[] = [];
    if (!project.hasStackFile) {
        notes.push(`no Pulumi.${stack}.yaml in ${programDir}: running with project defaults and --config values only`);
    }
    if (project.config["gcp:project"] === undefined) {
        project.config["gcp:project"] = PLACEHOLDER_PROJECT;
        notes.push(`gcp:project is not set: using the placeholder "${PLACEHOLDER_PROJECT}" (pulumi up needs \`pulumi config set gcp:project <PROJECT_ID>\`)`);
    }
    const cwd = process.cwd();
    // Pulumi runs programs from their project directory; relative reads must resolve there.
    process.chdir(programDir);
    try {
        const recording = await recordResources(
            { projectName: project.projectName, stack, config: project.config, secretKeys: project.secretKeys, programDir },
            async () => {
                const loaded = require(project.main) as { default?: unknown; __esModule?: boolean };
                const entry = loaded.__esModule && "default" in loaded ? loaded.default : loaded;
                return typeof entry === "function" ? await (entry as () => unknown)() : loaded;
            },
        );
        const expansion = expandComponents(recording.resources, programDir);
        return {
            project,
            ...recording,
            resources: [...recording.resources, ...expansion.resources],
            notes,
            unrendered: [...expansion.unrendered, ...expansion.unread].sort((a, b) => (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0)),
        };
    } finally {
        process.chdir(cwd);
    }
}
