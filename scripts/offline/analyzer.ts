/**
 * A policy pack run the way the Pulumi CLI runs it: as its own process, started through the Node.js
 * policy-pack runner that `@pulumi/pulumi` ships (`cmd/run-policy-pack`, what the language host
 * launches), spoken to over the Analyzer gRPC protocol with the SDK's generated stubs. Resources go
 * to it as the engine sends them: `Analyze` with each resource's inputs, `AnalyzeStack` with every
 * resource's outputs, parents and dependencies, secrets wrapped and unknowns kept. The pack's config
 * is validated first, as the CLI validates it, and sent with every schema default filled in.
 */
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import { ownChild } from "../children";
import * as path from "path";
import Ajv, { ValidateFunction } from "ajv";
import { suggestion } from "../../components/lib/suggest";
import { RecordedResource } from "./recorder";

/** The policy SDK's enforcement levels, in the order of the protocol's enum. */
export const ENFORCEMENT_LEVELS = ["advisory", "mandatory", "disabled", "remediate"] as const;
export type EnforcementLevel = (typeof ENFORCEMENT_LEVELS)[number];

const SEVERITIES = ["", "low", "medium", "high", "critical"] as const;

/** A violation as `pulumi preview --json` reports it. */
export interface PolicyViolation {
    policyPack: string;
    policyPackVersion: string;
    policyName: string;
    enforcementLevel: EnforcementLevel;
    severity?: string;
    description: string;
    message: string;
    urn: string;
}

/**
 * Per-policy config as `pulumi preview --policy-pack-config` takes it, not yet validated: a level, or
 * `{ enforcementLevel?, ...properties }`; `all` sets every policy's level.
 */
export type PackConfig = Record<string, string | ({ enforcementLevel?: unknown } & Record<string, unknown>)>;

/** A policy as the pack describes itself. */
export interface PolicyInfo {
    name: string;
    description: string;
    enforcementLevel: EnforcementLevel;
    configSchema?: { properties: Record<string, Record<string, unknown>>; required: string[] };
}

/** What `GetAnalyzerInfo` says of the pack. */
export interface PackInfo {
    name: string;
    version: string;
    policies: PolicyInfo[];
}

/** The config of every policy, resolved: its level and its properties with the schema's defaults. */
export type ResolvedConfig = Record<string, { enforcementLevel: EnforcementLevel; properties: Record<string, unknown> }>;

/** Raised for a pack config the CLI would refuse; its message lists every problem. */
export class PackConfigError extends Error {}

/**
 * One validator per config schema, compiled once for the process: a pack describes the same schemas to every preview
 * and judgement, and compiling them is most of the time validation takes.
 */
const configValidators = new Map<string, ValidateFunction>();
const configAjv = new Ajv({ allErrors: true, strict: false });

function configValidator(schema: PolicyInfo["configSchema"] & object): ValidateFunction {
    const objectSchema = { type: "object", properties: schema.properties, required: schema.required };
    const key = JSON.stringify(objectSchema);
    let validate = configValidators.get(key);
    if (validate === undefined) {
        validate = configAjv.compile(objectSchema);
        configValidators.set(key, validate);
    }
    return validate;
}

/**
 * Validates `config` against the pack, as the CLI does before it configures a pack: each key names a policy (or
 * `all`), each level is one of the SDK's, and each policy's properties satisfy its config schema. Returns every
 * policy's resolved config, defaults included.
 */
