/**
 * The generated blocks of hand-written pages: a marker comment before and after the text a generator owns. Every
 * generator replaces its block one way, here.
 */

/** A generated block's markers: `begin` is found up to its parenthesis, so that a marker naming another generator is still its block's. */
export interface BlockMarkers {
    begin: string;
    end: string;
}

/** `page` (the file `file`) with the block between `markers` replaced by `block`, which carries the markers itself; an error naming the file when they are missing. */
export function withGeneratedBlock(page: string, file: string, markers: BlockMarkers, block: string): string {
    const parenthesis = markers.begin.indexOf(" (");
    const start = page.indexOf(parenthesis < 0 ? markers.begin : markers.begin.slice(0, parenthesis));
    const end = page.indexOf(markers.end);
    if (start < 0 || end < start) {
        throw new Error(`${file} has no generated block (${markers.begin} … ${markers.end})`);
    }
    return `${page.slice(0, start)}${block}${page.slice(end + markers.end.length)}`;
}
