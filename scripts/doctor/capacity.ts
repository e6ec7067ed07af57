/**
 * TPU capacity as the cluster shows it: which option of the stack's capacity plan and which zone each TPU node came from
 * (its pool, its zone, and GKE's provisioning, spot, flex-start and reservation labels), the ComputeClass's health and each priority's backoff, and
 * why a Pending TPU pod got no node (GKE's FailedScaleUp text: stockout, quota, reservation exhausted, flex-start queued)
 * with the next step. Pure: it reads objects already fetched, so that it is tested against recorded cluster states.
 */
import { CAPACITY_NODE_LABELS, LessonId, NODE_ZONE_LABEL, SCALE_UP_FAILURES, ScaleUpFailure, TPU_NODE } from "@gke-tpu-inference/facts";
import type { KubeObject } from "../cluster/kube";
import { Diagnosis, objectName } from "./report";

/** The stack's `tpuCapacityPlan` output, as the doctor reads it from the stack: a pool per option and zone. */
export interface CapacityPlanOutput {
    computeClass?: string;
    options: Array<{ option: string; nodePool: string; zone?: string }>;
}

type Condition = { type?: string; status?: string; reason?: string; message?: string };
/** What the doctor reads of a core/v1 Event (pods.ts's KubeEvent has more). */
type ScaleEvent = { reason?: string; message?: string; involvedObject?: { name?: string }; lastTimestamp?: string; eventTime?: string };

/** A flex-start node this close to its run limit is reported: the autoscaler is about to replace it. */
export const FLEX_START_EXPIRY_WARNING_MINUTES = 60;

/** The lesson that explains a scale-up failure. */
const lessonOf = (failure: ScaleUpFailure) => failure.lesson as LessonId;

/** A pool of the plan as the doctor names it: its option, and its zone when the plan says it. */
function poolText({ option, zone }: CapacityPlanOutput["options"][number]): string {
    return `${option}${zone !== undefined ? ` in ${zone}` : ""}`;
}

/** The option a pool buys, in which zone, and its place in the plan, by GKE pool name. */
function rungOfPool(plan: CapacityPlanOutput | undefined, pool: string | undefined): string | undefined {
    const index = plan?.options.findIndex((option) => option.nodePool === pool) ?? -1;
    return index < 0 ? undefined : `option ${index + 1} of ${plan!.options.length}: ${poolText(plan!.options[index])}`;
}

/**
 * One line per TPU node: the option and zone it came from, from the plan and the node's own labels (its zone GKE's, the
 * truth where a plan's pool is in several); a warning for a node outside the plan's pools and for a flex-start node
 * within {@link FLEX_START_EXPIRY_WARNING_MINUTES} of its run limit.
 */
export function capacityOfNodes(nodes: readonly KubeObject[], plan?: CapacityPlanOutput, now: Date = new Date()): Diagnosis[] {
    return nodes
        .filter((node) => node.metadata?.labels?.[TPU_NODE.acceleratorLabel] !== undefined)
        .map((node): Diagnosis => {
            const labels = node.metadata?.labels ?? {};
            const pool = labels[CAPACITY_NODE_LABELS.nodePool];
            const rung = rungOfPool(plan, pool);
            const facts = [
                `pool ${pool ?? "(unlabelled)"}${rung ? ` (${rung})` : ""}`,
                ...[
                    NODE_ZONE_LABEL,
                    CAPACITY_NODE_LABELS.provisioning,
                    CAPACITY_NODE_LABELS.spot,
                    CAPACITY_NODE_LABELS.flexStart,
                    CAPACITY_NODE_LABELS.reservationName,
                    CAPACITY_NODE_LABELS.maxRunDurationSeconds,
                ]
                    .filter((key) => labels[key] !== undefined)
                    .map((key) => `${key}=${labels[key]}`),
                ...(node.metadata?.annotations?.[CAPACITY_NODE_LABELS.terminationTime] !== undefined
                    ? [`reclaimed at ${node.metadata.annotations[CAPACITY_NODE_LABELS.terminationTime]}`]
                    : []),
            ];
            const check = "TPU node in the capacity plan";
            const object = objectName("Node", node.metadata?.name ?? "?");
            // A node in no pool of the plan means the stack's pods can land outside the plan (a pool made by hand, say).
            if (plan !== undefined && rung === undefined) {
                return {
                    status: "WARN",
                    check,
                    object,
                    evidence: facts.join(", "),
                    fix: "this TPU node is in no pool of the stack's tpuCapacityPlan; check which pool made it and whether its pods belong there",
                };
            }
            const ends = Date.parse(node.metadata?.annotations?.[CAPACITY_NODE_LABELS.terminationTime] ?? "");
            if (!Number.isNaN(ends) && ends - now.getTime() < FLEX_START_EXPIRY_WARNING_MINUTES * 60_000) {
                return {
                    status: "WARN",
                    check,
                    object,
                    evidence: `${facts.join(", ")}: its run limit ends ${ends <= now.getTime() ? "now" : `in ${Math.ceil((ends - now.getTime()) / 60_000)} min`}`,
                    lesson: "tpu-flex-start",
                    fix: "GKE reclaims a flex-start node at its run limit (maxRunDurationSeconds); its pods restart on the node the autoscaler adds from the plan, so expect a cold start",
                };
            }
            return { status: "OK", check, object, evidence: facts.join(", ") };
        });
}

