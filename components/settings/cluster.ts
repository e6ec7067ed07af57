/**
 * Where the stack runs and the cluster it builds there: the zone and region, the system node pool, the VPC's address
 * plan, the control plane's access and release channel, and how the stack treats the project (deletion protection,
 * enabling APIs).
 */
import { z } from "zod";
import { GKE_LIMITS, GKE_TPU_V6E_ZONES, GKE_VERSION, PROXY_ONLY_SUBNET, RELEASE_CHANNELS, regionOfZone } from "@gke-tpu-inference/facts";
import { Ipv4Range, isRfc1918, overlaps, parseCidr } from "../lib/cidr";
import { proxyOnlyCidrOf } from "./gateway";
import { GATEWAY_PROVIDERS, GATEWAY_PROVIDER_NAMES, providersWith } from "./gatewayProviders";
import { Rule, Setting, ValuesOf, bool, cidr, oneOf, says, wholeNumber } from "./setting";

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
    /** The proxy-only subnet, where the gateway provider's load balancer needs one ({@link proxyOnlyCidrOf} decides). */
    proxyOnlyCidr?: string;
    /** The control plane's private range (/28); the webhook firewall rule admits it. */
    masterCidr: string;
}

/**
 * A Compute Engine machine type name: predefined `SERIES-TYPE-VCPUS[-suffix]` (e2-standard-4, a2-ultragpu-1g,
 * c3-standard-4-lssd), shared-core (e2-micro, f1-micro, g1-small), or custom (custom-4-16384, n2-custom-4-16384-ext,
 * e2-custom-small-4096). Source: {@link SOURCES.machineTypes}.
 */
export const MACHINE_TYPE =
    /^(?:[a-z][a-z0-9]*-[a-z]+-\d+[a-z]?(?:-[a-z0-9]+)*|e2-(?:micro|small|medium)|f1-micro|g1-small|(?:custom|(?:n1|n2|n2d|n4|e2)-custom)-\d+-\d+(?:-ext)?|e2-custom-(?:micro|small|medium)-\d+)$/;

/** TPU machine types, whose nodes carry a NoSchedule taint that the platform's pods do not tolerate. Source: {@link SOURCES.machineTypes}. */
const TPU_MACHINE_TYPE = /^(?:ct\d+[a-z]*|tpu\d+[a-z]*)-/;

/** A check that a range's prefix lies between the largest and the smallest GCP or GKE allows for `what`. */
function sized(what: string, bounds: { smallest: number; largest: number }): (range: Ipv4Range) => string | undefined {
    return (range) =>
        range.prefixLength > bounds.smallest || range.prefixLength < bounds.largest
            ? `is ${range.prefixLength > bounds.smallest ? "too small" : "too large"} for ${what}; allowed: a prefix from /${bounds.largest} to /${bounds.smallest}`
            : undefined;
}

/** Where the stack runs. */
export const LOCATION_SETTINGS = {
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
} as const satisfies Record<string, Setting>;

/** The system pool, the VPC's ranges and the control plane, in the order the settings reference lists them. */
export const CLUSTER_SETTINGS = {
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
        description: `Proxy-only subnet for the Envoy proxies of a regional Application Load Balancer (GKE's Gateway); empty: ${GATEWAY_PROVIDER_NAMES.map((name) => `${GATEWAY_PROVIDERS[name].proxyOnlySubnet?.defaultRange ?? "none"} with gatewayProvider ${name}`).join(", ")}.`,
        allowed: `empty, or (gatewayProvider ${providersWith((provider) => provider.proxyOnlySubnet !== undefined).join(", ")}) a private IPv4 range of /${PROXY_ONLY_SUBNET.maxPrefixLength} or larger (/23 recommended)`,
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
} as const satisfies Record<string, Setting>;

/** How the stack treats the project it runs in. */
export const PROJECT_SETTINGS = {
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
} as const satisfies Record<string, Setting>;

type LocationValues = ValuesOf<typeof LOCATION_SETTINGS>;
type ClusterValues = ValuesOf<typeof CLUSTER_SETTINGS>;

/** The GKE TPU v6e zones of `region`, as a message's allowed values. */
export function v6eZonesAllowedIn(region: string): string {
    const zonesInRegion = GKE_TPU_V6E_ZONES.filter((candidate) => regionOfZone(candidate) === region);
    return zonesInRegion.length > 0 ? zonesInRegion.join(", ") : `none (no GKE TPU v6e zone is in ${region})`;
}

export const zoneInRegion: Rule<LocationValues> = {
    description: "region, when set, is the zone's region.",
    reads: ["zone", "region"],
    check: ({ zone, region }, key) =>
        region === "" || regionOfZone(zone) === region
            ? []
            : [
                  `${key("zone")} = ${JSON.stringify(zone)} is not in ${key("region")} = ${JSON.stringify(region)}; allowed: ${v6eZonesAllowedIn(region)}`,
              ],
};

export const systemPoolBounds: Rule<Pick<ClusterValues, "systemMinNodes" | "systemMaxNodes">> = {
    description: "systemMinNodes is at most systemMaxNodes.",
    reads: ["systemMinNodes", "systemMaxNodes"],
    check: ({ systemMinNodes, systemMaxNodes }, key) =>
        systemMinNodes > systemMaxNodes
            ? [
                  `${key("systemMinNodes")} = ${systemMinNodes} is greater than ${key("systemMaxNodes")} = ${systemMaxNodes}; allowed: systemMinNodes <= systemMaxNodes`,
              ]
            : [],
};

const NETWORK_KEYS = ["nodeCidr", "podCidr", "serviceCidr", "proxyOnlyCidr", "masterCidr"] as const;

export const disjointRanges: Rule<Pick<ClusterValues, (typeof NETWORK_KEYS)[number]> & { gatewayProvider: string }> = {
    description: "nodeCidr, podCidr, serviceCidr, proxyOnlyCidr (where the provider has one) and masterCidr are disjoint.",
    reads: [...NETWORK_KEYS, "gatewayProvider"],
    check: (values, key) => {
        const ranges = NETWORK_KEYS.flatMap((name) => {
            const range = name === "proxyOnlyCidr" ? proxyOnlyCidrOf(values) : values[name];
            return range === undefined ? [] : [[name, parseCidr(range) as Ipv4Range] as const];
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
};

/** The region from checked values: the stack's, else the zone's. */
export function regionOf(values: LocationValues): string {
    return values.region || regionOfZone(values.zone);
}

export function systemPoolOf(values: ClusterValues): SystemPoolSettings {
    return { machineType: values.systemMachineType, minNodes: values.systemMinNodes, maxNodes: values.systemMaxNodes };
}

/** The address plan from checked values; the proxy-only range only where the gateway provider has one. */
export function networkOf(values: ClusterValues & { gatewayProvider: string }): NetworkSettings {
    const proxyOnlyCidr = proxyOnlyCidrOf(values);
    return {
        nodeCidr: values.nodeCidr,
        podCidr: values.podCidr,
        serviceCidr: values.serviceCidr,
        ...(proxyOnlyCidr !== undefined ? { proxyOnlyCidr } : {}),
        masterCidr: values.masterCidr,
    };
}
