/**
 * TPU capacity as node pools and ComputeClasses declare it: what node a pool or a class's TPU priority gives a pod (its
 * accelerator, topology, and how its capacity is bought), whether a pod's node selection can be met by it, and what GKE
 * requires of a flex-start node pool. Pure functions over the objects' props.
 */
import { CAPACITY_NODE_LABELS, COMPUTE_CLASS, FLEX_START_MAX_RUN_SECONDS, FLEX_START_POOL, TPU_NODE } from "../catalog";
import { KubeProps } from "./objects";

/** What a node pool, or a ComputeClass's TPU priority, gives a pod: its node's TPU labels and how its capacity is bought. */
export interface CapacityOffer {
    /** The pool or priority, for messages. */
    where: string;
    accelerator: string;
    topology: string | undefined;
    spot: boolean;
    flexStart: boolean;
    /** Specific reservations it consumes, by name. */
    reservations: string[];
}

/** The node labels that say how a node's capacity was bought, which a pod may select. Source: {@link CAPACITY_NODE_LABELS}. */
export const CAPACITY_SELECTORS = [
    CAPACITY_NODE_LABELS.spot,
    CAPACITY_NODE_LABELS.flexStart,
    CAPACITY_NODE_LABELS.provisioning,
    CAPACITY_NODE_LABELS.reservationName,
] as const;

/** The specific reservations a node pool's `nodeConfig.reservationAffinity` consumes. */
function specificReservations(affinity: KubeProps | undefined): string[] {
    return affinity?.consumeReservationType === "SPECIFIC_RESERVATION" && Array.isArray(affinity.values) ? affinity.values.map(String) : [];
}

/** What a TPU v6e node pool (its props, and the topology its nodes carry) gives a pod. */
export function offerOfPool(pool: KubeProps, topology: string | undefined, where: string): CapacityOffer {
    const nodeConfig = (pool.nodeConfig ?? {}) as KubeProps;
    return {
        where,
        accelerator: TPU_NODE.acceleratorValue,
        topology,
        spot: nodeConfig.spot === true,
        flexStart: nodeConfig.flexStart === true,
        reservations: specificReservations(nodeConfig.reservationAffinity),
    };
}

/** What a ComputeClass priority that describes TPU nodes (`tpu`, with `spot`, `flexStart`, `reservations`) gives a pod; undefined for any other. */
export function offerOfPriority(priority: KubeProps, where: string): CapacityOffer | undefined {
    const tpu = priority?.tpu as KubeProps | undefined;
    if (!tpu || typeof tpu.type !== "string") {
        return undefined;
    }
    return {
        where,
        accelerator: tpu.type,
        topology: typeof tpu.topology === "string" ? tpu.topology : undefined,
        spot: priority.spot === true,
        flexStart: priority.flexStart?.enabled === true,
        reservations: ((priority.reservations?.specific ?? []) as KubeProps[]).flatMap((entry) =>
            typeof entry?.name === "string" ? [entry.name] : [],
        ),
    };
}

/** The capacity labels a node of `offer` carries. Source: {@link CAPACITY_NODE_LABELS}. */
export function capacityLabels(offer: CapacityOffer): Record<string, string> {
    return {
        [CAPACITY_NODE_LABELS.provisioning]: offer.spot ? "spot" : offer.flexStart ? "flex-start" : "standard",
        ...(offer.spot ? { [CAPACITY_NODE_LABELS.spot]: "true" } : {}),
        ...(offer.flexStart ? { [CAPACITY_NODE_LABELS.flexStart]: "true" } : {}),
        ...(offer.reservations.length === 1 ? reservationLabels(offer.reservations[0]) : {}),
    };
}

/**
 * The labels a node of reservation `reference` carries: its bare name, and for one shared from another project
 * (`projects/<owner>/reservations/<name>[/reservationBlocks/<block>]`) the owner. Source: {@link CAPACITY_NODE_LABELS}.
 */
export function reservationLabels(reference: string): Record<string, string> {
    const shared = /^projects\/([^/]+)\/reservations\/([^/]+)/.exec(reference);
    return shared
        ? { [CAPACITY_NODE_LABELS.reservationName]: shared[2], [CAPACITY_NODE_LABELS.reservationProject]: shared[1] }
        : { [CAPACITY_NODE_LABELS.reservationName]: reference };
}

/** Whether a node of `offer` has the accelerator and topology a placement allows (a label it does not constrain is any). */
export function offerHasShape(placement: ReadonlyMap<string, readonly string[]>, offer: CapacityOffer): boolean {
    const accelerators = placement.get(TPU_NODE.acceleratorLabel);
    const topologies = placement.get(TPU_NODE.topologyLabel);
    return (
        (accelerators === undefined || accelerators.includes(offer.accelerator)) &&
        (topologies === undefined || (offer.topology !== undefined && topologies.includes(offer.topology)))
    );
}