export function resolvePackConfig(info: PackInfo, config: PackConfig): ResolvedConfig {
    const problems: string[] = [];
    const names = info.policies.map((policy) => policy.name);
    const level = (where: string, value: unknown): EnforcementLevel | undefined => {
        if (value === undefined) {
            return undefined;
        }
        if (typeof value !== "string" || !(ENFORCEMENT_LEVELS as readonly string[]).includes(value)) {
            problems.push(
                `${where}: enforcementLevel ${JSON.stringify(value)} is not one of ${ENFORCEMENT_LEVELS.join(", ")}${typeof value === "string" ? suggestion(value, ENFORCEMENT_LEVELS) : ""}`,
            );
            return undefined;
        }
        return value as EnforcementLevel;
    };
    if (config === null || typeof config !== "object" || Array.isArray(config)) {
        throw new PackConfigError(
            `invalid policy pack config for ${info.name}@v${info.version}: ${JSON.stringify(config)} is not an object of policy names`,
        );
    }
    const entries = Object.entries(config).map(
        ([key, value]): readonly [string, { enforcementLevel?: unknown } & Record<string, unknown>] => {
            if (typeof value === "string") {
                return [key, { enforcementLevel: value }];
            }
            if (value === null || typeof value !== "object" || Array.isArray(value)) {
                // pulumi v3.248.0 pkg/resource/analyzer/config.go:143.
                problems.push(
                    `${key}: ${JSON.stringify(value)} is not a valid value; must be a string (an enforcement level) or an object`,
                );
                return [key, {}];
            }
            return [key, value];
        },
    );
    const everything = entries.find(([key]) => key === "all");
    const allLevel = everything ? level("all", everything[1].enforcementLevel) : undefined;
    if (everything && Object.keys(everything[1]).some((key) => key !== "enforcementLevel")) {
        problems.push(`all: takes only an enforcementLevel`);
    }
    for (const [key] of entries) {
        if (key !== "all" && !names.includes(key)) {
            problems.push(`${key}: not a policy of ${info.name}${suggestion(key, names)}`);
        }
    }
    const resolved: ResolvedConfig = {};
    for (const policy of info.policies) {
        const given = (entries.find(([key]) => key === policy.name)?.[1] ?? {}) as { enforcementLevel?: unknown } & Record<string, unknown>;
        const { enforcementLevel, ...properties } = given;
        const schemaProperties = policy.configSchema?.properties ?? {};
        for (const property of Object.keys(properties).filter((name) => !(name in schemaProperties))) {
            const known = Object.keys(schemaProperties);
            problems.push(
                `${policy.name}: ${JSON.stringify(property)} is not a config property of the policy; allowed: ${known.length > 0 ? known.join(", ") : "enforcementLevel only"}${suggestion(property, known)}`,
            );
        }
        const defaults = Object.fromEntries(
            Object.entries(schemaProperties).flatMap(([name, schema]) => ("default" in schema ? [[name, schema.default]] : [])),
        );
        const merged = { ...defaults, ...properties };
        if (policy.configSchema) {
            const validate = configValidator(policy.configSchema);
            if (!validate(merged)) {
                for (const error of validate.errors ?? []) {
                    problems.push(
                        `${policy.name}: ${error.instancePath ? `${error.instancePath.slice(1).replace(/\//g, ".")} ` : ""}${error.message}`,
                    );
                }
            }
        }
        resolved[policy.name] = {
            enforcementLevel: level(policy.name, enforcementLevel) ?? allLevel ?? policy.enforcementLevel,
            properties: merged,
        };
    }
    if (problems.length > 0) {
        throw new PackConfigError(`invalid policy pack config for ${info.name}@v${info.version}:\n  ${problems.join("\n  ")}`);
    }
    return resolved;
}

/* The SDK's generated modules, typed as far as this client uses them. */
type Message = Record<string, (...args: never[]) => unknown>;
interface AnalyzerProto {
    AnalyzeRequest: new () => Message;
    AnalyzeStackRequest: new () => Message;
    AnalyzerResource: new () => Message;
    AnalyzerResourceOptions: new () => Message;
    AnalyzerProviderResource: new () => Message;
    ConfigureAnalyzerRequest: new () => Message;
    PolicyConfig: new () => Message;
    AnalyzerStackConfigureRequest: new () => Message;
    CustomTimeouts: new () => Message;
}

/** Seconds in a Go duration such as `45m` or `1h30m` (how a program writes custom timeouts); 0 when unset. */
export function goDurationSeconds(duration: string | undefined): number {
    const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, µs: 1e-6, ns: 1e-9 };
    return [...(duration ?? "").matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g)].reduce(
        (total, [, amount, unit]) => total + Number(amount) * units[unit],
        0,
    );
}
type Rpc = (request: unknown, callback: (err: Error | null, response: Message) => void) => void;

/** Where the SDK copy the pack uses lives: the pack's own, or one its directory resolves to. */
function sdkDir(packDir: string): string {
    return path.dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [packDir] }));
}

/** TypeScript sources of a pack (and what its build reads), outside its dependencies and `outDir`. */
function buildInputs(dir: string, outDir: string): string[] {
    return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
            return entry.name === "node_modules" || full === outDir ? [] : buildInputs(full, outDir);
        }
        return /\.ts$|^tsconfig\.json$|^package\.json$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : [];
    });
}

