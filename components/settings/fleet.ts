/**
 * A fleet: one stack whose clusters, one per region, serve the same models behind GKE's multi-cluster Inference Gateway,
 * which one of them (the config cluster) holds. The `fleet` setting names the members; each takes the stack's settings
 * but for its region, its TPU zone and, when it says so, its own capacity plan; its network ranges are carved from the
 * stack's. See docs/explanation/fleet.md.
 */
import { z } from "zod";
import { GKE_LIMITS, GKE_TPU_V6E_ZONES, MULTI_CLUSTER_INFERENCE, PROXY_ONLY_SUBNET, regionOfZone } from "@gke-tpu-inference/facts";
import { Ipv4Range, isRfc1918, nthRange, overlaps, parseCidr } from "../lib/cidr";
import { TPU_POOL_SETTINGS, TpuSettings } from "./capacity";
import { NetworkSettings } from "./cluster";
import { GATEWAY_SETTINGS, proxyOnlyCidrOf } from "./gateway";
import { Rule, Setting, ValuesOf, says } from "./setting";

/** One member of the fleet: a regional cluster with its TPU capacity, as the settings resolve it. */
export interface FleetMemberSettings {
    region: string;
    /** The zone of the member's TPU pools (the stack's `zone`, for this member). */
    zone: string;
    /** The stack's TPU pools with the member's capacity plan: its own tpuCapacity, else the stack's. */
    tpu: TpuSettings;
    /** The member's share of the stack's address plan ({@link memberNetworks}). */
    network: NetworkSettings;
}

/** The fleet as the program builds it. */
export interface FleetSettings {
    /** The member whose cluster holds the multi-cluster Gateway. */
    configRegion: string;
    /** In the order the stack lists them, which is the order their address ranges are carved in. */
    members: FleetMemberSettings[];
}

/** The regions where GKE offers TPU v6e node pools, each with its zones in the catalog's order. */
const V6E_REGIONS: ReadonlyMap<string, readonly string[]> = GKE_TPU_V6E_ZONES.reduce((regions, zone) => {
    const region = regionOfZone(zone);
    return regions.set(region, [...(regions.get(region) ?? []), zone]);
}, new Map<string, string[]>());

const MEMBER_FIELDS = ["region", "zone", "tpuCapacity"] as const;
const FLEET_FIELDS = ["configRegion", "members"] as const;
const REGIONS_ALLOWED = `a region with GKE TPU v6e zones: ${[...V6E_REGIONS.keys()].join(", ")}`;

/** A member's entry as the stack writes it, once {@link FLEET_SCHEMA} has checked it. */
export interface FleetMemberEntry {
    region: string;
    zone?: string;
    tpuCapacity?: Record<string, unknown>[];
}

/** The `fleet` setting once checked: empty (a single cluster) or a fleet. */
export type FleetEntry = Record<string, never> | { configRegion: string; members: FleetMemberEntry[] };

/** Whether the checked `fleet` setting asks for a fleet. */
export function isFleet(fleet: FleetEntry): fleet is Exclude<FleetEntry, Record<string, never>> {
    return "members" in fleet;
}

/** Problems with an object's fields other than `allowed`, at `path`. */
function unknownFields(
    entry: Record<string, unknown>,
    allowed: readonly string[],
    what: string,
    path: PropertyKey[],
    ctx: z.RefinementCtx,
) {
    for (const field of Object.keys(entry).filter((field) => !allowed.includes(field))) {
        ctx.addIssue({ code: "custom", path: [...path, field], message: says(`is not a field of ${what}`, allowed.join(", ")) });
    }
}

/** One member on its own: its region, its zone in that region, its capacity plan (checked as tpuCapacity is). */
function checkMember(member: unknown, index: number, ctx: z.RefinementCtx) {
    const path = ["members", index];
    if (member === null || typeof member !== "object" || Array.isArray(member)) {
        ctx.addIssue({
            code: "custom",
            path,
            message: says("is not an object", '{"region": <region>, "zone"?: <zone>, "tpuCapacity"?: [..]}'),
        });
        return;
    }
    const entry = member as Record<string, unknown>;
    unknownFields(entry, MEMBER_FIELDS, "a fleet member", path, ctx);
    const zones = typeof entry.region === "string" ? V6E_REGIONS.get(entry.region) : undefined;
    if (zones === undefined) {
        ctx.addIssue({
            code: "custom",
            path: [...path, "region"],
            message: says(entry.region === undefined ? "is not set" : "is not a region with a GKE TPU v6e zone", REGIONS_ALLOWED),
        });
    } else if (entry.zone !== undefined && !zones.includes(entry.zone as string)) {
        ctx.addIssue({
            code: "custom",
            path: [...path, "zone"],
            message: says(`is not a GKE TPU v6e zone of the member's region ${String(entry.region)}`, zones.join(", ")),
        });
    }
    if (entry.tpuCapacity !== undefined) {
        for (const issue of TPU_POOL_SETTINGS.tpuCapacity.schema.safeParse(entry.tpuCapacity).error?.issues ?? []) {
            ctx.addIssue({ code: "custom", path: [...path, "tpuCapacity", ...issue.path], message: issue.message });
        }
    }
}