/** The capacity selectors of a placement a node of `offer` does not meet. */
export function unmetCapacitySelectors(placement: ReadonlyMap<string, readonly string[]>, offer: CapacityOffer): string[] {
    const labels = capacityLabels(offer);
    const reservationPool = offer.reservations.length > 1 ? offer.reservations : undefined;
    return CAPACITY_SELECTORS.filter((key) => {
        const allowed = placement.get(key);
        if (allowed === undefined) {
            return false;
        }
        if (key === CAPACITY_NODE_LABELS.reservationName && reservationPool) {
            return !reservationPool.some((name) => allowed.includes(name));
        }
        return labels[key] === undefined || !allowed.includes(labels[key]);
    });
}

/**
 * A ComputeClass's name as pods select it, and the label and taint a node pool it names carries. GKE checks the class's
 * taint by its key and value only, whatever its effect. Sources: {@link COMPUTE_CLASS}, {@link CAPACITY_SOURCES.classTaint}.
 */
export function computeClassBinding(pool: KubeProps, className: string): { label: boolean; taint: boolean } {
    const nodeConfig = (pool.nodeConfig ?? {}) as KubeProps;
    const taints = (Array.isArray(nodeConfig.taints) ? nodeConfig.taints : []) as KubeProps[];
    return {
        label: nodeConfig.labels?.[COMPUTE_CLASS.label] === className,
        taint: taints.some((taint) => taint?.key === COMPUTE_CLASS.label && taint.value === className),
    };
}

/** `"3600s"` → 3600; undefined for anything else. */
function durationSeconds(value: unknown): number | undefined {
    const match = typeof value === "string" ? /^(\d+)s$/.exec(value) : null;
    return match ? Number(match[1]) : undefined;
}

/**
 * What a flex-start node pool (`nodeConfig.flexStart` true; a NodePool's props, or a pool inline in a Cluster) lacks of
 * what GKE requires: auto-repair off, no reservation, neither spot nor preemptible, sized by the autoscaler alone from 0,
 * and a run limit, where it sets one, of 1 s to seven days. One sentence each, after `where`. Source: {@link FLEX_START_POOL}, {@link FLEX_START_MAX_RUN_SECONDS}.
 */
export function flexStartPoolProblems(pool: KubeProps, where: string): string[] {
    const nodeConfig = (pool.nodeConfig ?? {}) as KubeProps;
    if (nodeConfig.flexStart !== true) {
        return [];
    }
    const subject = `${where} is a flex-start pool (nodeConfig.flexStart)`;
    const problems: string[] = [];
    if (pool.management?.autoRepair !== FLEX_START_POOL.autoRepair) {
        problems.push(
            `${subject} with management.autoRepair ${pool.management?.autoRepair === undefined ? "unset" : String(pool.management.autoRepair)}; GKE requires auto-repair off on a flex-start pool: set management.autoRepair false.`,
        );
    }
    const reservation = nodeConfig.reservationAffinity?.consumeReservationType;
    if (reservation !== FLEX_START_POOL.consumeReservationType) {
        problems.push(
            `${subject} with nodeConfig.reservationAffinity.consumeReservationType ${reservation === undefined ? "unset" : String(reservation)}; a flex-start pool must consume no reservation: set it to ${FLEX_START_POOL.consumeReservationType}.`,
        );
    }
    for (const field of ["spot", "preemptible"]) {
        if (nodeConfig[field] === true) {
            problems.push(
                `${subject} and ${field} (nodeConfig.${field}); flex-start is incompatible with spot and preemptible VMs: drop nodeConfig.${field}.`,
            );
        }
    }
    if (pool.nodeCount !== undefined && pool.nodeCount !== null) {
        problems.push(
            `${subject} with a fixed nodeCount of ${String(pool.nodeCount)}; a flex-start pool is sized by the autoscaler alone: remove nodeCount and set autoscaling.`,
        );
    } else if (!pool.autoscaling) {
        problems.push(
            `${subject} without autoscaling; a flex-start pool is sized by the autoscaler alone: set autoscaling with a minimum of 0.`,
        );
    }
    const floor = Math.max(Number(pool.autoscaling?.minNodeCount ?? 0), Number(pool.autoscaling?.totalMinNodeCount ?? 0));
    if (floor > FLEX_START_POOL.minNodeCount) {
        problems.push(
            `${subject} that keeps at least ${floor} node${floor === 1 ? "" : "s"} (autoscaling.minNodeCount or totalMinNodeCount); a flex-start pool scales from 0: set the minimum to 0.`,
        );
    }
    // Without a run limit GKE reclaims each node after its default of seven days: a choice, not an error.
    const runSeconds = durationSeconds(nodeConfig.maxRunDuration);
    if (
        nodeConfig.maxRunDuration !== undefined &&
        (runSeconds === undefined || runSeconds < FLEX_START_MAX_RUN_SECONDS.minimum || runSeconds > FLEX_START_MAX_RUN_SECONDS.maximum)
    ) {
        problems.push(
            `${subject} with nodeConfig.maxRunDuration ${JSON.stringify(nodeConfig.maxRunDuration)}; a flex-start node runs "1s" to "${FLEX_START_MAX_RUN_SECONDS.maximum}s" (seven days), written in seconds with an "s".`,
        );
    }
    return problems;
}
