import * as pulumi from "@pulumi/pulumi";
import {
    DEFAULT_MODEL,
    GATEWAY_CLASSES,
    IMAGES,
    KSERVE_CHILDREN,
    TPU_REJECTED_VLLM_FLAGS,
    GKE_TPU_V6E_ZONES,
    PROXY_ONLY_SUBNET,
    RELEASE_CHANNELS,
    TPU_V6E_MACHINE_TYPES,
    commandWords,
    findTpuShape,
    regionOfZone,
    vllmFlags,
} from "@gke-tpu-inference/facts";
import { Ipv4Range, overlaps, parseCidr } from "./cidr";
import { isPinnedImage } from "@gke-tpu-inference/facts";

/** How TPU capacity is bought. */
export type TpuProvisioning = "on-demand" | "spot" | "reservation";
const TPU_PROVISIONING: readonly TpuProvisioning[] = ["on-demand", "spot", "reservation"];

/** The TPU v6e node pool as the stack asks for it, already checked against the catalog. */
export interface TpuSettings {
    machineType: string;
    topology: string;
    /** Chips on one VM, from the catalog. */
    chipsPerVm: number;
    /** VMs in one slice, from the catalog; more than one means a multi-host slice. */
    hostsPerSlice: number;
    /** Autoscaler floor; 0 lets the pool scale to nothing (paused). */
    minNodes: number;
    maxNodes: number;
    provisioning: TpuProvisioning;
    /** Name of a specific reservation; set only when `provisioning` is `reservation`. */
    reservation?: string;
}

/** The CPU node pool that runs the platform (cert-manager, LWS, KServe, EPP). */
export interface SystemPoolSettings {
    machineType: string;
    /** Autoscaler bounds across all of the cluster's zones. */
    minNodes: number;
    maxNodes: number;
}

/** Address plan for the VPC; all ranges are disjoint. */
export interface NetworkSettings {
    nodeCidr: string;
    podCidr: string;
    serviceCidr: string;
    proxyOnlyCidr: string;
    /** The control plane's private range (/28); the webhook firewall rule admits it. */
    masterCidr: string;
}

/** Where the inference Gateway and the model services live. */
export interface GatewaySettings {
    /** A regional GKE GatewayClass. */
    className: string;
    namespace: string;
    name: string;
    /** A `kubernetes.io/tls` Secret in the Gateway's namespace; when set, the Gateway also listens for HTTPS on 443. */
    tlsSecret?: string;
    /** Namespace of the LLMInferenceServices, labelled so the Gateway accepts its routes. */
    servingNamespace: string;
}

/** The field reports' serving patterns: 1 is the baseline, 3 the prefix-cache scale-out. */
export type ServingPattern = "pattern1" | "pattern3";
const SERVING_PATTERNS: readonly ServingPattern[] = ["pattern1", "pattern3"];

/** One LLMInferenceService, validated. */
export interface ModelServiceSettings {
    /** DNS label, unique in the stack; also the path prefix through the Gateway. */
    name: string;
    pattern: ServingPattern;
    /** Where KServe's storage initializer fetches the weights (`hf://org/model`, `gs://…`). */
    modelUri: string;
    /** The name clients send as `model`. */
    modelName: string;
    /** vLLM replicas; each takes one TPU VM of the pool's shape. */
    replicas: number;
    /** vLLM TPU image, pinned. */
    image: string;
    maxModelLen: number;
    /** Extra vLLM flags, after the ones the builder sets. */
    extraArgs: string[];
}

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
    /** Model services to run; empty leaves the TPU pool idle. */
    models: ModelServiceSettings[];
}

/** Raised for any invalid stack configuration; its message is the whole diagnosis. */
export class ConfigError extends pulumi.RunError {
    constructor(message: string) {
        super(message);
        this.name = "ConfigError";
    }
}

