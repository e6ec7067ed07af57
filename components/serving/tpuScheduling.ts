/**
 * How a pod lands on the TPU pools: on one pool by the TPU node labels and taint GKE derives from the machine type and
 * placement policy, or, in a plan of several options, on any pool of the plan through the ComputeClass that orders them.
 * Pure: the pools, the class and the model services all read it from here.
 */
import { COMPUTE_CLASS, SPOT_TAINT, TPU_NODE } from "@gke-tpu-inference/facts";
import { TpuCapacityRung, TpuSettings } from "../settings/capacity";

/** A pod toleration, as Kubernetes spells it. */
export interface Toleration {
    key: string;
    operator: "Equal";
    value: string;
    effect: string;
}

/** How a pod lands on a pool's nodes (or, through a ComputeClass, on any pool of the plan). */
export interface TpuScheduling {
    nodeSelector: Record<string, string>;
    tolerations: Toleration[];
    /** `google.com/tpu` a pod must request and limit: every chip of the VM. */
    chipsPerVm: number;
    /** VMs in one slice: the pods one model replica spans. */
    hostsPerSlice: number;
}

/** What a pod needs to land on a TPU pool of `tpu`'s shape: GKE's TPU node labels and its `google.com/tpu` taint. */
export function poolScheduling(tpu: Pick<TpuSettings, "topology" | "chipsPerVm" | "hostsPerSlice">): TpuScheduling {
    return {
        nodeSelector: { [TPU_NODE.acceleratorLabel]: TPU_NODE.acceleratorValue, [TPU_NODE.topologyLabel]: tpu.topology },
        tolerations: [{ key: TPU_NODE.taint.key, operator: "Equal", value: TPU_NODE.taint.value, effect: TPU_NODE.taint.effect }],
        chipsPerVm: tpu.chipsPerVm,
        hostsPerSlice: tpu.hostsPerSlice,
    };
}

/**
 * What a pod needs to land on any pool of a plan the ComputeClass `className` orders: the pools' own needs, the class's
 * node label and the toleration of its taint, and spot's toleration when the plan has spot.
 */
export function computeClassScheduling(pool: TpuScheduling, className: string, options: readonly TpuCapacityRung[]): TpuScheduling {
    const spot = options.some((option) => option.type === "spot");
    return {
        ...pool,
        nodeSelector: { ...pool.nodeSelector, [COMPUTE_CLASS.label]: className },
        tolerations: [
            ...pool.tolerations,
            { key: COMPUTE_CLASS.label, operator: "Equal", value: className, effect: "NoSchedule" },
            // Never a flex-start toleration: GKE's autoscaler refuses a pod that tolerates flex-start without selecting it.
            ...(spot ? [{ key: SPOT_TAINT.key, operator: "Equal" as const, value: SPOT_TAINT.value, effect: SPOT_TAINT.effect }] : []),
        ],
    };
}
