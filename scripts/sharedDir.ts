/**
 * Where the pinned upstream files (CRDs and reference configs, listed in .github/shared-files.tsv) are read from, by the
 * tests and the offline preview alike: SHARED_DIR when set, else `.shared/` in the checkout (`npm run shared:fetch`
 * writes there), else `../shared` beside the checkout.
 */
import * as fs from "fs";
import * as path from "path";

const REPO_ROOT = path.resolve(__dirname, "..");

/** What to tell someone when the pinned upstream files resolve nowhere. */
export const SHARED_FILES_MISSING =
    "the pinned upstream files (CRDs and reference configs) are missing (looked in SHARED_DIR, else .shared/, else ../shared): run `npm run shared:fetch`";

/** Where `npm run shared:fetch` writes: SHARED_DIR when set, else `.shared/` in the checkout. */
export function sharedFetchDir(root = REPO_ROOT, env: NodeJS.ProcessEnv = process.env): string {
    return env.SHARED_DIR ? path.resolve(env.SHARED_DIR) : path.join(root, ".shared");
}

/** The shared folder, or undefined when none exists. A SHARED_DIR that is set is the only candidate: a typo never falls back. */
export function resolveSharedDir(root = REPO_ROOT, env: NodeJS.ProcessEnv = process.env): string | undefined {
    const candidates = [sharedFetchDir(root, env), ...(env.SHARED_DIR ? [] : [path.join(root, "..", "shared")])];
    return candidates.find((dir) => fs.existsSync(dir));
}
