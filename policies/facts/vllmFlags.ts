/**
 * vLLM command lines as vLLM's own parser reads them, whoever wrote them: `--flag value` and
 * `--flag=value`, one string holding a flag and its value, underscores for dashes (vLLM's
 * FlexibleArgumentParser accepts both), short aliases (`-tp 4`), and flags inside a shell script
 * (`sh -c "python3 -m vllm.entrypoints.openai.api_server ..."`, KServe's `bash -c` wrapper).
 * Shared by the settings' validation and the policy pack, so both read a flag the same way.
 */

/**
 * vLLM's short option aliases. Sources: vllm-project/vllm vllm/engine/arg_utils.py `EngineArgs.add_cli_args`
 * (`-tp`, `-pp`, `-dp`, `-dpn`, `-dpr`, `-dpl`, `-dpa`, `-dpp`, `-dpb`, `-O`, `-q`) and
 * vllm/entrypoints/openai/cli_args.py `make_arg_parser` (`-asc`).
 */
export const VLLM_SHORT_FLAGS: Readonly<Record<string, string>> = {
    "-tp": "--tensor-parallel-size",
    "-pp": "--pipeline-parallel-size",
    "-dp": "--data-parallel-size",
    "-dpn": "--data-parallel-rank",
    "-dpr": "--data-parallel-start-rank",
    "-dpl": "--data-parallel-size-local",
    "-dpa": "--data-parallel-address",
    "-dpp": "--data-parallel-rpc-port",
    "-dpb": "--data-parallel-backend",
    "-O": "--compilation-config",
    "-q": "--quantization",
    "-asc": "--api-server-count",
};

/** One flag as vLLM reads it: its long name with dashes, its value when one is given, and the text it came from. */
export interface VllmFlag {
    flag: string;
    value?: string;
    raw: string;
}

/**
 * Splits a shell command line into words: single and double quotes, backslash escapes, line continuations
 * and `#` comments, as `sh` reads them (no expansion: `$VAR` stays literal text).
 */
export function shellWords(line: string): string[] {
    const words: string[] = [];
    let word: string | undefined;
    let quote: "'" | '"' | undefined;
    for (let index = 0; index < line.length; index++) {
        const char = line[index];
        if (quote) {
            if (char === quote) {
                quote = undefined;
            } else if (char === "\\" && quote === '"' && index + 1 < line.length && '"\\$`'.includes(line[index + 1])) {
                word = (word ?? "") + line[++index];
            } else {
                word = (word ?? "") + char;
            }
        } else if (char === "'" || char === '"') {
            quote = char;
            word = word ?? "";
        } else if (char === "\\" && index + 1 < line.length) {
            const next = line[++index];
            if (next !== "\n") {
                word = (word ?? "") + next;
            }
        } else if (/\s/.test(char) || char === ";" || char === "&" || char === "|") {
            if (word !== undefined) {
                words.push(word);
                word = undefined;
            }
        } else if (char === "#" && word === undefined) {
            while (index + 1 < line.length && line[index + 1] !== "\n") {
                index++;
            }
        } else {
            word = (word ?? "") + char;
        }
    }
    if (word !== undefined) {
        words.push(word);
    }
    return words;
}

/**
 * The words of a container's command and args, as the process sees them: each list item is one word, except that
 * an item holding whitespace (a shell script after `-c`, or a whole command line in one string) is split as a shell
 * would split it.
 */
export function commandWords(command: unknown, args: unknown): string[] {
    const items = [...(Array.isArray(command) ? command : []), ...(Array.isArray(args) ? args : [])].filter(
        (item): item is string => typeof item === "string",
    );
    return items.flatMap((item) => (/\s/.test(item.trim()) ? shellWords(item) : [item]));
}

const VLLM_SERVER_MODULE = /^vllm\.entrypoints\.(openai\.)?api_server$/;

/** The words that start vLLM's server at `at`, if any: `vllm serve`, `-m vllm.entrypoints.cli.main serve` (what `vllm` runs), or the API server module. */
function serverInvocationLength(words: readonly string[], at: number): number {
    if ((/(^|\/)vllm$/.test(words[at]) || words[at] === "vllm.entrypoints.cli.main") && words[at + 1] === "serve") {
        return 2;
    }
    return VLLM_SERVER_MODULE.test(words[at]) ? 1 : 0;
}

/** Where vLLM's own arguments begin: after the server's invocation, or at the start when there is none. */
function vllmArgumentsStart(words: readonly string[]): number {
    const index = words.findIndex((_, at) => serverInvocationLength(words, at) > 0);
    return index < 0 ? 0 : index + serverInvocationLength(words, index);
}

/** The flags among `words`, normalised as vLLM's parser normalises them; words before the vLLM invocation (the shell's, Python's) are not vLLM's. */
export function vllmFlags(words: readonly string[]): VllmFlag[] {
    const flags: VllmFlag[] = [];
    for (let index = vllmArgumentsStart(words); index < words.length; index++) {
        const word = words[index];
        if (!word.startsWith("-") || word === "-" || word === "--" || /^-\d/.test(word)) {
            continue;
        }
        const separator = word.indexOf("=");
        const name = separator > 0 ? word.slice(0, separator) : word;
        const long = VLLM_SHORT_FLAGS[name] ?? (name.startsWith("--") ? `--${name.slice(2).replace(/_/g, "-")}` : name);
        const next = words[index + 1];
        const value = separator > 0 ? word.slice(separator + 1) : next !== undefined && !next.startsWith("-") ? next : undefined;
        flags.push({
            flag: long,
            ...(value !== undefined ? { value } : {}),
            raw: separator > 0 || value === undefined ? word : `${word} ${value}`,
        });
    }
    return flags;
}

/** True when `words` start vLLM's OpenAI-compatible server: `vllm serve`, `python -m vllm.entrypoints.cli.main serve`, or `python -m vllm.entrypoints.openai.api_server`. */
export function startsVllmServer(words: readonly string[]): boolean {
    return words.some((_, at) => serverInvocationLength(words, at) > 0);
}

/** How a container starts vLLM's server when it sets no command: the image's entrypoint. */
export const VLLM_SERVER_COMMAND: readonly string[] = ["python3", "-m", "vllm.entrypoints.openai.api_server"];
