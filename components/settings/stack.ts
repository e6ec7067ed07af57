/**
 * The stack's settings, assembled from the areas that declare them (cluster, capacity, gateway, models), and the one
 * entry point that checks them. Each setting's declaration gives its Pulumi config type, its default, what it allows
 * and a one-line description; the typed {@link Settings}, the settings reference's tables (docs/reference/settings.md) and the `config:` block of
 * Pulumi.yaml all come from them (`npm run docs:settings` writes the latter two; a test fails when they drift). Every
 * problem of a stack is reported in one run, one line each, naming the key, the value and what is allowed.
 */
import * as pulumi from "@pulumi/pulumi";
import { runningStackFileProblems } from "../lib/stackFile";
import { suggestion } from "../lib/suggest";
import {
    TPU_POOL_SETTINGS,
    TpuSettings,
    capacityOfferedInZone,
    capacityOrLegacySettings,
    legacyCapacityWarning,
    reservationWithProvisioning,
    topologyOfMachineType,
    tpuNodeBounds,
    tpuSettingsOf,
} from "./capacity";
import {
    CLUSTER_SETTINGS,
    LOCATION_SETTINGS,
    NetworkSettings,
    PROJECT_SETTINGS,
    SystemPoolSettings,
    disjointRanges,
    networkOf,
    regionOf,
    systemPoolBounds,
    systemPoolOf,
    zoneInRegion,
} from "./cluster";
import {
    GATEWAY_SETTINGS,
    GatewaySettings,
    certificateSource,
    gatewayFitsProvider,
    identityFitsProvider,
    gatewaySettingsOf,
    routerModelNames,
    routerSystemNodes,
    servingNamespaceApart,
} from "./gateway";
import {
    FLEET_SETTINGS,
    FleetMemberEntry,
    FleetSettings,
    fleetAccess,
    fleetCertificate,
    fleetGatewayProvider,
    fleetNetwork,
    fleetOf,
    fleetWithoutModelArmor,
    isFleet,
    memberKey,
    memberZone,
} from "./fleet";
import { modelEntries, modelEntriesFitPool, modelsAgreeWithCatalog, modelsFitMemory } from "./modelRules";
import {
    ColdStartSettings,
    MODEL_SETTINGS,
    ModelServiceSettings,
    coldStartOf,
    gatedModelProblems,
    modelServicesOf,
    unknownModelFieldProblem,
} from "./models";
import { ConfigType, Rule, Setting, ValuesOf } from "./setting";

/** Everything the program needs from stack configuration, validated. */
export interface Settings {
    /** GCP project ID (`gcp:project`). */
    project: string;
    region: string;
    /** The zone of the TPU node pool; the cluster itself is regional. */
    zone: string;
    tpu: TpuSettings;
    systemPool: SystemPoolSettings;
    network: NetworkSettings;
    /** CIDRs allowed to reach the control plane; empty leaves the public endpoint open to any address with credentials. */
    masterAuthorizedNetworks: string[];
    releaseChannel: string;
    gateway: GatewaySettings;
    deletionProtection: boolean;
    /** Enable the Google Cloud APIs the stack needs; off where a platform team manages them (the preview then checks they are enabled). */
    manageProjectApis: boolean;
    /** Stops every model service (KServe keeps their definitions) and lets the TPU pool scale to zero. */
    paused: boolean;
    /** Pattern 2: route requests at the Gateway's root by the `model` in their body. */
    bodyBasedRouting: boolean;
    /** Model services to run; empty leaves the TPU pool idle. */
    models: ModelServiceSettings[];
    coldStart: ColdStartSettings;
    /** A fleet of regional clusters behind one multi-cluster Gateway; `zone`, `region`, `tpu` and `network` then describe none of them. */
    fleet?: FleetSettings;
}

/** Every setting of the project namespace, in the order the settings reference lists them and their problems are reported. */
export const SETTINGS = {
    ...LOCATION_SETTINGS,
    ...TPU_POOL_SETTINGS,
    ...CLUSTER_SETTINGS,
    ...GATEWAY_SETTINGS,
    ...PROJECT_SETTINGS,
    ...MODEL_SETTINGS,
    ...FLEET_SETTINGS,
} as const satisfies Record<string, Setting>;

type SettingName = keyof typeof SETTINGS;
type Values = ValuesOf<typeof SETTINGS>;