/**
 * Why the compiled pack in `packDir` is out of date, or undefined when it is current or not compiled: a pack whose
 * `main` is JavaScript made by its own `build` script (as this project's is, so that it starts without type-checking)
 * is stale when `main` is missing or older than any of its sources.
 */
export function staleBuild(packDir: string): string | undefined {
    const manifest = JSON.parse(fs.readFileSync(path.join(packDir, "package.json"), "utf8")) as {
        main?: string;
        scripts?: Record<string, string>;
    };
    if (!manifest.scripts?.build || !manifest.main?.endsWith(".js")) {
        return undefined;
    }
    const main = path.join(packDir, manifest.main);
    if (!fs.existsSync(main)) {
        return `${manifest.main} is not built yet`;
    }
    const builtAt = fs.statSync(main).mtimeMs;
    const changed = buildInputs(packDir, path.dirname(main)).find((file) => fs.statSync(file).mtimeMs > builtAt);
    return changed && `${path.relative(packDir, changed)} changed since ${manifest.main} was built`;
}

/** Runs the pack's own `npm run build` when its compiled `main` is stale; rejects with the build's output when it fails. */
export async function buildIfStale(packDir: string, onBuild: (reason: string) => void = () => undefined): Promise<void> {
    const reason = staleBuild(packDir);
    if (reason !== undefined) {
        await runBuild(packDir, reason, onBuild);
    }
}

/** Runs the pack's own `npm run build`, stale for `reason`; rejects with the build's output when it fails. */
async function runBuild(packDir: string, reason: string, onBuild: (reason: string) => void): Promise<void> {
    onBuild(reason);
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const build = ownChild(spawn(npm, ["run", "-s", "build"], { cwd: packDir, stdio: ["ignore", "pipe", "pipe"] }));
    let output = "";
    build.stdout!.on("data", (chunk: Buffer) => (output += chunk));
    build.stderr!.on("data", (chunk: Buffer) => (output += chunk));
    const code = await new Promise<number | null>((resolve, reject) => {
        build.on("error", reject);
        build.on("close", resolve);
    });
    if (code !== 0) {
        throw new Error(`npm run build in ${packDir} failed (${reason}):\n${output.trim()}`);
    }
}

/** Preloaded into the pack's process to start it sooner (the file says how). */
const PACK_PRELOAD = path.join(__dirname, "pack-preload.js");

/** A pack's process, serving: the process, its port, and the SDK whose runner runs it. */
export interface PackServer {
    child: ChildProcess;
    port: string;
    sdk: string;
}

/**
 * Starts the pack in `packDir` through the SDK's policy-pack runner, in its own directory (where it reads its
 * package.json), and resolves once it prints its port; a compiled pack whose sources changed is built first (`onBuild`
 * hears why). Rejects with the pack's own error if it exits first.
 */
export async function servePack(packDir: string, onBuild: (reason: string) => void = () => undefined): Promise<PackServer> {
    // A current pack is started before this returns, not a turn of the event loop later: the caller goes on to load
    // and run its program, which would hold the start back by as long as it keeps the event loop.
    const stale = staleBuild(packDir);
    if (stale !== undefined) {
        await runBuild(packDir, stale, onBuild);
    }
    const sdk = sdkDir(packDir);
    const child = ownChild(
        spawn(process.execPath, ["-r", PACK_PRELOAD, path.join(sdk, "cmd", "run-policy-pack", "index.js"), "127.0.0.1:0", "."], {
            cwd: packDir,
            // This module's view of the environment, which a test may have changed (jest gives it a copy of Node's).
            env: process.env,
            stdio: ["ignore", "pipe", "pipe"],
        }),
    );
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk));
    const port = await new Promise<string>((resolve, reject) => {
        let stdout = "";
        child.stdout!.on("data", (chunk: Buffer) => {
            stdout += chunk;
            const line = /^(\d+)\s*$/m.exec(stdout);
            if (line) {
                resolve(line[1]);
            }
        });
        child.on("exit", (code) =>
            reject(new Error(`the policy pack in ${packDir} exited (code ${code}) before serving: ${stderr.trim() || stdout.trim()}`)),
        );
        child.on("error", reject);
    });
    return { child, port, sdk };
}

