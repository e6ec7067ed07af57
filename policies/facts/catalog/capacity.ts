/**
 * How TPU v6e capacity can be bought on GKE, each option's limits and rate, and the names GKE uses for it: the
 * ComputeClass that orders a fallback between node pools, and the node labels and autoscaler messages that say which
 * option a node came from or why none came. Each fact names its source in {@link CAPACITY_SOURCES}.
 */

/** Where the capacity facts come from. */
export const CAPACITY_SOURCES = {
    consumptionOptions:
        'https://cloud.google.com/tpu/docs/consumption-options ("On-demand resources won\'t be preempted, but there\'s no guarantee that there will be enough available TPU resources"; "You can only use a reservation for TPUs if you have a committed use discount (CUD)")',
    gkeReservations:
        'https://cloud.google.com/kubernetes-engine/docs/how-to/consuming-reservations ("Standard mode: specific reservations or any matching reservation")',
    spotVms:
        'https://cloud.google.com/kubernetes-engine/docs/concepts/spot-vms ("Spot VMs terminate 30 seconds after receiving a termination notice", "Spot VMs have no expiration time"); multi-host: https://cloud.google.com/tpu/docs/spot-compute ("Using MIGs for multi-host slices"), a Cloud TPU page: GKE\'s own statement for multi-host v6e spot was not found',
    flexStart:
        'https://cloud.google.com/kubernetes-engine/docs/concepts/provisioning-model ("for up to seven days"; "If you don\'t specify a value for the maxRunDurationSeconds parameter, the default is seven days"; "To run TPUs, use GKE version 1.33.0-gke.1712000 or later"); https://cloud.google.com/compute/docs/instances/about-flex-start-vms',
    flexStartZones:
        'https://cloud.google.com/tpu/docs/request-using-flex-start ("TPU v6e for training and serving: asia-northeast1-b, us-east5-a") and the GKE provisioning-model page (which also lists us-east5-b); asia-northeast1-b is not a GKE v6e zone of this catalog',
    flexStartMultiHost:
        "GoogleCloudPlatform/cluster-toolkit 1047080 examples/gke-consumption-options/dws-flex-start/gke-tpu-v6e/gke-tpu-v6e.yaml:36,51,193-225 and gke-tpu-v6e-deployment.yaml:38-53 (a ct6e-standard-4t 4x4 COMPACT pool with flex_start, no queued provisioning, autoscaling 0 to 4); GoogleCloudPlatform/cluster-autoscaler 7d25050 pkg/cloudprovider/gke/gke_cloud_provider_impl.go:1467-1470 (a multi-host TPU pool scales up by one resize request, flex-start or not), gke_manager.go:2745 (flex-start, not queued, on a multi-host TPU pool); https://cloud.google.com/kubernetes-engine/docs/how-to/dws-flex-start-training-tpu (single-host or multi-host TPU slice node pools with flex-start)",
    flexStartPool:
        'GoogleCloudPlatform/cluster-toolkit 1047080 modules/compute/gke-node-pool/main.tf:415-430 ("enable_flex_start needs node auto_repair set to false", autoscaling only, NO_RESERVATION, not spot); hashicorp/terraform-provider-google-beta v7.45.0 testAccContainerNodePool_withFlexStart (max_run_duration "604800s", total_min 0)',
    upgradeStrategy:
        'GoogleCloudPlatform/cluster-autoscaler 7d25050 pkg/autoprovisioning/injection.go:1652-1661 ("SHORT_LIVED - the only strategy supported by DWS node pools"); crossplane-contrib/provider-upjet-gcp issue #1028 (the Terraform schema cannot express it: a perpetual diff)',
    trilliumPrices:
        'Trillium GA announcement as reported by Neowin (https://neowin.net/amp/google-takes-on-nvidia-blackwell-gpus-with-the-new-trillium-tpus): "Trillium is available starting at $2.7000 per chip-hour. With 1-year and 3-year commitments, it is available starting at $1.8900 per chip-hour and $1.2200 per chip-hour"',
    spotPrices:
        'https://cloud.google.com/spot-vms/pricing (spot prices "can change up to once every 30 days"; the stated 60-91% discount covers machine types, GPUs and Local SSD, not TPUs): no v6e spot rate',
    flexStartPrices:
        'https://cloud.google.com/kubernetes-engine/docs/concepts/provisioning-model (flex-start "is billed using Dynamic Workload Scheduler pricing"): no v6e rate',
    sharedReservations:
        'https://cloud.google.com/compute/docs/reference/rest/beta/ReservationAffinity ("values[]: ... either a name to a reservation in the same project or \"projects/different-project/reservations/some-reservation-name\" to target a shared reservation in the same zone but in a different project"); GoogleCloudPlatform/cluster-toolkit 1047080 modules/compute/gke-node-pool/reservation_definitions.tf:19,97-104 (projects/<p>/reservations/<name>[/reservationBlocks/<block>]); GoogleCloudPlatform/cluster-autoscaler 7d25050 pkg/cloudprovider/gke/gceclient/reservation_ref.go:67-87 (a bare name in the cluster\'s project, projects/<p>/reservations/<name> in another, then /reservationBlocks/<block>), pkg/cloudprovider/gke/gke_cloud_provider_impl.go:2197-2219 (ANY_RESERVATION consumes only reservations that do not require specific targeting)',
    multiHostScaleUpWait:
        'GoogleCloudPlatform/cluster-autoscaler 7d25050 pkg/cloudprovider/gke/gke_cloud_provider_impl.go:102-112 (tpuMigMaxNodeProvisionTime 10 h; DefaultFlexStartCapacityCheckWaitTime 15 min; maxNodeProvisionTimeOffset 15 min), :1467-1470 (a multi-host TPU pool scales up by one atomic resize request, flex-start or not), :1880-1906 (the wait before a scale-up is given up: flex-start not queued, its capacity check plus 15 min; a multi-host TPU pool, 10 h unless a capacity-check wait is set), gke_manager.go:2743-2748; pkg/visibility/types/messages.go:33-34,276 (scale.up.error.waiting.for.instances.timeout: instances failed to appear in time), pkg/visibility/events/failed_scale_up_event_logger.go:45 ("Some nodes in node group %q failed to appear in time"); the ComputeClass CRD\'s capacityCheckWaitTimeSeconds cannot sit in a nodepools priority (CEL: "Nodepool field cannot be set along with other fields"), and a tpu priority matches a manual pool only by a label GKE documents for the pools it creates',
    classTaint:
        "GoogleCloudPlatform/cluster-autoscaler 7d25050 pkg/computeclass/crd/utils.go:81-100 (a pool's class taints: those whose key is cloud.google.com/compute-class, whatever the effect), pkg/computeclass/status/validator/conditions/nodepool_misconfigured.go:73-113 (TaintMissing, taint value not the class's name: key and value only)",
    classPools:
        'GoogleCloudPlatform/cluster-autoscaler 7d25050 pkg/computeclass/organizer.go:70-104 (a class\'s node groups ordered by its priorities; a labelled pool no priority matches is not given for it), pkg/computeclass/rules/tpu.go:38-76 (a tpu priority matches an existing pool by TPU type, topology and chip count), rules/rule.go:94-99 (a nodepools priority matches by name only), autoprovisioning_eligibility.go:94-101 (nodePoolAutoCreation off: only existing pools), status/validator/conditions/conditions_constants.go:78-79,87 ("Nodepool %v has an Crd label but doesn\'t match any priority rule"; "Crd with NAP disabled should have at least one matching nodepool with autoscaling enabled"); organizer.go:141-143 (with whenUnsatisfiable ScaleUpAnyway, labelled pools no priority matches come last), nodepool_misconfigured.go:34,125 and nap_disabled_no_matching_nodegroups.go:36 (neither condition with ScaleUpAnyway); rules/tpu.go:59-72 (type, topology and count compared exactly: an omitted one is "" or 0, crd/ccc/ccc.go:236), rules/machine_spec.go:67 (spot equal), rules/flex_start.go:63 (flex-start equal), rules/reservations.go:142 (a pool without a reservation affinity matches no reservation rule); pkg/autoprovisioning/injection.go:3010-3015 and labels/system_labels.go:203-212 (a node of a reservation carries its bare name in cloud.google.com/reservation-name and its owner in cloud.google.com/reservation-project); the ComputeClass CRD 1.34.0 (nodePoolAutoCreation.enabled defaults to false)',
    flexStartPreemptible:
        'GoogleCloudPlatform/cluster-autoscaler 7d25050 pkg/autoprovisioning/injection.go:1609-1618 (flex-start is incompatible with the spot and preemptible node labels); the ComputeClass CRD 1.34.0 ("Flex Start provisioning model is incompatible with Spot"); GoogleCloudPlatform/cluster-toolkit 1047080 modules/compute/gke-node-pool/main.tf:427-430',
    computeClassCrd:
        'GoogleCloudPlatform/compute-class-api 1.34.0 cloud.google.com_computeclasses.yaml (computeclasses.cloud.google.com, cluster-scoped, v1; priorities[].nodepools, whenUnsatisfiable ScaleUpAnyway|DoNotScaleUp, nodePoolAutoCreation.enabled; CEL "Flex Start provisioning model is incompatible with Spot")',
    computeClassInstall:
        'google/skills 1af7775 skills/cloud/gke-compute-classes/SKILL.md:269-276 ("the ComputeClass CRD, which is installed by the GKE Cluster Autoscaler component. The autoscaler might take up to an hour to successfully initialize and install the CRD")',
    manualPools:
        'google/skills 1af7775 skills/cloud/gke-compute-classes/references/compute-class-provisioning-methods.md:64-73 (a manually created pool binds with --node-labels="cloud.google.com/compute-class=<CLASS-NAME>" --node-taints="cloud.google.com/compute-class=<CLASS-NAME>:NoSchedule"); GoogleCloudPlatform/cluster-autoscaler conditions_constants.go:42-45 (CrdLabelNotMatching, TaintMissing)',
    nodeLabels:
        "GoogleCloudPlatform/cluster-autoscaler 7d25050 pkg/cloudprovider/gke/labels/system_labels.go:31,43,80-107,204-212,295-298; pkg/computeclass/nodeannotator_plugin.go:37-47",
    failedScaleUp:
        'GoogleCloudPlatform/cluster-autoscaler 7d25050 pkg/visibility/events/failed_scale_up_event_logger.go:31-54,109 (FailedScaleUp: "Node scale up in zones %v associated with this pod failed: %v"; :45 "Some nodes in node group %q failed to appear in time"); pkg/provisioningrequests/reconciler/reasons/reasons.go:303-315 ("Request wasn\'t provisioned in the allocated time"); pkg/computeclass/status/history/crd_backoff_observer.go:33-34,240-257 (ProvisioningSuspended / ProvisioningConstrained reasons)',
    flexStartToleration:
        'GoogleCloudPlatform/cluster-autoscaler 7d25050 pkg/autoprovisioning/injection.go:1543-1546 ("pod cannot have only Flex Start toleration … please also specify the node selector"), pkg/visibility/types/messages.go:376 (no.scale.up.flex.start.misconfigured.error)',
    quota: 'GoogleCloudPlatform/cluster-autoscaler 7d25050 pkg/visibility/events/failed_scale_up_event_logger.go:31-54 ("GCE quota exceeded"); kubernetes/autoscaler ce048aa cluster-autoscaler/cloudprovider/gce/autoscaling_gce_client.go:44 (QUOTA_EXCEEDED); kubernetes-sigs/cluster-autoscaler 9910004 pkg/core/scaleup/orchestrator/skippedreasons.go:44-48 ("exceeded quota")',
    computeClasses:
        'https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes (custom compute classes on GKE Standard from 1.30.3-gke.1451000); https://cloud.google.com/kubernetes-engine/docs/reference/crds/computeclass ("configurations and fallback priorities for GKE node scaling decisions")',
    computeClassConditions:
        "GoogleCloudPlatform/cluster-autoscaler 7d25050 pkg/computeclass/status/validator/conditions/conditions_constants.go:27-101 (Health, NodepoolMisconfigured, CrdMisconfigured, RuleMisconfigured and their reasons)",
} as const;