/** The rules between settings, in the order they are checked and the settings reference lists them. */
export const RULES: readonly Rule<Values>[] = [
    zoneInRegion,
    topologyOfMachineType,
    tpuNodeBounds,
    reservationWithProvisioning,
    capacityOrLegacySettings,
    capacityOfferedInZone,
    systemPoolBounds,
    disjointRanges,
    gatewayFitsProvider,
    identityFitsProvider,
    certificateSource,
    servingNamespaceApart,
    modelEntries,
    modelEntriesFitPool,
    modelsAgreeWithCatalog,
    modelsFitMemory,
    routerSystemNodes,
    routerModelNames,
    fleetGatewayProvider,
    fleetWithoutModelArmor,
    fleetCertificate,
    fleetAccess,
    fleetNetwork,
];

/** The rules about where the TPU pools are: with a fleet, checked for each member at its location and plan instead of the stack's. */
const MEMBER_RULES: readonly Rule<Values>[] = [zoneInRegion, reservationWithProvisioning, capacityOfferedInZone];

/** The values a member's location rules read: the stack's, with the member's region, zone and (its own) capacity plan. */
function memberValues(values: Values, member: FleetMemberEntry): Values {
    return { ...values, region: member.region, zone: memberZone(member), tpuCapacity: member.tpuCapacity ?? values.tpuCapacity };
}

/** The keys a member's problems name: the member's fields for what it sets, the stack's for what it takes from the stack. */
function memberKeys(key: (name: string) => string, member: FleetMemberEntry, index: number): (name: string) => string {
    const own = ["region", "zone", ...(member.tpuCapacity !== undefined ? ["tpuCapacity"] : [])];
    return (name) => (own.includes(name) ? memberKey(key, index, name) : key(name));
}

/** The settings read as secrets, which no stack may hold in plain text; not declared in Pulumi.yaml, because a declared key without a default is required of every stack. */
export const SECRET_SETTINGS = {
    hfToken: "Hugging Face token for gated models; set it with `pulumi config set --secret hfToken <TOKEN>`.",
    iapClientSecret:
        "With gatewayIdentity iap: the OAuth client's secret; set it with `pulumi config set --secret iapClientSecret <SECRET>`.",
} as const;

/** Raised for an invalid stack configuration; its message lists every problem, one per line. */
export class ConfigError extends pulumi.RunError {
    constructor(readonly problems: readonly string[]) {
        super(problems.join("\n"));
        this.name = "ConfigError";
    }
}

/** Reads one raw string value per key, as Pulumi passes configuration to a program. */
export type ConfigReader = (key: string) => string | undefined;

/** What the program knows of the stack's configuration besides the project's values. */
export interface ConfigContext {
    /** Every configured key, fully qualified (`namespace:key`): unknown ones are errors. */
    keys?: readonly string[];
    /** Keys whose values are secrets. */
    secretKeys?: readonly string[];
    /** Problems of the stack file itself (keys the Pulumi CLI ignores), reported with the settings'. */
    stackFileProblems?: readonly string[];
}

const PROJECT_ID = /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/;

/** Namespaces a key may have besides the project's: the providers this program uses, and Pulumi's own. */
const PROVIDER_NAMESPACES = ["gcp", "kubernetes", "random", "pulumi"];

/** A raw config string decoded as Pulumi's config type says: numbers, booleans and JSON lists; anything malformed stays the string, for the schema to refuse. */
function decode(type: ConfigType, raw: string): unknown {
    switch (type) {
        case "integer":
            return /^-?\d+$/.test(raw) ? Number(raw) : raw;
        case "boolean":
            return raw === "true" ? true : raw === "false" ? false : raw;
        case "object":
        case "array<string>":
        case "array<object>":
            try {
                return JSON.parse(raw);
            } catch {
                return raw;
            }
        default:
            return raw;
    }
}

/** A setting's value before its schema checks it: the stack's, decoded, else the declared default. */
function configured(setting: Setting, raw: string | undefined): unknown {
    return raw === undefined ? setting.default : decode(setting.type, raw);
}