/** A running policy pack. */
export class PolicyPackProcess {
    private constructor(
        private readonly client: Record<string, Rpc> & { close(): void },
        private readonly proto: AnalyzerProto,
        private readonly struct: { fromJavaScript(value: unknown): unknown },
        private readonly empty: new () => unknown,
        private readonly child?: ChildProcess,
    ) {}

    /** Starts the pack in `packDir` ({@link servePack}) and connects to it; {@link close} stops it. */
    static async start(packDir: string, onBuild?: (reason: string) => void): Promise<PolicyPackProcess> {
        const server = await servePack(packDir, onBuild);
        return PolicyPackProcess.connect(server, server.child);
    }

    /** Connects to the pack serving on `port`, with the SDK's generated client; {@link close} stops `child` if given. */
    static connect({ port, sdk }: { port: string; sdk: string }, child?: ChildProcess): PolicyPackProcess {
        const grpc = require(require.resolve("@grpc/grpc-js", { paths: [sdk] }));
        const services = require(path.join(sdk, "proto", "analyzer_grpc_pb"));
        const generated = require(path.join(sdk, "proto", "analyzer_pb"));
        const proto: AnalyzerProto = { ...generated, CustomTimeouts: generated.AnalyzerResourceOptions.CustomTimeouts };
        const struct = require(require.resolve("google-protobuf/google/protobuf/struct_pb", { paths: [sdk] })).Struct;
        const empty = require(require.resolve("google-protobuf/google/protobuf/empty_pb", { paths: [sdk] })).Empty;
        const client = new services.AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
            "grpc.max_receive_message_length": 400 * 1024 * 1024,
        });
        return new PolicyPackProcess(client, proto, struct, empty, child);
    }

    private call(method: string, request: unknown): Promise<Message> {
        return new Promise((resolve, reject) =>
            this.client[method](request, (err, response) => (err ? reject(new Error(`${method}: ${err.message}`)) : resolve(response))),
        );
    }

    /** The pack's name, version and policies. */
    async info(): Promise<PackInfo> {
        const response = await this.call("getAnalyzerInfo", new this.empty());
        const policies = (response.getPoliciesList() as Message[]).map((policy) => {
            const schema = policy.getConfigschema() as Message | undefined;
            return {
                name: policy.getName() as string,
                description: policy.getDescription() as string,
                enforcementLevel: ENFORCEMENT_LEVELS[policy.getEnforcementlevel() as number],
                ...(schema
                    ? {
                          configSchema: {
                              properties: ((schema.getProperties() as { toJavaScript(): unknown } | undefined)?.toJavaScript() ??
                                  {}) as Record<string, Record<string, unknown>>,
                              required: schema.getRequiredList() as string[],
                          },
                      }
                    : {}),
            };
        });
        return { name: response.getName() as string, version: response.getVersion() as string, policies };
    }

    /** Tells the pack its stack (as the engine does before analysis) and every policy's config. */
    async configure(stack: { project: string; stack: string }, config: ResolvedConfig): Promise<void> {
        const stackRequest = new this.proto.AnalyzerStackConfigureRequest();
        stackRequest.setProject(stack.project as never);
        stackRequest.setStack(stack.stack as never);
        stackRequest.setDryRun(true as never);
        await this.call("configureStack", stackRequest);
        const request = new this.proto.ConfigureAnalyzerRequest();
        const map = request.getPolicyconfigMap() as unknown as { set(key: string, value: unknown): void };
        for (const [name, { enforcementLevel, properties }] of Object.entries(config)) {
            const policyConfig = new this.proto.PolicyConfig();
            policyConfig.setEnforcementlevel(ENFORCEMENT_LEVELS.indexOf(enforcementLevel) as never);
            policyConfig.setProperties(this.struct.fromJavaScript(properties) as never);
            map.set(name, policyConfig);
        }
        await this.call("configure", request);
    }

    private options(resource: RecordedResource): Message {
        const options = new this.proto.AnalyzerResourceOptions();
        options.setProtect((resource.options.protect ?? false) as never);
        options.setIgnorechangesList((resource.options.ignoreChanges ?? []) as never);
        options.setDeletebeforereplace((resource.options.deleteBeforeReplace ?? false) as never);
        options.setDeletebeforereplacedefined((resource.options.deleteBeforeReplace !== undefined) as never);
        if (resource.parent) {
            options.setParent(resource.parent as never);
        }
        // The engine always sends custom timeouts, in seconds, 0 where unset (pulumi v3.248.0 analyzer_plugin.go marshalResourceOptions).
        const timeouts = new this.proto.CustomTimeouts();
        timeouts.setCreate(goDurationSeconds(resource.options.customTimeouts?.create) as never);
        timeouts.setUpdate(goDurationSeconds(resource.options.customTimeouts?.update) as never);
        timeouts.setDelete(goDurationSeconds(resource.options.customTimeouts?.delete) as never);
        options.setCustomtimeouts(timeouts as never);
        return options;
    }

    private provider(resource: RecordedResource, byUrn: Map<string, RecordedResource>): Message | undefined {
        const urn = resource.provider?.split("::").slice(0, -1).join("::");
        const provider = urn ? byUrn.get(urn) : undefined;
        if (!provider) {
            return undefined;
        }
        const message = new this.proto.AnalyzerProviderResource();
        message.setUrn(provider.urn as never);
        message.setType(provider.type as never);
        message.setName(provider.name as never);
        message.setProperties(this.struct.fromJavaScript(provider.wire.inputs) as never);
        return message;
    }

    /**
     * Fills the fields `AnalyzeRequest` and `AnalyzerResource` share. A remote component (a Helm v4 Chart, an EKS
     * cluster) gets what the program gave it: the engine registers it without inputs (its provider's Construct does,
     * pulumi/pulumi-kubernetes@94977969d6 provider/pkg/provider/helm/v4/chart.go:158), so `pulumi preview` cannot show a
     * policy a v4 chart's version, but the offline preview can, and does (docs/explanation/policy-pack.md).
     */
    private describe(
        message: Message,
        resource: RecordedResource,
        properties: Record<string, unknown>,
        byUrn: Map<string, RecordedResource>,
    ): Message {
        message.setType(resource.type as never);
        message.setUrn(resource.urn as never);
        message.setName(resource.name as never);
        message.setProperties(this.struct.fromJavaScript(properties) as never);
        message.setOptions(this.options(resource) as never);
        const provider = this.provider(resource, byUrn);
        if (provider) {
            message.setProvider(provider as never);
        }
        return message;
    }

    /** `Analyze` for one resource, with its inputs. */
    async analyze(resource: RecordedResource, byUrn: Map<string, RecordedResource>): Promise<Message[]> {
        const request = this.describe(new this.proto.AnalyzeRequest(), resource, resource.wire.inputs, byUrn);
        return (await this.call("analyze", request)).getDiagnosticsList() as Message[];
    }

    /** `AnalyzeStack` over every resource, with its outputs, parent and dependencies. */
    async analyzeStack(resources: RecordedResource[], byUrn: Map<string, RecordedResource>): Promise<Message[]> {
        const request = new this.proto.AnalyzeStackRequest();
        request.setResourcesList(
            resources.map((resource) => {
                const message = this.describe(new this.proto.AnalyzerResource(), resource, resource.wire.outputs, byUrn);
                if (resource.parent) {
                    message.setParent(resource.parent as never);
                }
                message.setDependenciesList(resource.dependencies as never);
                return message;
            }) as never,
        );
        return (await this.call("analyzeStack", request)).getDiagnosticsList() as Message[];
    }

    /** Turns a diagnostic into a violation, with `redact` applied to its message. */
    static violation(diagnostic: Message, fallbackUrn: string, redact: (text: string) => string): PolicyViolation {
        const severity = SEVERITIES[diagnostic.getSeverity() as number];
        return {
            policyPack: diagnostic.getPolicypackname() as string,
            policyPackVersion: diagnostic.getPolicypackversion() as string,
            policyName: diagnostic.getPolicyname() as string,
            enforcementLevel: ENFORCEMENT_LEVELS[diagnostic.getEnforcementlevel() as number],
            ...(severity ? { severity } : {}),
            description: diagnostic.getDescription() as string,
            message: redact(diagnostic.getMessage() as string),
            urn: (diagnostic.getUrn() as string) || fallbackUrn,
        };
    }

    /** Closes the connection, and stops the pack when this started it. */
    close(): void {
        this.client.close();
        this.child?.kill();
    }
}
