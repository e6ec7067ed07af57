import { ResourceValidationPolicy } from "@pulumi/policy";
import { TPU_MULTI_HOST, TPU_NODE, hostsForTopology, policyText, usesTpu } from "./facts";
import { Props, isKubernetesKind, isLlmInferenceService } from "./support/resources";
import { placements } from "./support/tpuPools";

/** The multi-host topology (and its hosts) a pod template selects, if exactly one: only TPU nodes carry the label. */
function multiHostSlice(pod: Props | undefined): { topology: string; hosts: number } | undefined {
    if (pod === undefined) {
        return undefined;
    }
    const topologies = [...new Set(placements(pod).flatMap((placement) => placement.get(TPU_NODE.topologyLabel) ?? []))];
    const hosts = topologies.length === 1 ? hostsForTopology(topologies[0]) : undefined;
    return hosts !== undefined && hosts > 1 ? { topology: topologies[0], hosts } : undefined;
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

/**
 * Enforces lesson whole-slice-groups (policies/facts/lessons). GKE adds and removes a slice's VMs together, and one
 * model server spans them only when every host's pod is in the same LeaderWorkerSet group (LeaderWorkerSet gives each
 * group its TPU worker hostnames and leader address), held to one node pool by LeaderWorkerSet's exclusive-topology
 * annotation. Sources: kubernetes-sigs/lws v0.10.0 docs/examples/vllm/TPU/lws.yaml and pkg/utils/accelerators/tpu.go;
 * KServe v0.20.0 workload_multi_node.go (the group size from parallelism; annotations copied to the LeaderWorkerSet).
 */
export const requireWholeSliceGroups: ResourceValidationPolicy = {
    ...policyText(
        "require-whole-slice-groups",
        "On a multi-host TPU slice, a workload runs LeaderWorkerSet groups of one TPU pod per host, each group on one slice.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateResource: (args, reportViolation) => {
        const group = groupOf(args.type, args.props);
        if (group === undefined) {
            return;
        }
        const { topology, hosts } = group.slice;
        const slice = `a ${topology} slice of ${hosts} hosts`;
        if (group.worker === undefined || group.size === undefined) {
            reportViolation(
                `${args.name} runs single pods on ${slice}: each holds one VM's chips while GKE bills the slice's ${hosts} VMs together, and no server spans them; ` +
                    `give it spec.worker and parallelism for groups of ${hosts} (KServe: pipeline: ${hosts}).`,
            );
            return;
        }
        // The leader counts when it holds chips; LeaderWorkerSet and KServe run the worker template as the leader when there is none.
        const tpuPods = group.leader === undefined || podUsesTpu(group.leader) ? group.size : group.size - 1;
        if (tpuPods !== hosts) {
            reportViolation(
                `${args.name}'s groups have ${tpuPods} TPU pods on ${slice}; a group must hold every host of the slice, one pod each.`,
            );
        }
        const exclusive = TPU_MULTI_HOST.exclusiveTopology;
        if (group.annotations[exclusive.annotation] !== exclusive.key) {
            reportViolation(
                `${args.name} has no ${exclusive.annotation}: ${exclusive.key} annotation; without it one group's pods can land on the node pools of two slices.`,
            );
        }
    },
};
