/**
 * Every setting of the stack, declared once: its Pulumi config type, its default, what it allows, a
 * one-line description, and the rules between settings. The typed {@link Settings}, the README's
 * configuration tables and the `config:` block of Pulumi.yaml all come from these declarations
 * (`npm run settings:docs` writes the latter two; a test fails when they drift). Fields are checked
 * with zod; every problem of a stack is reported in one run, one line each, naming the key, the value
 * and what is allowed.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import {
    AUTOSCALING_SIGNALS,
    AutoscalingSignal,
    DEFAULT_MODEL,
    GATEWAY_CLASSES,
    GKE_LIMITS,
    GKE_TPU_V6E_ZONES,
    GKE_VERSION,
    IMAGES,
    ISTIO,
    KNOWN_MODELS,
    KNOWN_WEIGHTS_TOLERANCE,
    KSERVE_CHILDREN,
    PROTECTED_NAMESPACES,
    PROXY_ONLY_SUBNET,
    RELEASE_CHANNELS,
    TPU_REJECTED_VLLM_FLAGS,
    TPU_V6E_HBM_GB_PER_CHIP,
    TPU_V6E_MACHINE_TYPES,
    VLLM_MEMORY,
    commandWords,
    findTpuShape,
    imageReferenceProblem,
    regionOfZone,
    vllmFlags,
} from "@gke-tpu-inference/facts";
import { Ipv4Range, isRfc1918, networkRangeProblem, overlaps, parseCidr } from "./cidr";
import { parseGsUri } from "./gcsUri";
import { replicaMemory, smallestFittingShape } from "./modelMemory";
import { runningStackFileProblems } from "./stackFile";
import { suggestion } from "./suggest";

/** What serves the inference Gateway: GKE's own Gateway controller, or Istio installed by the stack. */
export type GatewayProvider = "gke" | "istio";
const GATEWAY_PROVIDERS: readonly GatewayProvider[] = ["gke", "istio"];

/** Where an Istio Gateway's load balancer takes traffic from: the internet, or the VPC. */
export type GatewayLoadBalancer = "external" | "internal";
const GATEWAY_LOAD_BALANCERS: readonly GatewayLoadBalancer[] = ["external", "internal"];

/** What an empty setting takes, by gateway provider. */
const PROVIDER_DEFAULTS = {
    gke: { gatewayClass: GATEWAY_CLASSES.regional[0], proxyOnlyCidr: "10.9.0.0/23" },
    istio: { gatewayClass: ISTIO.gatewayClass, gatewayLoadBalancer: "external" },
} as const;

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
    /** The proxy-only subnet GKE's regional Gateway needs; none behind Istio, whose load balancer is a passthrough one. */
    proxyOnlyCidr?: string;
    /** The control plane's private range (/28); the webhook firewall rule admits it. */
    masterCidr: string;
}

/** Where the inference Gateway and the model services live. */
export interface GatewaySettings {
    /** What serves the Gateway. */
    provider: GatewayProvider;
    /** A regional GKE GatewayClass, or `istio`. */
    className: string;
    /** Behind Istio: the kind of load balancer GKE makes for the Gateway's Service. GKE's own classes choose it themselves. */
    loadBalancer?: GatewayLoadBalancer;
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
    /** Where the weights come from: `hf://org/model` (staged in the stack's bucket, or fetched by KServe), `gs://bucket/path` (streamed), `s3://`, `pvc://`, `oci://` (KServe). */
    modelUri: string;
    /** The name clients send as `model`. */
    modelName: string;
    /** vLLM replicas; each takes one TPU VM of the pool's shape. With autoscaling, its minimum. */
    replicas: number;
    /** Replicas between a minimum and a maximum on an inference signal, instead of a fixed number. */
    autoscaling?: ModelAutoscaling;
    /** vLLM TPU image, pinned. */
    image: string;
    maxModelLen: number;
    /** Extra vLLM flags, after the ones the builder sets. */
    extraArgs: string[];
    /** Size of the weights in GB and the model's layers, for the cold-start estimate: from the catalog or the entry. */
    weightsGb: number;
    layers: number;
}

/** The signal an autoscaled service scales on when its entry names none. */
const DEFAULT_AUTOSCALING_SIGNAL: AutoscalingSignal = "queue";

/** How a model service scales: between `minReplicas` and `maxReplicas`, keeping `signal` near `target` per replica. */
export interface ModelAutoscaling {
    minReplicas: number;
    maxReplicas: number;
    signal: AutoscalingSignal;
    target: number;
}

/** What makes a cold start fast, each part on by default (see the README's "Cold start"). */
export interface ColdStartSettings {
    /** Copy `hf://` models into the stack's bucket once and stream them from there. */
    stageWeights: boolean;
    /** Keep the XLA compilation cache in the stack's bucket. */
    compilationCache: boolean;
    /** Image streaming on the TPU pool, and Docker Hub images pulled through an Artifact Registry remote repository. */
    imageStreaming: boolean;
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
    /** Pattern 2: route requests at the Gateway's root by the `model` in their body. */
    bodyBasedRouting: boolean;
    /** Model services to run; empty leaves the TPU pool idle. */
    models: ModelServiceSettings[];
    coldStart: ColdStartSettings;
}

/** Raised for an invalid stack configuration; its message lists every problem, one per line. */
export class ConfigError extends pulumi.RunError {
    constructor(readonly problems: readonly string[]) {
        super(problems.join("\n"));
        this.name = "ConfigError";
    }
}

/** Pulumi's project config types, as Pulumi.yaml declares them. */
export type ConfigType = "string" | "integer" | "boolean" | "array<string>" | "array<object>";

