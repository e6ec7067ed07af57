import { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { commandLine, containersOf, PolicyText, policyText, readKnown } from "./facts";
import { Props, isKubernetesKind, kindOfType, namespaceOf } from "./support/resources";

/** Names that hold credentials: environment variables, ConfigMap keys. */
const CREDENTIAL_NAME =
    /(TOKEN|SECRET|PASSWORD|PASSWD|(?:^|_)PASS|(?:API|ACCESS|PRIVATE|SECRET|SIGNING|ENCRYPTION|ACCOUNT|CLIENT|AUTH|HMAC|MASTER|SALT|LICENSE|OPENAI|ANTHROPIC|COHERE|GEMINI|MISTRAL|GROQ)_?KEY|CREDENTIALS?)$/i;
/** A connection URL with a password in it (`postgresql://user:password@host/db`), whatever the variable is called. */
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/:@\s]+:([^@\s]+)@/i;

/** True when a literal value holds a credential: under a credential's name, or a URL that carries a password. */
function holdsCredential(name: string, value: string): boolean {
    if (isReference(value)) {
        return false;
    }
    const password = URL_WITH_PASSWORD.exec(value)?.[1];
    return CREDENTIAL_NAME.test(name) || (password !== undefined && !isReference(password) && !password.includes("$("));
}
/** Command-line flags that take a credential (`--hf-token`, `--api-key`, `--password`). */
const CREDENTIAL_FLAG = /^--?[a-z0-9-_]*(token|secret|password|passwd|api[-_]?key|access[-_]?key|private[-_]?key|credentials?)$/i;

/** A value that is not the credential itself: a reference resolved at run time (`$(VAR)`, `${VAR}`, `$VAR`), or the path of a file (a mounted Secret). */
function isReference(value: string): boolean {
    return value === "" || value.startsWith("$") || value.startsWith("/");
}

/** Credentials given literally on a command line: `--hf-token=hf_x`, `--api-key hf_x`, `HF_TOKEN=hf_x vllm serve`. */
function literalCredentials(words: string[]): string[] {
    const found: string[] = [];
    words.forEach((word, index) => {
        const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(word);
        if (assignment && CREDENTIAL_NAME.test(assignment[1]) && !isReference(assignment[2])) {
            found.push(assignment[1]);
            return;
        }
        const separator = word.indexOf("=");
        const flag = separator > 0 ? word.slice(0, separator) : word;
        if (!flag.startsWith("-") || !CREDENTIAL_FLAG.test(flag)) {
            return;
        }
        const value = separator > 0 ? word.slice(separator + 1) : words[index + 1];
        if (value !== undefined && !value.startsWith("-") && !isReference(value)) {
            found.push(flag);
        }
    });
    return found;
}

/** What the policy reports of container `path` of resource `name`. */
export const PLAIN_TEXT_SECRET_MESSAGES = {
    literal: (name: string, path: string, variable: string) =>
        `${name} ${path} sets ${variable} as a plain value in the pod spec (env value), where anyone who can read the object sees it; read it from a Secret with valueFrom.secretKeyRef.`,
    fromConfigMap: (name: string, path: string, variable: string, configMap: string) =>
        `${name} ${path} reads ${variable} from ConfigMap ${configMap}, where it sits in plain text; read it from a Secret with valueFrom.secretKeyRef.`,
    configMapLoaded: (configMap: string, keys: string[], name: string, path: string) =>
        `ConfigMap ${configMap} holds ${keys.join(", ")} in plain text, and ${name} ${path} loads it into its environment with envFrom; keep credentials in a Secret (envFrom.secretRef).`,
    commandLine: (name: string, path: string, flag: string) =>
        `${name} ${path} passes ${flag} literally on its command line, where anyone who can read the object sees it; read it from a Secret-backed variable.`,
};

/**
 * A ConfigMap that no pod loads with envFrom (KServe's own inferenceservice-config has a `credentials` key of settings)
 * is not judged.
 */
export const disallowPlainTextSecretEnv: StackValidationPolicy & PolicyText = {
    ...policyText(
        "plain-text-secrets",
        "disallow-plain-text-secret-env",
        "Credentials (tokens, passwords, keys) must come from a Secret, never a literal environment value, a ConfigMap or a command line.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateStack: (args, reportViolation) => {
        const configMaps = args.resources.filter((resource) => isKubernetesKind(resource.type, "", "ConfigMap"));
        const reported = new Set<PolicyResource>();
        for (const resource of args.resources) {
            for (const { path, container } of containersOf(kindOfType(resource.type), resource.props)) {
                const env = readKnown(() => container.env).value;
                for (const [index, variable] of (Array.isArray(env) ? env : []).entries() as IterableIterator<[number, Props]>) {
                    // A value a preview does not know yet comes from another resource: not one the program writes.
                    const value = readKnown(() => env[index]?.value);
                    const name = String(readKnown(() => variable?.name).value);
                    if (value.unknown) {
                        continue;
                    }
                    if (typeof value.value === "string" && variable.valueFrom === undefined && holdsCredential(name, value.value)) {
                        reportViolation(PLAIN_TEXT_SECRET_MESSAGES.literal(resource.name, path, variable.name), resource.urn);
                    } else if (CREDENTIAL_NAME.test(name) && variable.valueFrom?.configMapKeyRef !== undefined) {
                        reportViolation(
                            PLAIN_TEXT_SECRET_MESSAGES.fromConfigMap(
                                resource.name,
                                path,
                                variable.name,
                                variable.valueFrom.configMapKeyRef.name,
                            ),
                            resource.urn,
                        );
                    }
                }
                for (const source of (Array.isArray(container.envFrom) ? container.envFrom : []) as Props[]) {
                    const loaded = configMaps.find(
                        (configMap) =>
                            configMap.props.metadata?.name === source?.configMapRef?.name &&
                            namespaceOf(configMap) === namespaceOf(resource),
                    );
                    const keys = Object.entries((loaded?.props.data ?? {}) as Record<string, unknown>).filter(
                        ([key, value]) => CREDENTIAL_NAME.test(key) && value !== "",
                    );
                    if (loaded && keys.length > 0 && !reported.has(loaded)) {
                        reported.add(loaded);
                        reportViolation(
                            PLAIN_TEXT_SECRET_MESSAGES.configMapLoaded(
                                loaded.props.metadata?.name,
                                keys.map(([key]) => key),
                                resource.name,
                                path,
                            ),
                            loaded.urn,
                        );
                    }
                }
                for (const name of literalCredentials(commandLine(container))) {
                    reportViolation(PLAIN_TEXT_SECRET_MESSAGES.commandLine(resource.name, path, name), resource.urn);
                }
            }
        }
    },
};
