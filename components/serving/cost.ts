import { TPU_CAPACITY_OPTIONS, TpuCapacityOption } from "@gke-tpu-inference/facts";
import { TpuSettings } from "../settings/capacity";
import { ModelServiceSettings } from "../settings/models";

/** What the bill depends on: the pools' shape and bounds, the plan's options and their zones, the services' replicas, and whether the stack is paused. */
export interface TpuUsage {
    tpu: Pick<TpuSettings, "chipsPerVm" | "hostsPerSlice" | "minNodes" | "maxNodes" | "capacity">;
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

/** The most the plan's pools can bill at once: every pool at its maximum, each at its option's rate. */
export interface CeilingBill {
    /** Every pool's maximum: each option in each of its zones. */
    nodes: number;
    chips: number;
    /** The pools whose option has a catalogued rate, summed (unknownRates names the others); absent when none has one. */
    usdPerHour?: number;
}

/** The stack's TPU bill per hour, and how it was worked out. */
export interface TpuCostEstimate extends TpuBill {
    /** With autoscaled services: the bill with every one of them at its maximum (the fields above have them at their minimum). */
    atMaximum?: TpuBill;
    /** Every pool of the plan full: what the autoscaler may reach when replicas and rollouts spill over options and zones; none when paused. */
    atCeiling: CeilingBill;
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
 * Every pool of the plan at its maximum (an option in several zones is a pool in each), priced at each option's rate:
 * the catalog has one rate per option, the same in every zone.
 */
function ceilingBill(usage: TpuUsage): CeilingBill {
    const pools = usage.paused ? [] : usage.tpu.capacity.flatMap((rung) => rung.zones.map(() => rung.type));
    const nodes = pools.length * usage.tpu.maxNodes;
    const chipsPerPool = usage.tpu.maxNodes * usage.tpu.chipsPerVm;
    const priced = pools.flatMap((option) => {
        const rate = TPU_CAPACITY_OPTIONS[option].rate.usdPerChipHour;
        return rate === undefined ? [] : [usdPerHour(chipsPerPool, rate)];
    });
    return {
        nodes,
        chips: nodes * usage.tpu.chipsPerVm,
        ...(priced.length > 0 || pools.length === 0
            ? { usdPerHour: Math.round(priced.reduce((sum, usd) => sum + usd, 0) * 100) / 100 }
            : {}),
    };
}

/**
 * Estimates the TPU pools' hourly cost: one VM per replica (times the slice's hosts), at least the pool's floor, none
 * when paused; autoscaled services at their minimum, and, as `atMaximum`, at their maximum. The plan buys the VMs from
 * whichever option has capacity, in whichever of its zones, so the bill is a range from its cheapest to its dearest
 * option with a known rate (a rate is per option, the same in every zone); `atCeiling` is every pool full.
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
        atCeiling: ceilingBill(usage),
        rates,
        ...(unknown.length > 0
            ? {
                  unknownRates: `${unknown.join(", ")}: no catalogued TPU v6e rate; the range leaves ${unknown.length > 1 ? "them" : "it"} out`,
              }
            : {}),
    };
}
