import { TPU_V6E_PRICE } from "@gke-tpu-inference/facts";
import { Settings } from "./settings";

/** The stack's TPU bill per hour, and how it was worked out. */
export interface TpuCostEstimate {
    /** TPU VMs the pool holds: one per model replica (times the slice's hosts), at least its floor; none when paused. */
    nodes: number;
    chips: number;
    usdPerHour: number;
    /** Where the rate comes from and what it leaves out. */
    rate: { usdPerChipHour: number; basis: string; reviewed: string };
}

/** Estimates the TPU pool's hourly cost at the node count the settings imply. */
export function estimateTpuHourlyCost(settings: Settings): TpuCostEstimate {
    const busy = settings.models.reduce((sum, model) => sum + model.replicas * settings.tpu.hostsPerSlice, 0);
    const nodes = settings.paused ? 0 : Math.max(busy, settings.tpu.minNodes);
    const chips = nodes * settings.tpu.chipsPerVm;
    return {
        nodes,
        chips,
        usdPerHour: Math.round(chips * TPU_V6E_PRICE.usdPerChipHour * 100) / 100,
        rate: { usdPerChipHour: TPU_V6E_PRICE.usdPerChipHour, basis: TPU_V6E_PRICE.basis, reviewed: TPU_V6E_PRICE.reviewed },
    };
}
