import * as fs from "fs";
import * as http from "http";
import { AddressInfo } from "net";
import * as os from "os";
import * as path from "path";
import { CliError, errorLines, parseCli } from "../../scripts/cli";
import { plainTerminal } from "../../scripts/cli/terminal";
import { FETCH_SHARED_CLI, FetchOptions, fetchShared as runFetchShared, selectLines } from "../../scripts/fetch-shared";
import { readManifest } from "../../scripts/sharedDir";
import { withSharedDir } from "../shared";

const NO_NETWORK = "without network here, point SHARED_DIR at a copy of the shared folder, or run again with network";

/** A retry at once; answers that come get seconds, so a busy machine does not turn them into timeouts. */
const FAST: FetchOptions = { attempts: 2, retryDelayMs: 0, requestTimeoutMs: 5000 };

/** Upstream on loopback: two files, one that is not there, one cut off mid-body, one that fails once, one that never answers. */
async function upstream() {
    const requests: string[] = [];
    const server = http.createServer((req, res) => {
        const url = req.url ?? "";
        requests.push(url);
        if (url === "/kserve/crd.yaml") {
            res.writeHead(200).end("kind: CustomResourceDefinition\n");
        } else if (url === "/istio/crd-all.gen.yaml") {
            res.writeHead(200).end("# header\n---\nkind: DestinationRule\n---\nkind: EnvoyFilter\n");
        } else if (url === "/flaky.yaml" && requests.filter((seen) => seen === url).length === 1) {
            res.writeHead(503).end();
        } else if (url === "/flaky.yaml") {
            res.writeHead(200).end("second try\n");
        } else if (url === "/cut.yaml") {
            res.writeHead(200, { "Content-Length": "100" });
            res.write("kind: Cust");
            setTimeout(() => res.destroy(), 10);
        } else if (url !== "/hangs.yaml") {
            res.writeHead(404).end();
        }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const close = () =>
        new Promise<void>((resolve) => {
            server.close(() => resolve());
            // fetch keeps connections alive, and one request never gets an answer: end them now.
            server.closeAllConnections();
        });
    return { base, requests, close };
}

let server: Awaited<ReturnType<typeof upstream>>;
let scratch: string;

beforeAll(async () => {
    server = await upstream();
});
afterAll(() => server.close());
beforeEach(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "fetch-shared-"));
    server.requests.length = 0;
});

/** A manifest of `lines` (DEST, path on the loopback upstream, optional range), tab-separated, after a comment. */
function manifest(...lines: string[][]): string {
    const file = path.join(scratch, "shared-files.tsv");
    const rows = lines.map(([dest, urlPath, ...range]) => [dest, `${server.base}${urlPath}`, ...range].join("\t"));
    fs.writeFileSync(file, ["# what the tests read", ...rows, ""].join("\n"));
    return file;
}

/** Runs the command in this process with SHARED_DIR set to `sharedDir`, capturing what it prints as `runCli` would print it. */
async function fetchShared(argv: string[], sharedDir: string, options = FAST) {
    let stdout = "";
    const print = (text: string) => (stdout += text);
    try {
        const status = await withSharedDir(sharedDir, () => runFetchShared(parseCli(FETCH_SHARED_CLI, argv), { print }, options));
        return { status, stdout, stderr: "" };
    } catch (err) {
        return { status: (err as CliError).exitCode, stdout, stderr: errorLines(err, false, plainTerminal()) };
    }
}

