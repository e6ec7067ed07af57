/**
 * The corpus: public Pulumi programs this project did not write, vendored under test/corpus/programs/ as their authors
 * wrote them, each with its source, its licence and the verdict a reviewer expects of the offline preview and the pack
 * (`corpus.yaml` beside it). Reading a program's record, judging a preview's report against it, and the corpus's
 * figures; `npm run corpus` runs them (scripts/corpus.ts).
 */
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { z } from "zod";

export const CORPUS_DIR = path.resolve(__dirname, "..", "..", "test", "corpus");
export const PROGRAMS_DIR = path.join(CORPUS_DIR, "programs");
export const SDKS_DIR = path.join(CORPUS_DIR, "sdks");
/** A copy of each source repository's licence, as `owner+name` (Apache-2.0 §4a, MIT: the notice travels with the files). */
export const LICENSES_DIR = path.join(CORPUS_DIR, "licenses");

/** The copy of the licence of the repository `repository` (`owner/name`) comes from. */
export function licenceFile(repository: string): string {
    return path.join(LICENSES_DIR, repository.replace("/", "+"));
}
/** The stack every program is previewed as: its `Pulumi.corpus.yaml` holds what a user sets when creating the stack. */
export const CORPUS_STACK = "corpus";
/** The licences a vendored program may carry (both let its files be copied with their notice). */
const LICENCES = ["Apache-2.0", "MIT"] as const;

const finding = z.strictObject({
    policy: z.string(),
    level: z.enum(["mandatory", "advisory"]),
    /** The resource it is reported against, by name (the URN's last part). */
    resource: z.string(),
    /** A reviewer's reading: why it is true, or for an advisory note what it says could not be judged. */
    why: z.string().min(10),
});

/** A program's record: where it comes from, which SDKs it runs with, and the verdict a reviewer expects. */
export const PROGRAM_RECORD = z.strictObject({
    about: z.string(),
    source: z.strictObject({
        repository: z.string().regex(/^[\w.-]+\/[\w.-]+$/),
        commit: z.string().regex(/^[0-9a-f]{40}$/),
        path: z.string(),
        licence: z.enum(LICENCES),
        /** Files changed from the author's, each with how (Apache-2.0 §4b). */
        modified: z.array(z.strictObject({ file: z.string(), how: z.string() })).default([]),
    }),
    /** The folder under test/corpus/sdks whose node_modules it runs with. */
    sdks: z.string(),
    /** `runs`, or the one line the preview stops with. */
    preview: z.union([z.literal("runs"), z.strictObject({ stops: z.string() })]),
    /** Every violation the pack reports, each judged by hand. */
    findings: z.array(finding).default([]),
    /** Components the preview names as not seen (their objects unjudged), by resource name. */
    unseen: z.array(z.string()).default([]),
    /** False alarms the pack raised on it before, and what fixed or downgraded each. */
    falseAlarmsFixed: z.array(z.strictObject({ policy: z.string(), was: z.string(), fix: z.string() })).default([]),
    /** Mistakes in its lessons' domains the pack missed on it: the test that now catches each, or why it stays a miss. */
    misses: z
        .array(
            z.union([z.strictObject({ what: z.string(), caughtBy: z.string() }), z.strictObject({ what: z.string(), open: z.string() })]),
        )
        .default([]),
});

export type ProgramRecord = z.infer<typeof PROGRAM_RECORD>;

/** A program of the corpus: its folder and record. */
export interface CorpusProgram {
    name: string;
    dir: string;
    record: ProgramRecord;
}

/** Every program of the corpus, by folder name; a record that does not parse names its file and what is wrong. */
export function corpusPrograms(dir = PROGRAMS_DIR): CorpusProgram[] {
    return fs
        .readdirSync(dir)
        .filter((entry) => fs.statSync(path.join(dir, entry)).isDirectory())
        .sort()
        .map((name) => {
            const file = path.join(dir, name, "corpus.yaml");
            const parsed = PROGRAM_RECORD.safeParse(parse(fs.readFileSync(file, "utf8")));
            if (!parsed.success) {
                throw new Error(
                    `${path.relative(CORPUS_DIR, file)}: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`,
                );
            }
            return { name, dir: path.join(dir, name), record: parsed.data };
        });
}

/** What a preview of a program showed: whether it ran, its violations and what it could not see. */
export interface PreviewOutcome {
    /** Undefined when it ran; the line it stopped with otherwise. */
    stopped?: string;
    violations: Array<{ policy: string; level: string; resource: string }>;
    unseen: string[];
}

/** One difference between a program's record and its preview. */
export type Difference = string;

const key = (item: { policy: string; level: string; resource: string }) => `${item.level} ${item.policy} (${item.resource})`;

/** How `outcome` differs from what `record` expects: a stop or a run it does not expect, a finding it does not list (a new alarm), one it lists that did not come (a miss), what was unseen. */
export function differences(record: ProgramRecord, outcome: PreviewOutcome): Difference[] {
    const found: Difference[] = [];
    if (record.preview === "runs" && outcome.stopped !== undefined) {
        found.push(`the preview stopped: ${outcome.stopped}`);
    } else if (record.preview !== "runs" && outcome.stopped === undefined) {
        found.push(`the preview ran, where it should stop with: ${record.preview.stops}`);
    } else if (record.preview !== "runs" && outcome.stopped !== undefined && !outcome.stopped.includes(record.preview.stops)) {
        found.push(`the preview stopped with "${outcome.stopped}", not "${record.preview.stops}"`);
    }
    const expected = new Set(record.findings.map(key));
    const reported = new Set(outcome.violations.map(key));
    found.push(...[...reported].filter((item) => !expected.has(item)).map((item) => `reported, not in the record: ${item}`));
    found.push(...[...expected].filter((item) => !reported.has(item)).map((item) => `in the record, not reported: ${item}`));
    const unseen = new Set(record.unseen);
    found.push(...outcome.unseen.filter((name) => !unseen.has(name)).map((name) => `unseen, not in the record: ${name}`));
    found.push(
        ...record.unseen.filter((name) => !outcome.unseen.includes(name)).map((name) => `in the record as unseen, but seen: ${name}`),
    );
    return found;
}

/** The corpus's figures, as the docs state them. */
export interface CorpusFigures {
    programs: number;
    runs: number;
    stops: number;
    mandatoryFindings: number;
    advisoryNotes: number;
    falseAlarmsFixed: number;
    missesCaught: number;
    missesOpen: number;
}

export function corpusFigures(programs: readonly CorpusProgram[]): CorpusFigures {
    const all = <T>(pick: (record: ProgramRecord) => readonly T[]) => programs.flatMap(({ record }) => pick(record));
    return {
        programs: programs.length,
        runs: programs.filter(({ record }) => record.preview === "runs").length,
        stops: programs.filter(({ record }) => record.preview !== "runs").length,
        mandatoryFindings: all((record) => record.findings).filter((item) => item.level === "mandatory").length,
        advisoryNotes: all((record) => record.findings).filter((item) => item.level === "advisory").length,
        falseAlarmsFixed: all((record) => record.falseAlarmsFixed).length,
        missesCaught: all((record) => record.misses).filter((miss) => "caughtBy" in miss).length,
        missesOpen: all((record) => record.misses).filter((miss) => "open" in miss).length,
    };
}