/** Defaults that keep `Pulumi.dev.yaml` short. */
export const DEFAULTS = {
    zone: "europe-west4-a",
    tpuMachineType: "ct6e-standard-4t",
    tpuMinNodes: 0,
    tpuMaxNodes: 3,
    tpuProvisioning: "on-demand" as TpuProvisioning,
    systemMachineType: "e2-standard-4",
    systemMinNodes: 1,
    systemMaxNodes: 4,
    nodeCidr: "10.0.0.0/20",
    podCidr: "10.4.0.0/14",
    serviceCidr: "10.8.0.0/20",
    proxyOnlyCidr: "10.9.0.0/23",
    masterCidr: "172.16.0.0/28",
    releaseChannel: "REGULAR",
    gatewayClass: "gke-l7-regional-external-managed",
    gatewayNamespace: "inference-gateway",
    gatewayName: "inference-gateway",
    servingNamespace: "llm-inference",
    deletionProtection: true,
    manageProjectApis: true,
} as const;

/** Reads one raw string value per key, as Pulumi passes configuration to a program. */
export type ConfigReader = (key: string) => string | undefined;

const PROJECT_ID = /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const RESOURCE_NAME = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * Validates raw configuration into {@link Settings}. Pure: it registers nothing, so a bad
 * value stops the program before any resource exists. Every error names the key (with its
 * namespace), the value and what is allowed.
 *
 * @param namespace the project's config namespace (the project name)
 * @param read values of keys in that namespace
 * @param gcpProject the value of `gcp:project`
 */
