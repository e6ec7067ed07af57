import * as pulumi from "@pulumi/pulumi";
import { MULTI_HOST_SCALE_UP_WAIT_MINUTES, TPU_CAPACITY_OPTIONS } from "@gke-tpu-inference/facts";
import { TpuCapacityRung } from "../settings/capacity";
import { TpuUsage, busyNodes, rateOf, usdPerHour } from "./cost";

/** One pool of the plan as the stack shows it: where and how it buys TPU VMs, and what that costs. */
export interface CapacityPlanEntry {
    option: TpuCapacityRung["type"];
    /** The pool's zone: an option in several zones is a pool in each. */
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
    /**
     * On a multi-host slice, before a later option: the longest GKE's autoscaler waits on this option's scale-up before it
     * tries the next, in minutes (a slice is asked for whole, and the request waits for capacity).
     */
    scaleUpWaitMinutes?: number;
    /** The busy VMs' cost per hour if all came from this option; "unknown" where the catalog has no rate. */
    usdPerHour: number | "unknown";
}

/** The plan: the ComputeClass that orders the pools (when there are several), and each pool (an option in a zone) in order. */
export interface CapacityPlan {
    computeClass?: string;
    options: CapacityPlanEntry[];
    /**
     * The most TPU VMs the plan's pools hold at once: every pool's maximum, each option in each of its zones. A rollout's
     * surge pod (Kubernetes' default maxSurge, one pod for up to four replicas) lands on the next pool when the first is
     * full, so the plan, not one pool, bounds the bill.
     */
    ceilingNodes: number;
}

/** What the plan is built from: each pool's option, zone, name and bounds, in order. */
export interface PlannedPool {
    capacity: TpuCapacityRung;
    zone: string;
    nodePoolName: pulumi.Input<string>;
    minNodes: number;
    maxNodes: number;
}

/**
 * The capacity plan as a stack output: which option GKE tries first, second…, in which zone, from which pool, and the
 * hourly cost of the services' busy VMs at each option's catalogued rate (the same in every zone: the catalog has one
 * rate per option).
 */
export function capacityPlan(usage: TpuUsage, pools: readonly PlannedPool[], computeClass?: string): CapacityPlan {
    const chips = busyNodes(usage, (model) => model.replicas) * usage.tpu.chipsPerVm;
    return {
        ...(computeClass !== undefined ? { computeClass } : {}),
        options: pools.map((pool, index) => {
            const rate = rateOf(pool.capacity.type).usdPerChipHour;
            return {
                option: pool.capacity.type,
                zone: pool.zone,
                nodePool: pool.nodePoolName,
                minNodes: pool.minNodes,
                maxNodes: pool.maxNodes,
                ...(pool.capacity.type === "reservation" ? { reservation: pool.capacity.name } : {}),
                ...(pool.capacity.type === "flex-start" ? { maxRunDurationSeconds: pool.capacity.maxRunDurationSeconds } : {}),
                limits: TPU_CAPACITY_OPTIONS[pool.capacity.type].limits,
                ...(usage.tpu.hostsPerSlice > 1 && index < pools.length - 1
                    ? {
                          scaleUpWaitMinutes:
                              pool.capacity.type === "flex-start"
                                  ? MULTI_HOST_SCALE_UP_WAIT_MINUTES.flexStart
                                  : MULTI_HOST_SCALE_UP_WAIT_MINUTES.other,
                      }
                    : {}),
                usdPerHour: rate === undefined ? "unknown" : usdPerHour(chips, rate),
            };
        }),
        ceilingNodes: pools.reduce((total, pool) => total + pool.maxNodes, 0),
    };
}