/**
 * Why a Pending TPU pod's scale-up failed, from GKE's FailedScaleUp and NotTriggerScaleUp events (the newest that names a
 * known cause), with its lesson and the next step: the doctor's `pod scheduled` line for the pod.
 */
export function pendingCapacity(pod: KubeObject, events: readonly ScaleEvent[]): Diagnosis | undefined {
    const name = pod.metadata?.name;
    const mine = events.filter(
        (event) => event.involvedObject?.name === name && (event.reason === "FailedScaleUp" || event.reason === "NotTriggerScaleUp"),
    );
    // Newest first by when each event last happened: Kubernetes updates a repeated event in place (its count and
    // lastTimestamp), so the order the API lists events in is not the order they last happened.
    const time = (event: ScaleEvent) => event.lastTimestamp ?? event.eventTime ?? "";
    const newestFirst = mine
        .map((event, index) => ({ event, index }))
        .sort((a, b) => time(b.event).localeCompare(time(a.event)) || b.index - a.index)
        .map(({ event }) => event);
    for (const event of newestFirst) {
        const failure = SCALE_UP_FAILURES.find((candidate) => candidate.match.test(event.message ?? ""));
        if (failure) {
            return {
                status: "FAIL",
                check: "pod scheduled",
                object: objectName("Pod", name ?? "?", pod.metadata?.namespace),
                evidence: `${event.reason}: ${event.message} (${failure.cause})`,
                lesson: lessonOf(failure),
                fix: failure.next,
            };
        }
    }
    return undefined;
}

/** The ComputeClass's health and, on GKE versions that report them, each priority's backoff with its reason and next step. */
export function computeClassHealth(computeClass: KubeObject | undefined, className: string, plan?: CapacityPlanOutput): Diagnosis[] {
    const object = objectName("ComputeClass", className);
    if (computeClass === undefined) {
        return [
            {
                status: "WARN",
                check: "ComputeClass healthy",
                object,
                evidence: "not found",
                lesson: "tpu-capacity",
                fix: "GKE's autoscaler installs the ComputeClass CRD up to an hour after a cluster is created; run `pulumi up` again once `kubectl get crd computeclasses.cloud.google.com` finds it",
            },
        ];
    }
    const status = (computeClass.status ?? {}) as {
        conditions?: Condition[];
        priorityStatuses?: Array<{ identifier?: string; conditions?: Condition[] }>;
    };
    const conditions = status.conditions ?? [];
    const health = conditions.find((condition) => condition.type === "Health");
    const problems = conditions.filter((condition) => condition.type !== "Health" && condition.status === "True");
    const reservation = problems.some((condition) => /^Reservation/.test(condition.reason ?? ""));
    const diagnoses: Diagnosis[] = [
        health?.status === "True"
            ? { status: "OK", check: "ComputeClass healthy", object, evidence: health.message ?? "Health True" }
            : {
                  status: health ? "FAIL" : "WARN",
                  check: "ComputeClass healthy",
                  object,
                  lesson: reservation ? "tpu-reservation" : "tpu-capacity",
                  evidence: [
                      health?.message ?? "no Health condition yet",
                      ...problems.map((condition) => `${condition.reason}: ${condition.message}`),
                  ].join("; "),
                  fix: reservation
                      ? "the reservation a priority names must exist, be shared with the project and match the pool's zone and machine type: `gcloud compute reservations describe <name> --zone <zone>`"
                      : "each pool of the plan must exist with autoscaling on and carry the class's label and taint (`pulumi up` sets them)",
              },
    ];
    for (const priority of status.priorityStatuses ?? []) {
        for (const condition of priority.conditions ?? []) {
            if (
                (condition.type === "ProvisioningSuspended" || condition.type === "ProvisioningConstrained") &&
                condition.status === "True"
            ) {
                const index = Number(priority.identifier);
                const entry = Number.isInteger(index) ? plan?.options[index] : undefined;
                const option = entry !== undefined ? poolText(entry) : undefined;
                const failure = SCALE_UP_FAILURES.find((candidate) => candidate.match.test(condition.reason ?? ""));
                diagnoses.push({
                    status: "WARN",
                    check: "ComputeClass priority not backed off",
                    object: `${object} priority ${priority.identifier}${option ? ` (${option})` : ""}`,
                    evidence: `${condition.reason}: ${condition.message}`,
                    lesson: failure ? lessonOf(failure) : "tpu-capacity",
                    fix: failure?.next ?? "GKE backs off this option and tries the next one",
                });
            }
        }
    }
    return diagnoses;
}
