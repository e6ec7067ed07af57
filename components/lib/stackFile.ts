/**
 * The stack file (`Pulumi.<stack>.yaml`) as the Pulumi CLI reads it. The CLI ignores a top-level key it does not
 * know, so a typo such as `confg:` silently drops every setting; the program and the offline preview both refuse it.
 */
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { suggestion } from "./suggest";

/** Top-level keys of a stack file. Source: pulumi v3.248.0 sdk/go/common/workspace/project.go ProjectStack (yaml tags). */
export const STACK_FILE_KEYS: readonly string[] = ["secretsprovider", "encryptedkey", "encryptionsalt", "config", "environment"];

/** Parses Pulumi YAML as the CLI does (gopkg.in/yaml.v3): merge keys (`<<: *base`) are resolved. */
export function parsePulumiYaml(text: string): unknown {
    return parse(text, { merge: true });
}

/** One line per top-level key of a stack file that the CLI does not read. */
export function stackFileProblems(file: string, document: unknown): string[] {
    if (document === null || document === undefined) {
        return [];
    }
    if (typeof document !== "object" || Array.isArray(document)) {
        return [`${file} is not a mapping of ${STACK_FILE_KEYS.join(", ")}`];
    }
    return Object.keys(document)
        .filter((key) => !STACK_FILE_KEYS.includes(key))
        .map(
            (key) =>
                `${file}: ${JSON.stringify(key)} is not a stack file key, so the Pulumi CLI ignores it and everything under it; allowed: ${STACK_FILE_KEYS.join(", ")}${suggestion(key, STACK_FILE_KEYS)}`,
        );
}

/** Where a project keeps its stack files: `stackConfigDir` of Pulumi.yaml, else beside it. */
export function stackFilePath(projectDir: string, projectFile: { stackConfigDir?: unknown }, stack: string): string {
    const directory = typeof projectFile.stackConfigDir === "string" ? path.resolve(projectDir, projectFile.stackConfigDir) : projectDir;
    return path.join(directory, `Pulumi.${stack}.yaml`);
}

/**
 * The problems of the running stack's file, read from the project directory the program runs in; none when the
 * stack has no file (its configuration then lives elsewhere, such as the Pulumi Cloud).
 */
export function runningStackFileProblems(projectDir: string, stack: string): string[] {
    const projectPath = path.join(projectDir, "Pulumi.yaml");
    if (!fs.existsSync(projectPath)) {
        return [];
    }
    const file = stackFilePath(
        projectDir,
        (parsePulumiYaml(fs.readFileSync(projectPath, "utf8")) ?? {}) as { stackConfigDir?: unknown },
        stack,
    );
    return fs.existsSync(file) ? stackFileProblems(path.basename(file), parsePulumiYaml(fs.readFileSync(file, "utf8"))) : [];
}
