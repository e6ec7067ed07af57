/**
 * The project's architecture as data, and the checks `architecture.test.ts` runs on it: which folder may import which
 * (the layer table), that the imports form no cycle, and that no source file outgrows what one reader holds.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";

/**
 * The program's layers, lowest first: a file imports only from its own layer or a lower one. `index.ts` sits on top.
 * - components/lib: pure helpers (per-stack GCP names, CIDR ranges, "did you mean", shell quoting, gs:// URIs, the stack
 *   file as the CLI reads it, pinned chart arguments, Workload Identity principals).
 * - components/settings: every setting declared once with its rules, by area, and the check of a whole stack; the
 *   gateway providers' descriptors.
 * - components/serving: pure builders from the settings (the vLLM and EPP containers, the route template, the KEDA
 *   ScaledObject, the cold-start estimate, the TPU bill).
 * - components/infrastructure: GCP (project APIs, the live facts read at preview, network, cluster, TPU capacity, the
 *   model store).
 * - components/platform: the cluster's platform (cert-manager, LeaderWorkerSet, KServe, the webhook probes, Istio, KEDA,
 *   the serving namespace).
 * - components/gateway: the inference Gateway and what extends it.
 * - components/workloads: the model services, their weights and the copy Job's script.
 * - components/fleet: a fleet's own parts: the clusters' registration, each member's exported pools, and the config
 *   cluster's multi-cluster Gateway with its routes and policies to the imports.
 * - components/observability: the dashboard and alerts.
 * - components/stack: the stack's stages (one per layer, for one cluster), run for a single cluster or for each member
 *   of a fleet, and each kind of stack's outputs; index.ts chooses which.
 */
export const PROGRAM_LAYERS: readonly string[] = [
    "components/lib",
    "components/settings",
    "components/serving",
    "components/infrastructure",
    "components/platform",
    "components/gateway",
    "components/workloads",
    "components/fleet",
    "components/observability",
    "components/stack",
    "index.ts",
];

/** The published facts package (`@gke-tpu-inference/facts`): the program, the pack and the scripts read it. */
export const FACTS_PACKAGE = { name: "@gke-tpu-inference/facts", dir: "policies/facts", entry: "policies/facts/index.ts" };

/** Where a project file belongs, for the import rules. */
export type Area =
    | { kind: "program"; layer: number; name: string }
    | { kind: "facts" | "policies" | "scripts" | "test" | "config"; name: string }
    | { kind: "unplaced"; name: string };

/** The area of a project file (a path relative to the repository's root, with `/`). */
export function areaOf(file: string): Area {
    const layer = PROGRAM_LAYERS.findIndex((prefix) => file === prefix || file.startsWith(`${prefix}/`));
    if (layer >= 0) return { kind: "program", layer: layer + 1, name: PROGRAM_LAYERS[layer] };
    if (file.startsWith(`${FACTS_PACKAGE.dir}/`)) return { kind: "facts", name: FACTS_PACKAGE.dir };
    if (file.startsWith("policies/")) return { kind: "policies", name: "policies" };
    if (file.startsWith("scripts/")) return { kind: "scripts", name: "scripts" };
    if (file.startsWith("test/")) return { kind: "test", name: "test" };
    if (!file.includes("/")) return { kind: "config", name: file };
    return { kind: "unplaced", name: file };
}

/** Why `from` may not import `to`, or undefined when it may. */
export function forbidden(from: Area, to: Area): string | undefined {
    if (from.kind === "unplaced") return "the file is in no layer of the table";
    if (to.kind === "unplaced") return "the imported file is in no layer of the table";
    // The facts describe the world; they know nothing of the program, the pack or the tools that read them.
    if (from.kind === "facts") return to.kind === "facts" ? undefined : "the facts package imports only itself";
    // The published pack runs without the program: it reads the facts and its own helpers.
    if (from.kind === "policies") {
        return to.kind === "policies" || to.kind === "facts" ? undefined : "the policy pack imports only policies/ and the facts";
    }
    if (from.kind === "program") {
        if (to.kind === "facts") return undefined;
        if (to.kind !== "program") return `the program imports only its own layers and the facts, not ${to.name}`;
        return to.layer <= from.layer ? undefined : `${to.name} (layer ${to.layer}) is above ${from.name} (layer ${from.layer})`;
    }
    // The tools sit on top: they read the components, the facts and the pack (whose policies the docs list), never the stack.
    if (from.kind === "scripts") {
        return ["scripts", "facts", "policies"].includes(to.kind) || (to.kind === "program" && to.name !== "index.ts")
            ? undefined
            : `scripts import the components, the facts, the pack and each other, not ${to.name}`;
    }
    // Tests and the root's configuration files may read anything.
    return undefined;
}

/** Files and what each imports, as project-relative paths. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** One import the layer table refuses. */
export interface LayerViolation {
    file: string;
    imports: string;
    why: string;
}

/** Every import of `graph` the layer table refuses. */
export function layerViolations(graph: ImportGraph): LayerViolation[] {
    const violations: LayerViolation[] = [];
    for (const [file, imports] of graph) {
        for (const imported of imports) {
            const why = forbidden(areaOf(file), areaOf(imported));
            if (why !== undefined) violations.push({ file, imports: imported, why });
        }
    }
    return violations;
}

