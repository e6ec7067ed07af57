import { ResourceValidationPolicy } from "@pulumi/policy";
import { TPU_MULTI_HOST, TPU_NODE, isKindOrPatch, podSpecsOf, PolicyText, policyText, tpuShapesForTopology, usesTpu } from "./facts";
import { Props, isKubernetesKind, isLlmInferenceService, kindOfType } from "./support/resources";
import { placements } from "./support/tpuPools";

/**
 * The multi-host topology (and its hosts) a pod template selects, if exactly one: only TPU nodes carry the label. A
 * topology two machine types offer with different hosts (2x4: one VM, or two) is not judged: which pool the pod lands
 * on is not the pod's to say.
 */
function multiHostSlice(pod: Props | undefined): { topology: string; hosts: number } | undefined {
    if (pod === undefined) {
        return undefined;
    }
    const topologies = [...new Set(placements(pod).flatMap((placement) => placement.get(TPU_NODE.topologyLabel) ?? []))];
    const hosts = topologies.length === 1 ? [...new Set(tpuShapesForTopology(topologies[0]).map((shape) => shape.hosts))] : [];
    return hosts.length === 1 && hosts[0] > 1 ? { topology: topologies[0], hosts: hosts[0] } : undefined;
}

/** True when a pod template has a container requesting TPU chips. */
function podUsesTpu(pod: Props | undefined): boolean {
    return pod !== undefined && (pod.containers ?? []).some((container: Props) => usesTpu(container ?? {}));
}

/** KServe v0.20.0's LeaderWorkerSet size for a service's parallelism: data / dataLocal, else pipeline, else none. */
function kserveGroupSize(parallelism: Props | undefined): number | undefined {
    const data = Number(parallelism?.data ?? 0);
    const dataLocal = Number(parallelism?.dataLocal ?? 0);
    if (data > 0 || dataLocal > 0) {
        return Math.max(Math.floor(Math.max(data, 1) / Math.max(dataLocal, 1)), 1);
    }
    const pipeline = Number(parallelism?.pipeline ?? 0);
    return pipeline > 0 ? pipeline : undefined;
}

/** A workload's group on a multi-host slice: where, its leader and worker templates, its size, its annotations. */
interface SliceGroup {
    slice: { topology: string; hosts: number };
    leader?: Props;
    worker?: Props;
    /** Pods per group, leader included; undefined when the workload runs single pods. */
    size?: number;
    annotations: Record<string, string>;
}

function groupOf(type: string, props: Props): SliceGroup | undefined {
    const annotations = props.metadata?.annotations ?? {};
    if (isLlmInferenceService(type)) {
        const spec = props.spec ?? {};
        const slice = multiHostSlice(spec.template) ?? multiHostSlice(spec.worker);
        // A base config may carry the worker and parallelism this spec leaves out.
        if (slice === undefined || (spec.worker === undefined && (spec.baseRefs ?? []).length > 0)) {
            return undefined;
        }
        return {
            slice,
            leader: spec.template,
            worker: spec.worker,
            size: spec.worker ? kserveGroupSize(spec.parallelism) : undefined,
            annotations,
        };
    }
    if (isKubernetesKind(type, "leaderworkerset.x-k8s.io", "LeaderWorkerSet")) {
        const template = props.spec?.leaderWorkerTemplate ?? {};
        const leader = template.leaderTemplate?.spec;
        const worker = template.workerTemplate?.spec;
        const slice = multiHostSlice(leader) ?? multiHostSlice(worker);
        // LeaderWorkerSet defaults a group to one pod.
        return slice === undefined ? undefined : { slice, leader, worker, size: Number(template.size ?? 1), annotations };
    }
    return undefined;
}

/** Kinds whose pods each stand alone: a Pod, and the controllers that run interchangeable copies of one. */
const SINGLE_POD_KINDS: ReadonlyArray<[group: string, kind: string]> = [
    ["", "Pod"],
    ["apps", "Deployment"],
    ["apps", "StatefulSet"],
    ["apps", "ReplicaSet"],
    ["apps", "DaemonSet"],
    ["", "ReplicationController"],
];

