import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";

/**
 * Reads a Pulumi project and one stack's configuration with the CLI's semantics:
 * keys without a namespace belong to the project; project-level `config` supplies
 * defaults; structured values reach the program as JSON; `secure:` values are secrets
 * (they cannot be decrypted here, so the program sees a placeholder); `--config`
 * overrides win, like `pulumi -c`.
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
}

interface ProjectFile {
    name?: unknown;
    runtime?: unknown;
    main?: unknown;
    config?: Record<string, unknown>;
}

function readYaml(file: string): unknown {
    try {
        return parse(fs.readFileSync(file, "utf8"));
    } catch (err) {
        throw new ProjectError(`${file}: ${(err as Error).message}`);
    }
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
        throw new ProjectError(`${dir}: no program entry point; looked for ${candidates.map((c) => path.relative(dir, c) || ".").join(", ")}`);
    }
    return found;
}

/**
 * Loads the project in `dir` for `stack`, applying `overrides` and then `secretOverrides`
 * (`key=value` strings; the latter are secrets, like `pulumi config set --secret`).
 */
export function loadProject(dir: string, stack: string, overrides: readonly string[], secretOverrides: readonly string[] = []): ProjectRun {
    const projectPath = path.join(dir, "Pulumi.yaml");
    if (!fs.existsSync(projectPath)) {
        throw new ProjectError(`${dir}: no Pulumi.yaml (is --dir a Pulumi project?)`);
    }
    const projectFile = (readYaml(projectPath) ?? {}) as ProjectFile;
    if (typeof projectFile.name !== "string" || projectFile.name === "") {
        throw new ProjectError(`${projectPath}: missing project name`);
    }
    const runtime = typeof projectFile.runtime === "string" ? projectFile.runtime : (projectFile.runtime as { name?: string } | undefined)?.name;
    if (runtime !== "nodejs") {
        throw new ProjectError(`${projectPath}: runtime is ${JSON.stringify(runtime)}; the offline preview runs nodejs (TypeScript) programs only`);
    }
    const projectName = projectFile.name;
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

    // Project-level declarations: a bare value is a default, an object may carry `default` or `value`.
    for (const [key, declaration] of Object.entries(projectFile.config ?? {})) {
        const isSchema = declaration !== null && typeof declaration === "object" && !Array.isArray(declaration);
        const schema = isSchema ? (declaration as { default?: unknown; value?: unknown; secret?: boolean }) : { default: declaration };
        const value = schema.value ?? schema.default;
        if (value !== undefined) {
            set(qualify(projectName, key), value, schema.secret === true);
        }
    }

    const stackPath = path.join(dir, `Pulumi.${stack}.yaml`);
    const hasStackFile = fs.existsSync(stackPath);
    if (hasStackFile) {
        const stackFile = (readYaml(stackPath) ?? {}) as { config?: Record<string, unknown> };
        for (const [key, value] of Object.entries(stackFile.config ?? {})) {
            set(qualify(projectName, key), isSecure(value) ? SECURE_PLACEHOLDER : value, containsSecure(value));
        }
    }

    for (const [option, list, secret] of [["--config", overrides, false], ["--secret", secretOverrides, true]] as const) {
        for (const override of list) {
            const separator = override.indexOf("=");
            if (separator <= 0) {
                throw new ProjectError(`${option} ${JSON.stringify(override)} is not key=value`);
            }
            set(qualify(projectName, override.slice(0, separator)), override.slice(separator + 1), secret);
        }
    }

    return { projectName, stack, main: resolveMain(dir, projectFile), config, secretKeys: [...secretKeys].sort(), hasStackFile };
}
