import { parseArgs, ParseArgsConfig } from "util";

/** Runs a CLI's `main` and exits with its code; an unexpected error prints its stack and exits 2, as a usage error does. */
export function runCli(main: (argv: string[]) => Promise<number>): void {
    main(process.argv.slice(2)).then(
        (code) => process.exit(code),
        (err) => {
            process.stderr.write(`error: ${(err as Error)?.stack ?? String(err)}\n`);
            process.exit(2);
        },
    );
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