/** The ways the stack can buy TPU v6e capacity; a plan lists some of them in the order GKE tries them. */
export type TpuCapacityOption = "reservation" | "any-reservation" | "on-demand" | "flex-start" | "spot";

/** An option's rate per chip-hour in USD, or why there is none. */
export interface CapacityRate {
    /** Absent when no source gives a v6e rate: the estimate leaves the option out of the range and says so. */
    readonly usdPerChipHour?: number;
    readonly basis: string;
    readonly source: string;
    readonly reviewed: string;
}

/** What an option gives on TPU v6e, and what it costs. */
export interface TpuCapacityFacts {
    /** One line for the plan and the docs. */
    readonly summary: string;
    /** How long a node may run, and whether it can be taken back. */
    readonly limits: string;
    /** Zones offering it for v6e on GKE; absent: every zone of GKE_TPU_V6E_ZONES (the reservation's own zone for reservations). */
    readonly zones?: readonly string[];
    readonly rate: CapacityRate;
    readonly source: string;
}

/** Each option's facts on TPU v6e. */
export const TPU_CAPACITY_OPTIONS: Readonly<Record<TpuCapacityOption, TpuCapacityFacts>> = {
    reservation: {
        summary: "a specific reservation, named: capacity held for this project, paid whether used or not",
        limits: "not preempted; no run limit; only as many VMs as the reservation holds, in its zone (multi-host: it must hold every VM of a slice, not confirmed for v6e on GKE)",
        rate: {
            usdPerChipHour: 1.89,
            basis: "1-year committed-use price per chip-hour (a TPU reservation needs a CUD; 3-year: 1.22), starting-at US price",
            source: CAPACITY_SOURCES.trilliumPrices,
            reviewed: "2026-11-21",
        },
        source: `${CAPACITY_SOURCES.gkeReservations}; ${CAPACITY_SOURCES.consumptionOptions}`,
    },
    "any-reservation": {
        summary: "any reservation of the project that matches the machine type in the zone",
        limits: "as a specific reservation; the pool fails over to the next option rather than to on-demand (ANY_RESERVATION_THEN_FAIL), not confirmed for TPU slices offline",
        rate: {
            usdPerChipHour: 1.89,
            basis: "1-year committed-use price per chip-hour (a TPU reservation needs a CUD; 3-year: 1.22), starting-at US price",
            source: CAPACITY_SOURCES.trilliumPrices,
            reviewed: "2026-11-21",
        },
        source: `${CAPACITY_SOURCES.gkeReservations}; ${CAPACITY_SOURCES.consumptionOptions}`,
    },
    "on-demand": {
        summary: "on-demand: not preempted, but only if the zone has capacity when the autoscaler asks",
        limits: "not preempted; no run limit; no guarantee of capacity (a stockout leaves pods Pending)",
        rate: {
            usdPerChipHour: 2.7,
            basis: "on-demand starting-at US list price per chip-hour; other regions differ",
            source: `https://cloud.google.com/tpu/pricing (TPU v6e Trillium, on-demand); ${CAPACITY_SOURCES.trilliumPrices}`,
            reviewed: "2026-11-21",
        },
        source: CAPACITY_SOURCES.consumptionOptions,
    },
    "flex-start": {
        summary: "flex-start (Dynamic Workload Scheduler): GKE queues the request and creates the VMs when capacity frees up",
        limits: "runs at most maxRunDurationSeconds (up to 7 days), then GKE reclaims the node; not preempted before; a multi-host slice comes whole, by one request",
        zones: ["us-east5-a", "us-east5-b"],
        rate: {
            basis: "unknown: flex-start is billed at Dynamic Workload Scheduler prices, for which no v6e rate is catalogued",
            source: CAPACITY_SOURCES.flexStartPrices,
            reviewed: "2026-11-21",
        },
        source: `${CAPACITY_SOURCES.flexStart}; zones: ${CAPACITY_SOURCES.flexStartZones}; multi-host: ${CAPACITY_SOURCES.flexStartMultiHost}`,
    },
    spot: {
        summary: "spot: spare capacity at a discount that Compute Engine takes back at 30 seconds' notice",
        limits: "preempted at any time with 30 s notice (a multi-host slice goes as a whole); no run limit; multi-host on GKE documented for Cloud TPU only",
        rate: {
            basis: "unknown: spot prices change up to every 30 days and no v6e spot rate is catalogued",
            source: CAPACITY_SOURCES.spotPrices,
            reviewed: "2026-11-21",
        },
        source: CAPACITY_SOURCES.spotVms,
    },
};

