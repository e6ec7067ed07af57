/**
 * What `npm run doctor` reports of each check: its status, the object, the check, the evidence, and for a failure or a
 * warning the lesson behind it (from the pack's lesson registry) and what to do; laid out by the CLI kit's check report,
 * or as JSON.
 */
import { LessonId, lessonById, lessonLink } from "@gke-tpu-inference/facts";
import type { CheckStatus, ReportedCheck } from "../cli/checks";
import type { DoctorCheck } from "./checks";

/** The outcome of one check on one object. */
export interface Diagnosis {
    status: CheckStatus;
    /** What was checked, by its name in DOCTOR_CHECKS (checks.ts), e.g. `accepted by the Gateway`. */
    check: DoctorCheck;
    /** The object checked, as `Kind namespace/name`, or what is missing. */
    object: string;
    /** What was seen: a condition, reason and message, an event, a log line. */
    evidence: string;
    /** The lesson the failure matches: one its check can name. */
    lesson?: LessonId;
    /** What to do, when it differs from the lesson's fix or there is no lesson. */
    fix?: string;
}

/** A diagnosis with the part of the stack it concerns: a part of the platform, or one model service. */
export interface AreaDiagnosis extends Diagnosis {
    area: string;
}

/** `Kind namespace/name` or `Kind name`, as the report names an object. */
export function objectName(kind: string, name: string, namespace?: string): string {
    return `${kind} ${namespace ? `${namespace}/` : ""}${name}`;
}

/** The lesson spelt out, and what to do (only where something is wrong). */
function lessonAndNextStep(diagnosis: Diagnosis) {
    const found = diagnosis.lesson ? lessonById(diagnosis.lesson) : undefined;
    const lesson = found ? { id: diagnosis.lesson!, title: found.title, link: lessonLink(diagnosis.lesson!) } : undefined;
    const wrong = diagnosis.status === "FAIL" || diagnosis.status === "WARN";
    return { lesson, nextStep: wrong ? (diagnosis.fix ?? found?.recovery ?? found?.fix) : undefined };
}

/** One check as `--json` prints it. */
export function jsonCheck(diagnosis: AreaDiagnosis) {
    const { lesson, nextStep } = lessonAndNextStep(diagnosis);
    return {
        status: diagnosis.status,
        area: diagnosis.area,
        object: diagnosis.object,
        check: diagnosis.check,
        message: diagnosis.evidence,
        ...(lesson ? { lesson } : {}),
        ...(nextStep ? { nextStep } : {}),
    };
}

/** One check as the report shows it. */
export function reportedCheck(diagnosis: AreaDiagnosis): ReportedCheck {
    const { lesson, nextStep } = lessonAndNextStep(diagnosis);
    return {
        status: diagnosis.status,
        area: diagnosis.area,
        subject: `${diagnosis.object}: ${diagnosis.check}`,
        message: diagnosis.evidence,
        details: {
            ...(lesson ? { lesson: `${lesson.title} (${lesson.link})` } : {}),
            ...(nextStep ? { "next step": nextStep } : {}),
        },
    };
}
