import * as fs from "fs";
import * as path from "path";
import { SHARED_FILES_MISSING, resolveSharedDir } from "../scripts/sharedDir";

/**
 * Absolute path of `parts` in the shared folder of pinned upstream files (CRDs and reference configs), resolved as the
 * offline preview resolves it (scripts/sharedDir.ts); fails naming what is missing and the command that fetches it.
 */
export function sharedPath(...parts: string[]): string {
    const dir = resolveSharedDir();
    if (dir === undefined) {
        throw new Error(SHARED_FILES_MISSING);
    }
    const full = path.join(dir, ...parts);
    if (!fs.existsSync(full)) {
        throw new Error(`${full} is missing: run \`npm run shared:fetch\` to fetch the pinned upstream files into ${dir}`);
    }
    return full;
}

/** Runs `body` with SHARED_DIR set to `dir`, then puts SHARED_DIR back as it was. */
export async function withSharedDir<T>(dir: string, body: () => T | Promise<T>): Promise<T> {
    const previous = process.env.SHARED_DIR;
    process.env.SHARED_DIR = dir;
    try {
        return await body();
    } finally {
        if (previous === undefined) {
            delete process.env.SHARED_DIR;
        } else {
            process.env.SHARED_DIR = previous;
        }
    }
}
