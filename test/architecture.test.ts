import * as fs from "fs";
import * as path from "path";
import {
    ImportGraph,
    PROGRAM_LAYERS,
    importCycles,
    importSpecifiers,
    layerViolations,
    lineCount,
    oversizedFiles,
    projectFiles,
    projectImportGraph,
    resolveImport,
    sizedSourceFiles,
} from "./architecture";

const ROOT = path.resolve(__dirname, "..");

/** A source file longer than this is split along its sections. */
const MAX_LINES = 500;

/**
 * Files allowed over {@link MAX_LINES}, each with why. Only data that reads as one table (a catalog section whose
 * entries cite their sources side by side), a file a tool writes, or tests that walk one such table or one lesson's
 * category case by case may stand here; code is split instead.
 */
const ALLOWED_OVER_LIMIT: ReadonlyMap<string, string> = new Map<string, string>([
    [
        "test/lessons/open-endpoint.test.ts",
        "one lesson's whole category: every way a Gateway, an Ingress or a LoadBalancer Service exposes vLLM",
    ],
    ["test/lessons/tpu-selector.test.ts", "one lesson's whole category: every way a TPU pod selects nodes, pools and capacity"],
    ["test/scripts/replacements.test.ts", "a case per resource type the stacks emit, as the replacement catalog's sources require"],
    ["test/scripts/diff.test.ts", "the diff's cases between real previews, which share their recorded stacks"],
    [
        "test/runtimeContracts/iam.ts",
        "one table: every permission of each role the stack grants, as iann0036/iam-dataset lists them at the commit its source names",
    ],
]);

const files = projectFiles(ROOT);
const graph = projectImportGraph(ROOT, files);

/** A graph from literal edges. */
const graphOf = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

describe("the layer table", () => {
    test("every import of the program, the pack, the facts and the scripts points to the same or a lower layer", () => {
        const problems = layerViolations(graph).map(({ file, imports, why }) => `${file} imports ${imports}: ${why}`);
        expect(problems).toEqual([]);
    });

    test("every layer of the table holds code, and every file of components/ sits in a layer", () => {
        for (const layer of PROGRAM_LAYERS)
            expect([layer, files.some((file) => file === layer || file.startsWith(`${layer}/`))]).toEqual([layer, true]);
        const unplaced = files.filter(
            (file) => file.startsWith("components/") && !PROGRAM_LAYERS.some((layer) => file.startsWith(`${layer}/`)),
        );
        expect(unplaced).toEqual([]);
    });

    test("the checker refuses an import upwards, into scripts/, from the pack to the program, and out of the facts", () => {
        const bad = graphOf({
            "components/platform/kserve.ts": ["components/lib/names.ts", "components/gateway/provider.ts"],
            "components/lib/names.ts": ["scripts/cli.ts"],
            "policies/support.ts": ["policies/facts/index.ts", "components/lib/names.ts"],
            "policies/facts/index.ts": ["policies/support.ts"],
            "scripts/cli.ts": ["components/lib/names.ts", "policies/facts/index.ts", "index.ts"],
            "components/stray.ts": [],
        });
        expect(layerViolations(bad).map(({ file, imports }) => `${file} -> ${imports}`)).toEqual([
            "components/platform/kserve.ts -> components/gateway/provider.ts",
            "components/lib/names.ts -> scripts/cli.ts",
            "policies/support.ts -> components/lib/names.ts",
            "policies/facts/index.ts -> policies/support.ts",
            "scripts/cli.ts -> index.ts",
        ]);
        expect(layerViolations(graphOf({ "components/platform/kserve.ts": ["components/gateway/provider.ts"] }))[0].why).toBe(
            "components/gateway (layer 6) is above components/platform (layer 5)",
        );
        expect(layerViolations(graphOf({ "components/stray.ts": ["components/lib/names.ts"] }))[0].why).toBe(
            "the file is in no layer of the table",
        );
    });

    test("imports are read as the compiler reads them, and resolved to the project's files", () => {
        const source = [
            'import * as a from "./a";',
            'import type { B } from "../lib/b";',
            'export { c } from "./c";',
            'const d = require("./d");',
            'const e = () => import("@gke-tpu-inference/facts");',
            'import * as fs from "fs";',
        ].join("\n");
        expect(importSpecifiers(source)).toEqual(["./a", "../lib/b", "./c", "./d", "@gke-tpu-inference/facts", "fs"]);
        const exists = (file: string) => ["components/gateway/a.ts", "components/lib/index.ts", "policies/facts/index.ts"].includes(file);
        expect(resolveImport("components/gateway/x.ts", "./a", exists)).toBe("components/gateway/a.ts");
        expect(resolveImport("components/gateway/x.ts", "../lib", exists)).toBe("components/lib/index.ts");
        expect(resolveImport("components/gateway/x.ts", "@gke-tpu-inference/facts", exists)).toBe("policies/facts/index.ts");
        expect(resolveImport("components/gateway/x.ts", "fs", exists)).toBeUndefined();
    });

    test("test/components/ mirrors the layer folders: each component's tests sit under its layer's name", () => {
        const layers = PROGRAM_LAYERS.filter((layer) => layer.startsWith("components/")).map((layer) => `test/${layer}`);
        const testFolders = [
            ...new Set(files.filter((file) => file.startsWith("test/components/")).map((file) => path.posix.dirname(file))),
        ];
        expect(testFolders.filter((folder) => !layers.includes(folder))).toEqual([]);
    });

    test("the graph covers the program: index.ts reaches every layer", () => {
        const reached = new Set<string>();
        const walk = (file: string) => {
            if (reached.has(file)) return;
            reached.add(file);
            for (const imported of graph.get(file) ?? []) walk(imported);
        };
        walk("index.ts");
        for (const layer of PROGRAM_LAYERS.slice(0, -1))
            expect([layer, [...reached].some((file) => file.startsWith(`${layer}/`))]).toEqual([layer, true]);
    });
});

