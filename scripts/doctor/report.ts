/**
 * What `npm run doctor` reports: one line per check (status, object, check, evidence, lesson, fix) and the same
 * as JSON. Only failures and warnings carry a lesson and a fix.
 */
import { LESSONS, LessonId } from "./lessons";

export type Status = "OK" | "WARN" | "FAIL" | "SKIPPED";

/** The outcome of one check on one object. */
export interface Diagnosis {
    status: Status;
    /** What was checked, e.g. `route accepted`. */
    check: string;
    /** The object checked, as `Kind namespace/name`, or what is missing. */
    object: string;
    /** What was seen: a condition, reason and message, an event, a log line. */
    evidence: string;
    /** The field-report lesson the failure matches. */
    lesson?: LessonId;
    /** What to do, when it differs from the lesson's fix or there is no lesson. */
    fix?: string;
}

/** `Kind namespace/name` or `Kind name`, as the report names an object. */
export function objectName(kind: string, name: string, namespace?: string): string {
    return `${kind} ${namespace ? `${namespace}/` : ""}${name}`;
}

/** A diagnosis with its lesson spelt out, as `--json` writes it. */
export function expand(diagnosis: Diagnosis) {
    const { lesson: id, fix, ...rest } = diagnosis;
    const lesson = id ? { id, source: LESSONS[id].source, title: LESSONS[id].title } : undefined;
    const failed = diagnosis.status === "FAIL" || diagnosis.status === "WARN";
    return { ...rest, ...(lesson ? { lesson } : {}), ...(failed && (fix ?? id) ? { fix: fix ?? LESSONS[id!].fix } : {}) };
}

/** One line per diagnosis, then the counts. */
export function formatDiagnoses(diagnoses: Diagnosis[]): string {
    const lines = diagnoses.map((diagnosis) => {
        const { lesson, fix } = expand(diagnosis);
        const parts = [`${diagnosis.status.padEnd(7)} ${diagnosis.object}: ${diagnosis.check}: ${diagnosis.evidence}`];
        if (lesson) {
            parts.push(`lesson (${lesson.source}): ${lesson.title}`);
        }
        if (fix) {
            parts.push(`fix: ${fix}`);
        }
        return parts.join(" | ");
    });
    const count = (status: Status) => diagnoses.filter((diagnosis) => diagnosis.status === status).length;
    return [...lines, `doctor: ${count("OK")} ok, ${count("WARN")} warnings, ${count("FAIL")} failed, ${count("SKIPPED")} skipped`].join(
        "\n",
    );
}
