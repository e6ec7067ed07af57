/** A POSIX shell command line of `words`: a word with anything but plain characters is single-quoted, so no value can end the quoting or run anything. */
export function shellCommand(words: readonly string[]): string {
    return words.map((word) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`)).join(" ");
}

/**
 * `curl` trusting the Gateway's CA (`ca.crt`, as the `caCertificateCommand` output writes it) with the key from the shell's
 * `$API_KEY` (as the `access` output says how to set it), then `words`: the key itself is never in an output.
 */
export function authorizedCurl(words: readonly string[]): string {
    return `${shellCommand(["curl", "-sS", "--cacert", "ca.crt"])} -H "Authorization: Bearer $API_KEY" ${shellCommand(words)}`;
}