/** One setting: how Pulumi types it, its default, what it means and allows, and how its value is checked. */
export interface Setting {
    type: ConfigType;
    /** The value when the stack sets none, as Pulumi.yaml declares it (`""` where the value is derived, as the description says). */
    default: string | number | boolean | unknown[];
    description: string;
    /** What the setting allows, as the README and error messages say it. */
    allowed: string;
    /** Checks the value (already decoded from Pulumi's string by its type); every message is "<problem>; allowed: …". */
    schema: z.ZodType;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const RESOURCE_NAME = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;
const PROJECT_ID = /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/;
/**
 * A Compute Engine machine type name: predefined `SERIES-TYPE-VCPUS[-suffix]` (e2-standard-4, a2-ultragpu-1g,
 * c3-standard-4-lssd), shared-core (e2-micro, f1-micro, g1-small), or custom (custom-4-16384, n2-custom-4-16384-ext,
 * e2-custom-small-4096). Source: {@link SOURCES.machineTypes}.
 */
export const MACHINE_TYPE =
    /^(?:[a-z][a-z0-9]*-[a-z]+-\d+[a-z]?(?:-[a-z0-9]+)*|e2-(?:micro|small|medium)|f1-micro|g1-small|(?:custom|(?:n1|n2|n2d|n4|e2)-custom)-\d+-\d+(?:-ext)?|e2-custom-(?:micro|small|medium)-\d+)$/;

/** TPU machine types, whose nodes carry a NoSchedule taint that the platform's pods do not tolerate. Source: {@link SOURCES.machineTypes}. */
const TPU_MACHINE_TYPE = /^(?:ct\d+[a-z]*|tpu\d+[a-z]*)-/;

/** "<problem>; allowed: <allowed>", the second half of every error line. */
function says(problem: string, allowed: string): string {
    return `${problem}; allowed: ${allowed}`;
}

function oneOf(values: readonly string[], problem: string): z.ZodType<string> {
    return z
        .string({ error: says("is not a string", values.join(", ")) })
        .refine((value) => values.includes(value), { error: says(problem, values.join(", ")) });
}

function wholeNumber(minimum: number, maximum: number, why: string): z.ZodType<number> {
    const allowed = `${minimum} to ${maximum} (${why})`;
    return z.number({ error: says("is not a whole number", allowed) }).superRefine((value, ctx) => {
        if (!Number.isSafeInteger(value)) {
            ctx.addIssue({
                code: "custom",
                message: says(
                    Number.isInteger(value) ? "is not a whole number JavaScript holds exactly" : "is not a whole number",
                    allowed,
                ),
            });
        } else if (value < minimum || value > maximum) {
            ctx.addIssue({ code: "custom", message: says(`is not a whole number from ${minimum} to ${maximum}`, allowed) });
        }
    });
}

function bool(): z.ZodType<boolean> {
    return z.boolean({ error: says("is not a boolean", "true, false") });
}

function dnsLabel(problem = "is not a DNS-1123 label"): z.ZodType<string> {
    const allowed = "at most 63 lowercase letters, digits and hyphens, starting and ending with a letter or digit";
    return z.string({ error: says("is not a string", allowed) }).regex(DNS_LABEL, { error: says(problem, allowed) });
}

/** A namespace this stack creates and owns, which must not be one Kubernetes or the platform owns. */
function ownedNamespace(): z.ZodType<string> {
    return dnsLabel().refine((value) => !PROTECTED_NAMESPACES.includes(value) && !value.startsWith("kube-"), {
        error: says(
            "is a namespace Kubernetes or the platform owns",
            `a namespace of this stack's own, not ${PROTECTED_NAMESPACES.join(", ")}`,
        ),
    });
}

function cidr(extra?: (range: Ipv4Range) => string | undefined): z.ZodType<string> {
    const allowed = "an IPv4 CIDR block like 10.0.0.0/20 in a private range";
    return z.string({ error: says("is not a string", allowed) }).superRefine((value, ctx) => {
        const parsed = parseCidr(value);
        const problem = typeof parsed === "string" ? parsed : (networkRangeProblem(parsed) ?? extra?.(parsed));
        if (problem !== undefined) {
            ctx.addIssue({ code: "custom", message: problem.includes("; allowed:") ? problem : says(problem, allowed) });
        }
    });
}

/** A check that a range's prefix lies between the largest and the smallest GCP or GKE allows for `what`. */
function sized(what: string, bounds: { smallest: number; largest: number }): (range: Ipv4Range) => string | undefined {
    return (range) =>
        range.prefixLength > bounds.smallest || range.prefixLength < bounds.largest
            ? `is ${range.prefixLength > bounds.smallest ? "too small" : "too large"} for ${what}; allowed: a prefix from /${bounds.largest} to /${bounds.smallest}`
            : undefined;
}

/** Fields of one model service entry, and what each allows. */
const MODEL_FIELDS = [
    "name",
    "pattern",
    "modelUri",
    "modelName",
    "replicas",
    "image",
    "maxModelLen",
    "extraArgs",
    "weightsGb",
    "layers",
    "autoscaling",
] as const;

/** Flags the service builder derives from settings; setting them again in extraArgs would contradict it. */
const BUILDER_FLAGS: Readonly<Record<string, string>> = {
    "--tensor-parallel-size": "it always equals the chips per VM",
    "--pipeline-parallel-size": "it always equals the slice's hosts (1 on a single-host shape)",
    "--max-model-len": "use maxModelLen",
    "--port": "vLLM serves on 8000, which the probes and health checks use",
    "--host": "vLLM listens on every interface",
    "--served-model-name": "use modelName",
    "--enable-prefix-caching": "pattern3 turns it on",
    "--shutdown-timeout": "the builder sizes the drain to the pod's grace period",
    "--disable-access-log-for-endpoints": "the builder already quiets /health, /metrics and /ping",
    "--load-format": "the builder streams weights from Cloud Storage with runai_streamer",
};

const MODEL_URI = /^(hf|gs|s3|pvc|oci):\/\/\S+$/;

/** vLLM's context when an entry sets none. */
const DEFAULT_MAX_MODEL_LEN = 2048;

const modelSchema = z.strictObject({
    name: z
        .string({ error: says("is not a non-empty string", "a DNS-1123 label") })
        .refine((value) => DNS_LABEL.test(value) && value.length <= KSERVE_CHILDREN.maxServiceNameLength, {
            error: says(
                `is not a DNS-1123 label of at most ${KSERVE_CHILDREN.maxServiceNameLength} characters`,
                "lowercase letters, digits and hyphens, starting and ending with a letter or digit (KServe derives longer names from it)",
            ),
        }),
    pattern: z.string({ error: says("is not a string", SERVING_PATTERNS.join(", ")) }).superRefine((value, ctx) => {
        if (!(SERVING_PATTERNS as readonly string[]).includes(value)) {
            // Pattern 2 routes between services, so it is the stack's switch rather than one service's pattern.
            const problem =
                value === "pattern2"
                    ? "is a stack's pattern (several services behind one endpoint): set bodyBasedRouting to true and give each service pattern1 or pattern3"
                    : "is not a serving pattern";
            ctx.addIssue({ code: "custom", message: says(problem, SERVING_PATTERNS.join(", ")) });
        }
    }),
    modelUri: z
        .string({ error: says("is not a non-empty string", "a string") })
        .regex(MODEL_URI, { error: says("is not a model URI", "hf://, gs://, s3://, pvc:// or oci:// followed by a path") })
        // The server's read grant is scoped to the model's folder; a whole bucket has none to scope it to.
        .refine((uri) => !uri.startsWith("gs://") || parseGsUri(uri).prefix !== "", {
            error: says(
                "names a whole bucket, and the server's read grant is scoped to the model's folder",
                "gs://BUCKET/FOLDER, the folder holding the model's config.json and safetensors",
            ),
        })
        .optional(),
    weightsGb: z
        .number({ error: says("is not a number", "the size of the model's weights in GB, more than 0") })
        .positive({ error: says("is not more than 0", "the size of the model's weights in GB, more than 0") })
        .optional(),
    layers: wholeNumber(1, 1000, "the model's transformer layers").optional(),
    modelName: z
        .string({ error: says("is not a non-empty string", "a string") })
        .min(1, { error: says("is not a non-empty string", "a string") })
        .optional(),
    replicas: wholeNumber(1, GKE_LIMITS.nodesPerPoolZone, "one TPU VM each, within GKE's nodes per node pool zone").optional(),
    autoscaling: z
        .strictObject(
            {
                minReplicas: wholeNumber(1, GKE_LIMITS.nodesPerPoolZone, "TPU VMs kept serving; paused is the zero state"),
                maxReplicas: wholeNumber(1, GKE_LIMITS.nodesPerPoolZone, "one TPU VM each, within GKE's nodes per node pool zone"),
                signal: oneOf(Object.keys(AUTOSCALING_SIGNALS), "is not an autoscaling signal").optional(),
                target: z
                    .number({ error: says("is not a number", "the signal's value per replica, more than 0") })
                    .positive({ error: says("is not more than 0", "the signal's value per replica, more than 0") })
                    .optional(),
            },
            { error: says("is not an autoscaling object", '{"minReplicas": 1, "maxReplicas": 3, "signal": "queue"}') },
        )
        .optional(),
    image: z
        .string({ error: says("is not a non-empty string", "a string") })
        .superRefine((value, ctx) => {
            const problem = imageReferenceProblem(value);
            if (problem !== undefined) {
                ctx.addIssue({
                    code: "custom",
                    message: says(problem, "an image with a tag other than latest, or a digest (@sha256: and 64 hex digits)"),
                });
            }
        })
        .optional(),
    maxModelLen: wholeNumber(1, Number.MAX_SAFE_INTEGER, "tokens").optional(),
    extraArgs: z
        .array(z.string(), { error: says("is not a list of strings", 'e.g. ["--gpu-memory-utilization=0.9"]') })
        .superRefine((args, ctx) => {
            // Read as vLLM reads them: underscores, short aliases and `flag value` strings all count.
            for (const { flag, raw } of vllmFlags(commandWords([], args))) {
                const reason = TPU_REJECTED_VLLM_FLAGS[flag] ?? BUILDER_FLAGS[flag];
                if (reason !== undefined) {
                    ctx.addIssue({
                        code: "custom",
                        message: `contains ${JSON.stringify(raw)}: ${says(reason, `flags other than ${[...Object.keys(TPU_REJECTED_VLLM_FLAGS), ...Object.keys(BUILDER_FLAGS)].join(", ")}`)}`,
                    });
                }
            }
        })
        .optional(),
});

/** Every setting of the project namespace, in the order the README lists them. */
export const SETTINGS = {
    zone: {
        type: "string",
        default: "europe-west4-a",
        description: "Zone of the TPU node pool (TPU VM zones differ from GKE's); the regional cluster and the network are in its region.",
        allowed: `a zone where GKE offers TPU v6e node pools: ${GKE_TPU_V6E_ZONES.join(", ")}`,
        schema: oneOf(GKE_TPU_V6E_ZONES, "is not a zone where GKE offers TPU v6e node pools (TPU VM zones differ)"),
    },
    region: {
        type: "string",
        default: "",
        description: "Region of the regional cluster and the network; empty takes the zone's region.",
        allowed: "empty, or the zone's region",
        schema: z.string(),
    },
    tpuMachineType: {
        type: "string",
        default: "ct6e-standard-4t",
        description: "TPU v6e machine type of the TPU node pool.",
        allowed: Object.keys(TPU_V6E_MACHINE_TYPES).join(", "),
        schema: oneOf(Object.keys(TPU_V6E_MACHINE_TYPES), "is not a TPU v6e machine type"),
    },
    tpuTopology: {
        type: "string",
        default: "",
        description:
            "Slice topology; empty takes the machine type's single-host shape (2x2 for ct6e-standard-4t); a multi-host shape (4x4 and up) serves one model replica per slice across its hosts.",
        allowed: `empty, or a topology of the machine type (${Object.entries(TPU_V6E_MACHINE_TYPES)
            .map(([machineType, machine]) => `${machineType}: ${machine.shapes.map((shape) => shape.topology).join(", ")}`)
            .join("; ")})`,
        schema: z.string(),
    },
    tpuMinNodes: {
        type: "integer",
        default: 0,
        description: "Autoscaler floor of the TPU pool; 0 lets it scale to nothing; multi-host: 0 or the slice's hosts.",
        allowed: `0 to ${GKE_LIMITS.nodesPerPoolZone}`,
        schema: wholeNumber(0, GKE_LIMITS.nodesPerPoolZone, "GKE's nodes per node pool zone"),
    },
    tpuMaxNodes: {
        type: "integer",
        default: 3,
        description: "Autoscaler ceiling of the TPU pool, one VM per model replica; multi-host: exactly the slice's hosts.",
        allowed: `0 to ${GKE_LIMITS.nodesPerPoolZone}`,
        schema: wholeNumber(0, GKE_LIMITS.nodesPerPoolZone, "GKE's nodes per node pool zone"),
    },
    tpuProvisioning: {
        type: "string",
        default: "on-demand",
        description: "How TPU capacity is bought.",
        allowed: TPU_PROVISIONING.join(", "),
        schema: oneOf(TPU_PROVISIONING, "is not a TPU provisioning model"),
    },
    tpuReservation: {
        type: "string",
        default: "",
        description: "Name of a specific TPU reservation in the zone; only with tpuProvisioning reservation.",
        allowed: "empty, or lowercase letters, digits and hyphens, starting with a letter, at most 63 characters",
        schema: z.string().refine((value) => value === "" || RESOURCE_NAME.test(value), {
            error: says(
                "is not a reservation name",
                "lowercase letters, digits and hyphens, starting with a letter, at most 63 characters",
            ),
        }),
    },
    systemMachineType: {
        type: "string",
        default: "e2-standard-4",
        description: "Compute Engine machine type of the system pool (cert-manager, LeaderWorkerSet, KServe, the EPP).",
        allowed: "a Compute Engine machine type other than a TPU type (e2-standard-4, n2-standard-8, custom-4-16384)",
        schema: z
            .string()
            .regex(MACHINE_TYPE, {
                error: says("is not a Compute Engine machine type name", "a type such as e2-standard-4, n2-highmem-8 or custom-4-16384"),
            })
            .refine((value) => !TPU_MACHINE_TYPE.test(value), {
                error: says(
                    "is a TPU machine type, whose taint keeps the platform's pods off it",
                    "a CPU machine type such as e2-standard-4",
                ),
            }),
    },
    systemMinNodes: {
        type: "integer",
        default: 1,
        description: "Autoscaler floor of the system pool, across the region's zones.",
        allowed: `1 to ${GKE_LIMITS.nodesPerPoolZone}`,
        schema: wholeNumber(1, GKE_LIMITS.nodesPerPoolZone, "GKE's nodes per node pool zone"),
    },
    systemMaxNodes: {
        type: "integer",
        default: 4,
        description: "Autoscaler ceiling of the system pool, across the region's zones.",
        allowed: `1 to ${GKE_LIMITS.nodesPerPoolZone}`,
        schema: wholeNumber(1, GKE_LIMITS.nodesPerPoolZone, "GKE's nodes per node pool zone"),
    },
    nodeCidr: {
        type: "string",
        default: "10.0.0.0/20",
        description: "Primary range of the subnet, for nodes.",
        allowed: `a private IPv4 range from /${GKE_LIMITS.subnetRange.largest} to /${GKE_LIMITS.subnetRange.smallest}`,
        schema: cidr(sized("nodes", GKE_LIMITS.subnetRange)),
    },
    podCidr: {
        type: "string",
        default: "10.4.0.0/14",
        description: "Secondary range for Pods.",
        allowed: `a private IPv4 range from /${GKE_LIMITS.podRange.largest} to /${GKE_LIMITS.podRange.smallest}`,
        schema: cidr(sized("Pods", GKE_LIMITS.podRange)),
    },
    serviceCidr: {
        type: "string",
        default: "10.8.0.0/20",
        description: "Secondary range for Services.",
        allowed: `a private IPv4 range from /${GKE_LIMITS.serviceRange.largest} to /${GKE_LIMITS.serviceRange.smallest}`,
        schema: cidr(sized("Services", GKE_LIMITS.serviceRange)),
    },
    proxyOnlyCidr: {
        type: "string",
        default: "",
        description: `Proxy-only subnet for GKE's regional Gateway's Envoy proxies; empty: ${PROVIDER_DEFAULTS.gke.proxyOnlyCidr} with gatewayProvider gke, none with istio.`,
        allowed: `empty, or (gatewayProvider gke) a private IPv4 range of /${PROXY_ONLY_SUBNET.maxPrefixLength} or larger (/23 recommended)`,
        schema: z.union([
            z.literal(""),
            cidr((range) =>
                range.prefixLength > PROXY_ONLY_SUBNET.maxPrefixLength
                    ? `is too small for a proxy-only subnet; allowed: a prefix of /${PROXY_ONLY_SUBNET.maxPrefixLength} or larger (/23 recommended)`
                    : undefined,
            ),
        ]),
    },
    masterCidr: {
        type: "string",
        default: "172.16.0.0/28",
        description: "The control plane's private range.",
        allowed: `a /${GKE_LIMITS.controlPlaneRangePrefix} in 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16`,
        schema: cidr((range) =>
            range.prefixLength !== GKE_LIMITS.controlPlaneRangePrefix || !isRfc1918(range)
                ? `is not a /${GKE_LIMITS.controlPlaneRangePrefix} in the RFC 1918 ranges; allowed: a private /${GKE_LIMITS.controlPlaneRangePrefix} such as 172.16.0.0/28`
                : undefined,
        ),
    },
    masterAuthorizedNetworks: {
        type: "array<string>",
        default: [],
        description:
            "CIDRs that may reach the control plane; empty leaves the public endpoint reachable from any address (credentials still required).",
        allowed: `up to ${GKE_LIMITS.authorizedNetworks} IPv4 CIDR blocks, e.g. ["203.0.113.0/24"]`,
        schema: z
            .array(z.string(), { error: says("is not a list of CIDR strings", 'e.g. ["203.0.113.0/24"]') })
            .max(GKE_LIMITS.authorizedNetworks, {
                error: says(`has more than ${GKE_LIMITS.authorizedNetworks} entries`, `up to ${GKE_LIMITS.authorizedNetworks} CIDR blocks`),
            })
            .superRefine((list, ctx) => {
                list.forEach((entry, index) => {
                    const parsed = parseCidr(entry);
                    if (typeof parsed === "string") {
                        ctx.addIssue({
                            code: "custom",
                            path: [index],
                            message: parsed.includes("; allowed:") ? parsed : says(parsed, "an IPv4 CIDR block like 203.0.113.0/24"),
                        });
                    }
                });
            }),
    },
    releaseChannel: {
        type: "string",
        default: "REGULAR",
        description: `GKE release channel; the cluster is created at the channel's default version, which the preview checks is at least ${GKE_VERSION.floor}.`,
        allowed: RELEASE_CHANNELS.join(", "),
        schema: oneOf(RELEASE_CHANNELS, "is not a GKE release channel"),
    },
    gatewayProvider: {
        type: "string",
        default: "gke",
        description:
            "What serves the inference Gateway: GKE's own Gateway controller (a regional Application Load Balancer), or Istio, which the stack installs (its Envoy Deployment behind a passthrough Network Load Balancer).",
        allowed: GATEWAY_PROVIDERS.join(", "),
        schema: oneOf(GATEWAY_PROVIDERS, "is not a gateway provider"),
    },
    gatewayClass: {
        type: "string",
        default: "",
        description: `GatewayClass of the inference Gateway; empty: ${PROVIDER_DEFAULTS.gke.gatewayClass} with gatewayProvider gke, ${PROVIDER_DEFAULTS.istio.gatewayClass} with istio.`,
        allowed: `empty, ${GATEWAY_CLASSES.regional.join(", ")} (gke), or ${ISTIO.gatewayClass} (istio)`,
        schema: z.string().superRefine((value, ctx) => {
            if (value !== "" && value !== ISTIO.gatewayClass && !(GATEWAY_CLASSES.regional as readonly string[]).includes(value)) {
                const why = (GATEWAY_CLASSES.global as readonly string[]).includes(value)
                    ? "is a global GatewayClass, which never serves InferencePool backends"
                    : "is neither a regional GKE GatewayClass nor Istio's";
                ctx.addIssue({ code: "custom", message: says(why, `${GATEWAY_CLASSES.regional.join(", ")} or ${ISTIO.gatewayClass}`) });
            }
        }),
    },
    gatewayLoadBalancer: {
        type: "string",
        default: "",
        description: `With gatewayProvider istio: whether GKE gives the Gateway's Service an external or an internal (VPC-only) passthrough Network Load Balancer; empty: ${PROVIDER_DEFAULTS.istio.gatewayLoadBalancer}. With gke the class chooses (gke-l7-rilb is internal).`,
        allowed: `empty, or (gatewayProvider istio) ${GATEWAY_LOAD_BALANCERS.join(", ")}`,
        schema: z.union([z.literal(""), oneOf(GATEWAY_LOAD_BALANCERS, "is not a load balancer kind")]),
    },
    gatewayNamespace: {
        type: "string",
        default: "inference-gateway",
        description: "Namespace of the inference Gateway, which the stack creates.",
        allowed: "a DNS-1123 label that Kubernetes and the platform do not own",
        schema: ownedNamespace(),
    },
    gatewayName: {
        type: "string",
        default: "inference-gateway",
        description: "Name of the inference Gateway.",
        allowed: "a DNS-1123 label",
        schema: dnsLabel(),
    },
    gatewayTlsSecret: {
        type: "string",
        default: "",
        description: "A kubernetes.io/tls Secret in the Gateway's namespace; set, it adds an HTTPS listener on 443; empty: HTTP only.",
        allowed: "empty, or a DNS-1123 label",
        schema: z.union([z.literal(""), dnsLabel()]),
    },
    bodyBasedRouting: {
        type: "boolean",
        default: false,
        description:
            "Pattern 2: a body-based router reads `model` from each request, so /v1/chat/completions and /v1/completions at the Gateway's root reach the service of that modelName; the per-service paths keep working.",
        allowed: "true, false",
        schema: bool(),
    },
    servingNamespace: {
        type: "string",
        default: "llm-inference",
        description: "Namespace of the model services, which the stack creates and labels for the Gateway.",
        allowed: "a DNS-1123 label that Kubernetes, the platform and the Gateway do not own",
        schema: ownedNamespace(),
    },
    deletionProtection: {
        type: "boolean",
        default: true,
        description:
            "On: GKE's deletion protection, and Pulumi protection on the cluster, its node account, the VPC and the node subnet; off only for throwaway stacks.",
        allowed: "true, false",
        schema: bool(),
    },
    manageProjectApis: {
        type: "boolean",
        default: true,
        description:
            "Enable the Google Cloud APIs the stack needs; off where a platform team manages them (the preview then checks they are enabled).",
        allowed: "true, false",
        schema: bool(),
    },
    paused: {
        type: "boolean",
        default: false,
        description: "Stops every model service (KServe keeps their definitions) and lets the TPU pool scale to zero (see Day 2).",
        allowed: "true, false",
        schema: bool(),
    },
    stageWeights: {
        type: "boolean",
        default: true,
        description:
            "Copy each hf:// model into the stack's bucket once (a Job per model) and stream it from there; off: KServe's storage initializer downloads it on every start.",
        allowed: "true, false",
        schema: bool(),
    },
    compilationCache: {
        type: "boolean",
        default: true,
        description:
            "Keep vLLM's XLA compilation cache in the stack's bucket, per model, topology and image, so a restart compiles nothing it compiled before.",
        allowed: "true, false",
        schema: bool(),
    },
    imageStreaming: {
        type: "boolean",
        default: true,
        description:
            "GKE image streaming on the TPU pool (it streams images in Artifact Registry), and Docker Hub images pulled through a remote repository in the region; off for teams with their own registry mirror.",
        allowed: "true, false",
        schema: bool(),
    },
    models: {
        type: "array<object>",
        default: [],
        description:
            "Model services to run (fields below); all their replicas together must fit tpuMaxNodes; empty leaves the TPU pool idle.",
        allowed: 'a list of model services, e.g. [{"name": "qwen", "pattern": "pattern1"}]',
        schema: z.array(modelSchema, { error: says("is not a list of model services", 'e.g. [{"name": "qwen", "pattern": "pattern1"}]') }),
    },
} as const satisfies Record<string, Setting>;

/** What each field of a model service entry means, for the README. */
export const MODEL_SETTINGS: ReadonlyArray<{
    field: (typeof MODEL_FIELDS)[number];
    default: string;
    description: string;
    allowed: string;
}> = [
    {
        field: "name",
        default: "(required)",
        description: "Name of the LLMInferenceService, unique in the stack; the path prefix through the Gateway.",
        allowed: `a DNS-1123 label of at most ${KSERVE_CHILDREN.maxServiceNameLength} characters`,
    },
    {
        field: "pattern",
        default: "(required)",
        description: "pattern1: one baseline replica; pattern3: prefix-cache scale-out with prefix-cache-aware routing.",
        allowed: SERVING_PATTERNS.join(", "),
    },
    {
        field: "modelUri",
        default: DEFAULT_MODEL.uri,
        description:
            "Where the weights come from: hf:// is staged in the stack's bucket and streamed (or, with stageWeights off, fetched by KServe), gs:// is streamed, s3://, pvc:// and oci:// are fetched by KServe.",
        allowed: "hf://, gs://, s3://, pvc:// or oci:// followed by a path",
    },
    { field: "modelName", default: "the URI's path", description: "The name clients send as `model`.", allowed: "a non-empty string" },
    {
        field: "replicas",
        default: "1 (pattern1), 2 (pattern3)",
        description: "vLLM replicas, one TPU VM each; pattern3 needs at least 2.",
        allowed: `1 to ${GKE_LIMITS.nodesPerPoolZone}, at most tpuMaxNodes in total`,
    },
    {
        field: "autoscaling",
        default: "(none: fixed replicas)",
        description: `Scale between minReplicas and maxReplicas on signal (${Object.keys(AUTOSCALING_SIGNALS).join(" or ")}, default ${DEFAULT_AUTOSCALING_SIGNAL}) near target per replica (default ${Object.entries(
            AUTOSCALING_SIGNALS,
        )
            .map(([signal, { defaultTarget }]) => `${signal} ${defaultTarget}`)
            .join(", ")}); instead of replicas.`,
        allowed:
            "minReplicas 1 or more (2 for pattern3) up to maxReplicas; maxReplicas of all services within tpuMaxNodes; target within the signal's range",
    },
    { field: "image", default: IMAGES.vllmTpu, description: "vLLM TPU image.", allowed: "a tag other than latest, or a digest" },
    {
        field: "maxModelLen",
        default: String(DEFAULT_MAX_MODEL_LEN),
        description: "vLLM's --max-model-len; its KV cache must fit one replica's TPU memory beside the weights.",
        allowed: "a whole number of tokens, at least 1, within a known model's context",
    },
    {
        field: "weightsGb",
        default: "from the catalog",
        description:
            "Size of the model's weights in GB, for the cold-start estimate and the startup budget; required for a model the catalog does not know.",
        allowed: "a number more than 0",
    },
    {
        field: "layers",
        default: "from the catalog",
        description: "The model's transformer layers, for the compilation estimate; required for a model the catalog does not know.",
        allowed: "a whole number from 1 to 1000",
    },
    {
        field: "extraArgs",
        default: "[]",
        description: "More vLLM flags, after the builder's.",
        allowed: `flags other than ${[...Object.keys(TPU_REJECTED_VLLM_FLAGS), ...Object.keys(BUILDER_FLAGS)].join(", ")}`,
    },
];

/** The setting read as a secret, which no stack may hold in plain text; not declared in Pulumi.yaml, because a declared key without a default is required of every stack. */
export const SECRET_SETTINGS = {
    hfToken: "Hugging Face token for gated models; set it with `pulumi config set --secret hfToken <TOKEN>`.",
} as const;

type SettingName = keyof typeof SETTINGS;
type Values = { [K in SettingName]: z.output<(typeof SETTINGS)[K]["schema"]> };

/** A rule between settings, declared with the settings it reads so that it runs only when they are valid. */
interface Rule {
    /** One line for the README. */
    description: string;
    reads: readonly SettingName[];
    /** Problems, each a whole line ("<key> = <value> …; allowed: …"). */
    check: (values: Values, key: (name: string) => string) => string[];
}

const NETWORK_KEYS = ["nodeCidr", "podCidr", "serviceCidr", "proxyOnlyCidr", "masterCidr"] as const;

/** The rules between settings, in the order they are checked. */
export const RULES: readonly Rule[] = [
    {
        description: "region, when set, is the zone's region.",
        reads: ["zone", "region"],
        check: ({ zone, region }, key) => {
            if (region === "" || regionOfZone(zone) === region) {
                return [];
            }
            const zonesInRegion = GKE_TPU_V6E_ZONES.filter((candidate) => regionOfZone(candidate) === region);
            return [
                `${key("zone")} = ${JSON.stringify(zone)} is not in ${key("region")} = ${JSON.stringify(region)}; ` +
                    `allowed: ${zonesInRegion.length > 0 ? zonesInRegion.join(", ") : `none (no GKE TPU v6e zone is in ${region})`}`,
            ];
        },
    },
    {
        description: "tpuTopology, when set, is a topology of tpuMachineType.",
        reads: ["tpuMachineType", "tpuTopology"],
        check: ({ tpuMachineType, tpuTopology }, key) => {
            const topologies = TPU_V6E_MACHINE_TYPES[tpuMachineType].shapes.map((shape) => shape.topology);
            return tpuTopology === "" || topologies.includes(tpuTopology)
                ? []
                : [
                      `${key("tpuTopology")} = ${JSON.stringify(tpuTopology)} ${says(`is not a topology of ${tpuMachineType}`, topologies.join(", "))}`,
                  ];
        },
    },
    {
        description:
            "tpuMinNodes is at most tpuMaxNodes; a multi-host slice scales as one unit, so tpuMaxNodes is its hosts and tpuMinNodes 0 or its hosts.",
        reads: ["tpuMachineType", "tpuTopology", "tpuMinNodes", "tpuMaxNodes"],
        check: (values, key) => {
            const shape = tpuShape(values);
            if (shape === undefined) {
                return [];
            }
            if (values.tpuMinNodes > values.tpuMaxNodes) {
                return [
                    `${key("tpuMinNodes")} = ${values.tpuMinNodes} is greater than ${key("tpuMaxNodes")} = ${values.tpuMaxNodes}; allowed: tpuMinNodes <= tpuMaxNodes`,
                ];
            }
            if (
                shape.hosts > 1 &&
                (values.tpuMaxNodes !== shape.hosts || (values.tpuMinNodes !== 0 && values.tpuMinNodes !== shape.hosts))
            ) {
                return [
                    `${key("tpuMaxNodes")} = ${values.tpuMaxNodes} with tpuMinNodes = ${values.tpuMinNodes} cannot hold one ${shape.topology} slice of ${values.tpuMachineType}, ` +
                        `which is ${shape.hosts} hosts scaled as one unit; allowed: tpuMaxNodes = ${shape.hosts} and tpuMinNodes = 0 or ${shape.hosts}`,
                ];
            }
            return [];
        },
    },
    {
        description: "tpuReservation is set exactly when tpuProvisioning is reservation.",
        reads: ["zone", "tpuProvisioning", "tpuReservation"],
        check: ({ zone, tpuProvisioning, tpuReservation }, key) => {
            if (tpuProvisioning === "reservation" && tpuReservation === "") {
                return [
                    `${key("tpuReservation")} is not set but ${key("tpuProvisioning")} = "reservation"; allowed: the name of a specific TPU reservation in ${zone}`,
                ];
            }
            if (tpuReservation !== "" && tpuProvisioning !== "reservation") {
                return [
                    `${key("tpuReservation")} = ${JSON.stringify(tpuReservation)} is set but ${key("tpuProvisioning")} = ${JSON.stringify(tpuProvisioning)}; allowed: tpuReservation only with tpuProvisioning = "reservation"`,
                ];
            }
            return [];
        },
    },
    {
        description: "systemMinNodes is at most systemMaxNodes.",
        reads: ["systemMinNodes", "systemMaxNodes"],
        check: ({ systemMinNodes, systemMaxNodes }, key) =>
            systemMinNodes > systemMaxNodes
                ? [
                      `${key("systemMinNodes")} = ${systemMinNodes} is greater than ${key("systemMaxNodes")} = ${systemMaxNodes}; allowed: systemMinNodes <= systemMaxNodes`,
                  ]
                : [],
    },
    {
        description: "nodeCidr, podCidr, serviceCidr, proxyOnlyCidr (where the provider has one) and masterCidr are disjoint.",
        reads: [...NETWORK_KEYS, "gatewayProvider"],
        check: (values, key) => {
            const ranges = NETWORK_KEYS.flatMap((name) => {
                const cidr = name === "proxyOnlyCidr" ? proxyOnlyCidrOf(values) : values[name];
                return cidr === undefined ? [] : [[name, parseCidr(cidr) as Ipv4Range] as const];
            });
            return ranges.flatMap(([nameB, b], j) =>
                ranges
                    .slice(0, j)
                    .filter(([, a]) => overlaps(a, b))
                    .map(
                        ([nameA, a]) =>
                            `${key(nameB)} = ${JSON.stringify(b.cidr)} overlaps ${key(nameA)} = ${JSON.stringify(a.cidr)}; allowed: disjoint ranges for ${NETWORK_KEYS.join(", ")}`,
                    ),
            );
        },
    },
    {
        description:
            "The Gateway's settings belong to its provider: gke takes a regional GKE class and a proxy-only subnet, istio the class istio and a load balancer kind.",
        reads: ["gatewayProvider", "gatewayClass", "gatewayLoadBalancer", "proxyOnlyCidr"],
        check: ({ gatewayProvider, gatewayClass, gatewayLoadBalancer, proxyOnlyCidr }, key) => {
            const provider = `${key("gatewayProvider")} = ${JSON.stringify(gatewayProvider)}`;
            const problems: string[] = [];
            if (gatewayProvider === "istio") {
                if (gatewayClass !== "" && gatewayClass !== ISTIO.gatewayClass) {
                    problems.push(
                        `${key("gatewayClass")} = ${JSON.stringify(gatewayClass)} is GKE's own class, which Istio does not program, but ${provider}; allowed: empty or ${ISTIO.gatewayClass} (or gatewayProvider gke)`,
                    );
                }
                if (proxyOnlyCidr !== "") {
                    problems.push(
                        `${key("proxyOnlyCidr")} = ${JSON.stringify(proxyOnlyCidr)} is for GKE's regional Gateway, but ${provider}, whose passthrough load balancer needs no proxy-only subnet; allowed: empty (or gatewayProvider gke)`,
                    );
                }
            } else {
                if (gatewayClass === ISTIO.gatewayClass) {
                    problems.push(
                        `${key("gatewayClass")} = ${JSON.stringify(gatewayClass)} is Istio's class, but ${provider}, which installs no Istio; allowed: empty, ${GATEWAY_CLASSES.regional.join(", ")} (or gatewayProvider istio)`,
                    );
                }
                if (gatewayLoadBalancer !== "") {
                    problems.push(
                        `${key("gatewayLoadBalancer")} = ${JSON.stringify(gatewayLoadBalancer)} is for Istio's Gateway Service, but ${provider}, whose class chooses the load balancer; allowed: empty, with gatewayClass gke-l7-rilb for an internal one (or gatewayProvider istio)`,
                    );
                }
            }
            return problems;
        },
    },
    {
        description: "servingNamespace is not the Gateway's namespace.",
        reads: ["gatewayNamespace", "servingNamespace"],
        check: ({ gatewayNamespace, servingNamespace }, key) =>
            servingNamespace === gatewayNamespace
                ? [
                      `${key("servingNamespace")} = ${JSON.stringify(servingNamespace)} is the Gateway's namespace; ` +
                          `allowed: a namespace other than ${key("gatewayNamespace")}, so that model services never share the Gateway's`,
                  ]
                : [],
    },
    {
        description:
            "Model names are unique; pattern3 has at least 2 replicas; a model the catalog does not know gives weightsGb and layers; autoscaling replaces replicas, with minReplicas <= maxReplicas (2 or more for pattern3) and a target the signal can reach, and tpuMinNodes at most the services' minimums; on a multi-host shape a replica is a whole slice and does not autoscale; the services' replicas (autoscaled ones at maxReplicas), a VM or a slice each, fit in tpuMaxNodes.",
        reads: ["models", "tpuMachineType", "tpuTopology", "tpuMinNodes", "tpuMaxNodes"],
        check: (values, key) => {
            const problems: string[] = [];
            const shape = tpuShape(values);
            const seen = new Set<string>();
            for (const [index, model] of values.models.entries()) {
                const known = knownModel(model);
                for (const field of ["weightsGb", "layers"] as const) {
                    if (known === undefined && model[field] === undefined) {
                        problems.push(
                            `${key("models")}[${index}].${field} is not set and the catalog does not know ${JSON.stringify(modelNameOf(model))}; ` +
                                `allowed: ${field === "weightsGb" ? "the size of its weights in GB" : "its number of transformer layers"} (known models: ${Object.keys(KNOWN_MODELS).join(", ")})`,
                        );
                    }
                }
                if (seen.has(model.name)) {
                    problems.push(
                        `${key("models")}[${index}].name = ${JSON.stringify(model.name)} is used twice; allowed: a name unique in the stack`,
                    );
                }
                seen.add(model.name);
                problems.push(...autoscalingProblems(model, `${key("models")}[${index}]`));
                if (model.pattern === "pattern3" && model.replicas !== undefined && model.replicas < 2) {
                    problems.push(
                        `${key("models")}[${index}].replicas = ${model.replicas} gives pattern3 nothing to route between; allowed: 2 or more (or pattern1 for one replica)`,
                    );
                }
            }
            if (shape === undefined || values.models.length === 0) {
                return problems;
            }
            if (shape.hosts > 1) {
                // KServe sizes a multi-host service's LeaderWorkerSet itself; only a Deployment's replicas can be handed to KEDA.
                for (const [index, model] of values.models.entries()) {
                    if (model.autoscaling !== undefined) {
                        problems.push(
                            `${key("models")}[${index}].autoscaling scales a Deployment, but on ${key("tpuTopology")} = ${JSON.stringify(shape.topology)} (${shape.hosts} hosts) a replica is one LeaderWorkerSet group across a slice; allowed: replicas without autoscaling, or a single-host tpuTopology (${singleHostTopologies(values.tpuMachineType)})`,
                        );
                    }
                }
            }
            // The pool's floor follows the services' minimums, so the TPU VMs an autoscaler releases leave the bill.
            const autoscales = values.models.some((model) => model.autoscaling !== undefined);
            const minimum = values.models.reduce((sum, model) => sum + replicasOf(model), 0);
            if (autoscales && values.tpuMinNodes > minimum * shape.hosts) {
                problems.push(
                    `${key("tpuMinNodes")} = ${values.tpuMinNodes} keeps TPU VMs that the services at their minimum (${minimum} replica${minimum === 1 ? "" : "s"}) leave idle; allowed: at most ${minimum * shape.hosts}`,
                );
            }
            // An autoscaled service may grow to its maximum: the pool must hold every service at its largest, a whole slice per replica.
            const replicas = values.models.reduce((sum, model) => sum + (model.autoscaling?.maxReplicas ?? replicasOf(model)), 0);
            if (replicas * shape.hosts > values.tpuMaxNodes) {
                const perReplica =
                    shape.hosts === 1
                        ? `one ${values.tpuMachineType} ${shape.topology} VM each`
                        : `one ${shape.topology} slice of ${shape.hosts} ${values.tpuMachineType} VMs each`;
                problems.push(
                    `${key("models")} asks for ${autoscales ? `up to ${replicas} replicas (autoscaled services at their maxReplicas)` : `${replicas} replicas`}, ${perReplica}, but ${key("tpuMaxNodes")} = ${values.tpuMaxNodes}; ` +
                        `allowed: at most ${plural(Math.floor(values.tpuMaxNodes / shape.hosts), "replica")} in total, or a larger tpuMaxNodes`,
                );
            }
            return problems;
        },
    },
    {
        description:
            "A model the catalog knows keeps its figures (weightsGb within 10 % of the catalog's, its layers) and a maxModelLen within its context; each model's weights and the KV cache of one maxModelLen sequence fit the TPU memory vLLM uses of one replica.",
        reads: ["models", "tpuMachineType", "tpuTopology"],
        check: (values, key) => {
            const problems: string[] = [];
            const shape = tpuShape(values);
            for (const [index, model] of values.models.entries()) {
                const at = `${key("models")}[${index}]`;
                const known = knownModel(model);
                const name = modelNameOf(model);
                const reported = problems.length;
                if (known !== undefined) {
                    if (
                        model.weightsGb !== undefined &&
                        Math.abs(model.weightsGb - known.weightsGb) > KNOWN_WEIGHTS_TOLERANCE * known.weightsGb
                    ) {
                        problems.push(
                            `${at}.weightsGb = ${model.weightsGb} contradicts the catalog's ${known.weightsGb} GB for ${name}; allowed: unset (the catalog's figure), or within ${KNOWN_WEIGHTS_TOLERANCE * 100} % of it`,
                        );
                    }
                    if (model.layers !== undefined && model.layers !== known.layers) {
                        problems.push(
                            `${at}.layers = ${model.layers} contradicts the catalog's ${known.layers} for ${name}; allowed: unset, or ${known.layers}`,
                        );
                    }
                    if (model.maxModelLen !== undefined && model.maxModelLen > known.maxContext) {
                        problems.push(
                            `${at}.maxModelLen = ${model.maxModelLen} is longer than ${name}'s context (max_position_embeddings ${known.maxContext}), which vLLM refuses; allowed: at most ${known.maxContext}`,
                        );
                    }
                }
                const weightsGb = model.weightsGb ?? known?.weightsGb;
                // A figure that contradicts the catalog is reported above; the memory is judged once the entry agrees with it.
                if (shape === undefined || weightsGb === undefined || problems.length > reported) {
                    continue;
                }
                const footprint = { weightsGb, maxModelLen: maxModelLenOf(model), extraArgs: model.extraArgs ?? [], known };
                const chipsPerVm = TPU_V6E_MACHINE_TYPES[values.tpuMachineType].chipsPerVm;
                const memory = replicaMemory(footprint, { chipsPerVm, hosts: shape.hosts });
                if (memory.neededGb > memory.availableGb) {
                    const fits = smallestFittingShape(footprint);
                    const needs =
                        memory.kvCacheGb === undefined
                            ? `${gb(memory.weightsGb)} GB of weights alone (its KV cache not counted: the catalog does not know its attention shape)`
                            : `${gb(memory.neededGb)} GB: ${gb(memory.weightsGb)} GB of weights and ${gb(memory.kvCacheGb)} GB of KV cache for maxModelLen ${footprint.maxModelLen}`;
                    problems.push(
                        `${at} (${name}) needs ${needs}, more than the ${gb(memory.availableGb, "down")} GB vLLM uses of one ${shape.topology} replica ` +
                            `(${chipsPerVm * shape.hosts} chips of ${TPU_V6E_HBM_GB_PER_CHIP} GB, at ${VLLM_MEMORY.utilizationFlag} ${memory.utilization}); allowed: ` +
                            (fits
                                ? `tpuMachineType ${fits.machineType} with tpuTopology ${fits.topology} (${fits.chips} chips) or larger${memory.kvCacheGb ? ", or a smaller maxModelLen" : ""}`
                                : `no TPU v6e shape holds it; a smaller model${memory.kvCacheGb ? " or maxModelLen" : ""}`),
                    );
                }
            }
            return problems;
        },
    },
    {
        description: "With bodyBasedRouting, the system pool can hold two nodes: the router's two replicas run on different ones.",
        reads: ["bodyBasedRouting", "systemMaxNodes"],
        check: ({ bodyBasedRouting, systemMaxNodes }, key) =>
            bodyBasedRouting && systemMaxNodes < 2
                ? [
                      `${key("systemMaxNodes")} = ${systemMaxNodes} leaves the body-based router's second replica nowhere to run: its two replicas spread over system nodes; allowed: 2 or more (or bodyBasedRouting false)`,
                  ]
                : [],
    },
    {
        description:
            "With bodyBasedRouting, every name a client sends as `model` (each service's modelName) is used by one service only: the router maps a name to one service.",
        reads: ["models", "bodyBasedRouting"],
        check: (values, key) => {
            if (!values.bodyBasedRouting) {
                return [];
            }
            const claimed = new Map<string, number>();
            const problems: string[] = [];
            for (const [index, model] of values.models.entries()) {
                const name = modelNameOf(model);
                const first = claimed.get(name);
                if (first !== undefined) {
                    problems.push(
                        `${key("models")}[${index}].modelName = ${JSON.stringify(name)} is also models[${first}]'s, and ${key("bodyBasedRouting")} routes a name to one service; allowed: a modelName no other service uses`,
                    );
                } else {
                    claimed.set(name, index);
                }
            }
            return problems;
        },
    },
];

/** `count` and the noun, plural unless one. */
function plural(count: number, noun: string): string {
    return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** The machine type's single-host topologies, for messages. */
function singleHostTopologies(machineType: string): string {
    return TPU_V6E_MACHINE_TYPES[machineType].shapes
        .filter((candidate) => candidate.hosts === 1)
        .map((candidate) => candidate.topology)
        .join(", ");
}

/** The proxy-only subnet's range: the stack's, else GKE's default; none behind Istio. */
function proxyOnlyCidrOf(values: Pick<Values, "gatewayProvider" | "proxyOnlyCidr">): string | undefined {
    return values.gatewayProvider === "gke" ? values.proxyOnlyCidr || PROVIDER_DEFAULTS.gke.proxyOnlyCidr : undefined;
}

/** The TPU shape the values select, when the topology is one of the machine type's. */
function tpuShape(values: Pick<Values, "tpuMachineType" | "tpuTopology">) {
    return findTpuShape(values.tpuMachineType, values.tpuTopology || TPU_V6E_MACHINE_TYPES[values.tpuMachineType].shapes[0].topology);
}

/** GB to one decimal, for messages: what is needed rounded up, what is there rounded down, so that the two never read alike. */
function gb(value: number, round: "up" | "down" = "up"): string {
    return ((round === "up" ? Math.ceil(value * 10) : Math.floor(value * 10)) / 10).toFixed(1);
}

/** The context an entry asks vLLM for: its own, else the default. */
function maxModelLenOf(model: z.output<typeof modelSchema>): number {
    return model.maxModelLen ?? DEFAULT_MAX_MODEL_LEN;
}

/** The URI a model entry's weights come from. */
function modelUriOf(model: z.output<typeof modelSchema>): string {
    return model.modelUri ?? DEFAULT_MODEL.uri;
}

/** The name clients send: the entry's, else the URI's path. */
function modelNameOf(model: z.output<typeof modelSchema>): string {
    const modelUri = modelUriOf(model);
    return model.modelName ?? (modelUri === DEFAULT_MODEL.uri ? DEFAULT_MODEL.name : modelUri.replace(/^[a-z0-9]+:\/\//, ""));
}

/** The catalog's figures for the model, by its name or its Hugging Face repository. */
function knownModel(model: z.output<typeof modelSchema>) {
    const hfRepository = modelUriOf(model).startsWith("hf://") ? modelUriOf(model).slice("hf://".length) : undefined;
    return KNOWN_MODELS[modelNameOf(model)] ?? (hfRepository !== undefined ? KNOWN_MODELS[hfRepository] : undefined);
}

function replicasOf(model: z.output<typeof modelSchema>): number {
    return model.autoscaling?.minReplicas ?? model.replicas ?? (model.pattern === "pattern3" ? 2 : 1);
}

/** The signal an entry's autoscaling scales on: its own, else the waiting-request queue. */
function signalOf(scaling: { signal?: string }): AutoscalingSignal {
    return (scaling.signal ?? DEFAULT_AUTOSCALING_SIGNAL) as AutoscalingSignal;
}

/** An entry's autoscaling with its defaults filled in. */
function autoscalingOf(scaling: NonNullable<z.output<typeof modelSchema>["autoscaling"]>): ModelAutoscaling {
    const signal = signalOf(scaling);
    return {
        minReplicas: scaling.minReplicas,
        maxReplicas: scaling.maxReplicas,
        signal,
        target: scaling.target ?? AUTOSCALING_SIGNALS[signal].defaultTarget,
    };
}

/** What is wrong with a model entry's autoscaling: with fixed replicas, a floor above its ceiling, a target out of range. */
function autoscalingProblems(model: z.output<typeof modelSchema>, at: string): string[] {
    const scaling = model.autoscaling;
    if (scaling === undefined) {
        return [];
    }
    const problems: string[] = [];
    if (model.replicas !== undefined) {
        problems.push(`${at} sets both replicas and autoscaling; allowed: one of them (autoscaling.minReplicas is where it starts)`);
    }
    if (scaling.minReplicas > scaling.maxReplicas) {
        problems.push(
            `${at}.autoscaling.minReplicas = ${scaling.minReplicas} is greater than maxReplicas = ${scaling.maxReplicas}; allowed: minReplicas <= maxReplicas`,
        );
    }
    if (model.pattern === "pattern3" && scaling.minReplicas < 2) {
        problems.push(
            `${at}.autoscaling.minReplicas = ${scaling.minReplicas} leaves pattern3 nothing to route between by prefix; allowed: 2 or more (or pattern1)`,
        );
    }
    const signal = signalOf(scaling);
    if (scaling.target !== undefined && scaling.target > AUTOSCALING_SIGNALS[signal].maximumTarget) {
        problems.push(
            `${at}.autoscaling.target = ${scaling.target} is above what ${signal} can reach; allowed: more than 0, at most ${AUTOSCALING_SIGNALS[signal].maximumTarget}`,
        );
    }
    return problems;
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

/** Namespaces a key may have besides the project's: the providers this program uses, and Pulumi's own. */
const PROVIDER_NAMESPACES = ["gcp", "kubernetes", "random", "pulumi"];

/** A raw config string decoded as Pulumi's config type says: numbers, booleans and JSON lists; anything malformed stays the string, for the schema to refuse. */
function decode(type: ConfigType, raw: string): unknown {
    switch (type) {
        case "integer":
            return /^-?\d+$/.test(raw) ? Number(raw) : raw;
        case "boolean":
            return raw === "true" ? true : raw === "false" ? false : raw;
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

    const names = Object.keys(SETTINGS) as SettingName[];
    for (const configured of context.keys ?? []) {
        const separator = configured.indexOf(":");
        const [space, name] = [configured.slice(0, separator), configured.slice(separator + 1)];
        if (space === namespace && !(names as string[]).includes(name) && !(name in SECRET_SETTINGS)) {
            problems.push(`${configured} is not a setting of ${namespace}${suggestion(name, [...names, ...Object.keys(SECRET_SETTINGS)])}`);
        } else if (space !== namespace && !PROVIDER_NAMESPACES.includes(space)) {
            problems.push(
                `${configured} is in namespace ${JSON.stringify(space)}, which is neither the project's (${namespace}) nor a provider's (${PROVIDER_NAMESPACES.join(", ")})${suggestion(space, [namespace, ...PROVIDER_NAMESPACES])}`,
            );
        }
    }
    for (const secret of Object.keys(SECRET_SETTINGS)) {
        if (read(secret) !== undefined && context.secretKeys !== undefined && !context.secretKeys.includes(key(secret))) {
            problems.push(
                `${key(secret)} is set in plain text; allowed: a secret, set with \`pulumi config set --secret ${secret} <VALUE>\` (the value is not shown here)`,
            );
        }
    }

    const values: Partial<Record<SettingName, unknown>> = {};
    for (const name of names) {
        const setting: Setting = SETTINGS[name];
        const raw = read(name);
        const decoded = raw === undefined ? setting.default : decode(setting.type, raw);
        const result = setting.schema.safeParse(decoded);
        if (result.success) {
            values[name] = result.data;
            continue;
        }
        for (const issue of result.error.issues) {
            if (issue.code === "unrecognized_keys") {
                for (const field of issue.keys) {
                    problems.push(
                        `${key(name)}${pathText(issue.path)}.${field} is not a model service setting; allowed: ${MODEL_FIELDS.join(", ")}${suggestion(field, MODEL_FIELDS)}`,
                    );
                }
                continue;
            }
            // A scalar is shown as the stack wrote it; a list as JSON reads it.
            const at =
                issue.path.length === 0 && raw !== undefined && !setting.type.startsWith("array") ? raw : valueAt(decoded, issue.path);
            problems.push(`${key(name)}${pathText(issue.path)} = ${JSON.stringify(at === undefined ? null : at)} ${issue.message}`);
        }
    }
    for (const rule of RULES) {
        if (rule.reads.every((name) => name in values)) {
            problems.push(...rule.check(values as Values, key));
        }
    }
    if ("models" in values) {
        problems.push(...gatedModelProblems(values.models as Values["models"], read("hfToken") !== undefined, key));
    }
    if (problems.length > 0) {
        throw new ConfigError(problems);
    }
    return settingsOf(values as Values, gcpProject!);
}

/**
 * A model the catalog knows to be gated on Hugging Face, fetched from there (the copy Job, or KServe), with no token: the
 * download would fail after the cluster, the pool and the platform are up.
 */
function gatedModelProblems(models: Values["models"], hasToken: boolean, key: (name: string) => string): string[] {
    if (hasToken) {
        return [];
    }
    return models.flatMap((model, index) => {
        const uri = modelUriOf(model);
        const known = knownModel(model);
        return uri.startsWith("hf://") && known?.gated
            ? [
                  `${key("models")}[${index}] (${modelNameOf(model)}) is gated on Hugging Face and ${key("hfToken")} is not set; allowed: ` +
                      `accept its license on https://huggingface.co/${uri.slice("hf://".length)}, then \`pulumi config set --secret hfToken <TOKEN>\` with that account's token, or a gs:// copy of the weights`,
              ]
            : [];
    });
}

/** The typed settings from checked values. */
function settingsOf(values: Values, project: string): Settings {
    const shape = tpuShape(values)!;
    const provider = values.gatewayProvider as GatewayProvider;
    const machine = TPU_V6E_MACHINE_TYPES[values.tpuMachineType];
    return {
        project,
        region: values.region || regionOfZone(values.zone),
        zone: values.zone,
        tpu: {
            machineType: values.tpuMachineType,
            topology: shape.topology,
            chipsPerVm: machine.chipsPerVm,
            hostsPerSlice: shape.hosts,
            minNodes: values.tpuMinNodes,
            maxNodes: values.tpuMaxNodes,
            provisioning: values.tpuProvisioning as TpuProvisioning,
            ...(values.tpuReservation !== "" ? { reservation: values.tpuReservation } : {}),
        },
        systemPool: { machineType: values.systemMachineType, minNodes: values.systemMinNodes, maxNodes: values.systemMaxNodes },
        network: {
            nodeCidr: values.nodeCidr,
            podCidr: values.podCidr,
            serviceCidr: values.serviceCidr,
            ...(proxyOnlyCidrOf(values) !== undefined ? { proxyOnlyCidr: proxyOnlyCidrOf(values) } : {}),
            masterCidr: values.masterCidr,
        },
        masterAuthorizedNetworks: values.masterAuthorizedNetworks,
        releaseChannel: values.releaseChannel,
        gateway: {
            provider,
            className: values.gatewayClass || PROVIDER_DEFAULTS[provider].gatewayClass,
            ...(provider === "istio"
                ? { loadBalancer: (values.gatewayLoadBalancer || PROVIDER_DEFAULTS.istio.gatewayLoadBalancer) as GatewayLoadBalancer }
                : {}),
            namespace: values.gatewayNamespace,
            name: values.gatewayName,
            ...(values.gatewayTlsSecret !== "" ? { tlsSecret: values.gatewayTlsSecret } : {}),
            servingNamespace: values.servingNamespace,
        },
        deletionProtection: values.deletionProtection,
        manageProjectApis: values.manageProjectApis,
        paused: values.paused,
        bodyBasedRouting: values.bodyBasedRouting,
        coldStart: { stageWeights: values.stageWeights, compilationCache: values.compilationCache, imageStreaming: values.imageStreaming },
        models: values.models.map((model) => {
            const known = knownModel(model);
            return {
                name: model.name,
                pattern: model.pattern as ServingPattern,
                modelUri: modelUriOf(model),
                modelName: modelNameOf(model),
                // The rule above refused an unknown model without both figures.
                weightsGb: model.weightsGb ?? known!.weightsGb,
                layers: model.layers ?? known!.layers,
                replicas: replicasOf(model),
                ...(model.autoscaling !== undefined ? { autoscaling: autoscalingOf(model.autoscaling) } : {}),
                image: model.image ?? IMAGES.vllmTpu,
                maxModelLen: maxModelLenOf(model),
                extraArgs: model.extraArgs ?? [],
            };
        }),
    };
}

/** The Hugging Face token (`pulumi config set --secret hfToken …`), kept a secret; undefined for public models. */
export function loadHfToken(): pulumi.Output<string> | undefined {
    return new pulumi.Config().getSecret("hfToken");
}

// The runtime's list of secret config keys; internal to the SDK, so its types are not published.
const { isConfigSecret } = require("@pulumi/pulumi/runtime/config") as { isConfigSecret: (key: string) => boolean };

/** Builds {@link Settings} from the running stack's configuration, with every configured key checked. */
export function loadSettings(): Settings {
    const config = new pulumi.Config();
    const keys = Object.keys(pulumi.runtime.allConfig());
    return parseSettings(config.name, (name) => config.get(name), new pulumi.Config("gcp").get("project"), {
        keys,
        secretKeys: keys.filter((configured) => isConfigSecret(configured)),
        // Pulumi runs a program from its project directory.
        stackFileProblems: runningStackFileProblems(process.cwd(), pulumi.getStack()),
    });
}
