/**
 * TPU v6e on GKE: machine types and slice shapes, the zones GKE offers them in, the node labels and taint, multi-host
 * slices, memory and price.
 */

/** A TPU v6e slice shape GKE can build from one machine type. */
export interface TpuShape {
    /** Chip grid of the whole slice, as GKE's `tpuTopology` and the topology node label spell it. */
    readonly topology: string;
    /** TPU VMs (Kubernetes nodes) in one slice. */
    readonly hosts: number;
}

/** A TPU v6e machine type and the slice shapes GKE accepts for it. */
export interface TpuMachineType {
    /** TPU chips attached to one VM: what a pod requests as `google.com/tpu`. */
    readonly chipsPerVm: number;
    /** Shapes in order of size; the first is the single-host one. */
    readonly shapes: readonly TpuShape[];
}

/** TPU v6e (Trillium) machine types on GKE. Source: {@link SOURCES.planTpus}. */
export const TPU_V6E_MACHINE_TYPES: Readonly<Record<string, TpuMachineType>> = {
    "ct6e-standard-1t": { chipsPerVm: 1, shapes: [{ topology: "1x1", hosts: 1 }] },
    "ct6e-standard-4t": {
        chipsPerVm: 4,
        shapes: [
            { topology: "2x2", hosts: 1 },
            // Eight chips on two VMs, offered through GKE only (https://cloud.google.com/tpu/docs/v6e: "The 8-chip (2x4)
            // configuration attached to 2 VMs is only supported when using the GKE API").
            { topology: "2x4", hosts: 2 },
            { topology: "4x4", hosts: 4 },
            { topology: "4x8", hosts: 8 },
            { topology: "8x8", hosts: 16 },
            { topology: "8x16", hosts: 32 },
            { topology: "16x16", hosts: 64 },
        ],
    },
    "ct6e-standard-8t": { chipsPerVm: 8, shapes: [{ topology: "2x4", hosts: 1 }] },
};

/** Every TPU v6e machine type's name starts with this, including ones the catalog does not list yet. Source: {@link SOURCES.planTpus}. */
export const TPU_V6E_MACHINE_TYPE_PREFIX = "ct6e-";

/**
 * Zones where GKE offers TPU v6e node pools. TPU VM availability is not GKE availability:
 * a zone that lists v6e for TPU VMs can still reject a GKE node pool. Source: {@link SOURCES.seed003Zones}.
 */
export const GKE_TPU_V6E_ZONES: readonly string[] = [
    "europe-west4-a",
    "us-central1-b",
    "us-east1-d",
    "us-east5-a",
    "us-east5-b",
    "us-south1-a",
    "us-south1-b",
];

/**
 * Kubernetes-side names of a TPU v6e node. GKE sets the two labels and the taint on every
 * TPU slice node itself (from the machine type and placement policy); a node pool must not
 * declare them. Source: {@link SOURCES.seedManifest}.
 */
export const TPU_NODE = {
    /** Node label naming the accelerator; its value for v6e is `tpu-v6e-slice` (not `tpu-v6e`, which is the TPU VM API's accelerator type). */
    acceleratorLabel: "cloud.google.com/gke-tpu-accelerator",
    acceleratorValue: "tpu-v6e-slice",
    /** Node label carrying the slice topology, e.g. `2x2`. */
    topologyLabel: "cloud.google.com/gke-tpu-topology",
    /** Extended resource a pod requests; it must equal the chips per VM. */
    resourceName: "google.com/tpu",
    /** The taint GKE puts on TPU nodes and pods must tolerate. */
    taint: { key: "google.com/tpu", value: "present", effect: "NoSchedule" },
} as const;

/**
 * How one vLLM TPU server spans the hosts of a multi-host slice: a Ray cluster across one LeaderWorkerSet group, one
 * pipeline stage per host, each stage tensor-parallel over its VM's chips. Source: {@link SOURCES.tpuMultiHost}.
 */
export const TPU_MULTI_HOST = {
    /** tpu-inference's switch to its Ray executor. */
    backendEnv: { name: "TPU_MULTIHOST_BACKEND", value: "ray" },
    /** vLLM's script that starts the Ray head and waits for the group, or joins a worker to it. */
    rayBootstrapScript: "/workspace/vllm/examples/ray_serving/multi-node-serving.sh",
    /** LeaderWorkerSet's environment on every pod of a group. */
    leaderAddressEnv: "LWS_LEADER_ADDRESS",
    groupSizeEnv: "LWS_GROUP_SIZE",
    /**
     * The event LeaderWorkerSet records on itself when a pod of a group restarted or went away: it deletes the leader, and
     * the whole group starts again (kubernetes-sigs/lws v0.10.0 pkg/controllers/pod_controller.go:204-265).
     */
    recreateGroupEvent: "RecreateGroup",
    /**
     * The label LeaderWorkerSet's controller puts on every pod of a set, valued with the set's name, which a Service
     * selects the leaders by (kubernetes-sigs/lws v0.10.0 pkg/controllers/leaderworkerset_controller.go:793;
     * docs/examples/vllm/TPU/lws.yaml:89-91).
     */
    setNameLabel: "leaderworkerset.sigs.k8s.io/name",
    /** LeaderWorkerSet's 1:1 placement of a group on one node pool, which on GKE is one multi-host slice. */
    exclusiveTopology: { annotation: "leaderworkerset.sigs.k8s.io/exclusive-topology", key: "cloud.google.com/gke-nodepool" },
    /**
     * JobSet's 1:1 placement of each child Job on one node pool (kubernetes-sigs/jobset: the annotation on the JobSet;
     * GKE's multi-host TPU JobSets carry it).
     */
    jobSetExclusiveTopology: { annotation: "alpha.jobset.sigs.k8s.io/exclusive-topology", key: "cloud.google.com/gke-nodepool" },
    /** The node label naming a node's GKE node pool: a multi-host TPU pool is one slice. */
    nodePoolLabel: "cloud.google.com/gke-nodepool",
    /**
     * How long the leader waits for its group to join Ray before it exits (and LeaderWorkerSet recreates the group): the
     * script's own default. The workers pull the image the leader already runs, on nodes GKE brings up with the slice.
     */
    rayGroupTimeoutSeconds: 300,
} as const;

/**
 * Every machine type offering `topology`, with its chips per VM and the slice's hosts: one for most topologies, two for
 * 2x4 (one ct6e-standard-8t VM, or two ct6e-standard-4t VMs). Derived from {@link TPU_V6E_MACHINE_TYPES}.
 */
export function tpuShapesForTopology(topology: string): Array<{ machineType: string; chipsPerVm: number; hosts: number }> {
    return Object.entries(TPU_V6E_MACHINE_TYPES).flatMap(([machineType, machine]) =>
        machine.shapes
            .filter((shape) => shape.topology === topology)
            .map((shape) => ({ machineType, chipsPerVm: machine.chipsPerVm, hosts: shape.hosts })),
    );
}

/** The shape of `machineType` with `topology`, or undefined when the pair does not exist. */
export function findTpuShape(machineType: string, topology: string): TpuShape | undefined {
    return TPU_V6E_MACHINE_TYPES[machineType]?.shapes.find((shape) => shape.topology === topology);
}

/** TPU v6e's memory: high-bandwidth memory per chip, in GB. Source: {@link SOURCES.tpuV6e}. */
export const TPU_V6E_HBM_GB_PER_CHIP = 32;
