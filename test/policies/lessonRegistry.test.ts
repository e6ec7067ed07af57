/**
 * The lesson registry holds the pack, the doctor and the docs to one list: every policy and every doctor check names
 * lessons of it, every lesson is enforced or diagnosed somewhere, sources are public, and the generated docs are current
 * and list every test that names a policy.
 */
import * as fs from "fs";
import * as path from "path";
import { LESSONS, LESSON_SETS, Lesson } from "../../policies/facts";
import { lessonSetConfig, policies } from "../../policies/pack";
import { DOCTOR_CHECKS, checksOfLesson } from "../../scripts/doctor/checks";
import { lessonsDocs, policySource, sourceMarkdown, testsOfLesson, testsOfPolicy } from "../../scripts/docs/lessons";
import { projectFiles, projectImportGraph } from "../architecture";

const ROOT = path.resolve(__dirname, "..", "..");
const lessons = LESSONS as readonly Lesson[];

describe("the lesson registry", () => {
    test("ids are unique and kebab-case", () => {
        const ids = lessons.map((lesson) => lesson.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids.filter((id) => !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(id))).toEqual([]);
    });

    test("every policy of the pack and every doctor check names lessons of the registry, a check at least one", () => {
        const ids = lessons.map((lesson) => lesson.id);
        expect(policies.filter((policy) => !ids.includes(policy.lesson)).map((policy) => policy.name)).toEqual([]);
        const checks = Object.entries(DOCTOR_CHECKS) as Array<[string, readonly string[]]>;
        expect(checks.filter(([, named]) => named.length === 0 || named.some((id) => !ids.includes(id)))).toEqual([]);
    });

    test("the pack's two halves split it: each lesson in one, and each half's configuration turns off exactly the other's policies", () => {
        const inference = LESSON_SETS.inference as readonly Lesson[];
        const hardening = LESSON_SETS.hardening as readonly Lesson[];
        expect([...inference, ...hardening].map((lesson) => lesson.id).sort()).toEqual(lessons.map((lesson) => lesson.id).sort());
        expect(hardening.map((lesson) => lesson.id)).toEqual([
            "workload-identity",
            "private-nodes",
            "shielded-nodes",
            "node-service-account",
            "deletion-protection",
        ]);
        const policiesOf = (half: readonly Lesson[]) =>
            policies
                .filter((policy) => half.some((lesson) => lesson.id === policy.lesson))
                .map((policy) => policy.name)
                .sort();
        expect(Object.keys(lessonSetConfig("inference")).sort()).toEqual(policiesOf(hardening));
        expect(Object.keys(lessonSetConfig("hardening")).sort()).toEqual(policiesOf(inference));
        expect(new Set([...Object.values(lessonSetConfig("inference")), ...Object.values(lessonSetConfig("hardening"))])).toEqual(
            new Set(["disabled"]),
        );
    });

    test("each lesson's tests are one file, test/lessons/<lesson id>.test.ts, and every lesson a policy enforces has one", () => {
        const files = fs.readdirSync(path.join(ROOT, "test", "lessons"));
        const ids = lessons.map((lesson) => `${lesson.id}.test.ts`);
        expect(files.filter((file) => !ids.includes(file))).toEqual([]);
        expect(policies.filter((policy) => !files.includes(`${policy.lesson}.test.ts`)).map((policy) => policy.name)).toEqual([]);
    });

    test("every lesson is enforced by a policy or diagnosed by a doctor check", () => {
        const covered = new Set<string>([...policies.map((policy) => policy.lesson), ...Object.values(DOCTOR_CHECKS).flat()]);
        expect(lessons.filter((lesson) => !covered.has(lesson.id)).map((lesson) => lesson.id)).toEqual([]);
    });

    test("every lesson says what, why and what to do, and cites public sources a reader can follow, never an internal report", () => {
        for (const lesson of lessons) {
            const texts = [lesson.title, lesson.symptom, lesson.cause, lesson.fix, lesson.prevention, ...lesson.sources];
            expect({ id: lesson.id, empty: texts.filter((text) => text.trim() === "") }).toEqual({ id: lesson.id, empty: [] });
            expect({ id: lesson.id, internal: texts.filter((text) => /\bseeds?\b|field report/i.test(text)) }).toEqual({
                id: lesson.id,
                internal: [],
            });
            expect(lesson.sources.length).toBeGreaterThan(0);
            for (const source of lesson.sources) {
                // A URL, a file of a public repository (owner/repo), or a published standard by name and version.
                expect({ source, public: /^https:\/\/|^[\w.-]+\/[\w.-]+ |^CIS .* v\d/.test(source) }).toEqual({ source, public: true });
            }
        }
    });

    test("a source in a repository at a tag links to that file at that tag, with its lines", () => {
        expect(sourceMarkdown("kserve/kserve v0.20.0 config/llmisvcconfig/config-llm-template.yaml:207-225 (probe scheme)")).toBe(
            "[kserve/kserve v0.20.0 config/llmisvcconfig/config-llm-template.yaml:207-225](https://github.com/kserve/kserve/blob/v0.20.0/config/llmisvcconfig/config-llm-template.yaml#L207-L225) (probe scheme)",
        );
        expect(sourceMarkdown("https://github.com/kserve/kserve/issues/5311 (timeouts)")).toBe(
            "<https://github.com/kserve/kserve/issues/5311> (timeouts)",
        );
        expect(sourceMarkdown("CIS Google Kubernetes Engine Benchmark v2.0.0, 5.2.1")).toBe(
            "CIS Google Kubernetes Engine Benchmark v2.0.0, 5.2.1",
        );
    });

    test("the pack stands alone: nothing under policies/ imports from outside it", () => {
        const sources = (dir: string): string[] =>
            fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
                const full = path.join(dir, entry.name);
                if (entry.isDirectory()) {
                    return ["node_modules", "bin"].includes(entry.name) ? [] : sources(full);
                }
                return entry.name.endsWith(".ts") ? [full] : [];
            });
        const outside = sources(path.join(ROOT, "policies")).flatMap((file) =>
            [...fs.readFileSync(file, "utf8").matchAll(/from "(\.[^"]*)"/g)]
                .map((match) => match[1])
                .filter((specifier) => !path.resolve(path.dirname(file), specifier).startsWith(path.join(ROOT, "policies") + path.sep))
                .map((specifier) => `${path.relative(ROOT, file)}: ${specifier}`),
        );
        expect(outside).toEqual([]);
    });
});