/** `models[0].name`-style path of an issue. */
function pathText(path: readonly PropertyKey[]): string {
    return path.map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`)).join("");
}

/** The value at `path` within `value`. */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
    return path.reduce(
        (current: unknown, part) =>
            current !== null && typeof current === "object" ? (current as Record<PropertyKey, unknown>)[part] : undefined,
        value,
    );
}

/** Problems of the configured keys themselves: unknown ones (with the nearest known one), and the secret set in plain text. */
function keyProblems(namespace: string, read: ConfigReader, context: ConfigContext): string[] {
    const problems: string[] = [];
    const names = Object.keys(SETTINGS);
    const secrets = Object.keys(SECRET_SETTINGS);
    for (const configured of context.keys ?? []) {
        const separator = configured.indexOf(":");
        const [space, name] = [configured.slice(0, separator), configured.slice(separator + 1)];
        if (space === namespace && !names.includes(name) && !secrets.includes(name)) {
            problems.push(`${configured} is not a setting of ${namespace}${suggestion(name, [...names, ...secrets])}`);
        } else if (space !== namespace && !PROVIDER_NAMESPACES.includes(space)) {
            problems.push(
                `${configured} is in namespace ${JSON.stringify(space)}, which is neither the project's (${namespace}) nor a provider's (${PROVIDER_NAMESPACES.join(", ")})${suggestion(space, [namespace, ...PROVIDER_NAMESPACES])}`,
            );
        }
    }
    for (const secret of secrets) {
        if (read(secret) !== undefined && context.secretKeys !== undefined && !context.secretKeys.includes(`${namespace}:${secret}`)) {
            problems.push(
                `${namespace}:${secret} is set in plain text; allowed: a secret, set with \`pulumi config set --secret ${secret} <VALUE>\` (the value is not shown here)`,
            );
        }
    }
    return problems;
}

/**
 * Validates raw configuration into {@link Settings}. Pure: it registers nothing, so a bad value stops the program
 * before any resource exists. Every problem of the stack is reported in one {@link ConfigError}, one line each,
 * naming the key (with its namespace), the value and what is allowed; a misspelt key gets the nearest known one.
 *
 * @param namespace the project's config namespace (the project name)
 * @param read values of keys in that namespace
 * @param gcpProject the value of `gcp:project`
 * @param context every configured key and which are secret, for the checks that need them
 */
/** What a rule says of a value the stack does not set: that it is not set, with what is allowed (never `= null`, which nobody wrote). */
function unsetProblem(message: string): string {
    const allowed = message.indexOf("; allowed:");
    return message.startsWith("is not set") ? message : `is not set${allowed >= 0 ? message.slice(allowed) : ""}`;
}

export function parseSettings(
    namespace: string,
    read: ConfigReader,
    gcpProject: string | undefined,
    context: ConfigContext = {},
): Settings {
    const key = (name: string) => `${namespace}:${name}`;
    const problems: string[] = [...(context.stackFileProblems ?? [])];

    if (gcpProject === undefined || gcpProject === "") {
        problems.push(
            "gcp:project is not set; run `pulumi config set gcp:project <PROJECT_ID>` (the offline preview supplies a placeholder)",
        );
    } else if (!PROJECT_ID.test(gcpProject)) {
        problems.push(
            `gcp:project = ${JSON.stringify(gcpProject)} is not a GCP project ID; allowed: 6 to 30 lowercase letters, digits and hyphens, starting with a letter`,
        );
    }
    problems.push(...keyProblems(namespace, read, context));

    const values: Partial<Record<SettingName, unknown>> = {};
    for (const name of Object.keys(SETTINGS) as SettingName[]) {
        const setting: Setting = SETTINGS[name];
        const raw = read(name);
        const decoded = configured(setting, raw);
        const result = setting.schema.safeParse(decoded);
        if (result.success) {
            values[name] = result.data;
            continue;
        }
        for (const issue of result.error.issues) {
            if (issue.code === "unrecognized_keys") {
                for (const field of issue.keys) {
                    problems.push(`${key(name)}${pathText(issue.path)}.${field} ${unknownModelFieldProblem(field)}`);
                }
                continue;
            }
            // A scalar is shown as the stack wrote it; a list as JSON reads it.
            const at =
                issue.path.length === 0 && raw !== undefined && !setting.type.startsWith("array") ? raw : valueAt(decoded, issue.path);
            problems.push(
                `${key(name)}${pathText(issue.path)} ${at === undefined ? unsetProblem(issue.message) : `= ${JSON.stringify(at)} ${issue.message}`}`,
            );
        }
    }
    const fleet =
        "fleet" in values && isFleet(values.fleet as Values["fleet"])
            ? (values.fleet as Extract<Values["fleet"], { members: unknown }>)
            : undefined;
    for (const rule of RULES) {
        if (!rule.reads.every((name) => name in values)) {
            continue;
        }
        if (fleet !== undefined && MEMBER_RULES.includes(rule)) {
            fleet.members.forEach((member, index) =>
                problems.push(...rule.check(memberValues(values as Values, member), memberKeys(key, member, index))),
            );
        } else {
            problems.push(...rule.check(values as Values, key));
        }
    }
    if ("models" in values) {
        problems.push(...gatedModelProblems(values.models as Values["models"], read("hfToken") !== undefined, key));
    }
    if (values.gatewayIdentity === "iap" && read("iapClientSecret") === undefined) {
        problems.push(
            `${key("iapClientSecret")} is not set, and ${key("gatewayIdentity")} = "iap" needs the OAuth client's secret; allowed: a secret, set with \`pulumi config set --secret iapClientSecret <SECRET>\``,
        );
    }
    if (problems.length > 0) {
        throw new ConfigError(problems);
    }
    return settingsOf(values as Values, gcpProject!);
}