/** A Job's pods running at once: parallelism (Kubernetes' default 1), no more than its completions. */
function podsAtOnce(job: Props | undefined): number {
    const parallelism = Number(job?.parallelism ?? 1);
    return job?.completions === undefined || job.completions === null ? parallelism : Math.min(parallelism, Number(job.completions));
}

/** True when every way a pod may be placed names exactly one node pool: on GKE a multi-host TPU pool is one slice. */
function heldToOnePool(pod: Props): boolean {
    return placements(pod).every((placement) => (placement.get(TPU_MULTI_HOST.nodePoolLabel) ?? []).length === 1);
}

/** `a 4x4 slice of 4 hosts`. */
const sliceText = ({ topology, hosts }: { topology: string; hosts: number }) => `a ${topology} slice of ${hosts} hosts`;

/** What the policy says, one builder per finding (the tests assert them). */
export const WHOLE_SLICE_MESSAGES = {
    singlePods: (name: string, slice: { topology: string; hosts: number }, fix: string) =>
        `${name} runs single pods on ${sliceText(slice)}: each holds one VM's chips while GKE bills the slice's ${slice.hosts} VMs together, and no server spans them; ${fix}.`,
    /** The fix for an LLMInferenceService without a worker. */
    kserveFix: (hosts: number) => `give it spec.worker and parallelism for groups of ${hosts} (KServe: pipeline: ${hosts})`,
    /** The fix for any other kind of single pods. */
    groupFix: (hosts: number) =>
        `run it as a LeaderWorkerSet with leaderWorkerTemplate.size: ${hosts}, or as a JobSet whose Jobs run ${hosts} pods at once`,
    groupSize: (name: string, tpuPods: number, slice: { topology: string; hosts: number }) =>
        `${name}'s groups have ${tpuPods} TPU pods on ${sliceText(slice)}; a group must hold every host of the slice, one pod each.`,
    jobSize: (name: string, pods: number, slice: { topology: string; hosts: number }) =>
        `${name} runs ${pods} TPU pods at once on ${sliceText(slice)}; a slice's Job runs one pod on every host at once (parallelism and completions: ${slice.hosts}).`,
    notExclusive: (name: string, exclusive: { annotation: string; key: string }) =>
        `${name} has no ${exclusive.annotation}: ${exclusive.key} annotation; without it one group's pods can land on the node pools of two slices.`,
    jobNotHeld: (name: string) =>
        `${name} selects no single ${TPU_MULTI_HOST.nodePoolLabel}: one Job's pods can land on the node pools of two slices; select the slice's node pool, or run it as a JobSet with ${TPU_MULTI_HOST.jobSetExclusiveTopology.annotation}: ${TPU_MULTI_HOST.jobSetExclusiveTopology.key}.`,
};

/**
 * What is wrong with a Job (a CronJob's, a JobSet's) on a multi-host slice: its pods at once, and whether one slice holds
 * them (`unheld`: what to say when neither its owner nor its pods' node pool selector does).
 */
function jobFindings(name: string, job: Props | undefined, unheld: string | undefined): string[] {
    const pod = job?.template?.spec;
    const slice = podUsesTpu(pod) ? multiHostSlice(pod) : undefined;
    if (slice === undefined) {
        return [];
    }
    const pods = podsAtOnce(job);
    return [
        ...(pods !== slice.hosts ? [WHOLE_SLICE_MESSAGES.jobSize(name, pods, slice)] : []),
        ...(unheld === undefined || heldToOnePool(pod) ? [] : [unheld]),
    ];
}

