/**
 * Which pinned upstream files (CRDs and reference configs) there are, as .github/shared-files.tsv lists them, and where
 * they are read from, by the tests and the offline preview alike: SHARED_DIR when set, else `.shared/` in the checkout
 * (`npm run shared:fetch` writes there), else `../shared` beside the checkout. A folder that lacks one of them (a fetch
 * cut short) is not taken for complete.
 */
import * as fs from "fs";
import * as path from "path";

const REPO_ROOT = path.resolve(__dirname, "..");

/** What a complete shared folder holds, a line each: DEST<TAB>URL[<TAB>FIRST-LAST]. */
export const SHARED_MANIFEST = path.join(REPO_ROOT, ".github", "shared-files.tsv");

/** One line of the manifest. */
export interface SharedFile {
    /** Its path in the shared folder. */
    dest: string;
    /** Where it is, at a pinned commit. */
    url: string;
    /** Lines FIRST to LAST (counted from 1, both kept) of the download, when only those belong in the file. */
    lines?: { first: number; last: number };
}

/** The files `manifest` lists; a malformed line throws, naming it. */
export function readManifest(manifest: string): SharedFile[] {
    let text: string;
    try {
        text = fs.readFileSync(manifest, "utf8");
    } catch (err) {
        throw new Error(`cannot read the manifest: ${(err as Error).message}`);
    }
    return text.split(/\r?\n/).flatMap((line, index): SharedFile[] => {
        if (line.trim() === "" || line.startsWith("#")) {
            return [];
        }
        const where = `${manifest}:${index + 1}`;
        const [dest, url, range, ...extra] = line.split("\t");
        if (!url || extra.length > 0) {
            throw new Error(`${where}: expected DEST<TAB>URL[<TAB>FIRST-LAST], got ${JSON.stringify(line)}`);
        }
        if (!dest || path.isAbsolute(dest) || dest.split(/[\\/]/).includes("..")) {
            throw new Error(`${where}: ${dest} is not a path inside the shared folder`);
        }
        if (!URL.canParse(url)) {
            throw new Error(`${where}: ${url} is not a URL`);
        }
        if (range === undefined) {
            return [{ dest, url }];
        }
        const match = /^([1-9]\d*)-([1-9]\d*)$/.exec(range);
        if (!match || Number(match[2]) < Number(match[1])) {
            throw new Error(`${where}: ${JSON.stringify(range)} is not a line range FIRST-LAST with 1 <= FIRST <= LAST`);
        }
        return [{ dest, url, lines: { first: Number(match[1]), last: Number(match[2]) } }];
    });
}

/** What to tell someone when the pinned upstream files resolve nowhere, or the folder found lacks some of them. */
export const SHARED_FILES_MISSING =
    "the pinned upstream files (CRDs and reference configs) are missing or incomplete (looked in SHARED_DIR, else .shared/, else ../shared, for every file .github/shared-files.tsv lists): run `npm run shared:fetch`, again if one was cut short";

/** Where `npm run shared:fetch` writes: SHARED_DIR when set, else `.shared/` in the checkout. */
export function sharedFetchDir(root = REPO_ROOT, env: NodeJS.ProcessEnv = process.env): string {
    return env.SHARED_DIR ? path.resolve(env.SHARED_DIR) : path.join(root, ".shared");
}

/** The first shared folder that exists, complete or not. A SHARED_DIR that is set is the only candidate: a typo never falls back. */
export function findSharedDir(root = REPO_ROOT, env: NodeJS.ProcessEnv = process.env): string | undefined {
    const candidates = [sharedFetchDir(root, env), ...(env.SHARED_DIR ? [] : [path.join(root, "..", "shared")])];
    return candidates.find((dir) => fs.existsSync(dir));
}

/** The files of `files` that `dir` lacks, by their path in it. */
export function missingSharedFiles(dir: string, files: readonly SharedFile[]): string[] {
    return files.filter((file) => !fs.existsSync(path.join(dir, file.dest))).map((file) => file.dest);
}

/**
 * The shared folder to read, or undefined when none exists or the one found lacks a file of `manifest`: a fetch cut
 * short is refused as a whole, not read as if complete, and is not passed over for the next candidate either.
 */
export function resolveSharedDir(root = REPO_ROOT, env: NodeJS.ProcessEnv = process.env, manifest = SHARED_MANIFEST): string | undefined {
    const dir = findSharedDir(root, env);
    return dir !== undefined && missingSharedFiles(dir, readManifest(manifest)).length === 0 ? dir : undefined;
}