/** Checks the fleet on its own: two members or more, each region once and offering v6e, the config region a member's. */
const FLEET_SCHEMA = z
    .record(z.string(), z.unknown(), {
        error: says("is not an object", '{} for one cluster, or {"configRegion": <region>, "members": [{"region": <region>}, ..]}'),
    })
    .superRefine((fleet, ctx) => {
        if (Object.keys(fleet).length === 0) {
            return;
        }
        unknownFields(fleet, FLEET_FIELDS, "fleet", [], ctx);
        const members = fleet.members;
        if (!Array.isArray(members) || members.length < 2) {
            ctx.addIssue({
                code: "custom",
                path: ["members"],
                message: says(
                    Array.isArray(members) ? `has ${members.length} member${members.length === 1 ? "" : "s"}` : "is not a list",
                    "two members or more, each in its own region (one cluster needs no fleet: leave fleet {})",
                ),
            });
            return;
        }
        members.forEach((member, index) => checkMember(member, index, ctx));
        const regions = members.map((member) => (member as Partial<FleetMemberEntry> | null)?.region);
        regions.forEach((region, index) => {
            const first = regions.indexOf(region);
            if (region !== undefined && first < index) {
                ctx.addIssue({
                    code: "custom",
                    path: ["members", index, "region"],
                    message: says(`repeats fleet.members[${first}].region`, "each region once (a region holds one cluster of the fleet)"),
                });
            }
        });
        if (typeof fleet.configRegion !== "string" || !regions.includes(fleet.configRegion)) {
            ctx.addIssue({
                code: "custom",
                path: ["configRegion"],
                message: says(
                    "is not a member's region",
                    `the region of the member whose cluster holds the multi-cluster Gateway: ${regions.join(", ")}`,
                ),
            });
        }
    })
    .transform((fleet) => fleet as FleetEntry);

export const FLEET_SETTINGS = {
    fleet: {
        type: "object",
        default: {},
        description:
            "Clusters in two or more regions behind one multi-cluster Inference Gateway (GKE, Preview), built by this one stack: each member a regional cluster with the stack's models and its own TPU zone and capacity; configRegion the member whose cluster holds the Gateway. zone and region are then ignored; the network ranges are split among the members. Empty: one cluster. See docs/explanation/fleet.md.",
        allowed: `{}, or {"configRegion": <a member's region>, "members": [{"region": <region>, "zone"?: <a v6e zone of the region; default its first>, "tpuCapacity"?: <as tpuCapacity; default the stack's>}, ..]}, two members or more, each region once (${REGIONS_ALLOWED})`,
        schema: FLEET_SCHEMA,
    },
} as const satisfies Record<string, Setting>;

type FleetValues = ValuesOf<typeof FLEET_SETTINGS>;

/** `fleet.members[<i>].<field>` under the project's namespace. */
export function memberKey(key: (name: string) => string, index: number, field: string): string {
    return `${key("fleet")}.members[${index}].${field}`;
}

export const fleetGatewayProvider: Rule<FleetValues & { gatewayProvider: string }> = {
    description: `fleet needs gatewayProvider gke: only GKE's multi-cluster Gateway (${MULTI_CLUSTER_INFERENCE.gatewayClass}) routes to pools across clusters.`,
    reads: ["fleet", "gatewayProvider"],
    check: ({ fleet, gatewayProvider }, key) =>
        isFleet(fleet) && gatewayProvider !== "gke"
            ? [
                  `${key("gatewayProvider")} = ${JSON.stringify(gatewayProvider)} cannot front a fleet, which GKE's multi-cluster Inference Gateway (${MULTI_CLUSTER_INFERENCE.gatewayClass}) serves; allowed: gke (or fleet {})`,
              ]
            : [],
};

