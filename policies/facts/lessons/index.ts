/**
 * The lesson registry: every lesson of the field reports (and the security baseline) once, with the policies that
 * enforce it and the doctor's checks that diagnose it. The pack's policy texts, the doctor's lesson lines,
 * docs/lessons.md, docs/reference/policies/ and policies/README.md's table are written from it (npm run docs:lessons);
 * test/policies/lessonRegistry.test.ts holds each of them to it.
 */
import { BASELINE_LESSONS } from "./baseline";
import { CAPACITY_LESSONS } from "./capacity";
import { EPP_LESSONS } from "./epp";
import { GATEWAY_LESSONS } from "./gateway";
import { Lesson } from "./lesson";
import { PLATFORM_LESSONS } from "./platform";
import { TPU_LESSONS } from "./tpu";

export * from "./doctorChecks";
export * from "./lesson";

/** Every lesson, by area: the Gateway, the TPU servers, TPU capacity, the platform, the endpoint picker, the security baseline. */
export const LESSONS = [
    ...GATEWAY_LESSONS,
    ...TPU_LESSONS,
    ...CAPACITY_LESSONS,
    ...PLATFORM_LESSONS,
    ...EPP_LESSONS,
    ...BASELINE_LESSONS,
] as const;

/** A lesson's id. */
export type LessonId = (typeof LESSONS)[number]["id"];

/** The page that explains every lesson, an anchor per id, relative to the project's root. */
export const LESSONS_PAGE = "docs/lessons.md";

/** Where lesson `id` is explained. */
export function lessonLink(id: LessonId): string {
    return `${LESSONS_PAGE}#${id}`;
}

const byId = new Map<string, Lesson>(LESSONS.map((lesson) => [lesson.id, lesson]));

/** The lesson of `id`. */
export function lessonById(id: LessonId): Lesson {
    return byId.get(id)!;
}

/** The lesson that lists policy `name`; a policy no lesson lists is refused, so that none ships without one. */
export function lessonOfPolicy(name: string): Lesson {
    const lesson = LESSONS.find((candidate) => (candidate.policies as readonly string[]).includes(name));
    if (lesson === undefined) {
        throw new Error(`policy ${name} is in no lesson of the registry (policies/facts/lessons)`);
    }
    return lesson;
}

/**
 * A policy's name, description and remediation, written from its lesson: the description is the policy's own rule
 * (what it checks, one sentence) followed by the lesson's cause; the remediation is the lesson's fix and where the lesson
 * is explained.
 */
export function policyText(name: string, rule: string): { name: string; description: string; remediationSteps: string } {
    const lesson = lessonOfPolicy(name);
    return { name, description: `${rule} ${lesson.cause}`, remediationSteps: `${lesson.fix} See ${lessonLink(lesson.id as LessonId)}.` };
}