/** The order options are listed in settings and messages. */
export const TPU_CAPACITY_OPTION_NAMES: readonly TpuCapacityOption[] = [
    "reservation",
    "any-reservation",
    "on-demand",
    "flex-start",
    "spot",
];

/**
 * How long GKE's autoscaler waits on a multi-host TPU scale-up (one request for the whole slice) before it gives it up
 * and moves on, in minutes: a flex-start pool's capacity check of 15 minutes plus 15 for the VMs to register; any other
 * pool 10 hours. A ComputeClass priority that names pools cannot shorten it (capacityCheckWaitTimeSeconds is for `tpu`
 * and flex-start priorities, which match a manual pool only by a label GKE documents for the pools it creates). Source:
 * {@link CAPACITY_SOURCES.multiHostScaleUpWait}.
 */
export const MULTI_HOST_SCALE_UP_WAIT_MINUTES = { flexStart: 30, other: 600 } as const;

/** A flex-start node's run limit, in seconds: GKE's default and maximum are seven days. Source: {@link CAPACITY_SOURCES.flexStart}. */
export const FLEX_START_MAX_RUN_SECONDS = { minimum: 1, maximum: 604_800, default: 604_800 } as const;

/** What GKE requires of a flex-start node pool. Source: {@link CAPACITY_SOURCES.flexStartPool}, {@link CAPACITY_SOURCES.upgradeStrategy}. */
export const FLEX_START_POOL = {
    autoRepair: false,
    consumeReservationType: "NO_RESERVATION",
    spot: false,
    minNodeCount: 0,
    /** GKE sets SHORT_LIVED upgrades on the pool itself, which the provider's schema cannot say. */
    ignoreChanges: ["upgradeSettings"],
} as const;

