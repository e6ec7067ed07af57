/** A POSIX shell command line of `words`: a word with anything but plain characters is single-quoted, so no value can end the quoting or run anything. */
export function shellCommand(words: readonly string[]): string {
    return words.map((word) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`)).join(" ");
}
