import * as pulumi from "@pulumi/pulumi";
import { TPU_CAPACITY_OPTIONS } from "@gke-tpu-inference/facts";
import { TpuCapacityRung } from "../settings/capacity";
import { TpuUsage, busyNodes, rateOf, usdPerHour } from "./cost";

/** One option of the plan as the stack shows it: where and how it buys TPU VMs, and what that costs. */
export interface CapacityPlanEntry {
    option: TpuCapacityRung["type"];
    zone: string;
    /** GKE's name of the option's node pool. */
    nodePool: pulumi.Input<string>;
    /** The pool's autoscaler bounds. */
    minNodes: number;
    maxNodes: number;
    /** The reservation a reservation option consumes. */
    reservation?: string;
    /** How long a flex-start node runs before GKE reclaims it. */
    maxRunDurationSeconds?: number;
    /** Run limit and preemption, from the catalog. */
    limits: string;
    /** The busy VMs' cost per hour if all came from this option; "unknown" where the catalog has no rate. */
    usdPerHour: number | "unknown";
}

/** The plan: the ComputeClass that orders the options (when there are several), and each option in order. */
export interface CapacityPlan {
    computeClass?: string;
    options: CapacityPlanEntry[];
}

/** What the plan is built from: each option's pool name and bounds, in order. */
export interface PlannedPool {
    capacity: TpuCapacityRung;
    nodePoolName: pulumi.Input<string>;
    minNodes: number;
    maxNodes: number;
}

/**
 * The capacity plan as a stack output: which option GKE tries first, second…, in which zone, from which pool, and the
 * hourly cost of the services' busy VMs at each option's catalogued rate.
 */
export function capacityPlan(usage: TpuUsage & { zone: string }, pools: readonly PlannedPool[], computeClass?: string): CapacityPlan {
    const chips = busyNodes(usage, (model) => model.replicas) * usage.tpu.chipsPerVm;
    return {
        ...(computeClass !== undefined ? { computeClass } : {}),
        options: pools.map((pool) => {
            const rate = rateOf(pool.capacity.type).usdPerChipHour;
            return {
                option: pool.capacity.type,
                zone: usage.zone,
                nodePool: pool.nodePoolName,
                minNodes: pool.minNodes,
                maxNodes: pool.maxNodes,
                ...(pool.capacity.type === "reservation" ? { reservation: pool.capacity.name } : {}),
                ...(pool.capacity.type === "flex-start" ? { maxRunDurationSeconds: pool.capacity.maxRunDurationSeconds } : {}),
                limits: TPU_CAPACITY_OPTIONS[pool.capacity.type].limits,
                usdPerHour: rate === undefined ? "unknown" : usdPerHour(chips, rate),
            };
        }),
    };
}
