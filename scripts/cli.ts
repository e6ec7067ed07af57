import { inspect } from "util";
/**
 * The one convention every command of this project follows: `--help`/`-h` and `--debug` on each, options parsed
 * strictly, an error as one line naming its cause and the next step (its stack trace only with `--debug`), documented
 * exit codes, a total deadline where a command waits on a network, progress on stderr, and no child process left behind.
 */
import { ParseArgsOptionDescriptor, parseArgs } from "util";
import { stopChildren } from "./children";
import { Progress, ProgressOptions } from "./cli/progress";
import { Terminal, terminalFor, wrap } from "./cli/terminal";

/** Exit codes shared by the commands; each command's `--help` says which it uses and what they mean there. */
export const EXIT = {
    ok: 0,
    /** A check failed, or a mandatory policy. */
    failed: 1,
    /** A usage error, or something missing or unreadable before the work could start. */
    usage: 2,
    /** A request timeout or the command's deadline passed. */
    timedOut: 3,
} as const;

/** The exit code of a process ended by `signal`, as shells report it. */
const SIGNAL_EXIT: Readonly<Record<string, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/**
 * A failure the user can act on: its message is the whole story, the cause and the next step on its first line; a
 * failure that is several problems (a configuration's) lists them on the lines after.
 */
export class CliError extends Error {
    constructor(
        message: string,
        readonly exitCode: number = EXIT.usage,
        options?: ErrorOptions,
    ) {
        super(message, options);
        this.name = "CliError";
    }
}

/** One option of a command: parsed by `util.parseArgs`, described in `--help`. */
export interface CliOption extends ParseArgsOptionDescriptor {
    /** What it does, in a line. */
    description: string;
    /** The value's placeholder in `--help` (FILE, SECONDS); a flag has none. */
    value?: string;
}

export type CliOptions = Record<string, CliOption>;

/** Options every command takes. */
const COMMON_OPTIONS = {
    help: { type: "boolean", short: "h", description: "print this help and exit" },
    debug: { type: "boolean", description: "print an error's stack trace, not only its line" },
} as const satisfies CliOptions;

/** What a command is and takes, for parsing and for `--help`. */
export interface CliSpec<O extends CliOptions> {
    /** The npm script: `npm run <script>`. */
    script: string;
    /** What follows `npm run <script> --` in the usage line. */
    synopsis: string;
    /** What the command does, in a few sentences. */
    description: string;
    options: O;
    /** One or two whole commands. */
    examples: string[];
    /** Every code the command exits with and what it means there. */
    exitCodes: Array<[code: number, meaning: string]>;
    /** How its progress shows off a terminal. */
    progress?: ProgressOptions;
}

/** The parsed values of a command's options. */
export type CliValues<O extends CliOptions> = ReturnType<
    typeof parseArgs<{ options: O & typeof COMMON_OPTIONS; strict: true; allowPositionals: false }>
>["values"];

/** `--request-timeout` and `--deadline`, for a command that waits on a network; `runCli` enforces the deadline. */
export function timeLimitOptions(defaults: { requestTimeout: number; deadline: number }) {
    return {
        "request-timeout": {
            type: "string",
            value: "SECONDS",
            default: String(defaults.requestTimeout),
            description: "the longest wait for one answer before giving up with exit code 3",
        },
        deadline: {
            type: "string",
            value: "SECONDS",
            default: String(defaults.deadline),
            description: "the longest the whole command may take before stopping with exit code 3",
        },
    } as const satisfies CliOptions;
}

/** The signals' exit codes, which every command shares. */
const SIGNAL_CODES: Array<[number, string]> = [
    [SIGNAL_EXIT.SIGHUP, "stopped by SIGHUP"],
    [SIGNAL_EXIT.SIGINT, "interrupted (Ctrl-C)"],
    [SIGNAL_EXIT.SIGTERM, "stopped by SIGTERM"],
];

/** `value` of `option` as seconds above 0, or a usage error naming it. */
export function seconds(option: string, value: string): number {
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed <= 0) {
        throw new CliError(`${option} ${JSON.stringify(value)} is not a number of seconds above 0`);
    }
    return parsed;
}

/** The command's options parsed strictly (no positionals, no unknown option), or a usage error pointing at `--help`. */
export function parseCli<O extends CliOptions>(spec: CliSpec<O>, argv: string[]): CliValues<O> {
    try {
        return parseArgs({ args: argv, options: { ...spec.options, ...COMMON_OPTIONS }, strict: true, allowPositionals: false })
            .values as CliValues<O>;
    } catch (err) {
        throw new CliError(`${(err as Error).message}; npm run ${spec.script} -- --help lists the options`);
    }
}

