import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { findSharedDir, resolveSharedDir, sharedFetchDir } from "../../scripts/sharedDir";
import { requireSharedFiles } from "../globalSetup";
import { withSharedDir } from "../shared";

/** The two files a shared folder holds in these tests. */
const FILES = ["crds/a.yaml", "reference/b.yaml"];

/** A checkout with its manifest of {@link FILES} and, beside it, the folders `present` names (relative to the checkout), each complete. */
function checkout(...present: string[]): { root: string; manifest: string } {
    const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "shared-dir-")), "checkout");
    fs.mkdirSync(root, { recursive: true });
    for (const dir of present) {
        for (const file of FILES) {
            fs.mkdirSync(path.dirname(path.join(root, dir, file)), { recursive: true });
            fs.writeFileSync(path.join(root, dir, file), "kind: CustomResourceDefinition\n");
        }
    }
    const manifest = path.join(root, "shared-files.tsv");
    fs.writeFileSync(manifest, FILES.map((file) => `${file}\thttps://example.com/${file}\n`).join(""));
    return { root, manifest };
}

describe("where the pinned upstream files are read from", () => {
    test("SHARED_DIR when set, and only it: a SHARED_DIR that does not exist does not fall back", () => {
        const { root, manifest } = checkout(".shared", "../shared", "../elsewhere");
        expect(resolveSharedDir(root, { SHARED_DIR: path.join(root, "..", "elsewhere") }, manifest)).toBe(
            path.join(root, "..", "elsewhere"),
        );
        expect(resolveSharedDir(root, { SHARED_DIR: path.join(root, "..", "nowhere") }, manifest)).toBeUndefined();
    });

    test("else .shared/ in the checkout, else ../shared beside it, else nowhere", () => {
        const both = checkout(".shared", "../shared");
        expect(resolveSharedDir(both.root, {}, both.manifest)).toBe(path.join(both.root, ".shared"));
        const beside = checkout("../shared");
        expect(resolveSharedDir(beside.root, {}, beside.manifest)).toBe(path.join(beside.root, "..", "shared"));
        const none = checkout();
        expect(resolveSharedDir(none.root, {}, none.manifest)).toBeUndefined();
    });

    test("a folder that lacks a file of the manifest, as a fetch cut short leaves it, is refused, not passed over for the next", () => {
        const { root, manifest } = checkout(".shared", "../shared");
        expect(resolveSharedDir(root, {}, manifest)).toBe(path.join(root, ".shared"));
        fs.rmSync(path.join(root, ".shared", FILES[1]));
        expect(findSharedDir(root, {})).toBe(path.join(root, ".shared"));
        expect(resolveSharedDir(root, {}, manifest)).toBeUndefined();
        expect(resolveSharedDir(root, { SHARED_DIR: path.join(root, ".shared") }, manifest)).toBeUndefined();
    });

    test("npm run shared:fetch writes into SHARED_DIR when set, else .shared/", () => {
        expect(sharedFetchDir("/repo", { SHARED_DIR: "/data/shared" })).toBe("/data/shared");
        expect(sharedFetchDir("/repo", {})).toBe("/repo/.shared");
    });

    test("npm test stops before any test, in one line, when they resolve nowhere or only in part; a complete folder passes", async () => {
        const missing =
            "the pinned upstream files (CRDs and reference configs) are missing or incomplete (looked in SHARED_DIR, else .shared/, else ../shared, for every file .github/shared-files.tsv lists): run `npm run shared:fetch`, again if one was cut short";
        // jest prints a failed globalSetup's stack: it is the message alone.
        const refused = expect.objectContaining({ message: missing, stack: missing });
        await withSharedDir(path.join(os.tmpdir(), "no-such-shared-dir"), () => expect(requireSharedFiles).toThrow(refused));
        const half = fs.mkdtempSync(path.join(os.tmpdir(), "half-shared-"));
        fs.mkdirSync(path.join(half, "crds"));
        await withSharedDir(half, () => expect(requireSharedFiles).toThrow(refused));
        // This run's own folder holds every file, or no test would be running.
        expect(requireSharedFiles).not.toThrow();
    });
});