export function parseSettings(namespace: string, read: ConfigReader, gcpProject: string | undefined): Settings {
    const config = new ConfigValues(namespace, read);

    if (gcpProject === undefined || gcpProject === "") {
        throw new ConfigError(
            "gcp:project is not set; run `pulumi config set gcp:project <PROJECT_ID>` (the offline preview supplies a placeholder)",
        );
    }
    if (!PROJECT_ID.test(gcpProject)) {
        throw new ConfigError(
            `gcp:project = ${JSON.stringify(gcpProject)} is not a GCP project ID; allowed: 6 to 30 lowercase letters, digits and hyphens, starting with a letter`,
        );
    }

    const zone = config.oneOf("zone", DEFAULTS.zone, GKE_TPU_V6E_ZONES, "is not a zone where GKE offers TPU v6e node pools (TPU VM zones differ)");
    const region = config.string("region") ?? regionOfZone(zone);
    if (regionOfZone(zone) !== region) {
        const zonesInRegion = GKE_TPU_V6E_ZONES.filter((candidate) => regionOfZone(candidate) === region);
        throw new ConfigError(
            `${namespace}:zone = ${JSON.stringify(zone)} is not in ${namespace}:region = ${JSON.stringify(region)}; ` +
                `allowed: ${zonesInRegion.length > 0 ? zonesInRegion.join(", ") : `none (no GKE TPU v6e zone is in ${region})`}`,
        );
    }

    const machineTypes = Object.keys(TPU_V6E_MACHINE_TYPES);
    const machineType = config.oneOf("tpuMachineType", DEFAULTS.tpuMachineType, machineTypes, "is not a TPU v6e machine type");
    const machine = TPU_V6E_MACHINE_TYPES[machineType];
    const topologies = machine.shapes.map((shape) => shape.topology);
    const topology = config.oneOf("tpuTopology", topologies[0], topologies, `is not a topology of ${machineType}`);
    const shape = findTpuShape(machineType, topology)!;

    const multiHost = shape.hosts > 1;
    const minNodes = config.integer("tpuMinNodes", DEFAULTS.tpuMinNodes, 0);
    const maxNodes = config.integer("tpuMaxNodes", multiHost ? shape.hosts : DEFAULTS.tpuMaxNodes, 0);
    if (minNodes > maxNodes) {
        throw new ConfigError(
            `${namespace}:tpuMinNodes = ${minNodes} is greater than ${namespace}:tpuMaxNodes = ${maxNodes}; allowed: tpuMinNodes <= tpuMaxNodes`,
        );
    }
    if (multiHost && (maxNodes !== shape.hosts || (minNodes !== 0 && minNodes !== shape.hosts))) {
        throw new ConfigError(
            `${namespace}:tpuMaxNodes = ${maxNodes} with tpuMinNodes = ${minNodes} cannot hold one ${topology} slice of ${machineType}, ` +
                `which is ${shape.hosts} hosts scaled as one unit; allowed: tpuMaxNodes = ${shape.hosts} and tpuMinNodes = 0 or ${shape.hosts}`,
        );
    }

    const provisioning = config.oneOf("tpuProvisioning", DEFAULTS.tpuProvisioning, TPU_PROVISIONING, "is not a TPU provisioning model");
    const reservation = config.string("tpuReservation");
    if (provisioning === "reservation" && reservation === undefined) {
        throw new ConfigError(
            `${namespace}:tpuReservation is not set but ${namespace}:tpuProvisioning = "reservation"; allowed: the name of a specific TPU reservation in ${zone}`,
        );
    }
    if (reservation !== undefined && provisioning !== "reservation") {
        throw new ConfigError(
            `${namespace}:tpuReservation = ${JSON.stringify(reservation)} is set but ${namespace}:tpuProvisioning = ${JSON.stringify(provisioning)}; ` +
                `allowed: tpuReservation only with tpuProvisioning = "reservation"`,
        );
    }
    if (reservation !== undefined && !RESOURCE_NAME.test(reservation)) {
        throw new ConfigError(
            `${namespace}:tpuReservation = ${JSON.stringify(reservation)} is not a reservation name; allowed: lowercase letters, digits and hyphens, starting with a letter, at most 63 characters`,
        );
    }

    const systemMinNodes = config.integer("systemMinNodes", DEFAULTS.systemMinNodes, 1);
    const systemMaxNodes = config.integer("systemMaxNodes", DEFAULTS.systemMaxNodes, 1);
    if (systemMinNodes > systemMaxNodes) {
        throw new ConfigError(
            `${namespace}:systemMinNodes = ${systemMinNodes} is greater than ${namespace}:systemMaxNodes = ${systemMaxNodes}; allowed: systemMinNodes <= systemMaxNodes`,
        );
    }

    const gatewayClass = config.string("gatewayClass") ?? DEFAULTS.gatewayClass;
    if (!(GATEWAY_CLASSES.regional as readonly string[]).includes(gatewayClass)) {
        const why = (GATEWAY_CLASSES.global as readonly string[]).includes(gatewayClass)
            ? "is a global GatewayClass, which never serves InferencePool backends"
            : "is not a regional GKE GatewayClass";
        throw new ConfigError(`${namespace}:gatewayClass = ${JSON.stringify(gatewayClass)} ${why}; allowed: ${GATEWAY_CLASSES.regional.join(", ")}`);
    }

    const tpu: TpuSettings = {
        machineType,
        topology,
        chipsPerVm: machine.chipsPerVm,
        hostsPerSlice: shape.hosts,
        minNodes,
        maxNodes,
        provisioning,
        ...(reservation !== undefined ? { reservation } : {}),
    };

    return {
        project: gcpProject,
        region,
        zone,
        tpu,
        systemPool: {
            machineType: config.string("systemMachineType") ?? DEFAULTS.systemMachineType,
            minNodes: systemMinNodes,
            maxNodes: systemMaxNodes,
        },
        network: parseNetwork(config),
        masterAuthorizedNetworks: parseAuthorizedNetworks(config),
        releaseChannel: config.oneOf("releaseChannel", DEFAULTS.releaseChannel, RELEASE_CHANNELS, "is not a GKE release channel"),
        gateway: parseGateway(config, gatewayClass),
        deletionProtection: config.boolean("deletionProtection", DEFAULTS.deletionProtection),
        manageProjectApis: config.boolean("manageProjectApis", DEFAULTS.manageProjectApis),
        paused: config.boolean("paused", false),
        models: parseModels(config, tpu),
    };
}

/** The Hugging Face token (`pulumi config set --secret hfToken …`), kept a secret; undefined for public models. */
export function loadHfToken(): pulumi.Output<string> | undefined {
    return new pulumi.Config().getSecret("hfToken");
}

/** Flags the service builder derives from settings; setting them again in extraArgs would contradict it. */
const BUILDER_FLAGS: Readonly<Record<string, string>> = {
    "--tensor-parallel-size": "it always equals the chips per VM",
    "--max-model-len": "use maxModelLen",
    "--port": "vLLM serves on 8000, which the probes and health checks use",
    "--host": "vLLM listens on every interface",
    "--served-model-name": "use modelName",
    "--enable-prefix-caching": "pattern3 turns it on",
    "--shutdown-timeout": "the builder sizes the drain to the pod's grace period",
    "--disable-access-log-for-endpoints": "the builder already quiets /health, /metrics and /ping",
};

