import * as fs from "fs";
import * as path from "path";

const ROOT = path.resolve(__dirname, "..");

/** The README is a landing page; the manual lives in docs/. */
const README_MAX_LINES = 300;

/** README.md, CONTRIBUTING.md, the pack's README and every Markdown page under docs/, relative to the root. */
function pages(): string[] {
    const found = ["README.md", "CONTRIBUTING.md", "policies/README.md"];
    const walk = (dir: string): void => {
        for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
            const at = path.posix.join(dir, entry.name);
            if (entry.isDirectory()) {
                walk(at);
            } else if (entry.name.endsWith(".md")) {
                found.push(at);
            }
        }
    };
    walk("docs");
    return found.sort();
}

/** Markdown without its fenced code blocks, where a `#` is no heading. */
function withoutFences(markdown: string): string {
    return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
}

/** Markdown without its code, fenced or inline, where a `](` is not a link. */
function prose(markdown: string): string {
    return withoutFences(markdown).replace(/`[^`\n]*`/g, "");
}

/** GitHub's anchor for a heading: lower case, punctuation but hyphens dropped, spaces to hyphens. */
function anchor(heading: string): string {
    return heading
        .trim()
        .toLowerCase()
        .replace(/`/g, "")
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .replace(/\s/g, "-");
}

/** The anchors a page's headings make (duplicates numbered as GitHub numbers them), and its explicit `<a id>` anchors. */
function anchors(markdown: string): Set<string> {
    const seen = new Map<string, number>();
    const found = new Set<string>();
    for (const match of withoutFences(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
        const base = anchor(match[1]);
        const count = seen.get(base) ?? 0;
        seen.set(base, count + 1);
        found.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const match of withoutFences(markdown).matchAll(/<a (?:id|name)="([^"]+)"/g)) {
        found.add(match[1]);
    }
    return found;
}

/** The project's own files a page names in inline code (`components/serving/vllm.ts`); a path with a line (`:12`) is upstream's. */
function projectPaths(markdown: string): string[] {
    return [...withoutFences(markdown).matchAll(/`((?:components|scripts|policies|test|\.ci)\/[\w./-]+)`/g)].map((match) => match[1]);
}

/** Every relative link target of a page: inline links and images, `[text](target)`. */
function relativeLinks(markdown: string): string[] {
    return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
        .map((match) => match[1])
        .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe("the documentation", () => {
    const all = pages();
    const text = new Map(all.map((page) => [page, fs.readFileSync(path.join(ROOT, page), "utf8")]));

    test(`README.md is a landing page of at most ${README_MAX_LINES} lines`, () => {
        expect(text.get("README.md")!.split("\n").length).toBeLessThanOrEqual(README_MAX_LINES);
    });

    test("every relative link resolves to a file in the repository, and every anchor to a heading of its page", () => {
        const broken: string[] = [];
        for (const page of all) {
            for (const link of relativeLinks(text.get(page)!)) {
                const [target, fragment] = link.split("#");
                const file = target === "" ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), target));
                const full = path.join(ROOT, file);
                if (!fs.existsSync(full)) {
                    broken.push(`${page}: ${link} (no ${file})`);
                } else if (fragment !== undefined && file.endsWith(".md") && !anchors(fs.readFileSync(full, "utf8")).has(fragment)) {
                    broken.push(`${page}: ${link} (no heading #${fragment} in ${file})`);
                }
            }
        }
        expect(broken).toEqual([]);
    });

    test("every file of the project a page names exists", () => {
        const missing = all.flatMap((page) =>
            projectPaths(text.get(page)!)
                .filter((file) => !fs.existsSync(path.join(ROOT, file)))
                .map((file) => `${page}: ${file}`),
        );
        expect(missing).toEqual([]);
    });

    test("every page under docs/ says first whom it is for, and docs/README.md or its folder's index.md lists it", () => {
        const index = text.get("docs/README.md")!;
        const problems: string[] = [];
        for (const page of all.filter((candidate) => candidate.startsWith("docs/"))) {
            // A generated page opens with the comment naming its generator.
            const lines = text
                .get(page)!
                .replace(/^<!--[^\n]*-->\n\n/, "")
                .split("\n");
            if (!/^# /.test(lines[0]) || !/^For /.test(lines[2] ?? "")) {
                problems.push(`${page}: starts with a title, then a line saying whom it is for ("For ...")`);
            }
            const folderIndex = text.get(path.posix.join(path.posix.dirname(page), "index.md"));
            const listed =
                index.includes(`](${path.posix.relative("docs", page)})`) || folderIndex?.includes(`](${path.posix.basename(page)})`);
            if (page !== "docs/README.md" && !page.endsWith("/index.md") && !listed) {
                problems.push(`${page}: not listed in docs/README.md or its folder's index.md`);
            }
        }
        expect(problems).toEqual([]);
    });
});
