import * as fs from "fs";
import * as path from "path";
import { parsePulumiYaml, stackFilePath, stackFileProblems } from "../../components/lib/stackFile";

/**
 * Reads a Pulumi project and one stack's configuration with the CLI's semantics: YAML with
 * merge keys resolved; keys without a namespace belong to the project; project-level `config`
 * supplies defaults and types, and a typed key's value is checked as the CLI checks it (its
 * type, a secret that must be encrypted, a key without a default that every stack must set);
 * structured values reach the program as JSON; `secure:` values are secrets (they cannot be
 * decrypted here, so the program sees a placeholder); `--config` overrides win, like
 * `pulumi -c`.
 */

/** Value a program sees for a `secure:` key, which needs the stack's secrets provider to decrypt. */
export const SECURE_PLACEHOLDER = "offline-preview-secret";

/** An error in the project files or the command line: the offline preview exits 2 with its message. */
export class ProjectError extends Error {}

/** What the offline preview needs to run a program. */
export interface ProjectRun {
    projectName: string;
    stack: string;
    /** Absolute path of the program's entry point. */
    main: string;
    /** Fully qualified keys (`namespace:key`) to the string values the program sees. */
    config: Record<string, string>;
    /** Keys whose values are secret. */
    secretKeys: string[];
    /** Whether `Pulumi.<stack>.yaml` exists. */
    hasStackFile: boolean;
    /** What the stack file's ESC `environment:` imports (environment names, "inline values"), which needs Pulumi Cloud to read. */
    environment: string[];
}

interface ProjectFile {
    name?: unknown;
    runtime?: unknown;
    main?: unknown;
    stackConfigDir?: unknown;
    config?: Record<string, unknown>;
}

/** A typed declaration of Pulumi.yaml's `config:`. Source: pulumi v3.248.0 sdk/go/common/workspace/project.go ProjectConfigType. */
interface ConfigDeclaration {
    type?: string;
    items?: { type: string; items?: unknown };
    default?: unknown;
    value?: unknown;
    secret?: boolean;
}

/**
 * A project name as the CLI's local backend takes it, checked on every command that names the stack (pulumi/pulumi@1b59498
 * pkg/backend/diy/store.go:188 `ParseReference`): letters, digits, `_`, `.` and `-` (sdk/go/common/tokens/names.go:40-43),
 * at most 100 of them (sdk/go/common/tokens/project.go:28-38, whose messages these are).
 */
const PROJECT_NAME_CHARACTERS = /^[A-Za-z0-9_.-]+$/;
const PROJECT_NAME_MAX_LENGTH = 100;

/** A `${NAME}` that `pulumi new` replaces in a template's files (pulumi/templates@65db26b README.md:42-47). */
const TEMPLATE_PLACEHOLDER = /\$\{[A-Z_]+\}/;

/** Why `name` cannot name a project, or undefined when it can. */
function projectNameProblem(name: unknown): string | undefined {
    if (typeof name !== "string" || name === "") {
        return "missing project name";
    }
    if (TEMPLATE_PLACEHOLDER.test(name)) {
        return `project name ${JSON.stringify(name)} is a template's placeholder: substitute the template's placeholders (\${PROJECT}, \${DESCRIPTION}) first, as pulumi new does`;
    }
    if (name.length > PROJECT_NAME_MAX_LENGTH) {
        return `project name ${JSON.stringify(name)}: project names are limited to ${PROJECT_NAME_MAX_LENGTH} characters`;
    }
    if (!PROJECT_NAME_CHARACTERS.test(name)) {
        return `project name ${JSON.stringify(name)}: project names may only contain alphanumerics, hyphens, underscores, and periods`;
    }
    return undefined;
}

/**
 * The ESC environments a stack file's `environment` imports: a list of names, or an inline definition whose `imports`
 * name them, each a name or a one-key map of its options, and "inline values" for a definition's own `values`
 * (pulumi/pulumi@1b59498 sdk/go/common/workspace/project.go:1008-1047 `Environment.Definition`, `Imports`).
 */
function environmentImports(environment: unknown): string[] {
    const definition = (Array.isArray(environment) ? { imports: environment } : (environment ?? {})) as {
        imports?: unknown;
        values?: unknown;
    };
    const imports = Array.isArray(definition.imports) ? definition.imports : [];
    return [
        ...imports.flatMap((entry) =>
            typeof entry === "string" ? [entry] : entry !== null && typeof entry === "object" ? Object.keys(entry) : [],
        ),
        ...(definition.values !== undefined ? ["inline values"] : []),
    ];
}

function readYaml(file: string): unknown {
    try {
        return parsePulumiYaml(fs.readFileSync(file, "utf8"));
    } catch (err) {
        throw new ProjectError(`${file}: ${(err as Error).message}`);
    }
}

