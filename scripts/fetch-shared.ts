/**
 * `npm run shared:fetch`: downloads the pinned upstream files the tests and the offline preview read (upstream CRDs and
 * reference configs, listed in .github/shared-files.tsv: the destination, a URL at a pinned commit, optionally the
 * FIRST-LAST lines to keep) into SHARED_DIR when set, else `.shared/` in the checkout. Each file is written whole or not
 * at all, and a folder lacking one of them is not read (./sharedDir.ts). `--help` lists the options and exit codes.
 */
import * as fs from "fs";
import * as path from "path";
import { CliContext, CliError, CliSpec, CliValues, EXIT, runCli } from "./cli";
import { SHARED_MANIFEST, SharedFile, findSharedDir, missingSharedFiles, readManifest, sharedFetchDir } from "./sharedDir";

// test/workflows.test.ts reads the manifest through this command, which fetches what it lists.
export { readManifest } from "./sharedDir";

/** How hard to try for each file. */
export interface FetchOptions {
    /** Tries per file. */
    attempts: number;
    /** The pause before the nth retry is n times this, in milliseconds. */
    retryDelayMs: number;
    /** Deadline of one try, up to the last byte, in milliseconds. */
    requestTimeoutMs: number;
}

const DEFAULT_FETCH_OPTIONS: FetchOptions = { attempts: 3, retryDelayMs: 1_000, requestTimeoutMs: 60_000 };

/**
 * Lines FIRST to LAST of `body`, each with its newline (the last line of the body may have none), as `sed -n FIRST,LASTp`
 * prints them. A body shorter than LAST is refused: the range was written for another file.
 */
export function selectLines(body: Buffer, { first, last }: { first: number; last: number }): Buffer {
    // latin1 maps each byte to one character and back, so the kept lines are byte for byte the download's.
    const lines = body.toString("latin1").split(/(?<=\n)/);
    if (lines.length < last) {
        throw new Error(`the download has ${lines.length} lines, fewer than the ${last} the manifest's range ends at`);
    }
    return Buffer.from(lines.slice(first - 1, last).join(""), "latin1");
}

/** An answer another try may mend: a server error or a rate limit. */
class ServerError extends Error {}

/** A failure another try cannot mend: the server says the URL is wrong. */
class UrlRefused extends Error {}

/** No answer at all (no network, no name resolution, a connection refused, cut or timed out). */
class Unreachable extends Error {}

/** The next step when upstream cannot be reached: the files come from a copy, or from a later run. */
const NO_NETWORK = "without network here, point SHARED_DIR at a copy of the shared folder, or run again with network";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The body at `url`, tried up to `options.attempts` times; throws the last try's cause in one line, {@link Unreachable} without an answer. */
async function download(url: string, options: FetchOptions): Promise<Buffer> {
    for (let attempt = 1; ; attempt++) {
        try {
            const response = await fetch(url, { signal: AbortSignal.timeout(options.requestTimeoutMs) });
            if (!response.ok) {
                await response.body?.cancel();
                const status = `HTTP ${response.status} ${response.statusText}`;
                // A server error or a rate limit may pass; any other answer is about the URL itself.
                throw response.status >= 500 || response.status === 429 ? new ServerError(status) : new UrlRefused(status);
            }
            return Buffer.from(await response.arrayBuffer());
        } catch (err) {
            const error = err as Error;
            const cause =
                error.name === "TimeoutError"
                    ? `no complete answer within ${options.requestTimeoutMs / 1000} s`
                    : // fetch reports a network failure as "fetch failed", with the reason as its cause.
                      ((error.cause as Error | undefined)?.message ?? error.message);
            if (error instanceof UrlRefused || attempt >= options.attempts) {
                const message = attempt > 1 ? `${cause} (${attempt} tries)` : cause;
                throw error instanceof UrlRefused || error instanceof ServerError ? new Error(message) : new Unreachable(message);
            }
        }
        await sleep(options.retryDelayMs * attempt);
    }
}

