import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { resolveSharedDir, sharedFetchDir } from "../../scripts/sharedDir";
import { requireSharedFiles } from "../globalSetup";
import { withSharedDir } from "../shared";

/** A checkout with, beside it, the folders `present` names (relative to the checkout). */
function checkout(...present: string[]): string {
    const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "shared-dir-")), "checkout");
    for (const dir of ["", ...present]) {
        fs.mkdirSync(path.join(root, dir), { recursive: true });
    }
    return root;
}

describe("where the pinned upstream files are read from", () => {
    test("SHARED_DIR when set, and only it: a SHARED_DIR that does not exist does not fall back", () => {
        const root = checkout(".shared", "../shared", "../elsewhere");
        expect(resolveSharedDir(root, { SHARED_DIR: path.join(root, "..", "elsewhere") })).toBe(path.join(root, "..", "elsewhere"));
        expect(resolveSharedDir(root, { SHARED_DIR: path.join(root, "..", "nowhere") })).toBeUndefined();
    });

    test("else .shared/ in the checkout, else ../shared beside it, else nowhere", () => {
        const both = checkout(".shared", "../shared");
        expect(resolveSharedDir(both, {})).toBe(path.join(both, ".shared"));
        const beside = checkout("../shared");
        expect(resolveSharedDir(beside, {})).toBe(path.join(beside, "..", "shared"));
        expect(resolveSharedDir(checkout(), {})).toBeUndefined();
    });

    test("npm run shared:fetch writes into SHARED_DIR when set, else .shared/", () => {
        expect(sharedFetchDir("/repo", { SHARED_DIR: "/data/shared" })).toBe("/data/shared");
        expect(sharedFetchDir("/repo", {})).toBe("/repo/.shared");
    });

    test("npm test stops before any test, in one line, when they resolve nowhere", async () => {
        const missing =
            "the pinned upstream files (CRDs and reference configs) are missing (looked in SHARED_DIR, else .shared/, else ../shared): run `npm run shared:fetch`";
        await withSharedDir(path.join(os.tmpdir(), "no-such-shared-dir"), () =>
            // jest prints a failed globalSetup's stack: it is the message alone.
            expect(requireSharedFiles).toThrow(expect.objectContaining({ message: missing, stack: missing })),
        );
    });
});