/** Whether `value` has a declared config type, as the CLI checks it. Source: pulumi v3.248.0 sdk/go/common/workspace/project.go ValidateConfigValue. */
export function hasConfigType(type: string, items: ConfigDeclaration["items"], value: unknown): boolean {
    switch (type) {
        case "string":
            return typeof value === "string";
        case "integer":
            return (typeof value === "number" && Number.isInteger(value)) || (typeof value === "string" && /^[-+]?\d+$/.test(value));
        case "boolean":
            return typeof value === "boolean" || value === "true" || value === "false";
        case "object":
            return value !== null && typeof value === "object" && !Array.isArray(value);
        case "array":
            return (
                Array.isArray(value) &&
                items !== undefined &&
                value.every((item) => hasConfigType(items.type, items.items as ConfigDeclaration["items"], item))
            );
        default:
            return false;
    }
}

/** A type as the CLI names it in messages: `array<object>`. */
function typeName(type: string, items: ConfigDeclaration["items"]): string {
    return items ? `array<${typeName(items.type, items.items as ConfigDeclaration["items"])}>` : type;
}

function qualify(projectName: string, key: string): string {
    return key.includes(":") ? key : `${projectName}:${key}`;
}

function isSecure(value: unknown): value is { secure: string } {
    return value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 1 && "secure" in value;
}

function containsSecure(value: unknown): boolean {
    if (isSecure(value)) {
        return true;
    }
    return value !== null && typeof value === "object" && Object.values(value).some(containsSecure);
}

/** Replaces nested `secure:` leaves of a structured value with the placeholder. */
function withoutSecure(value: unknown): unknown {
    if (isSecure(value)) {
        return SECURE_PLACEHOLDER;
    }
    if (Array.isArray(value)) {
        return value.map(withoutSecure);
    }
    if (value !== null && typeof value === "object") {
        return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, withoutSecure(inner)]));
    }
    return value;
}

/** How the Node.js language host hands a config value to the program. */
function configString(value: unknown): string {
    if (typeof value === "string") {
        return value;
    }
    if (value !== null && typeof value === "object") {
        return JSON.stringify(withoutSecure(value));
    }
    return String(value);
}

