/**
 * The lesson registry: every lesson of the field reports (and the security baseline) once, in words. Whatever acts on a
 * lesson names it: each policy of the pack the lesson it enforces (`policyText`), each check of `npm run doctor` the
 * lessons it can report. The pack's policy texts, the doctor's lesson lines, docs/lessons.md, docs/reference/policies/
 * and policies/README.md's table are written from it (npm run docs:lessons).
 */
import { GKE_HARDENING_LESSONS, SERVING_SECURITY_LESSONS } from "./baseline";
import { CAPACITY_LESSONS } from "./capacity";
import { EPP_LESSONS } from "./epp";
import { FLEET_LESSONS } from "./fleet";
import { GATEWAY_LESSONS } from "./gateway";
import { Lesson } from "./lesson";
import { PLATFORM_LESSONS } from "./platform";
import { TPU_LESSONS } from "./tpu";

export * from "./lesson";

/**
 * Every lesson, by area: the Gateway, a fleet's multi-cluster Gateway, the TPU servers, TPU capacity, the platform, the endpoint picker, the serving
 * endpoint's security, GKE's generic hardening.
 */
export const LESSONS = [
    ...GATEWAY_LESSONS,
    ...FLEET_LESSONS,
    ...TPU_LESSONS,
    ...CAPACITY_LESSONS,
    ...PLATFORM_LESSONS,
    ...EPP_LESSONS,
    ...SERVING_SECURITY_LESSONS,
    ...GKE_HARDENING_LESSONS,
] as const;

/**
 * The two halves of the pack a team can adopt alone: the inference lessons (everything the field reports taught, and
 * the serving endpoint's security), and GKE's generic hardening (private, Shielded nodes, Workload Identity, node
 * accounts, deletion protection), which a team may already enforce with its own pack.
 */
export const LESSON_SETS = {
    inference: LESSONS.filter((lesson) => !(GKE_HARDENING_LESSONS as readonly Lesson[]).includes(lesson)),
    hardening: GKE_HARDENING_LESSONS,
} as const;

/** The file, relative to the project's root, of the pack configuration that enforces only `set` (`--policy-pack-config`). */
export function lessonSetConfigFile(set: keyof typeof LESSON_SETS): string {
    return `policies/config/${set}-only.json`;
}

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

/** What a policy of the pack says of itself, written from the lesson it enforces. */
export interface PolicyText {
    /** The lesson the policy enforces: the pack lists its policies in the registry's order of their lessons. */
    readonly lesson: LessonId;
    readonly name: string;
    readonly description: string;
    readonly remediationSteps: string;
}

/**
 * The text of policy `name`, which enforces lesson `lesson`: the description is the policy's own rule (what it checks,
 * one sentence) followed by the lesson's cause; the remediation is the lesson's fix and where the lesson is explained.
 */
export function policyText(lesson: LessonId, name: string, rule: string): PolicyText {
    const { cause, fix } = lessonById(lesson);
    return { lesson, name, description: `${rule} ${cause}`, remediationSteps: `${fix} See ${lessonLink(lesson)}.` };
}
