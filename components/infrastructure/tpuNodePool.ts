import { createHash } from "crypto";
import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { CAPACITY_NODE_LABELS, COMPUTE_CLASS, FLEX_START_POOL, regionOfZone } from "@gke-tpu-inference/facts";
import { FROZEN_TYPE_TOKENS } from "../lib/typeTokens";
import { TpuScheduling, poolScheduling } from "../serving/tpuScheduling";
import { TpuCapacityRung, TpuSettings } from "../settings/capacity";
import { hardenedNodeConfig } from "./cluster";

/** Arguments of {@link TpuNodePool}. */
export interface TpuNodePoolArgs {
    /** GCP project of the cluster. */
    project: string;
    /** `projects/<p>/locations/<region>/clusters/<name>` of the cluster to join. */
    clusterId: pulumi.Input<string>;
    /** Region of the cluster. */
    region: string;
    /** A GKE TPU v6e zone inside `region`; the pool's nodes live only there. */
    zone: string;
    /** Machine type, slice shape and autoscaling ceiling, validated against the catalog. */
    tpu: Pick<TpuSettings, "machineType" | "topology" | "chipsPerVm" | "hostsPerSlice" | "maxNodes">;
    /** How this pool buys its TPU VMs: one option of the stack's capacity plan. */
    capacity: TpuCapacityRung;
    /** Autoscaler floor (before pausing): the plan's first pool keeps tpuMinNodes, every fallback pool starts from 0. */
    minNodes: number;
    /**
     * The ComputeClass that orders this pool among the plan's others, when the plan has more than one option: GKE binds a
     * pool it did not create to a class only through the class's label and taint on its nodes.
     */
    computeClass?: string;
    /** Node service account (the cluster's dedicated one, never the Compute Engine default). */
    serviceAccountEmail: pulumi.Input<string>;
    /** Paused: the autoscaler floor drops to 0 so that idle TPU VMs are released; the pool itself stays. */
    paused?: boolean;
    /** GKE image streaming: containers start while their image streams from Artifact Registry. */
    imageStreaming: boolean;
    /**
     * What the pool waits for: the node service account's role grants (nodes log and report metrics from their
     * first boot) and the check that the zone offers the machine type.
     */
    dependsOn: pulumi.Input<pulumi.Input<pulumi.Resource>[]>;
}

/**
 * A TPU v6e slice node pool that buys its VMs one way (one option of the capacity plan). GKE derives the TPU node
 * labels and the `google.com/tpu` taint from the machine type and placement policy, so the pool declares neither; it
 * publishes the matching selector and toleration for workloads instead. In a plan of several options the pool carries
 * its ComputeClass's label and taint, so that only pods of that class land on it and GKE tries it in the class's order.
 */
export class TpuNodePool extends pulumi.ComponentResource {
    public readonly nodePoolName: pulumi.Output<string>;
    /** What a pod needs to be scheduled here. */
    public readonly scheduling: TpuScheduling;
    /** The autoscaler's bounds; the floor is 0 while paused. */
    public readonly autoscaling: { minNodes: number; maxNodes: number };

    constructor(name: string, args: TpuNodePoolArgs, opts?: pulumi.ComponentResourceOptions) {
        super(FROZEN_TYPE_TOKENS.TpuNodePool, name, {}, opts);
        const { tpu, capacity } = args;
        const multiHost = tpu.hostsPerSlice > 1;
        const flexStart = capacity.type === "flex-start";
        // Min 0 lets the autoscaler release every TPU VM: the pool is paused, not deleted.
        this.autoscaling = { minNodes: args.paused ? 0 : args.minNodes, maxNodes: tpu.maxNodes };

        const pool = new gcp.container.NodePool(
            `${name}-pool`,
            {
                project: args.project,
                location: args.region,
                cluster: args.clusterId,
                nodeLocations: [args.zone],
                initialNodeCount: args.minNodes,
                autoscaling: { minNodeCount: this.autoscaling.minNodes, maxNodeCount: this.autoscaling.maxNodes },
                // A multi-host slice needs its hosts on one ICI domain; single-host shapes take no placement policy.
                ...(multiHost ? { placementPolicy: { type: "COMPACT", tpuTopology: tpu.topology } } : {}),
                // GKE refuses auto-repair on a flex-start pool: a repaired node would be a new flex-start request.
                management: { autoRepair: !flexStart || FLEX_START_POOL.autoRepair, autoUpgrade: true },
                nodeConfig: {
                    ...hardenedNodeConfig(args.serviceAccountEmail),
                    machineType: tpu.machineType,
                    spot: capacity.type === "spot",
                    ...capacityNodeConfig(capacity),
                    labels: {
                        "gke-tpu-inference/pool": "tpu",
                        ...(args.computeClass !== undefined
                            ? { [COMPUTE_CLASS.label]: args.computeClass, [CAPACITY_NODE_LABELS.capacity]: capacity.type }
                            : {}),
                    },
                    ...(args.computeClass !== undefined
                        ? { taints: [{ key: COMPUTE_CLASS.label, value: args.computeClass, effect: "NO_SCHEDULE" }] }
                        : {}),
                    ...(args.imageStreaming ? { gcfsConfig: { enabled: true } } : {}),
                },
            },
            {
                parent: this,
                dependsOn: args.dependsOn,
                // The autoscaler owns the node count after creation; a changed initial count must not replace the pool.
                // GKE gives a flex-start pool short-lived upgrades, which the provider cannot declare: without this every
                // preview would show a change that never converges.
                ignoreChanges: ["initialNodeCount", ...(flexStart ? FLEX_START_POOL.ignoreChanges : [])],
                // Finding TPU capacity (and draining it) takes far longer than the provider's 30 min default.
                customTimeouts: { create: "90m", update: "90m", delete: "60m" },
            },
        );

        this.nodePoolName = pool.name;
        this.scheduling = poolScheduling(tpu);
        this.registerOutputs({ nodePoolName: this.nodePoolName, scheduling: this.scheduling, autoscaling: this.autoscaling });
    }
}