function resolveMain(dir: string, projectFile: ProjectFile): string {
    const candidates: string[] = [];
    if (typeof projectFile.main === "string") {
        const main = path.resolve(dir, projectFile.main);
        candidates.push(main, path.join(main, "index.ts"), path.join(main, "index.js"));
    } else {
        const packageJson = path.join(dir, "package.json");
        if (fs.existsSync(packageJson)) {
            const main = (JSON.parse(fs.readFileSync(packageJson, "utf8")) as { main?: string }).main;
            if (main) {
                candidates.push(path.resolve(dir, main));
            }
        }
        candidates.push(path.join(dir, "index.ts"), path.join(dir, "index.js"));
    }
    const found = candidates.find((candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile());
    if (!found) {
        throw new ProjectError(
            `${dir}: no program entry point; looked for ${candidates.map((c) => path.relative(dir, c) || ".").join(", ")}`,
        );
    }
    return found;
}

/**
 * Loads the project in `dir` for `stack`, applying `overrides` and then `secretOverrides`
 * (`key=value` strings; the latter are secrets, like `pulumi config set --secret`). A stack
 * without its `Pulumi.<stack>.yaml` is an error naming the stacks that exist, unless
 * `allowBareStack` says it is meant to run on project defaults alone.
 */
export function loadProject(
    dir: string,
    stack: string,
    overrides: readonly string[],
    secretOverrides: readonly string[] = [],
    allowBareStack = false,
): ProjectRun {
    const projectPath = path.join(dir, "Pulumi.yaml");
    if (!fs.existsSync(projectPath)) {
        throw new ProjectError(`${dir}: no Pulumi.yaml (is --dir a Pulumi project?)`);
    }
    const projectFile = (readYaml(projectPath) ?? {}) as ProjectFile;
    const nameProblem = projectNameProblem(projectFile.name);
    if (nameProblem !== undefined) {
        throw new ProjectError(`${projectPath}: ${nameProblem}`);
    }
    const runtime =
        typeof projectFile.runtime === "string" ? projectFile.runtime : (projectFile.runtime as { name?: string } | undefined)?.name;
    if (runtime !== "nodejs") {
        throw new ProjectError(
            `${projectPath}: runtime is ${JSON.stringify(runtime)}; the offline preview runs nodejs (TypeScript) programs only`,
        );
    }
    const projectName = projectFile.name as string;
    const config: Record<string, string> = {};
    const secretKeys = new Set<string>();
    const set = (key: string, value: unknown, secret: boolean) => {
        config[key] = configString(value);
        if (secret) {
            secretKeys.add(key);
        } else {
            secretKeys.delete(key);
        }
    };

    const stackPath = stackFilePath(dir, projectFile, stack);
    const hasStackFile = fs.existsSync(stackPath);
    if (!hasStackFile && !allowBareStack) {
        const directory = path.dirname(stackPath);
        const stacks = fs
            .readdirSync(directory)
            .map((file) => /^Pulumi\.(.+)\.yaml$/.exec(file)?.[1])
            .filter((name): name is string => name !== undefined)
            .sort();
        // The next command, ready to paste: the program's folder as the user would type it from here.
        const command = `npm run preview:offline -- --dir ${path.relative(process.cwd(), dir) || "."}`;
        const ways = [
            ...(stacks.length > 0 ? [`a stack it has: ${command} --stack ${stacks[0]}`] : []),
            `this one on the project's defaults and --config alone: ${command} --stack ${stack} --bare-stack`,
        ];
        throw new ProjectError(
            `stack ${JSON.stringify(stack)} has no ${path.basename(stackPath)} in ${directory} (stacks there: ${stacks.length > 0 ? stacks.join(", ") : "none"}); preview ${ways.join(", or ")}`,
        );
    }
    const stackFile = hasStackFile ? ((readYaml(stackPath) ?? {}) as { config?: Record<string, unknown>; environment?: unknown }) : {};
    const problems = stackFileProblems(path.basename(stackPath), stackFile);
    const stackValues = new Map<string, { value: unknown; secure: boolean }>();
    for (const [key, value] of Object.entries(stackFile.config ?? {})) {
        stackValues.set(qualify(projectName, key), { value: isSecure(value) ? SECURE_PLACEHOLDER : value, secure: containsSecure(value) });
    }

    // Overrides are set on the stack before the CLI checks it, like `pulumi -c`; a structured key's value is JSON, like
    // `pulumi config set --json`.
    const declarations = Object.fromEntries(
        Object.entries(projectFile.config ?? {}).map(([key, declaration]) => [
            qualify(projectName, key),
            declaration as ConfigDeclaration | undefined,
        ]),
    );
    for (const [option, list, secure] of [
        ["--config", overrides, false],
        ["--secret", secretOverrides, true],
    ] as const) {
        for (const override of list) {
            const separator = override.indexOf("=");
            if (separator <= 0) {
                throw new ProjectError(`${option} ${JSON.stringify(override)} is not key=value`);
            }
            const key = qualify(projectName, override.slice(0, separator));
            const text = override.slice(separator + 1);
            const structured = ["array", "object"].includes(String(declarations[key]?.type));
            let value: unknown = text;
            if (structured) {
                try {
                    value = JSON.parse(text);
                } catch {
                    // Left a string, which the type check below refuses.
                }
            }
            stackValues.set(key, { value, secure });
        }
    }

    // Project-level declarations, as the CLI merges them: a bare value or `default`/`value` fills what the stack does
    // not set; a typed key's stack value must have its type; a secret key must be encrypted; a project key without
    // a default must be set by the stack. Source: pulumi v3.248.0 sdk/go/common/workspace/config.go mergeConfig.
    for (const [bareKey, declaration] of Object.entries(projectFile.config ?? {})) {
        const key = qualify(projectName, bareKey);
        const isSchema = declaration !== null && typeof declaration === "object" && !Array.isArray(declaration);
        const schema: ConfigDeclaration = isSchema ? (declaration as ConfigDeclaration) : { default: declaration };
        const fallback = schema.value ?? schema.default;
        const stackValue = stackValues.get(key);
        if (stackValue === undefined) {
            if (fallback !== undefined) {
                set(key, fallback, false);
            } else if (key.startsWith(`${projectName}:`)) {
                problems.push(`Stack '${stack}' is missing configuration value '${bareKey}'`);
            }
            continue;
        }
        if (schema.secret === true && !stackValue.secure) {
            problems.push(`Stack '${stack}' with configuration key '${bareKey}' must be encrypted as it's secret`);
        }
        if (schema.type !== undefined && !stackValue.secure && !hasConfigType(schema.type, schema.items, stackValue.value)) {
            problems.push(`Stack '${stack}' with configuration key '${bareKey}' must be of type '${typeName(schema.type, schema.items)}'`);
        }
    }
    for (const [key, { value, secure }] of stackValues) {
        set(key, value, secure);
    }
    if (problems.length > 0) {
        throw new ProjectError(problems.join("\n"));
    }

    return {
        projectName,
        stack,
        main: resolveMain(dir, projectFile),
        config,
        secretKeys: [...secretKeys].sort(),
        hasStackFile,
        environment: environmentImports(stackFile.environment),
    };
}
