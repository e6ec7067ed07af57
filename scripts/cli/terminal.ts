/**
 * What a command may assume of the stream it writes to: how wide a line may be, and whether it shows colour. Both are
 * decided once per stream, the way a user expects of a command-line tool: colour only on a terminal and never with
 * `NO_COLOR`; lines as wide as the terminal, else `COLUMNS`, else 80.
 */
import { styleText } from "util";

/** The styles the commands use. */
export type Style = "red" | "yellow" | "green" | "gray" | "bold";

/** A stream as the commands see it. */
export interface Terminal {
    /** The columns a line may take. */
    readonly width: number;
    /** Whether the stream is an interactive terminal (a progress line may update in place). */
    readonly interactive: boolean;
    /** `text` in `style` when the stream shows colour, else `text` unchanged. */
    style(style: Style, text: string): string;
}

/** The width when neither the terminal nor `COLUMNS` gives one. */
const DEFAULT_WIDTH = 80;

/** The part of a Node stream a terminal is decided from (`tty.WriteStream` has all of it). */
export type OutputStream = NodeJS.WritableStream & {
    isTTY?: boolean;
    columns?: number;
    getColorDepth?: (env?: NodeJS.ProcessEnv) => number;
};

/** The `FORCE_COLOR` values with which Node colours: more than 2 bits of colour (node lib/internal/tty.js:109-125). */
const FORCE_COLOR_ON = ["", "1", "true", "2", "3"];

/**
 * Whether `stream` shows colour. Never with `NO_COLOR` set to anything but the empty string (no-color.org). Otherwise as
 * Node decides for `util.styleText` (node lib/internal/util/colors.js:18-25, `shouldColorize`): `FORCE_COLOR` first,
 * colouring even a pipe (1, true or empty; 2; 3) or turning colour off (0 or anything else); else only a TTY whose
 * `getColorDepth` is above 2 bits, which `NODE_DISABLE_COLORS`, an empty `NO_COLOR`, `TERM=dumb` and an unknown CI
 * turn off (lib/internal/tty.js:106, `getColorDepth`). Decided here, with `env`, rather than by `styleText`'s own
 * check: that reads only `process.env`, lets `FORCE_COLOR` override `NO_COLOR` (with a warning, tty.js:81-101), and
 * in Node 22.13 skipped the check for an array of formats (nodejs/node#56717, fixed by #56722).
 */
function showsColour(stream: OutputStream, env: NodeJS.ProcessEnv): boolean {
    if (env.NO_COLOR) {
        return false;
    }
    if (env.FORCE_COLOR !== undefined) {
        return FORCE_COLOR_ON.includes(env.FORCE_COLOR);
    }
    return Boolean(stream.isTTY) && (stream.getColorDepth ? stream.getColorDepth(env) > 2 : true);
}

/** How `stream` shows text: its width (the terminal's, else `COLUMNS`, else 80) and whether it shows colour. */
export function terminalFor(stream: OutputStream, env: NodeJS.ProcessEnv = process.env): Terminal {
    const columns = Number(env.COLUMNS);
    const width = stream.isTTY && stream.columns ? stream.columns : Number.isInteger(columns) && columns > 0 ? columns : DEFAULT_WIDTH;
    const colour = showsColour(stream, env);
    return {
        width,
        interactive: Boolean(stream.isTTY),
        style: (style, text) => (colour ? styleText(style, text, { validateStream: false }) : text),
    };
}

/** A terminal that shows no colour, `width` wide. */
export function plainTerminal(width = DEFAULT_WIDTH): Terminal {
    return { width, interactive: false, style: (_, text) => text };
}

/**
 * `text` (plain, without escape sequences) broken at spaces into lines of at most `width` columns, each after the first
 * starting with `hanging`. The first line never breaks within its first `hanging.length` columns (a status or a key
 * the hanging indent aligns under), spacing inside a line (aligned keys) is kept, and a word longer than a line (a URL,
 * a long name) keeps its line whole rather than being cut.
 */
export function wrap(text: string, width: number, hanging = ""): string[] {
    const lines: string[] = [];
    let rest = text;
    let start = Math.max(/^ */.exec(text)![0].length, hanging.length);
    while (rest.length > width) {
        // The last space before the limit that ends a run of spaces, else the first after it; none inside the indent.
        const breaks = [...rest.slice(start).matchAll(/ +(?=\S)/g)].map((match) => ({
            at: start + match.index,
            end: start + match.index + match[0].length,
        }));
        const fitting = breaks.filter((candidate) => candidate.at <= width);
        const cut = fitting.at(-1) ?? breaks[0];
        if (!cut) {
            break;
        }
        lines.push(rest.slice(0, cut.at));
        rest = `${hanging}${rest.slice(cut.end)}`;
        start = hanging.length;
    }
    lines.push(rest);
    return lines;
}