/** The node config fields one option sets besides `spot`: which reservations the VMs consume, and flex-start's run limit. */
function capacityNodeConfig(capacity: TpuCapacityRung): Partial<gcp.types.input.container.NodePoolNodeConfig> {
    switch (capacity.type) {
        case "reservation":
            return {
                reservationAffinity: {
                    consumeReservationType: "SPECIFIC_RESERVATION",
                    key: "compute.googleapis.com/reservation-name",
                    values: [capacity.name],
                },
            };
        case "any-reservation":
            // THEN_FAIL: without a free reservation the pool fails over to the plan's next option instead of silently
            // buying on-demand VMs here, which would skip every option below it.
            return { reservationAffinity: { consumeReservationType: "ANY_RESERVATION_THEN_FAIL" } };
        case "flex-start":
            // GKE requires a flex-start pool to consume no reservation.
            return {
                flexStart: true,
                maxRunDuration: `${capacity.maxRunDurationSeconds}s`,
                reservationAffinity: { consumeReservationType: FLEX_START_POOL.consumeReservationType },
            };
        case "on-demand":
        case "spot":
            // Neither declares an affinity: an existing on-demand or spot pool keeps its inputs, and a changed affinity
            // would replace it.
            return {};
    }
}

/** Short words for the options in fallback pools' names: Pulumi appends "-pool" and a random suffix to the GKE pool name, and a reservation's own name can be 63 characters long. */
const POOL_WORDS: Readonly<Record<TpuCapacityRung["type"], string>> = {
    reservation: "res",
    "any-reservation": "anyres",
    "on-demand": "ondemand",
    "flex-start": "flex",
    spot: "spot",
};

/** Hex digits of a reservation's name in its pool's name: short enough for GKE's 40-character pool names. */
const RESERVATION_HASH_LENGTH = 6;

/**
 * The Pulumi name of the pool of the plan's option at `index` in `zone`. The first option keeps the name (and so the URN
 * and the GKE pool) of the stack's one TPU pool from before plans had several options; the others are named by their
 * option, so that reordering the plan keeps their pools (a reservation also by a hash of its name, as a plan may hold
 * several: never by its place, which an option added before it would change). In the stack's own zone (`homeZone`) the
 * name is that alone, as before plans had zones; in another it ends with the zone's letter (`-b` for us-east5-b), which
 * is unique within the region and keeps the longest GKE name (a reservation's pool in another zone) within 40 characters.
 */
export function tpuPoolName(base: string, capacity: TpuCapacityRung, index: number, zone: string, homeZone: string): string {
    const name = index === 0 ? `${base}-tpu` : optionPoolName(base, capacity);
    return zone === homeZone ? name : `${name}-${zone.slice(regionOfZone(zone).length + 1)}`;
}

/** A fallback option's pool name in the stack's zone: by its option, a reservation also by a hash of its name. */
function optionPoolName(base: string, capacity: TpuCapacityRung): string {
    const word = POOL_WORDS[capacity.type];
    if (capacity.type === "reservation") {
        const hash = createHash("sha256").update(capacity.name).digest("hex").slice(0, RESERVATION_HASH_LENGTH);
        return `${base}-${word}-${hash}`;
    }
    return `${base}-${word}`;
}
