import { TPU_V6E_PRICE } from "@gke-tpu-inference/facts";
import { TpuSettings } from "../settings/capacity";
import { ModelServiceSettings } from "../settings/models";

/** What the bill depends on: the pool's shape and floor, the services' replicas, and whether the stack is paused. */
export interface TpuUsage {
    tpu: Pick<TpuSettings, "chipsPerVm" | "hostsPerSlice" | "minNodes">;
    models: Array<Pick<ModelServiceSettings, "replicas" | "autoscaling">>;
    paused: boolean;
}

/** TPU VMs, their chips and their price per hour at one size of the stack. */
export interface TpuBill {
    nodes: number;
    chips: number;
    usdPerHour: number;
}

/** The stack's TPU bill per hour, and how it was worked out. */
export interface TpuCostEstimate extends TpuBill {
    /** With autoscaled services: the bill with every one of them at its maximum (the fields above have them at their minimum). */
    atMaximum?: TpuBill;
    /** Where the rate comes from and what it leaves out. */
    rate: { usdPerChipHour: number; basis: string; reviewed: string };
}

/**
 * Estimates the TPU pool's hourly cost: one VM per replica (times the slice's hosts), at least the pool's floor, none when
 * paused; autoscaled services at their minimum, and, as `atMaximum`, at their maximum.
 */
export function estimateTpuHourlyCost(settings: TpuUsage): TpuCostEstimate {
    const bill = (replicas: (model: TpuUsage["models"][number]) => number): TpuBill => {
        const busy = settings.models.reduce((sum, model) => sum + replicas(model) * settings.tpu.hostsPerSlice, 0);
        const nodes = settings.paused ? 0 : Math.max(busy, settings.tpu.minNodes);
        const chips = nodes * settings.tpu.chipsPerVm;
        return { nodes, chips, usdPerHour: Math.round(chips * TPU_V6E_PRICE.usdPerChipHour * 100) / 100 };
    };
    const autoscales = settings.models.some((model) => model.autoscaling !== undefined);
    return {
        ...bill((model) => model.replicas),
        ...(autoscales ? { atMaximum: bill((model) => model.autoscaling?.maxReplicas ?? model.replicas) } : {}),
        rate: { usdPerChipHour: TPU_V6E_PRICE.usdPerChipHour, basis: TPU_V6E_PRICE.basis, reviewed: TPU_V6E_PRICE.reviewed },
    };
}