/** `--help`: the usage line, what the command does, each option in a line, examples and exit codes, fitted to `width`. */
export function renderHelp<O extends CliOptions>(spec: CliSpec<O>, width: number): string {
    const options: Array<[string, CliOption]> = [...Object.entries(spec.options), ...Object.entries(COMMON_OPTIONS)];
    const names = options.map(
        ([name, option]) =>
            `${option.short ? `-${option.short}, ` : "    "}--${name}${option.type === "string" ? ` ${option.value ?? "VALUE"}` : ""}`,
    );
    const column = Math.max(...names.map((name) => name.length)) + 4;
    const optionLines = options.flatMap(([, option], index) => {
        const shown = typeof option.default === "string" ? ` (default ${option.default})` : "";
        return wrap(`  ${names[index].padEnd(column - 2)}${option.description}${shown}`, width, " ".repeat(column));
    });
    const codes = [...spec.exitCodes, ...SIGNAL_CODES];
    const codeColumn = Math.max(...codes.map(([code]) => String(code).length)) + 4;
    return [
        `usage: npm run ${spec.script} -- ${spec.synopsis}`,
        "",
        ...wrap(spec.description, width),
        "",
        "Options:",
        ...optionLines,
        "",
        "Examples:",
        ...spec.examples.flatMap((example) => wrap(`  ${example}`, width, "      ")),
        "",
        "Exit codes:",
        ...codes.flatMap(([code, meaning]) => wrap(`  ${String(code).padEnd(codeColumn - 2)}${meaning}`, width, " ".repeat(codeColumn))),
        "",
    ].join("\n");
}

/**
 * What a thrown value says in one line, as Node prints it (util.inspect, as the Pulumi language host does): an Error's
 * message, or, without one, its name; anything else inspected (`undefined`, `{ code: 42 }`), never an empty line.
 */
export function describeError(err: unknown): string {
    if (err instanceof Error) {
        return err.message.trim() !== "" ? err.message : `${err.name} with no message`;
    }
    return typeof err === "string" && err.trim() !== "" ? err : `a thrown ${inspect(err, { breakLength: Infinity })}`;
}

/**
 * What an error prints: a {@link CliError}'s message (its first line the cause; any further lines the problems it lists,
 * as a configuration with several has), an unexpected error's first line pointing at `--debug`, and with `debug` the
 * stacks.
 */
export function errorLines(err: unknown, debug: boolean, terminal: Terminal): string {
    const message = describeError(err);
    const line =
        err instanceof CliError ? message : debug ? message.split("\n")[0] : `${message.split("\n")[0]}; --debug prints its stack trace`;
    const stacks: string[] = [];
    for (let cause: unknown = err; debug && cause instanceof Error; cause = cause.cause) {
        stacks.push(cause.stack ?? String(cause));
    }
    return [`${terminal.style("red", "error:")} ${line}`, ...stacks].join("\n") + "\n";
}

/** What a command's `main` writes with. */
export interface CliContext {
    /** Its stdout, for the width and colour of what it prints. */
    stdout: Terminal;
    /** Says on stderr what the command is doing. */
    progress: Progress;
    /** Writes to stdout after clearing the progress line, so that the two never share a row. */
    print(text: string): void;
}

/**
 * Runs a command: parses its options (`--help` prints the help and exits 0), runs `main` under its deadline when it
 * has one, and exits with `main`'s code. Every way out (its code, an error, an uncaught exception, SIGINT, SIGTERM,
 * SIGHUP) clears the progress line and stops the children it started.
 */
export function runCli<O extends CliOptions>(spec: CliSpec<O>, main: (values: CliValues<O>, cli: CliContext) => Promise<number>): void {
    const argv = process.argv.slice(2);
    const stderr = terminalFor(process.stderr);
    const stdout = terminalFor(process.stdout);
    const progress = new Progress(process.stderr, stderr, spec.progress);
    const exit = (code: number): never => {
        progress.clear();
        stopChildren();
        process.exit(code);
    };
    const fail = (err: unknown): never => {
        progress.clear();
        process.stderr.write(errorLines(err, argv.includes("--debug"), stderr));
        return exit(err instanceof CliError ? err.exitCode : EXIT.usage);
    };
    process.once("uncaughtException", fail);
    for (const [signal, code] of Object.entries(SIGNAL_EXIT)) {
        process.once(signal, () => exit(code));
    }
    let values: CliValues<O>;
    let deadline: number | undefined;
    try {
        values = parseCli(spec, argv);
        const given = (values as { deadline?: string }).deadline;
        deadline = given === undefined ? undefined : seconds("--deadline", given);
    } catch (err) {
        return fail(err);
    }
    if ((values as { help?: boolean }).help) {
        process.stdout.write(renderHelp(spec, stdout.width));
        return exit(EXIT.ok);
    }
    if (deadline !== undefined) {
        const message = `npm run ${spec.script} did not finish within its ${deadline} s deadline; --deadline SECONDS allows longer`;
        // Unreferenced: a command that finishes in time exits without waiting for it.
        setTimeout(() => fail(new CliError(message, EXIT.timedOut)), deadline * 1000).unref();
    }
    const print = (text: string) => {
        progress.clear();
        process.stdout.write(text);
    };
    // Exits once stdout has taken everything written to it: a pipe may still hold part of a long --json document.
    main(values, { stdout, progress, print }).then((code) => process.stdout.write("", () => exit(code)), fail);
}
