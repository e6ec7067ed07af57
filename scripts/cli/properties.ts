/**
 * Nested values laid out as the Pulumi CLI lays out a stack's outputs in `pulumi preview` and `pulumi up`
 * (pulumi/pulumi@1b59498 pkg/backend/display/object_diff.go): keys sorted and padded to the longest (`printObject`
 * :276-287, `printPropertyTitle` :655-657, `%-Ns: `), an object's properties and an array's `[i]: ` elements four spaces
 * further in between `{` `}` and `[` `]` (`printPropertyValueRecurse` :670-751), strings quoted, null as `<null>`, a
 * secret it does not show as `[secret]` (`printPrimitivePropertyValue` :976-1024). `pulumi stack output` itself prints
 * each output as one line of JSON in a table (pkg/cmd/pulumi/stack/stack.go:252-296); the preview's layout reads better
 * nested. A line too wide for the terminal wraps under its value.
 */
import { wrap } from "./terminal";

/** How to lay values out. */
export interface PropertyLayout {
    /** Columns a line may take. */
    width: number;
    /** Strings quoted, as Pulumi prints them; off for prose (a check's evidence), which reads better bare. */
    quoteStrings: boolean;
}

/** What `pulumi stack output --json` prints in place of a secret it was not asked to show. */
const HIDDEN_SECRET = "[secret]";

const indentation = (level: number) => "    ".repeat(level);

function primitive(value: unknown, layout: PropertyLayout): string {
    if (value === null || value === undefined) {
        return "<null>";
    }
    if (typeof value !== "string") {
        return String(value);
    }
    return !layout.quoteStrings || value === HIDDEN_SECRET ? value : JSON.stringify(value);
}

/** `title` then `value`: on the same line when primitive, else opening a block closed at `level`. */
function valueLines(title: string, value: unknown, level: number, layout: PropertyLayout): string[] {
    if (Array.isArray(value)) {
        return value.length === 0
            ? [`${title}[]`]
            : [
                  `${title}[`,
                  ...value.flatMap((element, index) => valueLines(`${indentation(level + 1)}[${index}]: `, element, level + 1, layout)),
                  `${indentation(level)}]`,
              ];
    }
    if (value !== null && typeof value === "object") {
        return Object.keys(value).length === 0
            ? [`${title}{}`]
            : [`${title}{`, ...propertyLines(value as Record<string, unknown>, level + 1, layout), `${indentation(level)}}`];
    }
    // Hang under the value, unless the title takes most of the line.
    const hanging = title.length <= layout.width / 2 ? " ".repeat(title.length) : indentation(level + 1);
    return wrap(`${title}${primitive(value, layout)}`, layout.width, hanging);
}

/** The lines of `properties`, keys at `level` (four spaces a level), sorted and aligned. */
export function propertyLines(properties: Record<string, unknown>, level: number, layout: PropertyLayout): string[] {
    const keys = Object.keys(properties).sort();
    return propertyLinesOf(properties, keys, Math.max(0, ...keys.map((key) => key.length)), level, layout);
}

function propertyLinesOf(
    properties: Record<string, unknown>,
    keys: string[],
    keyWidth: number,
    level: number,
    layout: PropertyLayout,
): string[] {
    return keys.flatMap((key) => valueLines(`${indentation(level)}${key.padEnd(keyWidth)}: `, properties[key], level, layout));
}

/**
 * Whether Pulumi shows a stack output at all: not null, an empty string, an empty array or an empty object
 * (`shouldPrintPropertyValue` :576-594).
 */
function shown(value: unknown): boolean {
    return !(
        value === null ||
        value === undefined ||
        value === "" ||
        (Array.isArray(value) && value.length === 0) ||
        (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0)
    );
}

/**
 * A stack's outputs as the `Outputs:` section of `pulumi preview` lists them, one level in (progress.go:1040-1052,
 * `printOutputs` passes indent 1): empty values left out, the others' keys padded to the longest of all keys, as
 * `getResourceOutputsPropertiesString` pads them (object_diff.go:489-495, 532).
 */
export function outputLines(outputs: Record<string, unknown>, width: number): string[] {
    const keys = Object.keys(outputs).sort();
    const keyWidth = Math.max(0, ...keys.map((key) => key.length));
    return propertyLinesOf(
        outputs,
        keys.filter((key) => shown(outputs[key])),
        keyWidth,
        1,
        { width, quoteStrings: true },
    );
}