/** Every import cycle of `graph`, each as the path that closes it (`a → b → a`), one per strongly connected group of files. */
export function importCycles(graph: ImportGraph): string[][] {
    // Tarjan's strongly connected components, iteratively deep enough for any repository.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const groups: string[][] = [];
    let next = 0;
    const visit = (start: string) => {
        const work: Array<{ node: string; edges: readonly string[]; at: number }> = [];
        const enter = (node: string) => {
            index.set(node, next);
            low.set(node, next++);
            stack.push(node);
            onStack.add(node);
            work.push({ node, edges: graph.get(node) ?? [], at: 0 });
        };
        enter(start);
        while (work.length > 0) {
            const frame = work[work.length - 1];
            if (frame.at < frame.edges.length) {
                const to = frame.edges[frame.at++];
                if (!index.has(to)) enter(to);
                else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
                continue;
            }
            work.pop();
            if (work.length > 0) {
                const parent = work[work.length - 1].node;
                low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
            }
            if (low.get(frame.node) === index.get(frame.node)) {
                const group: string[] = [];
                let member: string;
                do {
                    member = stack.pop()!;
                    onStack.delete(member);
                    group.push(member);
                } while (member !== frame.node);
                const selfLoop = (graph.get(frame.node) ?? []).includes(frame.node);
                if (group.length > 1 || selfLoop) groups.push(group);
            }
        }
    };
    for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
    return groups.map((group) => cyclePath(graph, new Set(group)));
}

/** A shortest path from the group's first file (by name) back to itself, through the group. */
function cyclePath(graph: ImportGraph, group: Set<string>): string[] {
    const start = [...group].sort()[0];
    const cameFrom = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0) {
        const node = queue.shift()!;
        for (const to of graph.get(node) ?? []) {
            if (!group.has(to)) continue;
            if (to === start) {
                const chain: string[] = [];
                for (let at = node; at !== start; at = cameFrom.get(at)!) chain.unshift(at);
                return [start, ...chain, start];
            }
            if (!cameFrom.has(to)) {
                cameFrom.set(to, node);
                queue.push(to);
            }
        }
    }
    return [start, start];
}

const CODE = /\.(?:ts|js|mjs|cjs)$/;
const RESOLVED_EXTENSIONS = ["", ".ts", ".js", ".mjs", ".cjs", "/index.ts", "/index.js"];

/** The project file `specifier` names from `file`, or undefined for a package's or Node's module. */
export function resolveImport(file: string, specifier: string, exists: (file: string) => boolean): string | undefined {
    if (specifier === FACTS_PACKAGE.name) return FACTS_PACKAGE.entry;
    if (specifier.startsWith(`${FACTS_PACKAGE.name}/`)) {
        return resolveImport(FACTS_PACKAGE.entry, `./${specifier.slice(FACTS_PACKAGE.name.length + 1)}`, exists);
    }
    if (!specifier.startsWith(".")) return undefined;
    const base = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
    const found = RESOLVED_EXTENSIONS.map((extension) => `${base}${extension}`).find(
        (candidate) => CODE.test(candidate) && exists(candidate),
    );
    // A relative import of something else (a JSON file, a Python script read as text) is no code edge.
    return found;
}

/** What `source` imports, statically, dynamically or through `require`. */
export function importSpecifiers(source: string): string[] {
    return ts.preProcessFile(source, true, true).importedFiles.map((imported) => imported.fileName);
}

/** The repository's files, as git sees them (tracked, and new ones not ignored): build output and dependencies stay out. */
export function projectFiles(root: string): string[] {
    const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd: root, encoding: "utf8" });
    return listed
        .split("\0")
        .filter((file) => file !== "" && fs.existsSync(path.join(root, file)))
        .sort();
}

/** True for files of programs this project did not write, or that stand in for them: fixtures, and the corpus's public programs. */
function isOtherProgram(file: string): boolean {
    return file.startsWith("test/fixtures/") || file.startsWith("test/corpus/programs/");
}

/** The import graph of the project's code files (fixtures, which stand in for other programs, left out). */
export function projectImportGraph(root: string, files: readonly string[]): Map<string, string[]> {
    const code = files.filter((file) => CODE.test(file) && !isOtherProgram(file));
    const known = new Set(code);
    const graph = new Map<string, string[]>();
    for (const file of code) {
        const source = fs.readFileSync(path.join(root, file), "utf8");
        const imports = importSpecifiers(source)
            .map((specifier) => resolveImport(file, specifier, (candidate) => known.has(candidate)))
            .filter((imported): imported is string => imported !== undefined);
        graph.set(file, [...new Set(imports)]);
    }
    return graph;
}

/** Source files whose size is checked: code in the languages the project writes, fixtures (other programs) left out. */
export function sizedSourceFiles(files: readonly string[]): string[] {
    return files.filter((file) => /\.(?:ts|js|mjs|cjs|py)$/.test(file) && !isOtherProgram(file));
}

/** Lines of `text`, a final newline ending the last rather than starting another. */
export function lineCount(text: string): number {
    return text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** The files over `limit` lines that `allowed` does not name, with their lengths. */
export function oversizedFiles(lengths: ReadonlyMap<string, number>, limit: number, allowed: ReadonlySet<string>): string[] {
    return [...lengths].filter(([file, lines]) => lines > limit && !allowed.has(file)).map(([file, lines]) => `${file}: ${lines} lines`);
}
