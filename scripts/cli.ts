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
