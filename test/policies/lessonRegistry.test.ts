/**
 * The lesson registry holds the pack, the doctor and the docs to one list: every policy and every doctor check names a
 * lesson, every lesson is enforced or diagnosed somewhere, names exist both ways, sources are public, and the generated
 * docs are current.
 */
import * as fs from "fs";
import * as path from "path";
import { DOCTOR_CHECKS, LESSONS, LESSON_SETS, Lesson, lessonSetConfig } from "../../policies/facts";
import { policies } from "../../policies/pack";
import { lessonsDocs, sourceMarkdown } from "../../scripts/lessonsDocs";

const ROOT = path.resolve(__dirname, "..", "..");
const lessons = LESSONS as readonly Lesson[];

describe("the lesson registry", () => {
    test("ids are unique and kebab-case", () => {
        const ids = lessons.map((lesson) => lesson.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids.filter((id) => !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(id))).toEqual([]);
    });

    test("every policy of the pack is in exactly one lesson, and every policy a lesson names is in the pack", () => {
        const named = lessons.flatMap((lesson) => lesson.policies);
        const registered = policies.map((policy) => policy.name);
        expect(registered.filter((name) => named.filter((other) => other === name).length !== 1)).toEqual([]);
        expect(named.filter((name) => !registered.includes(name))).toEqual([]);
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
        const policiesOf = (half: readonly Lesson[]) => half.flatMap((lesson) => lesson.policies).sort();
        expect(Object.keys(lessonSetConfig("inference")).sort()).toEqual(policiesOf(hardening));
        expect(Object.keys(lessonSetConfig("hardening")).sort()).toEqual(policiesOf(inference));
        expect(new Set([...Object.values(lessonSetConfig("inference")), ...Object.values(lessonSetConfig("hardening"))])).toEqual(
            new Set(["disabled"]),
        );
    });

    test("every doctor check is in a lesson, and every check a lesson names is one the doctor makes", () => {
        const named = new Set<string>(lessons.flatMap((lesson) => lesson.doctorChecks));
        expect(DOCTOR_CHECKS.filter((check) => !named.has(check))).toEqual([]);
        expect([...named].filter((check) => !(DOCTOR_CHECKS as readonly string[]).includes(check))).toEqual([]);
        expect(new Set(DOCTOR_CHECKS).size).toBe(DOCTOR_CHECKS.length);
    });

    test("every lesson is enforced by a policy or diagnosed by a doctor check", () => {
        expect(lessons.filter((lesson) => lesson.policies.length + lesson.doctorChecks.length === 0).map((lesson) => lesson.id)).toEqual(
            [],
        );
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
    test.each(lessonsDocs().map((doc) => [doc.file, doc] as const))("%s is current", (_, doc) => {
        expect(doc.current).toBe(doc.expected);
    });

    test("every lesson has an anchor on docs/lessons.md, and every policy a page", () => {
        const page = fs.readFileSync(path.join(ROOT, "docs/lessons.md"), "utf8");
        expect(lessons.filter((lesson) => !page.includes(`<a id="${lesson.id}"></a>`)).map((lesson) => lesson.id)).toEqual([]);
        expect(policies.filter((policy) => !fs.existsSync(path.join(ROOT, `docs/reference/policies/${policy.name}.md`)))).toEqual([]);
    });
});
