import { TPU_CAPACITY_OPTIONS, TpuCapacityOption } from "@gke-tpu-inference/facts";
import { TpuSettings } from "../settings/capacity";
import { ModelServiceSettings } from "../settings/models";

/** What the bill depends on: the pool's shape and floor, the plan's options, the services' replicas, and whether the stack is paused. */
export interface TpuUsage {
    tpu: Pick<TpuSettings, "chipsPerVm" | "hostsPerSlice" | "minNodes" | "capacity">;
    models: Array<Pick<ModelServiceSettings, "replicas" | "autoscaling">>;
    paused: boolean;
}

/** The cheapest and dearest of the plan's options whose rate is known, per hour at one size of the stack. */
export interface CostRange {
    cheapest: number;
    cheapestOption: TpuCapacityOption;
    dearest: number;
    dearestOption: TpuCapacityOption;
}

/** TPU VMs, their chips and what they cost per hour, across the plan's options, at one size of the stack. */
export interface TpuBill {
    nodes: number;
    chips: number;
    /** Absent when no option of the plan has a catalogued rate. */
    usdPerHour?: CostRange;
}

/** One option's rate, with where it comes from. */
export interface OptionRate {
    option: TpuCapacityOption;
    /** Absent when no source gives a v6e rate for the option. */
    usdPerChipHour?: number;
    basis: string;
    source: string;
    reviewed: string;
}

/** The stack's TPU bill per hour, and how it was worked out. */
export interface TpuCostEstimate extends TpuBill {
    /** With autoscaled services: the bill with every one of them at its maximum (the fields above have them at their minimum). */
    atMaximum?: TpuBill;
    /** Each option's rate, in the plan's order. */
    rates: OptionRate[];
    /** The options the range leaves out for want of a rate, when there are any. */
    unknownRates?: string;
}

/** The plan's options once each (a plan may hold several reservations, which share a rate). */
function optionsOf(usage: TpuUsage): TpuCapacityOption[] {
    return [...new Set(usage.tpu.capacity.map((rung) => rung.type))];
}

/** The rate of one option, from the catalog. */
export function rateOf(option: TpuCapacityOption): OptionRate {
    const { rate } = TPU_CAPACITY_OPTIONS[option];
    return {
        option,
        ...(rate.usdPerChipHour !== undefined ? { usdPerChipHour: rate.usdPerChipHour } : {}),
        basis: rate.basis,
        source: rate.source,
        reviewed: rate.reviewed,
    };
}

/** USD per hour of `chips` at `usdPerChipHour`, to the cent. */
export function usdPerHour(chips: number, usdPerChipHour: number): number {
    return Math.round(chips * usdPerChipHour * 100) / 100;
}

/** TPU VMs the services keep busy (one per replica, times the slice's hosts), at least the pool's floor, none when paused. */
export function busyNodes(usage: TpuUsage, replicas: (model: TpuUsage["models"][number]) => number): number {
    const busy = usage.models.reduce((sum, model) => sum + replicas(model) * usage.tpu.hostsPerSlice, 0);
    return usage.paused ? 0 : Math.max(busy, usage.tpu.minNodes);
}

/**
 * Estimates the TPU pools' hourly cost: one VM per replica (times the slice's hosts), at least the pool's floor, none
 * when paused; autoscaled services at their minimum, and, as `atMaximum`, at their maximum. The plan buys the VMs from
 * whichever option has capacity, so the bill is a range from its cheapest to its dearest option with a known rate.
 */
export function estimateTpuHourlyCost(usage: TpuUsage): TpuCostEstimate {
    const rates = optionsOf(usage).map(rateOf);
    const known = rates.filter((rate): rate is OptionRate & { usdPerChipHour: number } => rate.usdPerChipHour !== undefined);
    const byPrice = [...known].sort((a, b) => a.usdPerChipHour - b.usdPerChipHour);
    const bill = (replicas: (model: TpuUsage["models"][number]) => number): TpuBill => {
        const nodes = busyNodes(usage, replicas);
        const chips = nodes * usage.tpu.chipsPerVm;
        if (byPrice.length === 0) {
            return { nodes, chips };
        }
        const [cheapest, dearest] = [byPrice[0], byPrice[byPrice.length - 1]];
        return {
            nodes,
            chips,
            usdPerHour: {
                cheapest: usdPerHour(chips, cheapest.usdPerChipHour),
                cheapestOption: cheapest.option,
                dearest: usdPerHour(chips, dearest.usdPerChipHour),
                dearestOption: dearest.option,
            },
        };
    };
    const autoscales = usage.models.some((model) => model.autoscaling !== undefined);
    const unknown = rates.filter((rate) => rate.usdPerChipHour === undefined).map((rate) => rate.option);
    return {
        ...bill((model) => model.replicas),
        ...(autoscales ? { atMaximum: bill((model) => model.autoscaling?.maxReplicas ?? model.replicas) } : {}),
        rates,
        ...(unknown.length > 0
            ? {
                  unknownRates: `${unknown.join(", ")}: no catalogued TPU v6e rate; the range leaves ${unknown.length > 1 ? "them" : "it"} out`,
              }
            : {}),
    };
}
