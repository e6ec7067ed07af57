import * as fs from "fs";
import * as path from "path";

/**
 * The project's shared material (upstream CRDs and reference configs): `../shared` beside the
 * checkout, as in CI, or wherever SHARED_DIR points.
 */
export const SHARED_DIR = path.resolve(process.env.SHARED_DIR ?? path.join(__dirname, "..", "..", "shared"));

/** Absolute path of `parts` under {@link SHARED_DIR}; fails with a clear message when the shared material is missing. */
export function sharedPath(...parts: string[]): string {
    const full = path.join(SHARED_DIR, ...parts);
    if (!fs.existsSync(full)) {
        throw new Error(
            `${full} is missing: these tests read the shared CRDs and references beside the checkout (../shared) or from SHARED_DIR`,
        );
    }
    return full;
}
