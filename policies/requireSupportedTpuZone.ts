import { ResourceValidationPolicy } from "@pulumi/policy";
import { GKE_TPU_V6E_ZONES } from "../components/catalog";
import { isTpuV6eNodePool } from "./support";

/**
 * Seed 003, issue #2: node pools in us-central1-a and us-south1-a failed with "Unsupported
 * TPU configuration" although TPU VMs were offered there; GKE TPU zones are not TPU VM zones.
 */
export const requireSupportedTpuZone: ResourceValidationPolicy = {
    name: "require-supported-tpu-zone",
    description: "A TPU v6e node pool must be placed only in zones where GKE offers TPU v6e node pools.",
    enforcementLevel: "mandatory",
    severity: "high",
    remediationSteps: "Set the node pool's nodeLocations (or a zonal cluster's location) to a GKE TPU v6e zone, such as europe-west4-a.",
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
    validateResource: (args, reportViolation) => {
        if (!isTpuV6eNodePool(args.type, args.props)) {
            return;
        }
        const supported = args.getConfig<{ supportedZones?: string[] }>().supportedZones ?? [...GKE_TPU_V6E_ZONES];
        const location: string | undefined = args.props.location;
        const zones: string[] = args.props.nodeLocations ?? (location && /-[a-z]$/.test(location) ? [location] : []);
        if (zones.length === 0) {
            reportViolation(`TPU node pool ${args.name} names no zone; a regional pool spreads over zones without GKE TPU v6e support. Set nodeLocations to one of ${supported.join(", ")}.`);
        }
        for (const zone of zones.filter((candidate) => !supported.includes(candidate))) {
            reportViolation(`TPU node pool ${args.name} is placed in ${zone}, where GKE offers no TPU v6e node pools; allowed: ${supported.join(", ")}.`);
        }
    },
};
