/**
 * What a command is doing while it waits, on stderr so that stdout stays the command's output. On a terminal one line
 * updates in place and is cleared before anything else is written; elsewhere (a CI log, a file) each step is one line.
 */
import { OutputStream, Terminal } from "./terminal";

export interface ProgressOptions {
    /**
     * Off a terminal, a step is written only once it has lasted this long, so that a fast run stays as quiet as before.
     * On a terminal every step shows at once.
     */
    onlyAfterMs?: number;
}

/** `CSI 2K` erases the whole line; `\r` returns to its start (ECMA-48). */
const CLEAR_LINE = "\r\x1b[2K";

export class Progress {
    private shown = false;
    private pending?: NodeJS.Timeout;

    constructor(
        private readonly stream: OutputStream,
        private readonly terminal: Terminal,
        private readonly options: ProgressOptions = {},
    ) {}

    /** Says what the command is doing now, replacing what it said before. */
    step(text: string): void {
        clearTimeout(this.pending);
        if (this.terminal.interactive) {
            // One row: a line longer than the terminal would wrap and leave its first part behind when cleared.
            const row = text.length >= this.terminal.width ? `${text.slice(0, this.terminal.width - 2).trimEnd()}…` : text;
            this.stream.write(`${CLEAR_LINE}${this.terminal.style("gray", row)}`);
            this.shown = true;
        } else if (this.options.onlyAfterMs) {
            this.pending = setTimeout(() => this.stream.write(`${text}\n`), this.options.onlyAfterMs);
            // A step still waiting to be told must not keep the process alive.
            this.pending.unref();
        } else {
            this.stream.write(`${text}\n`);
        }
    }

    /** Ends the current step: clears its line on a terminal, so that what follows starts on a clean line. */
    clear(): void {
        clearTimeout(this.pending);
        if (this.shown) {
            this.stream.write(CLEAR_LINE);
            this.shown = false;
        }
    }
}