/** The typed settings from checked values. */
function settingsOf(values: Values, project: string): Settings {
    return {
        project,
        region: regionOf(values),
        zone: values.zone,
        tpu: tpuSettingsOf(values),
        systemPool: systemPoolOf(values),
        network: networkOf(values),
        masterAuthorizedNetworks: values.masterAuthorizedNetworks,
        releaseChannel: values.releaseChannel,
        gateway: gatewaySettingsOf(values),
        deletionProtection: values.deletionProtection,
        manageProjectApis: values.manageProjectApis,
        paused: values.paused,
        bodyBasedRouting: values.bodyBasedRouting,
        coldStart: coldStartOf(values),
        models: modelServicesOf(values.models),
        ...fleetSettingsOf(values),
    };
}

/** The fleet, when the stack asks for one: each member's TPU pools are the stack's with its zone and plan. */
function fleetSettingsOf(values: Values): { fleet?: FleetSettings } {
    const fleet = fleetOf(values.fleet, networkOf(values), (member) =>
        tpuSettingsOf({ ...values, zone: member.zone, tpuCapacity: member.tpuCapacity ?? values.tpuCapacity }),
    );
    return fleet !== undefined ? { fleet } : {};
}

/** The IAP OAuth client's secret (`pulumi config set --secret iapClientSecret …`), kept a secret; undefined without IAP. */
export function loadIapClientSecret(): pulumi.Output<string> | undefined {
    return new pulumi.Config().getSecret("iapClientSecret");
}

/** The Hugging Face token (`pulumi config set --secret hfToken …`), kept a secret; undefined for public models. */
export function loadHfToken(): pulumi.Output<string> | undefined {
    return new pulumi.Config().getSecret("hfToken");
}

// The runtime's list of secret config keys; internal to the SDK, so its types are not published.
const { isConfigSecret } = require("@pulumi/pulumi/runtime/config") as { isConfigSecret: (key: string) => boolean };

/** What the stack's (valid) configuration is warned of without being refused: settings a later release removes, with what to run instead. */
export function settingWarnings(namespace: string, read: ConfigReader): string[] {
    const checked = <K extends SettingName>(name: K) => SETTINGS[name].schema.parse(configured(SETTINGS[name], read(name))) as Values[K];
    const warning = legacyCapacityWarning(
        { tpuProvisioning: checked("tpuProvisioning"), tpuReservation: checked("tpuReservation") },
        (name) => `${namespace}:${name}`,
    );
    return warning !== undefined ? [warning] : [];
}

/** Builds {@link Settings} from the running stack's configuration, with every configured key checked; warns of what {@link settingWarnings} finds. */
export function loadSettings(): Settings {
    const config = new pulumi.Config();
    const keys = Object.keys(pulumi.runtime.allConfig());
    const read: ConfigReader = (name) => config.get(name);
    const settings = parseSettings(config.name, read, new pulumi.Config("gcp").get("project"), {
        keys,
        secretKeys: keys.filter((configured) => isConfigSecret(configured)),
        // Pulumi runs a program from its project directory.
        stackFileProblems: runningStackFileProblems(process.cwd(), pulumi.getStack()),
    });
    for (const warning of settingWarnings(config.name, read)) {
        void pulumi.log.warn(warning);
    }
    return settings;
}
