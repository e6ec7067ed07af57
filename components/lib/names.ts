/**
 * Names of project-global GCP resources. Two stacks of this program may share one project (the
 * pull-request workflow previews every stack against one), so every such name carries the stack:
 * `<base>-<stack>-<role>`, within the resource type's length and character rules
 * (`GCP_NAME_RULES` in the catalog). A stack name GCP cannot take as it is (capitals, dots, underscores) or
 * one too long for the limit is turned into a slug and followed by a short hash of the real stack
 * name, so two stacks never end up with the same name.
 */
import { createHash } from "crypto";
import { GcpNameRule } from "@gke-tpu-inference/facts";

/** Names for one stack of the program. */
export interface StackNames {
    /** The stack the names belong to. */
    readonly stack: string;
    /** The name of the resource playing `role` (empty for the stack's main resource of a type), within `rule`. */
    name(role: string, rule: GcpNameRule): string;
}

const HASH_LENGTH = 4;

/** Lowercase letters, digits and single hyphens, neither first nor last. */
function slug(text: string): string {
    return text
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, "");
}

/**
 * Names derived from `base` (a lowercase name starting with a letter, such as `tpu-inference`) and
 * the stack. Deterministic: the same stack always gets the same names.
 */
export function stackNames(base: string, stack: string): StackNames {
    const stackSlug = slug(stack);
    const hash = createHash("sha256").update(stack).digest("hex").slice(0, HASH_LENGTH);
    return {
        stack,
        name(role: string, rule: GcpNameRule): string {
            const join = (...parts: string[]) => parts.filter((part) => part !== "").join("-");
            const plain = join(base, stackSlug, role);
            if (stackSlug === stack && plain.length <= rule.maxLength) {
                return plain;
            }
            // Room left for the slug once the base, the hash, the role and their hyphens are placed.
            const room = rule.maxLength - join(base, "", hash, role).length - 1;
            const shortened = stackSlug.slice(0, Math.max(room, 0)).replace(/-+$/, "");
            const name = join(base, shortened, hash, role);
            if (name.length > rule.maxLength) {
                throw new Error(
                    `no ${rule.description} name fits ${rule.maxLength} characters for base ${JSON.stringify(base)} and role ${JSON.stringify(role)}`,
                );
            }
            return name;
        },
    };
}

/** Compass words of GCP region names and the letter each is shortened to. */
const COMPASS: Readonly<Record<string, string>> = { north: "n", south: "s", east: "e", west: "w", central: "c" };

/**
 * A region in four or five characters: its geography's first two letters, each compass word's initial and the number
 * (us-east5 → use5, europe-west4 → euw4, asia-northeast1 → asne1), so that a fleet member's service account, whose ID
 * GCP caps at 30 characters, can carry its region.
 */
export function regionTag(region: string): string {
    const [geography, area] = region.split("-");
    return `${geography.slice(0, 2)}${area.replace(/north|south|east|west|central/g, (word) => COMPASS[word])}`;
}

/** A fleet member's names: the stack's, each role led by the member's {@link regionTag}, so that members never share one. */
export function memberNames(names: StackNames, region: string): StackNames {
    const tag = regionTag(region);
    return { stack: names.stack, name: (role, rule) => names.name(role === "" ? tag : `${tag}-${role}`, rule) };
}