/** Writes `content` to `file` through a temporary file beside it, so that an interrupted run never leaves half a file. */
function writeWhole(file: string, content: Buffer): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}.partial`;
    try {
        fs.writeFileSync(partial, content);
        fs.renameSync(partial, file);
    } catch (err) {
        fs.rmSync(partial, { force: true });
        throw err;
    }
}

/** Fetches every file into `dir`, one progress line each; the first failure throws, naming the file, its URL and the cause. */
async function fetchSharedFiles(
    files: readonly SharedFile[],
    dir: string,
    options: FetchOptions,
    print: (text: string) => void,
): Promise<void> {
    for (const [index, file] of files.entries()) {
        let content: Buffer;
        try {
            const body = await download(file.url, options);
            content = file.lines ? selectLines(body, file.lines) : body;
        } catch (err) {
            const next = err instanceof Unreachable ? `; ${NO_NETWORK}` : "";
            throw new Error(`cannot fetch ${file.dest} from ${file.url}: ${(err as Error).message}${next}`);
        }
        try {
            writeWhole(path.join(dir, file.dest), content);
        } catch (err) {
            throw new Error(`cannot write ${file.dest} into ${dir}: ${(err as Error).message}`);
        }
        const range = file.lines ? ` (lines ${file.lines.first}-${file.lines.last})` : "";
        print(`fetched ${index + 1} of ${files.length}: ${file.dest}${range}\n`);
    }
}

const OPTIONS = {
    manifest: {
        type: "string",
        value: "FILE",
        default: SHARED_MANIFEST,
        description: "what to fetch, a line each: DEST<TAB>URL[<TAB>FIRST-LAST]",
    },
    "if-missing": {
        type: "boolean",
        description: "fetch only when no complete shared folder resolves (SHARED_DIR, else .shared/, else ../shared)",
    },
} as const;

export const FETCH_SHARED_CLI: CliSpec<typeof OPTIONS> = {
    script: "shared:fetch",
    synopsis: "[--manifest FILE] [--if-missing]",
    description:
        "Fetches the pinned upstream files (CRDs and reference configs) the tests and the offline preview read into SHARED_DIR " +
        "when it is set, else .shared/ in the checkout.",
    options: OPTIONS,
    examples: ["npm run shared:fetch", "SHARED_DIR=/tmp/shared npm run shared:fetch"],
    exitCodes: [
        [EXIT.ok, "every file fetched, or with --if-missing a complete shared folder already resolves"],
        [EXIT.usage, "a file could not be fetched or written, or a usage error"],
    ],
};

/** The command; `options` lets tests shorten the waits. */
export async function fetchShared(
    values: CliValues<typeof OPTIONS>,
    cli: Pick<CliContext, "print">,
    options: FetchOptions = DEFAULT_FETCH_OPTIONS,
): Promise<number> {
    const dir = sharedFetchDir();
    try {
        const files = readManifest(values.manifest!);
        const found = values["if-missing"] ? findSharedDir() : undefined;
        if (found !== undefined) {
            const missing = missingSharedFiles(found, files);
            if (missing.length === 0) {
                cli.print(`using the pinned upstream files in ${found}; nothing fetched\n`);
                return EXIT.ok;
            }
            // A fetch cut short: fetched again, whole.
            cli.print(
                `${found} lacks ${missing.length} of the ${files.length} pinned upstream files (${missing[0]} first); fetching them all into ${dir}\n`,
            );
        }
        await fetchSharedFiles(files, dir, options, cli.print);
        cli.print(`fetched ${files.length} pinned upstream files into ${dir}\n`);
        return EXIT.ok;
    } catch (err) {
        throw new CliError((err as Error).message);
    }
}

if (require.main === module) {
    runCli(FETCH_SHARED_CLI, (values, cli) => fetchShared(values, cli));
}
