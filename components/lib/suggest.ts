/** "Did you mean" for a misspelt name: the nearest known name by edit distance, when it is near enough to be a typo. */
import { distance } from "fastest-levenshtein";

/** `; did you mean "x"?` when a known name is within a typo's distance of `name` (two edits, or a third of its length), else "". */
export function suggestion(name: string, known: readonly string[]): string {
    const nearest = [...known].sort((a, b) => distance(name, a) - distance(name, b))[0];
    return nearest !== undefined && distance(name, nearest) <= Math.max(2, Math.floor(name.length / 3))
        ? `; did you mean ${JSON.stringify(nearest)}?`
        : "";
}