const MODEL_URI = /^(hf|gs|s3|pvc|oci):\/\/\S+$/;

function parseModels(config: ConfigValues, tpu: TpuSettings): ModelServiceSettings[] {
    if (config.string("models") === undefined) {
        return [];
    }
    const list = config.json("models");
    if (!Array.isArray(list) || list.some((item) => item === null || typeof item !== "object" || Array.isArray(item))) {
        throw new ConfigError(`${config.key("models")} is not a list of model services; allowed: e.g. [{"name": "qwen", "pattern": "pattern1"}]`);
    }
    const models = list.map((item: Record<string, unknown>, index) => parseModel(`${config.key("models")}[${index}]`, item));

    const seen = new Set<string>();
    for (const [index, model] of models.entries()) {
        if (seen.has(model.name)) {
            throw new ConfigError(`${config.key("models")}[${index}].name = ${JSON.stringify(model.name)} is used twice; allowed: a name unique in the stack`);
        }
        seen.add(model.name);
    }
    if (models.length > 0 && tpu.hostsPerSlice > 1) {
        throw new ConfigError(
            `${config.key("models")} needs a single-host TPU shape, but ${config.key("tpuTopology")} = ${JSON.stringify(tpu.topology)} spans ${tpu.hostsPerSlice} hosts; ` +
                `allowed: ${TPU_V6E_MACHINE_TYPES[tpu.machineType].shapes.filter((shape) => shape.hosts === 1).map((shape) => shape.topology).join(", ")}`,
        );
    }
    const replicas = models.reduce((sum, model) => sum + model.replicas, 0);
    if (replicas > tpu.maxNodes) {
        throw new ConfigError(
            `${config.key("models")} asks for ${replicas} replicas, one ${tpu.machineType} ${tpu.topology} VM each, but ${config.key("tpuMaxNodes")} = ${tpu.maxNodes}; ` +
                `allowed: at most ${tpu.maxNodes} replicas in total, or a larger tpuMaxNodes`,
        );
    }
    return models;
}

