/** What a lesson of the field reports says. */

/**
 * One lesson: what went wrong, why, what to do, and what this stack does about it. Only its words: a policy of the pack
 * declares the lesson it enforces, and a check of `npm run doctor` the lessons it can report. The policies' descriptions
 * and remediation, the doctor's lesson lines, docs/lessons.md, docs/reference/policies/ and policies/README.md's table
 * are written from it (npm run docs:lessons).
 */
export interface Lesson {
    /** Stable, kebab-case; docs/lessons.md has an anchor of this name. */
    readonly id: string;
    /** What it taught, in one line. */
    readonly title: string;
    /** What a user sees. */
    readonly symptom: string;
    /** Why, in a sentence or two: a policy's description ends with it. */
    readonly cause: string;
    /** What to do in any program: a policy's remediation. */
    readonly fix: string;
    /** What this stack does so that it does not happen. */
    readonly prevention: string;
    /** What to do when it happens on a cluster of this stack: the doctor's next step, for a lesson the doctor diagnoses. */
    readonly recovery?: string;
    /** A command that shows it on a live cluster, when one does. */
    readonly inspect?: string;
    /** Public references: the upstream issue, document or source file (with the lines) that says so. */
    readonly sources: readonly string[];
}
