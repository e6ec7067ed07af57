/** Parsing a stack's values as the program does, for the settings' tests. */
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
