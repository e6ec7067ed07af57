/**
 * The corpus (test/corpus): every public program carries its source, its licence and a record that parses; the records
 * name SDK sets that exist, files that exist and tests that exist; the comparison `npm run corpus` makes reports every
 * kind of difference; and docs/reference/corpus.md states the figures the records hold. `npm run corpus` itself runs in
 * CI (.ci/run): it previews every program in its own process.
 */
import * as fs from "fs";
import * as path from "path";
import { CORPUS_PAGE, corpusDocs } from "../scripts/docs/corpus";
import {
    CorpusProgram,
    PROGRAM_RECORD,
    ProgramRecord,
    SDKS_DIR,
    corpusFigures,
    corpusPrograms,
    differences,
    licenceFile,
} from "../scripts/corpus/programs";

const ROOT = path.resolve(__dirname, "..");
const programs = corpusPrograms();

describe("the corpus's programs", () => {
    test("at least ten programs, from more than one author, on GKE and on another cloud, several serving a model", () => {
        expect(programs.length).toBeGreaterThanOrEqual(10);
        expect(new Set(programs.map(({ record }) => record.source.repository.split("/")[0])).size).toBeGreaterThan(1);
        const uses = (token: string) =>
            programs.filter(({ dir }) =>
                fs.readdirSync(dir).some((file) => file.endsWith(".ts") && fs.readFileSync(path.join(dir, file), "utf8").includes(token)),
            );
        expect(uses("gcp.container.Cluster").length).toBeGreaterThanOrEqual(4);
        expect(uses("eks.Cluster").length).toBeGreaterThanOrEqual(2);
        expect(programs.filter(({ record }) => /model|NIM|LLMInferenceService/i.test(record.about)).length).toBeGreaterThanOrEqual(2);
    });

    test.each(programs.map((program) => [program.name, program] as const))(
        "%s: its licence, SDK set, stack file and the tests its record names exist",
        (_, program: CorpusProgram) => {
            const { record, dir } = program;
            expect(fs.existsSync(licenceFile(record.source.repository))).toBe(true);
            expect(fs.readFileSync(licenceFile(record.source.repository), "utf8")).toMatch(
                record.source.licence === "MIT" ? /MIT License/ : /Apache License\s+Version 2\.0/,
            );
            expect(fs.existsSync(path.join(SDKS_DIR, record.sdks, "package-lock.json"))).toBe(true);
            expect(fs.existsSync(path.join(dir, "Pulumi.yaml"))).toBe(true);
            expect(fs.existsSync(path.join(dir, "Pulumi.corpus.yaml"))).toBe(true);
            for (const { file } of record.source.modified) {
                expect([file, fs.existsSync(path.join(dir, file))]).toEqual([file, true]);
            }
            for (const miss of record.misses) {
                if ("caughtBy" in miss) {
                    const test = miss.caughtBy.split(" ")[0];
                    expect([test, fs.existsSync(path.join(ROOT, test))]).toEqual([test, true]);
                }
            }
            // A finding a reviewer judged is either a true mandatory finding or an advisory note; none is left unexplained.
            expect(record.findings.filter((finding) => finding.why.trim() === "")).toEqual([]);
        },
    );

    test("docs/reference/corpus.md states the records' figures", () => {
        const [page] = corpusDocs();
        expect([page.file, page.current]).toEqual([CORPUS_PAGE, page.expected]);
    });
});

describe("a preview judged against its record", () => {
    const record: ProgramRecord = PROGRAM_RECORD.parse({
        about: "a cluster",
        source: { repository: "acme/programs", commit: "a".repeat(40), path: "gke", licence: "Apache-2.0" },
        sdks: "current",
        preview: "runs",
        findings: [{ policy: "require-private-nodes", level: "mandatory", resource: "gke", why: "its nodes have public addresses" }],
        unseen: ["web"],
    });
    const ran = { violations: [{ policy: "require-private-nodes", level: "mandatory", resource: "gke" }], unseen: ["web"] };

    test("as recorded: no difference", () => {
        expect(differences(record, ran)).toEqual([]);
    });

    test("every kind of difference is named: a stop, a new alarm, a miss, something else unseen or seen", () => {
        const stop = "the offline preview has no answer for aws:index/getRegion:getRegion";
        expect(differences(record, { stopped: stop, violations: [], unseen: [] })).toEqual([
            `the preview stopped: ${stop}`,
            "in the record, not reported: mandatory require-private-nodes (gke)",
            "in the record as unseen, but seen: web",
        ]);
        expect(
            differences(record, {
                violations: [...ran.violations, { policy: "require-gateway-api-on-cluster", level: "mandatory", resource: "gke" }],
                unseen: ["web", "eks-cluster"],
            }),
        ).toEqual([
            "reported, not in the record: mandatory require-gateway-api-on-cluster (gke)",
            "unseen, not in the record: eks-cluster",
        ]);
        expect(differences(record, { violations: [], unseen: [] })).toEqual([
            "in the record, not reported: mandatory require-private-nodes (gke)",
            "in the record as unseen, but seen: web",
        ]);
    });

    test("a program recorded to stop must stop, with its line", () => {
        const stops = { ...record, preview: { stops: "reading 'Account'" }, findings: [], unseen: [] };
        expect(differences(stops, { violations: [], unseen: [] })).toEqual([
            "the preview ran, where it should stop with: reading 'Account'",
        ]);
        expect(
            differences(stops, { stopped: "Cannot read properties of undefined (reading 'Account')", violations: [], unseen: [] }),
        ).toEqual([]);
        expect(differences(stops, { stopped: "something else", violations: [], unseen: [] })).toEqual([
            `the preview stopped with "something else", not "reading 'Account'"`,
        ]);
    });

    test("the figures count programs, findings, fixed false alarms and misses by kind", () => {
        const withMisses = {
            name: "x",
            dir: "",
            record: {
                ...record,
                misses: [
                    { what: "a", caughtBy: "t" },
                    { what: "b", open: "why" },
                ],
                falseAlarmsFixed: [{ policy: "p", was: "w", fix: "f" }],
            },
        };
        expect(corpusFigures([withMisses, { name: "y", dir: "", record: { ...record, preview: { stops: "s" } } }])).toEqual({
            programs: 2,
            runs: 1,
            stops: 1,
            mandatoryFindings: 2,
            advisoryNotes: 0,
            falseAlarmsFixed: 1,
            missesCaught: 1,
            missesOpen: 1,
        });
    });
});