export const fleetWithoutModelArmor: Rule<FleetValues & { modelArmor: boolean }> = {
    description: `fleet refuses modelArmor: ${MULTI_CLUSTER_INFERENCE.unsupported.modelArmor}.`,
    reads: ["fleet", "modelArmor"],
    check: ({ fleet, modelArmor }, key) =>
        isFleet(fleet) && modelArmor
            ? [
                  `${key("modelArmor")} = true with ${key("fleet")}: ${MULTI_CLUSTER_INFERENCE.unsupported.modelArmor}; allowed: false (or fleet {})`,
              ]
            : [],
};

export const fleetCertificate: Rule<FleetValues & { gatewayHostname: string; gatewayTlsSecret: string }> = {
    description:
        "fleet needs gatewayHostname or gatewayTlsSecret: the multi-cluster Gateway's addresses are ephemeral, unknown before GKE programs it, so its certificate names a hostname.",
    reads: ["fleet", "gatewayHostname", "gatewayTlsSecret"],
    check: ({ fleet, gatewayHostname, gatewayTlsSecret }, key) =>
        isFleet(fleet) && gatewayHostname === "" && gatewayTlsSecret === ""
            ? [
                  `${key("gatewayHostname")} = "" with ${key("fleet")}: the multi-cluster Gateway's addresses are ephemeral, known only once GKE has programmed it, so its certificate must name a hostname; allowed: a DNS name you point at the Gateway's addresses (or gatewayTlsSecret, a certificate of your own)`,
              ]
            : [],
};

export const fleetAccess: Rule<FleetValues & { allowedSourceRanges: string[]; gatewayIdentity: string; gatewayRateLimit: number }> = {
    description:
        "fleet refuses allowedSourceRanges, a gatewayIdentity other than api-key and a gatewayRateLimit of its own: the fleet's Gateway is an internal load balancer, reachable from the VPC only, to which the stack attaches no Cloud Armor policy (which holds a single cluster's allowlist and rate limit) and no IAP (the key and TLS apply).",
    reads: ["fleet", "allowedSourceRanges", "gatewayIdentity", "gatewayRateLimit"],
    check: ({ fleet, allowedSourceRanges, gatewayIdentity, gatewayRateLimit }, key) => {
        if (!isFleet(fleet)) {
            return [];
        }
        const why = `the fleet's multi-cluster Gateway (${MULTI_CLUSTER_INFERENCE.gatewayClass}) is an internal load balancer, reachable from the VPC only, to which the stack attaches no Cloud Armor policy and no IAP`;
        return [
            ...(allowedSourceRanges.length > 0
                ? [
                      `${key("allowedSourceRanges")} = ${JSON.stringify(allowedSourceRanges)} with ${key("fleet")}: ${why}; allowed: [] (or fleet {})`,
                  ]
                : []),
            ...(gatewayIdentity !== "api-key"
                ? [
                      `${key("gatewayIdentity")} = ${JSON.stringify(gatewayIdentity)} with ${key("fleet")}: ${why}; allowed: api-key (or fleet {})`,
                  ]
                : []),
            // The default stands for "not asked for": a single cluster applies it, a fleet has nothing that would.
            ...(gatewayRateLimit !== GATEWAY_SETTINGS.gatewayRateLimit.default
                ? [
                      `${key("gatewayRateLimit")} = ${gatewayRateLimit} with ${key("fleet")}: ${why}, so no rate limit applies; allowed: unset (or fleet {})`,
                  ]
                : []),
        ];
    },
};

/** The ranges each member takes a share of, by the setting that gives them, with the smallest share GCP or GKE accepts. */
const SPLIT_RANGES = {
    nodeCidr: { what: "nodes", smallest: GKE_LIMITS.subnetRange.smallest },
    podCidr: { what: "Pods", smallest: GKE_LIMITS.podRange.smallest },
    serviceCidr: { what: "Services", smallest: GKE_LIMITS.serviceRange.smallest },
    proxyOnlyCidr: { what: "a proxy-only subnet", smallest: PROXY_ONLY_SUBNET.maxPrefixLength },
} as const;
type SplitRange = keyof typeof SPLIT_RANGES;

/** How many equal parts a range is split in for `members`: the power of two that holds them. */
function bitsFor(members: number): number {
    return Math.ceil(Math.log2(members));
}

/**
 * Each member's address plan, carved from the stack's: node, Pod, Service and proxy-only ranges are split in equal
 * parts (a power of two), member i taking part i, so that the members' ranges are as disjoint as the stack's are; each
 * control plane takes its own /28, member i the i-th counted from masterCidr. {@link fleetNetwork} checks that every part
 * is large enough and that the control planes' ranges stay private and apart from the rest.
 */