/** What is wrong with a workload of any kind on a multi-host slice. */
export function wholeSliceFindings(type: string, name: string, props: Props): string[] {
    const kind = kindOfType(type);
    if (SINGLE_POD_KINDS.some(([group, single]) => isKindOrPatch(kind, group, single))) {
        return podSpecsOf(kind, props).flatMap((pod) => {
            const slice = podUsesTpu(pod.spec) ? multiHostSlice(pod.spec) : undefined;
            return slice === undefined ? [] : [WHOLE_SLICE_MESSAGES.singlePods(name, slice, WHOLE_SLICE_MESSAGES.groupFix(slice.hosts))];
        });
    }
    if (isKindOrPatch(kind, "batch", "Job")) {
        return jobFindings(name, props.spec, WHOLE_SLICE_MESSAGES.jobNotHeld(name));
    }
    if (isKindOrPatch(kind, "batch", "CronJob")) {
        return jobFindings(name, props.spec?.jobTemplate?.spec, WHOLE_SLICE_MESSAGES.jobNotHeld(name));
    }
    if (isKubernetesKind(type, "jobset.x-k8s.io", "JobSet")) {
        // JobSet places each child Job on one node pool of its own when the JobSet carries the exclusive-topology annotation.
        const exclusive = TPU_MULTI_HOST.jobSetExclusiveTopology;
        const unheld =
            props.metadata?.annotations?.[exclusive.annotation] === exclusive.key
                ? undefined
                : WHOLE_SLICE_MESSAGES.notExclusive(name, exclusive);
        const replicated: unknown = props.spec?.replicatedJobs;
        const findings = (Array.isArray(replicated) ? (replicated as Props[]) : []).flatMap((job, index) =>
            jobFindings(`${name} replicatedJobs[${index}]${job?.name ? ` (${job.name})` : ""}`, job?.template?.spec, unheld),
        );
        return [...new Set(findings)];
    }
    const group = groupOf(type, props);
    if (group === undefined) {
        return [];
    }
    const { hosts } = group.slice;
    if (group.worker === undefined || group.size === undefined) {
        const fix = isLlmInferenceService(type) ? WHOLE_SLICE_MESSAGES.kserveFix(hosts) : WHOLE_SLICE_MESSAGES.groupFix(hosts);
        return [WHOLE_SLICE_MESSAGES.singlePods(name, group.slice, fix)];
    }
    const findings: string[] = [];
    // The leader counts when it holds chips; LeaderWorkerSet and KServe run the worker template as the leader when there is none.
    const tpuPods = group.leader === undefined || podUsesTpu(group.leader) ? group.size : group.size - 1;
    if (tpuPods !== hosts) {
        findings.push(WHOLE_SLICE_MESSAGES.groupSize(name, tpuPods, group.slice));
    }
    const exclusive = TPU_MULTI_HOST.exclusiveTopology;
    if (group.annotations[exclusive.annotation] !== exclusive.key) {
        findings.push(WHOLE_SLICE_MESSAGES.notExclusive(name, exclusive));
    }
    return findings;
}

/**
 * GKE adds and removes a slice's VMs together, and one model server spans them only when every host's pod is in the
 * same LeaderWorkerSet group (LeaderWorkerSet gives each group its TPU worker hostnames and leader address), held to
 * one node pool by LeaderWorkerSet's exclusive-topology annotation. Every other kind that can put TPU pods on a
 * multi-host slice is judged too: single pods (Pods, Deployments, StatefulSets, ReplicaSets, DaemonSets) never span it;
 * a Job (a CronJob's, a JobSet's) must run one pod on every host at once, held to one node pool. Sources:
 * kubernetes-sigs/lws v0.10.0 docs/examples/vllm/TPU/lws.yaml and pkg/utils/accelerators/tpu.go; KServe v0.20.0
 * workload_multi_node.go (the group size from parallelism; annotations copied to the LeaderWorkerSet);
 * kubernetes-sigs/jobset (alpha.jobset.sigs.k8s.io/exclusive-topology).
 */
export const requireWholeSliceGroups: ResourceValidationPolicy & PolicyText = {
    ...policyText(
        "whole-slice-groups",
        "require-whole-slice-groups",
        "On a multi-host TPU slice, a workload runs LeaderWorkerSet groups of one TPU pod per host, each group on one slice.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateResource: (args, reportViolation) => {
        for (const finding of wholeSliceFindings(args.type, args.name, args.props)) {
            reportViolation(finding);
        }
    },
};