/** Every file under `dir`, relative to it, sorted. */
const filesIn = (dir: string) =>
    (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
        .filter((entry) => entry.isFile())
        .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
        .sort();

describe("npm run shared:fetch", () => {
    test("writes each file into SHARED_DIR, keeps only a range's lines, and prints a line per file and a summary", async () => {
        const shared = path.join(scratch, "shared");
        const list = manifest(
            ["crds/kserve/crd.yaml", "/kserve/crd.yaml"],
            ["crds/istio/networking.istio.io_envoyfilters.yaml", "/istio/crd-all.gen.yaml", "4-5"],
        );
        expect(await fetchShared(["--manifest", list], shared)).toEqual({
            status: 0,
            stdout: [
                "fetched 1 of 2: crds/kserve/crd.yaml",
                "fetched 2 of 2: crds/istio/networking.istio.io_envoyfilters.yaml (lines 4-5)",
                `fetched 2 pinned upstream files into ${shared}`,
                "",
            ].join("\n"),
            stderr: "",
        });
        expect(filesIn(shared)).toEqual(["crds/istio/networking.istio.io_envoyfilters.yaml", "crds/kserve/crd.yaml"]);
        expect(fs.readFileSync(path.join(shared, "crds/kserve/crd.yaml"), "utf8")).toBe("kind: CustomResourceDefinition\n");
        expect(fs.readFileSync(path.join(shared, "crds/istio/networking.istio.io_envoyfilters.yaml"), "utf8")).toBe(
            "---\nkind: EnvoyFilter\n",
        );
    });

    test("a file the server does not have stops the run in one line naming it, its URL and the cause, with exit 2, untried again", async () => {
        const shared = path.join(scratch, "shared");
        const list = manifest(["crds/kserve/crd.yaml", "/kserve/crd.yaml"], ["reference/gone.yaml", "/gone.yaml"]);
        expect(await fetchShared(["--manifest", list], shared)).toEqual({
            status: 2,
            stdout: "fetched 1 of 2: crds/kserve/crd.yaml\n",
            stderr: `error: cannot fetch reference/gone.yaml from ${server.base}/gone.yaml: HTTP 404 Not Found\n`,
        });
        expect(server.requests).toEqual(["/kserve/crd.yaml", "/gone.yaml"]);
        expect(filesIn(shared)).toEqual(["crds/kserve/crd.yaml"]);
    });

    test("a download cut off on every try leaves the file as it was and no partial file beside it", async () => {
        const shared = path.join(scratch, "shared");
        fs.mkdirSync(path.join(shared, "crds"), { recursive: true });
        fs.writeFileSync(path.join(shared, "crds", "crd.yaml"), "kind: Old\n");
        const { status, stderr } = await fetchShared(["--manifest", manifest(["crds/crd.yaml", "/cut.yaml"])], shared);
        expect({ status, stderr }).toEqual({
            status: 2,
            stderr: `error: cannot fetch crds/crd.yaml from ${server.base}/cut.yaml: other side closed (2 tries); ${NO_NETWORK}\n`,
        });
        expect(filesIn(shared)).toEqual(["crds/crd.yaml"]);
        expect(fs.readFileSync(path.join(shared, "crds", "crd.yaml"), "utf8")).toBe("kind: Old\n");
    });

    test("a server error is tried again; a request with no answer is given up at the deadline", async () => {
        const shared = path.join(scratch, "shared");
        expect((await fetchShared(["--manifest", manifest(["flaky.yaml", "/flaky.yaml"])], shared)).status).toBe(0);
        expect(server.requests).toEqual(["/flaky.yaml", "/flaky.yaml"]);
        expect(fs.readFileSync(path.join(shared, "flaky.yaml"), "utf8")).toBe("second try\n");

        const hung = await fetchShared(["--manifest", manifest(["hangs.yaml", "/hangs.yaml"])], shared, {
            ...FAST,
            attempts: 1,
            requestTimeoutMs: 50,
        });
        expect(hung.stderr).toBe(
            `error: cannot fetch hangs.yaml from ${server.base}/hangs.yaml: no complete answer within 0.05 s; ${NO_NETWORK}\n`,
        );
    });

    test("no answer at all (no network here): one line with the cause and what to do instead, no stack trace; an answer gets no such advice", async () => {
        const closed = await upstream();
        await closed.close();
        const list = path.join(scratch, "unreachable.tsv");
        fs.writeFileSync(list, `crds/kserve/crd.yaml\t${closed.base}/kserve/crd.yaml\n`);
        expect(await fetchShared(["--manifest", list], path.join(scratch, "shared"))).toEqual({
            status: 2,
            stdout: "",
            stderr: `error: cannot fetch crds/kserve/crd.yaml from ${closed.base}/kserve/crd.yaml: connect ECONNREFUSED ${closed.base.slice("http://".length)} (2 tries); ${NO_NETWORK}\n`,
        });
        // The server answered: the URL is what to look at, not the network.
        const gone = await fetchShared(["--manifest", manifest(["gone.yaml", "/gone.yaml"])], path.join(scratch, "shared"));
        expect(gone.stderr).toBe(`error: cannot fetch gone.yaml from ${server.base}/gone.yaml: HTTP 404 Not Found\n`);
    });

    test("--if-missing fetches nothing when the shared folder holds every file, and fetches into SHARED_DIR when it does not exist", async () => {
        const list = manifest(["crds/kserve/crd.yaml", "/kserve/crd.yaml"]);
        const complete = path.join(scratch, "complete");
        fs.mkdirSync(path.join(complete, "crds", "kserve"), { recursive: true });
        fs.writeFileSync(path.join(complete, "crds", "kserve", "crd.yaml"), "kind: CustomResourceDefinition\n");
        expect(await fetchShared(["--manifest", list, "--if-missing"], complete)).toEqual({
            status: 0,
            stdout: `using the pinned upstream files in ${complete}; nothing fetched\n`,
            stderr: "",
        });
        expect(server.requests).toEqual([]);
        const shared = path.join(scratch, "shared");
        expect((await fetchShared(["--manifest", list, "--if-missing"], shared)).status).toBe(0);
        expect(filesIn(shared)).toEqual(["crds/kserve/crd.yaml"]);
    });

    test("--if-missing fetches again, whole, into a folder a fetch cut short left without some of the files", async () => {
        const list = manifest(
            ["crds/kserve/crd.yaml", "/kserve/crd.yaml"],
            ["crds/istio/networking.istio.io_envoyfilters.yaml", "/istio/crd-all.gen.yaml", "4-5"],
        );
        const half = path.join(scratch, "half");
        fs.mkdirSync(path.join(half, "crds", "kserve"), { recursive: true });
        fs.writeFileSync(path.join(half, "crds", "kserve", "crd.yaml"), "kind: CustomResourceDefinition\n");
        expect(await fetchShared(["--manifest", list, "--if-missing"], half)).toEqual({
            status: 0,
            stdout: [
                `${half} lacks 1 of the 2 pinned upstream files (crds/istio/networking.istio.io_envoyfilters.yaml first); fetching them all into ${half}`,
                "fetched 1 of 2: crds/kserve/crd.yaml",
                "fetched 2 of 2: crds/istio/networking.istio.io_envoyfilters.yaml (lines 4-5)",
                `fetched 2 pinned upstream files into ${half}`,
                "",
            ].join("\n"),
            stderr: "",
        });
        expect(filesIn(half)).toEqual(["crds/istio/networking.istio.io_envoyfilters.yaml", "crds/kserve/crd.yaml"]);
    });
});

describe("the manifest", () => {
    test("comments and blank lines are skipped; a range is read as FIRST-LAST", () => {
        const file = path.join(scratch, "list.tsv");
        fs.writeFileSync(file, "# a comment\n\na.yaml\thttps://example.com/a.yaml\nb.yaml\thttps://example.com/all.yaml\t3-9\n");
        expect(readManifest(file)).toEqual([
            { dest: "a.yaml", url: "https://example.com/a.yaml" },
            { dest: "b.yaml", url: "https://example.com/all.yaml", lines: { first: 3, last: 9 } },
        ]);
    });

    test.each([
        ["a.yaml", 'expected DEST<TAB>URL[<TAB>FIRST-LAST], got "a.yaml"'],
        ["../a.yaml\thttps://example.com/a.yaml", "../a.yaml is not a path inside the shared folder"],
        ["/etc/a.yaml\thttps://example.com/a.yaml", "/etc/a.yaml is not a path inside the shared folder"],
        ["a.yaml\texample.com/a.yaml", "example.com/a.yaml is not a URL"],
        ["a.yaml\thttps://example.com/a.yaml\t9-3", '"9-3" is not a line range FIRST-LAST with 1 <= FIRST <= LAST'],
        ["a.yaml\thttps://example.com/a.yaml\t0-3", '"0-3" is not a line range FIRST-LAST with 1 <= FIRST <= LAST'],
    ])("%j is refused, naming the line", (line, message) => {
        const file = path.join(scratch, "list.tsv");
        fs.writeFileSync(file, `# header\n${line}\n`);
        expect(() => readManifest(file)).toThrow(`${file}:2: ${message}`);
    });
});

describe("a line range, as sed -n FIRST,LASTp keeps it", () => {
    const body = Buffer.from("one\ntwo\nthree\nfour");
    test.each([
        [{ first: 2, last: 3 }, "two\nthree\n"],
        [{ first: 3, last: 4 }, "three\nfour"],
        [{ first: 4, last: 4 }, "four"],
    ])("%j", (range, kept) => {
        expect(selectLines(body, range).toString()).toBe(kept);
    });

    test("bytes that are not UTF-8 are kept as they are; a range past the end is refused", () => {
        expect([...selectLines(Buffer.from([0x61, 0x0a, 0xef, 0xbb, 0xbf, 0xff, 0x0a]), { first: 2, last: 2 })]).toEqual([
            0xef, 0xbb, 0xbf, 0xff, 0x0a,
        ]);
        expect(() => selectLines(body, { first: 3, last: 5 })).toThrow(
            "the download has 4 lines, fewer than the 5 the manifest's range ends at",
        );
    });
});
