import { StackValidationPolicy } from "@pulumi/policy";
import { tpuV6ePools } from "./support/tpuPools";
import { GKE_TPU_V6E_ZONES, PolicyText, policyText } from "./facts";

/** What the policy reports of a TPU pool at `where` (`TPU node pool tpu`, `TPU node pool gke (nodePools[0])`). */
export const TPU_ZONE_MESSAGES = {
    noZone: (where: string, supported: readonly string[]) =>
        `${where} names no zone; a regional pool spreads over zones without GKE TPU v6e support. Set nodeLocations to one of ${supported.join(", ")}.`,
    unsupported: (where: string, zone: string, supported: readonly string[]) =>
        `${where} is placed in ${zone}, where GKE offers no TPU v6e node pools; allowed: ${supported.join(", ")}.`,
};

export const requireSupportedTpuZone: StackValidationPolicy & PolicyText = {
    ...policyText(
        "tpu-zones",
        "require-supported-tpu-zone",
        "A TPU v6e node pool, standalone or inline in a cluster, must be placed only in zones where GKE offers TPU v6e node pools.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    configSchema: {
        properties: {
            supportedZones: {
                type: "array",
                items: { type: "string" },
                default: [...GKE_TPU_V6E_ZONES],
                description: "Zones where GKE offers TPU v6e node pools; update it as GKE adds zones.",
            },
        },
    },
    validateStack: (args, reportViolation) => {
        const pools = tpuV6ePools(args.resources);
        if (pools.length === 0) {
            args.notApplicable("the stack has no TPU v6e node pool");
        }
        const supported = args.getConfig<{ supportedZones?: string[] }>().supportedZones ?? [...GKE_TPU_V6E_ZONES];
        for (const pool of pools) {
            const where = `TPU node pool ${pool.resource.name}${pool.path.startsWith("nodePools") ? ` (${pool.path})` : ""}`;
            if (pool.zones.length === 0) {
                reportViolation(TPU_ZONE_MESSAGES.noZone(where, supported), pool.resource.urn);
            }
            for (const zone of pool.zones.filter((candidate) => !supported.includes(candidate))) {
                reportViolation(TPU_ZONE_MESSAGES.unsupported(where, zone, supported), pool.resource.urn);
            }
        }
    },
};
