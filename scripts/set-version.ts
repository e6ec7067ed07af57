/**
 * `npm run set-version -- --to VERSION`: gives the project, its policy pack and the facts they share one new version, in
 * every file that carries it (the package.json files and their lockfiles, and PulumiPolicy.yaml, whose `version` the
 * Pulumi CLI reads over package.json's while the policy SDK reports package.json's), and moves the CHANGELOG's Unreleased entries
 * under that version and today's date.
 */
import * as fs from "fs";
import * as path from "path";
import { parseDocument } from "yaml";
import { CliContext, CliError, CliSpec, CliValues, EXIT, runCli } from "./cli";

/** The package folders, relative to the repository root, that release together. */
const PACKAGES = [".", "policies", "policies/facts"];
const POLICY_PROJECT = path.join("policies", "PulumiPolicy.yaml");
const CHANGELOG = "CHANGELOG.md";
const UNRELEASED = "## [Unreleased]";

/** Semantic Versioning 2.0.0's grammar (semver.org, the suggested regular expression). */
const SEMVER =
    /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

const OPTIONS = {
    to: { type: "string", value: "VERSION", description: "the new version, MAJOR.MINOR.PATCH (semver.org), above the current one" },
    date: { type: "string", value: "YYYY-MM-DD", description: "the release date the CHANGELOG records (today by default)" },
} as const;

export const SET_VERSION_CLI: CliSpec<typeof OPTIONS> = {
    script: "set-version",
    synopsis: "--to VERSION [--date YYYY-MM-DD]",
    description:
        "Sets VERSION in package.json, policies/package.json, policies/facts/package.json, their lockfiles and " +
        "policies/PulumiPolicy.yaml, and moves the CHANGELOG's Unreleased entries under VERSION.",
    options: OPTIONS,
    examples: ["npm run set-version -- --to 0.2.0"],
    exitCodes: [
        [EXIT.ok, "every file carries VERSION"],
        [EXIT.usage, "VERSION is not a semantic version, is not above the current one, or the CHANGELOG has nothing under Unreleased"],
    ],
};

function readJson(file: string): Record<string, unknown> {
    return JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
}

function writeJson(file: string, value: unknown): void {
    fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** Whether `a` is above `b`, comparing major, minor and patch; a pre-release is below its release. */
function isAbove(a: string, b: string): boolean {
    const parts = (version: string) => SEMVER.exec(version)!;
    const [, ...x] = parts(a);
    const [, ...y] = parts(b);
    for (let index = 0; index < 3; index++) {
        if (Number(x[index]) !== Number(y[index])) {
            return Number(x[index]) > Number(y[index]);
        }
    }
    return x[3] === undefined ? y[3] !== undefined : y[3] !== undefined && x[3] > y[3];
}

/** The CHANGELOG with the Unreleased entries under `version` and `date`, and a new empty Unreleased section. */
export function releaseChangelog(text: string, version: string, date: string): string {
    const start = text.indexOf(UNRELEASED);
    if (start < 0) {
        throw new CliError(`${CHANGELOG} has no "${UNRELEASED}" section: add one with the changes this release carries`);
    }
    const body = text.slice(start + UNRELEASED.length);
    const next = body.search(/^## \[/m);
    const entries = (next < 0 ? body : body.slice(0, next)).trim();
    if (entries === "") {
        throw new CliError(`${CHANGELOG} lists nothing under "${UNRELEASED}": say what ${version} changes before releasing it`);
    }
    return `${text.slice(0, start)}${UNRELEASED}\n\n## [${version}] - ${date}\n\n${entries}\n${next < 0 ? "" : `\n${body.slice(next)}`}`;
}

/** Sets `version` in every file under `root` that carries the release's version. */
export function setVersion(root: string, version: string, date: string): string[] {
    if (!SEMVER.test(version)) {
        throw new CliError(`${JSON.stringify(version)} is not a semantic version (MAJOR.MINOR.PATCH, semver.org)`);
    }
    const current = readJson(path.join(root, "package.json")).version as string;
    if (!isAbove(version, current)) {
        throw new CliError(`${version} is not above the current version ${current}`);
    }
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) {
        throw new CliError(`--date ${JSON.stringify(date)} is not YYYY-MM-DD`);
    }
    const changelog = path.join(root, CHANGELOG);
    const released = releaseChangelog(fs.readFileSync(changelog, "utf8"), version, date);
    const written: string[] = [];
    for (const dir of PACKAGES) {
        const manifest = path.join(dir, "package.json");
        writeJson(path.join(root, manifest), { ...readJson(path.join(root, manifest)), version });
        written.push(manifest);
        const lockfile = path.join(dir, "package-lock.json");
        if (fs.existsSync(path.join(root, lockfile))) {
            // The lockfile records the package's own version twice: at its top and as the root package "".
            const lock = readJson(path.join(root, lockfile)) as { version: string; packages: Record<string, { version?: string }> };
            lock.version = version;
            lock.packages[""].version = version;
            writeJson(path.join(root, lockfile), lock);
            written.push(lockfile);
        }
    }
    // Edited as a document, so that its comments and layout stay as they are.
    const project = parseDocument(fs.readFileSync(path.join(root, POLICY_PROJECT), "utf8"));
    project.set("version", version);
    fs.writeFileSync(path.join(root, POLICY_PROJECT), project.toString());
    fs.writeFileSync(changelog, released);
    return [...written, POLICY_PROJECT, CHANGELOG];
}

async function main(values: CliValues<typeof OPTIONS>, cli: CliContext): Promise<number> {
    const version = values.to;
    if (version === undefined) {
        throw new CliError("--to VERSION is required: npm run set-version -- --to 0.2.0");
    }
    const date = values.date ?? new Date().toISOString().slice(0, 10);
    for (const file of setVersion(path.resolve(__dirname, ".."), version, date)) {
        cli.print(`${file}: ${version}\n`);
    }
    return EXIT.ok;
}

if (require.main === module) {
    runCli(SET_VERSION_CLI, main);
}