describe("the docs the registry writes (npm run docs:lessons)", () => {
    test("a policy's tests are the files that name it whole or import its module; a lesson's add those that name it or its doctor checks", () => {
        // A policy whose lesson the doctor diagnoses too, its names built here so that this file names none of them.
        const policy = policies.find((candidate) => checksOfLesson(candidate.lesson).length > 0)!;
        const [lesson, check, module] = [policy.lesson, checksOfLesson(policy.lesson)[0], policySource(policy.name).replace(/\.ts$/, "")];
        const files = [
            { file: `test/lessons/${lesson}.test.ts`, text: `import { rule } from "../../${module}";` },
            { file: "test/a.test.ts", text: `const { rule } = require("../${module}");` },
            { file: "test/b.test.ts", text: `"mandatory ${policy.name} @ca"` },
            { file: "test/c.test.ts", text: `"${policy.name}-v2", "x${policy.name}", import { rule } from "../${module}s"` },
            { file: "test/scripts/d.test.ts", text: `lessonById("${lesson}")` },
            { file: "test/scripts/e.test.ts", text: `see docs/lessons.md#${lesson}` },
            { file: "test/scripts/f.test.ts", text: `check: "${check}"` },
            { file: "test/scripts/g.test.ts", text: `${lesson}, ${check}, "${lesson}-v2"` },
        ];
        const ofPolicy = ["test/a.test.ts", "test/b.test.ts", `test/lessons/${lesson}.test.ts`];
        expect(testsOfPolicy(policy, files)).toEqual(ofPolicy);
        expect(
            testsOfLesson(
                lessons.find((candidate) => candidate.id === lesson)!,
                files,
            ),
        ).toEqual([...ofPolicy, "test/scripts/d.test.ts", "test/scripts/e.test.ts", "test/scripts/f.test.ts"].sort());
    });

    test.each(lessonsDocs().map((doc) => [doc.file, doc] as const))("%s is current", (_, doc) => {
        expect(doc.current).toBe(doc.expected);
    });

    test("every lesson has an anchor on docs/lessons.md, and every policy a page", () => {
        const page = fs.readFileSync(path.join(ROOT, "docs/lessons.md"), "utf8");
        expect(lessons.filter((lesson) => !page.includes(`<a id="${lesson.id}"></a>`)).map((lesson) => lesson.id)).toEqual([]);
        expect(policies.filter((policy) => !fs.existsSync(path.join(ROOT, `docs/reference/policies/${policy.name}.md`)))).toEqual([]);
    });

    describe("the tests each page lists", () => {
        const files = projectFiles(ROOT);
        const tests = files.filter((file) => file.startsWith("test/") && file.endsWith(".test.ts"));
        // Imports as the compiler reads them, where the generator reads them itself.
        const graph = projectImportGraph(ROOT, files);
        const text = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");
        /** The file that exports policy `name`, found by loading each policy module. */
        const sourceOf = (name: string) =>
            fs
                .readdirSync(path.join(ROOT, "policies"))
                .filter((file) => /^(require|disallow|enforce)[A-Z]\w*\.ts$/.test(file))
                .map((file) => `policies/${file}`)
                .find((file) =>
                    Object.values(require(path.join(ROOT, file)) as Record<string, { name?: unknown }>).some(
                        (value) => value?.name === name,
                    ),
                );
        /** The test files a generated list links, in its order. */
        const linked = (markdown: string) => [...markdown.matchAll(/\[(test\/[^\]]+\.test\.ts)\]\(/g)].map((match) => match[1]);
        const pageTests = (name: string) => linked(text(`docs/reference/policies/${name}.md`).split("\n## Tests\n")[1]);

        test.each(policies.map((policy) => policy.name))(
            "%s: every test file that names the policy or imports its module, and no other",
            (name) => {
                const source = sourceOf(name)!;
                expect(source).toBeDefined();
                const naming = tests.filter((file) => text(file).includes(name) || graph.get(file)!.includes(source));
                expect(pageTests(name)).toEqual(naming.sort());
            },
        );

        test("a lesson lists every test of its policies", () => {
            const page = text("docs/lessons.md");
            for (const lesson of lessons) {
                const entry = page.split(`<a id="${lesson.id}"></a>`)[1].split("<a id=")[0];
                const listed = linked(entry.split("- **tests**:")[1].split("\n")[0]);
                const ofPolicies = policies.filter((policy) => policy.lesson === lesson.id).flatMap((policy) => pageTests(policy.name));
                expect({ lesson: lesson.id, missing: ofPolicies.filter((file) => !listed.includes(file)) }).toEqual({
                    lesson: lesson.id,
                    missing: [],
                });
            }
        });
    });
});
