import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parse } from "yaml";
import { releaseChangelog, setVersion } from "../../scripts/set-version";

const ROOT = path.resolve(__dirname, "..", "..");
const RELEASED_FILES = [
    "package.json",
    "package-lock.json",
    "policies/package.json",
    "policies/package-lock.json",
    "policies/facts/package.json",
    "policies/PulumiPolicy.yaml",
    "CHANGELOG.md",
];

/** A copy of the files a release touches, in a folder of their own. */
function copyOfRelease(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "set-version-"));
    for (const file of RELEASED_FILES) {
        fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
    }
    return dir;
}

const json = (dir: string, file: string) => JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"));

describe("one version for the program, the pack and the facts", () => {
    test("the repository carries one version and one licence everywhere, the pack's LICENSE the project's", () => {
        const version = json(ROOT, "package.json").version;
        for (const file of ["policies/package.json", "policies/facts/package.json"]) {
            expect({ file, version: json(ROOT, file).version, license: json(ROOT, file).license }).toEqual({
                file,
                version,
                license: "Apache-2.0",
            });
        }
        const project = parse(fs.readFileSync(path.join(ROOT, "policies/PulumiPolicy.yaml"), "utf8"));
        expect({ version: project.version, license: project.license }).toEqual({ version, license: "Apache-2.0" });
        expect(json(ROOT, "package.json").license).toBe("Apache-2.0");
        expect(fs.readFileSync(path.join(ROOT, "policies/LICENSE"), "utf8")).toBe(fs.readFileSync(path.join(ROOT, "LICENSE"), "utf8"));
        expect(fs.readFileSync(path.join(ROOT, "LICENSE"), "utf8")).toMatch(/^\s+Apache License\n\s+Version 2\.0, January 2004\n/);
    });

    test("npm run set-version sets it in every file, the lockfiles' two places included, and releases the changelog", () => {
        const dir = copyOfRelease();
        expect(setVersion(dir, "0.2.0", "2026-12-01")).toEqual(RELEASED_FILES);
        for (const file of ["package.json", "policies/package.json", "policies/facts/package.json"]) {
            expect({ file, version: json(dir, file).version }).toEqual({ file, version: "0.2.0" });
        }
        for (const file of ["package-lock.json", "policies/package-lock.json"]) {
            expect({ file, top: json(dir, file).version, root: json(dir, file).packages[""].version }).toEqual({
                file,
                top: "0.2.0",
                root: "0.2.0",
            });
        }
        const project = fs.readFileSync(path.join(dir, "policies/PulumiPolicy.yaml"), "utf8");
        expect(parse(project).version).toBe("0.2.0");
        // The document keeps its comments.
        expect(project).toContain("# The pack's version.");
        const changelog = fs.readFileSync(path.join(dir, "CHANGELOG.md"), "utf8");
        expect(changelog).toMatch(/## \[Unreleased\]\n\n## \[0\.2\.0\] - 2026-12-01\n\n### Added\n/);
        expect(changelog).toContain("## [0.1.0] - 2026-11-25");
    });

    test.each([
        ["0.2", '"0.2" is not a semantic version (MAJOR.MINOR.PATCH, semver.org)'],
        ["0.0.9", "0.0.9 is not above the current version 0.1.0"],
        ["0.1.0", "0.1.0 is not above the current version 0.1.0"],
        ["0.1.0-rc.1", "0.1.0-rc.1 is not above the current version 0.1.0"],
    ])("%s is refused, and nothing is written", (version, message) => {
        const dir = copyOfRelease();
        expect(() => setVersion(dir, version, "2026-12-01")).toThrow(message);
        expect(json(dir, "package.json").version).toBe(json(ROOT, "package.json").version);
    });

    test("a release with nothing under Unreleased is refused", () => {
        expect(() =>
            releaseChangelog("# Changelog\n\n## [Unreleased]\n\n## [0.1.0] - 2026-11-25\n\n- first\n", "0.2.0", "2026-12-01"),
        ).toThrow('CHANGELOG.md lists nothing under "## [Unreleased]": say what 0.2.0 changes before releasing it');
        expect(releaseChangelog("# Changelog\n\n## [Unreleased]\n\n- one\n", "0.2.0", "2026-12-01")).toBe(
            "# Changelog\n\n## [Unreleased]\n\n## [0.2.0] - 2026-12-01\n\n- one\n",
        );
    });
});
