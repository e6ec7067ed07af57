/** Parsing a stack's values as the program does, for the settings' tests. */
import { ModelServiceSettings } from "../../../components/settings/models";
import { ConfigContext, ConfigError, Settings, parseSettings } from "../../../components/settings/stack";
import { PROJECT } from "../../harness";

/** Parses `values` (keys in the project namespace) with a valid project unless given. */
export function parse(values: Record<string, string>, gcpProject: string | undefined = "acme-inference"): Settings {
    return parseSettings(PROJECT, (key) => values[key], gcpProject);
}

/** The message of the ConfigError `values` raise. */
export function errorOf(values: Record<string, string>, gcpProject?: string): string {
    try {
        parse(values, gcpProject);
    } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
    }
    throw new Error(`no error for ${JSON.stringify(values)}`);
}

/** Every problem of `values` (with the context's keys and secrets), one line each. */
export function problemsOf(values: Record<string, string>, context: ConfigContext = {}): string[] {
    try {
        parseSettings(PROJECT, (key) => values[key], "acme-inference", context);
    } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return [...(err as ConfigError).problems];
    }
    throw new Error(`no error for ${JSON.stringify(values)}`);
}

/** The model entries as the settings read them, with other stack settings in `config` (a multi-host topology, say). */
export function modelsFrom(models: unknown[], config: Record<string, string> = {}): ModelServiceSettings[] {
    return parseSettings(PROJECT, (key) => (key === "models" ? JSON.stringify(models) : config[key]), "acme-inference").models;
}

/** Two services of the default model, as a stack lists them: the baseline, and prefix-cache routing over two replicas. */
export const MODELS = JSON.stringify([
    { name: "qwen", pattern: "pattern1" },
    { name: "qwen-cache", pattern: "pattern3", replicas: 2 },
]);

export const [PATTERN1, PATTERN3] = parse({ models: MODELS }).models;
