/** Lessons of buying TPU capacity: reservations, quota and flex-start (the stockout itself is tpu-capacity, among the TPU lessons). */
import { CAPACITY_NODE_LABELS, CAPACITY_SOURCES, FLEX_START_MAX_RUN_SECONDS } from "../catalog";
import { Lesson } from "./lesson";

export const CAPACITY_LESSONS = [
    {
        id: "tpu-reservation",
        title: "A TPU reservation serves a pool only while it has free VMs and the pool names it as it is (exhausted, not found, not shared)",
        symptom:
            'TPU pods stay Pending with FailedScaleUp "Reservation capacity exceeded", "Reservation not found or incorrectly shared" or "Invalid Reservation", or the ComputeClass reports ReservationNotFound or ReservationUnusable.',
        cause: "A specific reservation holds a fixed number of VMs of one machine type in one zone: a pool that consumes it gets no more VMs once they are in use, and none when the name, project, zone or machine type does not match or the reservation is not shared with the project.",
        fix: "Consume the reservation by its exact name (nodeConfig.reservationAffinity SPECIFIC_RESERVATION, key compute.googleapis.com/reservation-name; projects/<owner>/reservations/<name> for one shared from another project, a bare name meaning the cluster's own project; /reservationBlocks/<block> for one block), in the pool's zone and of its machine type, shared with the cluster's project; size it for the pool's maximum, and give the pods a next option (a pool per option ordered by a ComputeClass) for when it is full. ANY_RESERVATION never takes a reservation that requires specific targeting.",
        prevention:
            "A reservation option of tpuCapacity is named as a node pool's affinity takes it (its name, or projects/<owner>/reservations/<name> when shared, maybe with /reservationBlocks/<block>; checked at preview) and consumed as a specific reservation; the plan's next option takes over when it is full, and any-reservation fails over instead of buying on-demand VMs.",
        recovery:
            "check it with `gcloud compute reservations describe <name> --zone <zone>`: specific, in this zone, of this machine type, with free VMs; grow it, or let the plan's next option serve",
        inspect: "gcloud compute reservations describe <name> --zone <zone>",
        sources: [
            CAPACITY_SOURCES.gkeReservations,
            CAPACITY_SOURCES.sharedReservations,
            CAPACITY_SOURCES.consumptionOptions,
            CAPACITY_SOURCES.failedScaleUp,
            CAPACITY_SOURCES.computeClassConditions,
        ],
    },
    {
        id: "tpu-quota",
        title: "A TPU scale-up stops at the project's TPU quota in the region, whatever capacity the zone has",
        symptom: 'TPU pods stay Pending with FailedScaleUp "GCE quota exceeded", or NotTriggerScaleUp "exceeded quota".',
        cause: "Every TPU VM counts against the project's TPU quota in its region: when the next VM would exceed it, GKE's autoscaler cannot add the node, and falling back to another option of the same region does not help if that option's quota is used up too.",
        fix: "Request more TPU v6e quota for the region before scaling out, or lower the node pools' maxima to what the quota allows.",
        prevention:
            "Each option's pool is bounded by tpuMaxNodes, which the quota must cover; quota cannot be read at preview, so the doctor names it when a scale-up hits it.",
        recovery: "request more TPU v6e quota for the region, or lower the plan's maxima (tpuMaxNodes); `pulumi up`",
        inspect: "kubectl get events -n llm-inference --field-selector reason=FailedScaleUp",
        sources: [CAPACITY_SOURCES.quota],
    },
    {
        id: "tpu-flex-start",
        title: "A flex-start TPU pool takes only what GKE allows (no auto-repair, no reservation, neither spot nor preemptible, autoscaled from 0), waits in a queue and ends at its run limit",
        symptom:
            "GKE refuses the flex-start node pool; or its TPU pods stay Pending while the request is queued, or because they tolerate flex-start nodes without selecting them; or a TPU node disappears after its maximum run duration.",
        cause: `Flex-start VMs come from Dynamic Workload Scheduler: GKE requires their node pool to have auto-repair off, consume no reservation, be neither spot nor preemptible and be sized by the autoscaler alone; each node runs at most its maxRunDuration (${FLEX_START_MAX_RUN_SECONDS.maximum} s, seven days, by default and at most), then GKE reclaims it; on a multi-host slice the whole slice is one request.`,
        fix: `On a node pool with nodeConfig.flexStart true: management.autoRepair false, nodeConfig.reservationAffinity.consumeReservationType NO_RESERVATION, spot and preemptible off, autoscaling from 0 with no fixed nodeCount, and nodeConfig.maxRunDuration, where set, from 1s to ${FLEX_START_MAX_RUN_SECONDS.maximum}s (unset, GKE's seven days); never tolerate ${CAPACITY_NODE_LABELS.flexStart} on a pod that does not select flex-start nodes.`,
        prevention:
            "A flex-start option of tpuCapacity gets a pool with these settings and its run limit (maxRunDurationSeconds), only in the zones with v6e flex-start, on a single-host shape or a multi-host slice; the services' pods never tolerate flex-start, and the ComputeClass tries the next option once GKE gives up a request (on a multi-host slice after up to 30 minutes).",
        recovery:
            "a flex-start request can wait minutes to hours for capacity: wait, or let the plan's next option serve; a node reclaimed at its run limit is replaced by the autoscaler from the plan",
        inspect: `kubectl get nodes -l ${CAPACITY_NODE_LABELS.flexStart}=true -L ${CAPACITY_NODE_LABELS.maxRunDurationSeconds}`,
        sources: [
            CAPACITY_SOURCES.flexStart,
            CAPACITY_SOURCES.flexStartPool,
            CAPACITY_SOURCES.flexStartToleration,
            CAPACITY_SOURCES.flexStartMultiHost,
            CAPACITY_SOURCES.flexStartPreemptible,
            CAPACITY_SOURCES.computeClassCrd,
        ],
    },
] as const satisfies readonly Lesson[];
