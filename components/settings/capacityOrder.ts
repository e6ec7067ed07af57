/**
 * The order of a TPU capacity plan's pools: an option per way of buying TPU VMs, each in one or more zones, a pool per
 * option and zone, tried by GKE's ComputeClass in the order this gives.
 */

/**
 * The order the ComputeClass tries the plan's pools in: every zone of the first option, then every zone of the second…
 * (option-first), or every option in the first zone, then every option in the next… (zone-first).
 */
export type TpuCapacityOrder = "option-first" | "zone-first";
export const TPU_CAPACITY_ORDERS: readonly TpuCapacityOrder[] = ["option-first", "zone-first"];

/** An option of the plan, as far as the order reads it: the zones it buys in. */
interface Zoned {
    zones: readonly string[];
}

/**
 * The plan's zones in order: the first option's, as it lists them, then each zone a later option adds, in the order the
 * options (and each its zones) list them.
 */
export function planZones(capacity: readonly Zoned[]): string[] {
    return [...new Set(capacity.flatMap((rung) => rung.zones))];
}

/** One pool of the plan: an option (by its place in tpuCapacity) in one of its zones. */
export interface PlannedZonePool<R extends Zoned> {
    capacity: R;
    /** The option's place in tpuCapacity, which its pool's name keeps whatever the order. */
    index: number;
    zone: string;
}

/**
 * Every pool of the plan in the order GKE tries them: option-first takes each option in its order, in each of its zones
 * in {@link planZones}' order; zone-first takes each zone in that order, with each option listing it in the plan's order.
 */
export function plannedPools<R extends Zoned>(tpu: { capacity: readonly R[]; order: TpuCapacityOrder }): Array<PlannedZonePool<R>> {
    const pools = tpu.capacity.map((capacity, index) => ({ capacity, index }));
    const zones = planZones(tpu.capacity);
    const inZone = (zone: string) => pools.filter(({ capacity }) => capacity.zones.includes(zone)).map((pool) => ({ ...pool, zone }));
    return tpu.order === "zone-first"
        ? zones.flatMap(inZone)
        : pools.flatMap((pool) => zones.filter((zone) => pool.capacity.zones.includes(zone)).map((zone) => ({ ...pool, zone })));
}
