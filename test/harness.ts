import * as k8s from "@pulumi/kubernetes";
import { InvokeAnswer } from "../scripts/offline/invokes";
import { RecordedResource } from "../scripts/offline/recorder";
import { Recording, recordResources } from "../scripts/offline/run";

/** The project's config namespace. */
export const PROJECT = "gke-tpu-inference";

/** Config every test stack starts from: a real-looking project and nothing else. */
export const BASE_CONFIG: Record<string, string> = { "gcp:project": "acme-inference" };

/** A recorded program, with look-ups that fail loudly when a resource is missing. */
export class Graph {
    constructor(readonly recording: Recording) {}

    get resources(): RecordedResource[] {
        return this.recording.resources;
    }

    /** The one resource of `type` named `name`. */
    get(type: string, name: string): RecordedResource {
        const found = this.resources.filter((resource) => resource.type === type && resource.name === name);
        if (found.length !== 1) {
            const known = this.resources.map((resource) => `${resource.type} ${resource.name}`).join("\n  ");
            throw new Error(`expected one ${type} named ${name}, found ${found.length}; registered:\n  ${known}`);
        }
        return found[0];
    }

    /** Every resource of `type`. */
    ofType(type: string): RecordedResource[] {
        return this.resources.filter((resource) => resource.type === type);
    }

    /** Names of the resources `resource` depends on, as `type name`. */
    dependencyNames(resource: RecordedResource): string[] {
        return resource.dependencies
            .map((urn) => this.resources.find((candidate) => candidate.urn === urn)!)
            .map((dependency) => `${dependency.type} ${dependency.name}`)
            .sort();
    }
}

/** A provider like the cluster's, for components tested on their own. */
export function testProvider(): k8s.Provider {
    return new k8s.Provider("k8s", { kubeconfig: "{}", enableServerSideApply: true });
}

/** How a test runs a program besides its config. */
export interface RecordOptions {
    /** Stack name (default `test`). */
    stack?: string;
    /** Invoke answers that replace the offline defaults, by token. */
    invokes?: Record<string, InvokeAnswer>;
    /** Keys of `config` that are secrets, as `pulumi config set --secret` makes them. */
    secretKeys?: string[];
}

/** Runs `program` as a stack under the offline preview's mocks, with `config` (keys without a namespace belong to the project). */
export async function record(program: () => unknown, config: Record<string, string> = {}, options: RecordOptions = {}): Promise<Graph> {
    const qualify = (key: string) => (key.includes(":") ? key : `${PROJECT}:${key}`);
    const qualified = Object.fromEntries(Object.entries({ ...BASE_CONFIG, ...config }).map(([key, value]) => [qualify(key), value]));
    return new Graph(
        await recordResources(
            {
                projectName: PROJECT,
                stack: options.stack ?? "test",
                config: qualified,
                secretKeys: (options.secretKeys ?? []).map(qualify),
                invokes: options.invokes,
            },
            program,
        ),
    );
}

/** Runs the real program (index.ts, an async entry point) in a fresh module registry. */
export function runProgram(config: Record<string, string> = {}, options: RecordOptions = {}): Promise<Graph> {
    return record(
        () => {
            let entry: unknown;
            jest.isolateModules(() => {
                entry = require("../index");
            });
            return (entry as () => Promise<unknown>)();
        },
        config,
        options,
    );
}

/** The message of the error the program run by `run` rejects with; a run that succeeds fails the test. */
export async function programFailure(run: () => Promise<Graph>): Promise<string> {
    try {
        await run();
    } catch (err) {
        return (err as Error).message;
    }
    throw new Error("the program did not fail");
}

/** URNs `resource` waits for, directly or through its dependencies and its provider. */
export function transitiveDependencies(graph: Graph, resource: RecordedResource): Set<string> {
    const byUrn = new Map(graph.resources.map((candidate) => [candidate.urn, candidate]));
    const seen = new Set<string>();
    const visit = (current: RecordedResource) => {
        const providerUrn = current.provider?.split("::").slice(0, -1).join("::");
        for (const urn of [...current.dependencies, ...(providerUrn ? [providerUrn] : [])]) {
            if (!seen.has(urn)) {
                seen.add(urn);
                visit(byUrn.get(urn)!);
            }
        }
    };
    visit(resource);
    return seen;
}