export function memberNetworks(network: Required<NetworkSettings>, members: number): NetworkSettings[] {
    const bits = bitsFor(members);
    const part = (cidr: string, index: number) => {
        const range = parseCidr(cidr) as Ipv4Range;
        return nthRange(range, range.prefixLength + bits, index).cidr;
    };
    return Array.from({ length: members }, (_, index) => ({
        nodeCidr: part(network.nodeCidr, index),
        podCidr: part(network.podCidr, index),
        serviceCidr: part(network.serviceCidr, index),
        proxyOnlyCidr: part(network.proxyOnlyCidr, index),
        masterCidr: nthRange(parseCidr(network.masterCidr) as Ipv4Range, GKE_LIMITS.controlPlaneRangePrefix, index).cidr,
    }));
}

export const fleetNetwork: Rule<FleetValues & Record<SplitRange | "masterCidr" | "gatewayProvider", string>> = {
    description:
        "With a fleet, nodeCidr, podCidr, serviceCidr and proxyOnlyCidr are split in equal parts (a power of two) among the members, each part still large enough; each member's control plane takes the next /28 from masterCidr, all private and apart from the other ranges.",
    reads: ["fleet", "nodeCidr", "podCidr", "serviceCidr", "proxyOnlyCidr", "masterCidr", "gatewayProvider"],
    check: (checked, key) => {
        if (!isFleet(checked.fleet)) {
            return [];
        }
        // The proxy-only range as the stack uses it: the provider's default when the stack sets none.
        const values = { ...checked, proxyOnlyCidr: proxyOnlyCidrOf(checked) ?? "" };
        const count = values.fleet.members.length;
        const bits = bitsFor(count);
        const problems = (Object.keys(SPLIT_RANGES) as SplitRange[]).flatMap((name) => {
            const { what, smallest } = SPLIT_RANGES[name];
            const range = values[name] === "" ? undefined : (parseCidr(values[name]) as Ipv4Range);
            return range !== undefined && range.prefixLength + bits > smallest
                ? [
                      `${key(name)} = ${JSON.stringify(range.cidr)} split among ${count} fleet members gives each a /${range.prefixLength + bits}, too small for ${what}; allowed: a prefix of /${smallest - bits} or larger`,
                  ]
                : [];
        });
        const others = (Object.keys(SPLIT_RANGES) as SplitRange[]).flatMap((name) =>
            values[name] === "" ? [] : [[name, parseCidr(values[name]) as Ipv4Range] as const],
        );
        const master = parseCidr(values.masterCidr) as Ipv4Range;
        for (let index = 1; index < count; index++) {
            const range = nthRange(master, GKE_LIMITS.controlPlaneRangePrefix, index);
            const overlapped = others.find(([, other]) => overlaps(other, range));
            const clash = !isRfc1918(range)
                ? "outside the RFC 1918 ranges"
                : overlapped !== undefined
                  ? `which overlaps ${key(overlapped[0])} = ${JSON.stringify(overlapped[1].cidr)}`
                  : undefined;
            if (clash !== undefined) {
                problems.push(
                    `${key("masterCidr")} = ${JSON.stringify(master.cidr)} gives fleet member ${index} the control plane range ${range.cidr}, ${clash}; allowed: a /${GKE_LIMITS.controlPlaneRangePrefix} followed by ${count - 1} free private /${GKE_LIMITS.controlPlaneRangePrefix}s`,
                );
            }
        }
        return problems;
    },
};

/** The fleet's members from checked values, with `tpuOf` resolving a member's TPU pools from its location and plan. */
export function fleetOf(
    fleet: FleetEntry,
    network: NetworkSettings,
    tpuOf: (member: { region: string; zone: string; tpuCapacity?: Record<string, unknown>[] }) => TpuSettings,
): FleetSettings | undefined {
    if (!isFleet(fleet)) {
        return undefined;
    }
    const networks = memberNetworks(network as Required<NetworkSettings>, fleet.members.length);
    return {
        configRegion: fleet.configRegion,
        members: fleet.members.map((member, index) => {
            const zone = memberZone(member);
            return { region: member.region, zone, tpu: tpuOf({ ...member, zone }), network: networks[index] };
        }),
    };
}

/** A member's zone as the settings resolve it: its own, else its region's first GKE TPU v6e zone. */
export function memberZone(member: FleetMemberEntry): string {
    return member.zone ?? V6E_REGIONS.get(member.region)![0];
}