describe("import cycles", () => {
    test("the project's files import one another without a cycle", () => {
        expect(importCycles(graph).map((cycle) => cycle.join(" → "))).toEqual([]);
    });

    test("the checker reports each cycle by its path", () => {
        const cyclic = graphOf({
            "a.ts": ["b.ts"],
            "b.ts": ["c.ts", "d.ts"],
            "c.ts": ["a.ts"],
            "d.ts": [],
            "e.ts": ["e.ts"],
        });
        expect(
            importCycles(cyclic)
                .map((cycle) => cycle.join(" → "))
                .sort(),
        ).toEqual(["a.ts → b.ts → c.ts → a.ts", "e.ts → e.ts"]);
        expect(importCycles(graphOf({ "a.ts": ["b.ts"], "b.ts": ["c.ts"], "c.ts": [] }))).toEqual([]);
    });
});

describe("file sizes", () => {
    test(`no source file is over ${MAX_LINES} lines, beyond the allow-list`, () => {
        const lengths = new Map(sizedSourceFiles(files).map((file) => [file, lineCount(fs.readFileSync(path.join(ROOT, file), "utf8"))]));
        expect(oversizedFiles(lengths, MAX_LINES, new Set(ALLOWED_OVER_LIMIT.keys()))).toEqual([]);
        // An entry that no longer needs its place leaves the list.
        expect([...ALLOWED_OVER_LIMIT.keys()].filter((file) => (lengths.get(file) ?? 0) <= MAX_LINES)).toEqual([]);
    });

    test("the checker counts lines as editors do and honours only the allow-list", () => {
        expect([lineCount(""), lineCount("a"), lineCount("a\n"), lineCount("a\nb\n")]).toEqual([0, 1, 1, 2]);
        const lengths = new Map([
            ["big.ts", 501],
            ["catalog.ts", 900],
            ["small.ts", 500],
        ]);
        expect(oversizedFiles(lengths, 500, new Set(["catalog.ts"]))).toEqual(["big.ts: 501 lines"]);
        expect(sizedSourceFiles(["a.ts", "b.py", "c.js", "README.md", "test/fixtures/p/index.ts", "d.json"])).toEqual([
            "a.ts",
            "b.py",
            "c.js",
        ]);
    });
});