function parseModel(key: string, item: Record<string, unknown>): ModelServiceSettings {
    const known = ["name", "pattern", "modelUri", "modelName", "replicas", "image", "maxModelLen", "extraArgs"];
    const unknown = Object.keys(item).find((field) => !known.includes(field));
    if (unknown !== undefined) {
        throw new ConfigError(`${key}.${unknown} is not a model service setting; allowed: ${known.join(", ")}`);
    }
    const text = (field: string, fallback?: string): string => {
        const value = item[field] ?? fallback;
        if (typeof value !== "string" || value === "") {
            throw new ConfigError(`${key}.${field} = ${JSON.stringify(value ?? null)} is not a non-empty string; allowed: ${field === "name" ? "a DNS-1123 label" : "a string"}`);
        }
        return value;
    };
    const whole = (field: string, fallback: number, minimum: number): number => {
        const value = item[field] ?? fallback;
        if (typeof value !== "number" || !Number.isInteger(value) || value < minimum) {
            throw new ConfigError(`${key}.${field} = ${JSON.stringify(value)} is not a whole number of at least ${minimum}; allowed: ${minimum}, ${minimum + 1}, …`);
        }
        return value;
    };

    const name = text("name");
    if (!DNS_LABEL.test(name) || name.length > KSERVE_CHILDREN.maxServiceNameLength) {
        throw new ConfigError(
            `${key}.name = ${JSON.stringify(name)} is not a DNS-1123 label of at most ${KSERVE_CHILDREN.maxServiceNameLength} characters; ` +
                "allowed: lowercase letters, digits and hyphens, starting and ending with a letter or digit (KServe derives longer names from it)",
        );
    }
    const pattern = text("pattern") as ServingPattern;
    if (!SERVING_PATTERNS.includes(pattern)) {
        throw new ConfigError(`${key}.pattern = ${JSON.stringify(pattern)} is not a serving pattern; allowed: ${SERVING_PATTERNS.join(", ")}`);
    }
    const modelUri = text("modelUri", DEFAULT_MODEL.uri);
    if (!MODEL_URI.test(modelUri)) {
        throw new ConfigError(`${key}.modelUri = ${JSON.stringify(modelUri)} is not a model URI; allowed: hf://, gs://, s3://, pvc:// or oci:// followed by a path`);
    }
    const replicas = whole("replicas", pattern === "pattern3" ? 2 : 1, 1);
    if (pattern === "pattern3" && replicas < 2) {
        throw new ConfigError(`${key}.replicas = ${replicas} gives pattern3 nothing to route between; allowed: 2 or more (or pattern1 for one replica)`);
    }
    const image = text("image", IMAGES.vllmTpu);
    if (!isPinnedImage(image)) {
        throw new ConfigError(`${key}.image = ${JSON.stringify(image)} is not pinned; allowed: an image with a tag other than latest, or a digest`);
    }
    const extraArgs = item.extraArgs ?? [];
    if (!Array.isArray(extraArgs) || extraArgs.some((arg) => typeof arg !== "string")) {
        throw new ConfigError(`${key}.extraArgs = ${JSON.stringify(extraArgs)} is not a list of strings; allowed: e.g. ["--gpu-memory-utilization=0.9"]`);
    }
    // Read as vLLM reads them: underscores, short aliases and `flag value` strings all count.
    for (const { flag, raw } of vllmFlags(commandWords([], extraArgs))) {
        const reason = TPU_REJECTED_VLLM_FLAGS[flag] ?? BUILDER_FLAGS[flag];
        if (reason !== undefined) {
            throw new ConfigError(`${key}.extraArgs contains ${JSON.stringify(raw)}: ${reason}; allowed: flags other than ${[...Object.keys(TPU_REJECTED_VLLM_FLAGS), ...Object.keys(BUILDER_FLAGS)].join(", ")}`);
        }
    }
    return {
        name,
        pattern,
        modelUri,
        modelName: text("modelName", modelUri === DEFAULT_MODEL.uri ? DEFAULT_MODEL.name : modelUri.replace(/^[a-z0-9]+:\/\//, "")),
        replicas,
        image,
        maxModelLen: whole("maxModelLen", 2048, 1),
        extraArgs: extraArgs as string[],
    };
}

/** Builds {@link Settings} from the running stack's configuration. */
export function loadSettings(): Settings {
    const config = new pulumi.Config();
    return parseSettings(config.name, (key) => config.get(key), new pulumi.Config("gcp").get("project"));
}

function parseGateway(config: ConfigValues, className: string): GatewaySettings {
    const tlsSecret = config.dnsName("gatewayTlsSecret", undefined);
    const gateway = {
        className,
        namespace: config.dnsName("gatewayNamespace", DEFAULTS.gatewayNamespace)!,
        name: config.dnsName("gatewayName", DEFAULTS.gatewayName)!,
        ...(tlsSecret !== undefined ? { tlsSecret } : {}),
        servingNamespace: config.dnsName("servingNamespace", DEFAULTS.servingNamespace)!,
    };
    if (gateway.servingNamespace === gateway.namespace) {
        throw new ConfigError(
            `${config.key("servingNamespace")} = ${JSON.stringify(gateway.servingNamespace)} is the Gateway's namespace; ` +
                `allowed: a namespace other than ${config.key("gatewayNamespace")}, so that model services never share the Gateway's`,
        );
    }
    return gateway;
}

const NETWORK_KEYS = ["nodeCidr", "podCidr", "serviceCidr", "proxyOnlyCidr", "masterCidr"] as const;

function parseNetwork(config: ConfigValues): NetworkSettings {
    const ranges: Array<[string, Ipv4Range]> = NETWORK_KEYS.map((key) => [key, config.cidr(key, DEFAULTS[key])]);
    for (let i = 0; i < ranges.length; i++) {
        for (let j = i + 1; j < ranges.length; j++) {
            const [keyA, a] = ranges[i];
            const [keyB, b] = ranges[j];
            if (overlaps(a, b)) {
                throw new ConfigError(
                    `${config.key(keyB)} = ${JSON.stringify(b.cidr)} overlaps ${config.key(keyA)} = ${JSON.stringify(a.cidr)}; ` +
                        `allowed: disjoint ranges for ${NETWORK_KEYS.join(", ")}`,
                );
            }
        }
    }
    const proxyOnly = ranges[3][1];
    if (proxyOnly.prefixLength > PROXY_ONLY_SUBNET.maxPrefixLength) {
        throw new ConfigError(
            `${config.key("proxyOnlyCidr")} = ${JSON.stringify(proxyOnly.cidr)} is too small for a proxy-only subnet; allowed: a prefix of /${PROXY_ONLY_SUBNET.maxPrefixLength} or larger (/23 recommended)`,
        );
    }
    const master = ranges[4][1];
    if (master.prefixLength !== 28) {
        throw new ConfigError(`${config.key("masterCidr")} = ${JSON.stringify(master.cidr)} is not a /28; allowed: a private /28 such as 172.16.0.0/28`);
    }
    const [nodeCidr, podCidr, serviceCidr, proxyOnlyCidr, masterCidr] = ranges.map(([, range]) => range.cidr);
    return { nodeCidr, podCidr, serviceCidr, proxyOnlyCidr, masterCidr };
}

function parseAuthorizedNetworks(config: ConfigValues): string[] {
    const raw = config.string("masterAuthorizedNetworks");
    if (raw === undefined) {
        return [];
    }
    const list = config.json("masterAuthorizedNetworks");
    if (!Array.isArray(list) || list.some((item) => typeof item !== "string")) {
        throw new ConfigError(
            `${config.key("masterAuthorizedNetworks")} = ${JSON.stringify(raw)} is not a list of CIDR strings; allowed: e.g. ["203.0.113.0/24"]`,
        );
    }
    return list.map((cidr: string) => {
        const parsed = parseCidr(cidr);
        if (typeof parsed === "string") {
            throw new ConfigError(`${config.key("masterAuthorizedNetworks")} entry ${JSON.stringify(cidr)} ${parsed}`);
        }
        return cidr;
    });
}

/** Typed access to one config namespace, with errors that name the key, the value and what is allowed. */
class ConfigValues {
    constructor(
        private readonly namespace: string,
        private readonly read: ConfigReader,
    ) {}

    key(name: string): string {
        return `${this.namespace}:${name}`;
    }

    string(name: string): string | undefined {
        const value = this.read(name);
        return value === undefined || value === "" ? undefined : value;
    }

    /** A structured value (Pulumi passes them as JSON), or undefined when it is not JSON. */
    json(name: string): unknown {
        try {
            return JSON.parse(this.string(name) ?? "");
        } catch {
            return undefined;
        }
    }

    oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[], problem: string): T {
        const value = this.string(name) ?? fallback;
        if (!(allowed as readonly string[]).includes(value)) {
            throw new ConfigError(`${this.key(name)} = ${JSON.stringify(value)} ${problem}; allowed: ${allowed.join(", ")}`);
        }
        return value as T;
    }

    integer(name: string, fallback: number, minimum: number): number {
        const raw = this.string(name);
        if (raw === undefined) {
            return fallback;
        }
        const value = Number(raw);
        if (!/^-?\d+$/.test(raw) || value < minimum) {
            throw new ConfigError(`${this.key(name)} = ${JSON.stringify(raw)} is not a whole number of at least ${minimum}; allowed: ${minimum}, ${minimum + 1}, …`);
        }
        return value;
    }

    boolean(name: string, fallback: boolean): boolean {
        const raw = this.string(name);
        if (raw === undefined) {
            return fallback;
        }
        if (raw !== "true" && raw !== "false") {
            throw new ConfigError(`${this.key(name)} = ${JSON.stringify(raw)} is not a boolean; allowed: true, false`);
        }
        return raw === "true";
    }

    /** A DNS-1123 label (Kubernetes namespace and object names), or `fallback` when unset. */
    dnsName(name: string, fallback: string | undefined): string | undefined {
        const value = this.string(name) ?? fallback;
        if (value !== undefined && !DNS_LABEL.test(value)) {
            throw new ConfigError(
                `${this.key(name)} = ${JSON.stringify(value)} is not a DNS-1123 label; allowed: at most 63 lowercase letters, digits and hyphens, starting and ending with a letter or digit`,
            );
        }
        return value;
    }

    cidr(name: string, fallback: string): Ipv4Range {
        const value = this.string(name) ?? fallback;
        const parsed = parseCidr(value);
        if (typeof parsed === "string") {
            throw new ConfigError(`${this.key(name)} = ${JSON.stringify(value)} ${parsed}`);
        }
        return parsed;
    }
}