/**
 * GKE's ComputeClass: the custom resource that lists node pools in priority order for the autoscaler. GKE's cluster
 * autoscaler installs its CRD; a manually created pool joins a class by its label and taint. Sources:
 * {@link CAPACITY_SOURCES.computeClassCrd}, {@link CAPACITY_SOURCES.computeClassInstall}, {@link CAPACITY_SOURCES.manualPools}.
 */
export const COMPUTE_CLASS = {
    apiVersion: "cloud.google.com/v1",
    kind: "ComputeClass",
    crd: "computeclasses.cloud.google.com",
    /** The node label (and node-selector key) naming a node's class, and the key of the taint a manual pool carries. */
    label: "cloud.google.com/compute-class",
    /** GKE installs the CRD with its autoscaler, which on a fresh cluster can take up to an hour. */
    crdInstallMinutes: 60,
} as const;

/** The taint GKE puts on spot nodes, which a pod that may land on one tolerates. Source: {@link CAPACITY_SOURCES.spotVms}, {@link CAPACITY_SOURCES.nodeLabels}. */
export const SPOT_TAINT = { key: "cloud.google.com/gke-spot", value: "true", effect: "NoSchedule" } as const;

/** Labels and annotations GKE puts on a node that say how its capacity was bought. Source: {@link CAPACITY_SOURCES.nodeLabels}. */
export const CAPACITY_NODE_LABELS = {
    nodePool: "cloud.google.com/gke-nodepool",
    /** `standard`, `spot`, `flex-start` or `preemptible`. */
    provisioning: "cloud.google.com/gke-provisioning",
    spot: "cloud.google.com/gke-spot",
    flexStart: "cloud.google.com/gke-flex-start",
    /** A reservation's bare name; a reservation shared from another project names its owner in reservationProject. */
    reservationName: "cloud.google.com/reservation-name",
    reservationProject: "cloud.google.com/reservation-project",
    maxRunDurationSeconds: "cloud.google.com/gke-max-run-duration-seconds",
    /** Annotation: when a flex-start node is reclaimed. */
    terminationTime: "node.gke.io/machine-termination-datetime",
    /** The stack's own label on every TPU pool: the option (rung) the pool buys. */
    capacity: "gke-tpu-inference/capacity",
} as const;

