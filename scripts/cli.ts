import { parseArgs, ParseArgsConfig } from "util";
import { stopChildren } from "./children";

/** The exit code of a process ended by `signal`, as shells report it. */
const SIGNAL_EXIT: Readonly<Record<string, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/**
 * Runs a CLI's `main` and exits with its code; an unexpected error prints its stack and exits 2, as a usage error does.
 * Every way out (its code, an error, an uncaught exception, SIGINT, SIGTERM, SIGHUP) stops the children it started.
 */
export function runCli(main: (argv: string[]) => Promise<number>): void {
    const fail = (err: unknown) => {
        process.stderr.write(`error: ${(err as Error)?.stack ?? String(err)}\n`);
        stopChildren();
        process.exit(2);
    };
    process.once("uncaughtException", fail);
    for (const [signal, code] of Object.entries(SIGNAL_EXIT)) {
        process.once(signal, () => {
            stopChildren();
            process.exit(code);
        });
    }
    main(process.argv.slice(2)).then((code) => {
        stopChildren();
        process.exit(code);
    }, fail);
}

/** Writes a usage error (the message, then the usage line) to stderr and returns the usage exit code. */
export function usageError(message: string, usage: string): number {
    process.stderr.write(`error: ${message}\n${usage}\n`);
    return 2;
}

/**
 * Parses a CLI's flags strictly (no positionals, no unknown flags). On a bad flag it writes the usage error and returns
 * undefined, so the caller returns 2.
 */
export function parseCliArgs<T extends NonNullable<ParseArgsConfig["options"]>>(argv: string[], options: T, usage: string) {
    try {
        return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
    } catch (err) {
        usageError((err as Error).message, usage);
        return undefined;
    }
}