/** Why a pending pod's scale-up failed, as GKE's autoscaler says it, and what to do about it. */
export interface ScaleUpFailure {
    /** Text of GKE's FailedScaleUp event or ComputeClass priority condition reason. */
    readonly match: RegExp;
    readonly cause: string;
    readonly next: string;
    /** The lesson of the registry (policies/facts/lessons) that explains it. */
    readonly lesson: string;
}

/**
 * GKE's scale-up failure texts (FailedScaleUp events) and ComputeClass priority reasons, by cause, each with the next
 * step. Source: {@link CAPACITY_SOURCES.failedScaleUp}.
 */
export const SCALE_UP_FAILURES: readonly ScaleUpFailure[] = [
    {
        match: /GCE out of resources|OutOfResources|RESOURCE_POOL_EXHAUSTED|GCE_STOCKOUT/,
        cause: "stockout: the zone has no free TPU v6e capacity of this option",
        next: "the ComputeClass moves to the next option after GKE's backoff; add a flex-start or spot option to tpuCapacity, or move to another v6e zone",
        lesson: "tpu-capacity",
    },
    {
        match: /GCE quota exceeded|QuotaExceeded|QUOTA_EXCEEDED/,
        cause: "quota: the project's TPU v6e quota in the region is used up",
        next: "request more TPU v6e quota for the region, or lower the plan's maxima (tpuMaxNodes)",
        lesson: "tpu-quota",
    },
    {
        match: /Reservation capacity exceeded|ReservationCapacityExceeded|RESERVATION_CAPACITY_EXCEEDED|Any affinity reservations no capacity/,
        cause: "reservation exhausted: every VM of the reservation is in use",
        next: "the next option takes over; grow the reservation or lower tpuMaxNodes",
        lesson: "tpu-reservation",
    },
    {
        match: /Reservation not found|Invalid Reservation|InvalidReservation|Reservation incompatible|Reservation not ready|Any affinity reservations not available/,
        cause: "reservation unusable: missing, not shared with the project, not ready, or not of this machine type in this zone",
        next: "check the reservation with `gcloud compute reservations describe <name> --zone <zone>`; it must be specific, in the pool's zone and of its machine type",
        lesson: "tpu-reservation",
    },
    {
        // GKE asked for the VMs and they did not register within the autoscaler's wait: a multi-host slice's resize
        // request, or flex-start's, waiting for capacity (scale.up.error.waiting.for.instances.timeout).
        match: /failed to appear in time|waiting\.for\.instances\.timeout|wasn't provisioned in the allocated time/,
        cause: `scale-up timed out: GKE asked for the VMs and they did not appear within its wait (on a multi-host slice up to ${MULTI_HOST_SCALE_UP_WAIT_MINUTES.flexStart} min with flex-start, ${MULTI_HOST_SCALE_UP_WAIT_MINUTES.other / 60} h otherwise), a stockout that queued rather than failed`,
        next: "the ComputeClass moves to the next option after GKE's backoff; put a flex-start or spot option after this one in tpuCapacity, or move to another v6e zone",
        lesson: "tpu-capacity",
    },
    {
        match: /Invalid TPU topology|Invalid TPU configuration/,
        cause: "the TPU shape is not one GKE builds in this zone",
        next: "check tpuMachineType and tpuTopology against the catalog's v6e shapes",
        lesson: "tpu-zones",
    },
    {
        // GKE's autoscaler refuses a pod that tolerates flex-start nodes without selecting them (no.scale.up.flex.start.misconfigured.error).
        match: /flex\.start\.misconfigured|only Flex Start toleration/i,
        cause: "flex-start misconfigured: the pod tolerates cloud.google.com/gke-flex-start without selecting flex-start nodes",
        next: 'remove the cloud.google.com/gke-flex-start toleration from the pod (this stack never sets it), or select cloud.google.com/gke-flex-start: "true" as well',
        lesson: "tpu-flex-start",
    },
    {
        match: /flex\.start|Flex Start|flex-start/i,
        cause: "flex-start queued: GKE waits for capacity to free up before creating the node",
        next: "wait (a flex-start request can take minutes to hours); the ComputeClass keeps trying lower options meanwhile",
        lesson: "tpu-flex-start",
    },
];
