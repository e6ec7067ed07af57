import { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import {
    COMPUTE_CLASS,
    KSERVE_CHILDREN,
    TPU_NODE,
    containersOf,
    findTpuShape,
    offerHasShape,
    offerOfPool,
    PolicyText,
    policyText,
    usesTpu,
} from "./facts";
import { DeclaredComputeClass, computeClassesOf, poolName, poolNamesKnown, poolsOfClass } from "./support/computeClasses";
import { effectiveServiceSpec } from "./support/kserve";
import { Props, isKubernetesKind, isLlmInferenceService, kindOfType, namespaceOf } from "./support/resources";
import { TpuPool, placements, tpuV6ePools } from "./support/tpuPools";
import { STARTUP_BUDGET_CONFIG, declaredStart, minimumStartupSeconds, startupBudgetSeconds } from "./support/workloads";

/** Kubernetes' scale-down stabilization window when an HPA's behavior sets none (autoscaling/v2; the ScaledObject CRD's description says so too). */
const DEFAULT_SCALE_DOWN_WINDOW_SECONDS = 300;
/** KEDA's maxReplicaCount when a ScaledObject sets none (keda v2.20.2 apis/keda/v1alpha1/scaledobject_types.go defaultHPAMaxReplicas). */
const KEDA_DEFAULT_MAX_REPLICAS = 100;

/** Workload kinds an autoscaler may target whose pods this policy can read. */
const WORKLOADS: ReadonlyArray<[group: string, kind: string]> = [
    ["apps", "Deployment"],
    ["apps", "StatefulSet"],
    ["apps", "ReplicaSet"],
    ["leaderworkerset.x-k8s.io", "LeaderWorkerSet"],
];

/** A TPU workload an autoscaler may target, with the startup budget its replicas need and the pods of one replica. */
interface TpuTarget {
    description: string;
    startupSeconds: number;
    /** The pod specs of a replica that ask for TPU chips (a group's leader and workers). */
    pods: Props[];
}

/** The pod specs among `containers` that ask for TPU chips, each once. */
function tpuPods(kind: ReturnType<typeof kindOfType>, props: Props): Props[] {
    return [
        ...new Set(
            containersOf(kind, props)
                .filter(({ container }) => usesTpu(container))
                .map(({ pod }) => pod.spec),
        ),
    ];
}

/**
 * `namespace/Kind/name` of the workloads whose pods ask for TPU chips: a TPU LLMInferenceService itself (its own
 * `scaling`), KServe's Deployment (single-host) or LeaderWorkerSet (with a worker) of one, or one the stack declares. A
 * service is read with its base configs merged in, as KServe builds its pods.
 */
function tpuTargets(resources: PolicyResource[], minimum: number): Map<string, TpuTarget> {
    const targets = new Map<string, TpuTarget>();
    for (const resource of resources) {
        const name = resource.props.metadata?.name;
        const namespace = namespaceOf(resource);
        if (isLlmInferenceService(resource.type)) {
            const { spec } = effectiveServiceSpec(resource, resources);
            const pods = tpuPods(kindOfType(resource.type), { ...resource.props, spec });
            if (pods.length > 0) {
                const target = {
                    description: `LLMInferenceService ${name}`,
                    startupSeconds: startupBudgetSeconds(declaredStart(resource.props), minimum),
                    pods,
                };
                targets.set(`${namespace}/LLMInferenceService/${name}`, target);
                targets.set(
                    spec.worker
                        ? `${namespace}/LeaderWorkerSet/${KSERVE_CHILDREN.workloadLeaderWorkerSet(name)}`
                        : `${namespace}/Deployment/${KSERVE_CHILDREN.workloadDeployment(name)}`,
                    target,
                );
            }
            continue;
        }
        const workload = WORKLOADS.find(([group, kind]) => isKubernetesKind(resource.type, group, kind));
        const pods = workload !== undefined ? tpuPods(kindOfType(resource.type), resource.props) : [];
        if (workload !== undefined && pods.length > 0) {
            targets.set(`${namespace}/${workload[1]}/${name}`, { description: `${workload[1]} ${name}`, startupSeconds: minimum, pods });
        }
    }
    return targets;
}

/**
 * How soon an autoscaler may take a replica away after adding one: through the HPA (its scale-down stabilization window),
 * and through KEDA's scale to zero or to its idle count (its cooldownPeriod, 300 s by default). `undefined` where it never
 * does: scale-down disabled (selectPolicy Disabled), or as many replicas at least as at most.
 */
interface ScaleDown {
    /** The HPA's scale-down window, when the HPA may remove replicas. */
    hpaWindow?: number;
    /** KEDA's cooldown before scaling to zero (or the idle count), when it may. */
    cooldown?: number;
    /** The idle replica count KEDA scales to after its cooldown. */
    idle?: number;
}

/** The HPA's scale-down window under `behavior`, or undefined when it never scales down (between `min` and `max`). */
function hpaWindow(behavior: Props | undefined, min: number, max: number | undefined): number | undefined {
    const scaleDown = behavior?.scaleDown;
    if (scaleDown?.selectPolicy === "Disabled" || (max !== undefined && max <= min)) {
        return undefined;
    }
    return scaleDown?.stabilizationWindowSeconds ?? DEFAULT_SCALE_DOWN_WINDOW_SECONDS;
}

/** KEDA's scale-down: the HPA it makes (between max(min, 1) and max) and its own scale to zero or to the idle count. */
function kedaScaleDown(keda: Props, min: number, max: number): ScaleDown {
    const idle = keda.idleReplicaCount ?? (min === 0 ? 0 : undefined);
    return {
        hpaWindow: hpaWindow(keda.advanced?.horizontalPodAutoscalerConfig?.behavior, Math.max(min, 1), max),
        ...(idle !== undefined && idle < Math.max(min, 1)
            ? { cooldown: keda.cooldownPeriod ?? DEFAULT_SCALE_DOWN_WINDOW_SECONDS, idle }
            : {}),
    };
}

/** An autoscaler: what it scales (a workload by `namespace/Kind/name`), how it scales down, its maximum. */
interface Autoscaler {
    targetKey: string;
    scaleDown: ScaleDown;
    max: number;
}

/**
 * The autoscalers `resource` declares, read the same way for an HPA (autoscaling/v1, v2beta2, v2), a KEDA ScaledObject
 * and an LLMInferenceService's own `scaling` (and its prefill's), which KServe turns into an HPA or a ScaledObject.
 */
function readAutoscalers(resource: PolicyResource): Autoscaler[] {
    const spec = resource.props.spec ?? {};
    const namespace = namespaceOf(resource);
    if (isKubernetesKind(resource.type, "keda.sh", "ScaledObject")) {
        // KEDA's scaleTargetRef.kind defaults to Deployment, minReplicaCount to 0, maxReplicaCount to 100.
        const target = { kind: "Deployment", ...spec.scaleTargetRef };
        const max = spec.maxReplicaCount ?? KEDA_DEFAULT_MAX_REPLICAS;
        return [
            {
                targetKey: `${namespace}/${target.kind}/${target.name}`,
                scaleDown: kedaScaleDown(spec, spec.minReplicaCount ?? 0, max),
                max,
            },
        ];
    }
    if (isKubernetesKind(resource.type, "autoscaling", "HorizontalPodAutoscaler")) {
        // autoscaling/v1 has no behavior: Kubernetes' default window applies. minReplicas defaults to 1.
        const target = spec.scaleTargetRef ?? {};
        return [
            {
                targetKey: `${namespace}/${target.kind}/${target.name}`,
                scaleDown: { hpaWindow: hpaWindow(spec.behavior, spec.minReplicas ?? 1, spec.maxReplicas) },
                max: spec.maxReplicas,
            },
        ];
    }
    if (isLlmInferenceService(resource.type)) {
        const targetKey = `${namespace}/LLMInferenceService/${resource.props.metadata?.name}`;
        return [spec.scaling, spec.prefill?.scaling].flatMap((scaling: Props | undefined) => {
            if (scaling === undefined || scaling === null || typeof scaling.maxReplicas !== "number") {
                return [];
            }
            const min = scaling.minReplicas ?? 1;
            const scaleDown: ScaleDown = scaling.wva?.keda
                ? kedaScaleDown(scaling.wva.keda, min, scaling.maxReplicas)
                : { hpaWindow: hpaWindow(scaling.wva?.hpa?.behavior, min, scaling.maxReplicas) };
            return [{ targetKey, scaleDown, max: scaling.maxReplicas }];
        });
    }
    return [];
}

/**
 * The most nodes a TPU pool may grow to: its autoscaling ceiling (totalMaxNodeCount, else maxNodeCount in each of its
 * zones), else its fixed size (nodeCount or initialNodeCount, also per zone).
 */
function poolMaximum(pool: TpuPool): number | undefined {
    const { autoscaling, nodeCount, initialNodeCount } = pool.props;
    const total = autoscaling?.totalMaxNodeCount;
    const perZone = autoscaling?.maxNodeCount ?? nodeCount ?? initialNodeCount;
    if (typeof total === "number") {
        return total;
    }
    return typeof perZone === "number" ? perZone * Math.max(pool.zones.length, 1) : undefined;
}

/**
 * Where a replica of `target` can run: the TPU pools its pods may land on (of its accelerator and topology, and those
 * of the ComputeClass it selects), and the nodes one replica takes there, a whole slice's hosts (its pods' topology on
 * the pool's machine type, the fewest where they differ). Undefined when that cannot be bounded: its pods land on no
 * pool of the stack, or on a class the stack does not declare or one that creates pools of its own.
 */
function placementOf(
    target: TpuTarget,
    pools: TpuPool[],
    classes: Map<string, DeclaredComputeClass>,
    namesKnown: boolean,
): { pools: TpuPool[]; hosts: number } | undefined {
    const options = target.pods.flatMap((pod) => placements(pod));
    const found = new Set<TpuPool>();
    for (const placement of options) {
        const wanted = placement.get(COMPUTE_CLASS.label);
        let candidates = pools;
        if (wanted !== undefined) {
            const given = wanted.map((name) => {
                const computeClass = classes.get(name);
                return computeClass ? poolsOfClass(computeClass, pools, namesKnown) : undefined;
            });
            if (given.some((classPools) => classPools === undefined)) {
                return undefined;
            }
            candidates = given.flatMap((classPools) => classPools!);
        }
        for (const pool of candidates) {
            if (offerHasShape(placement, offerOfPool(pool.props, pool.topology, ""))) {
                found.add(pool);
            }
        }
    }
    const topologies = [...new Set(options.flatMap((placement) => placement.get(TPU_NODE.topologyLabel) ?? []))];
    const hosts = [...found].map((pool) => {
        const topology = topologies.length === 1 ? topologies[0] : pool.topology;
        return (topology !== undefined ? findTpuShape(pool.machineType, topology)?.hosts : undefined) ?? 1;
    });
    return found.size > 0 ? { pools: [...found], hosts: Math.min(...hosts) } : undefined;
}

const counted = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/**
 * What the policy says when autoscalers that share TPU pools may ask for more nodes than the pools hold: each replica
 * takes a whole slice, `replicas × hosts` per slice size (`demand`), against the nodes of `pools`.
 */
export function tpuCapacityMessage(
    subject: string,
    demand: ReadonlyArray<{ replicas: number; hosts: number }>,
    pools: readonly string[],
    nodes: number,
): string {
    const bySize = new Map<number, number>();
    for (const { replicas, hosts } of demand) {
        bySize.set(hosts, (bySize.get(hosts) ?? 0) + replicas);
    }
    const terms = [...bySize].map(
        ([hosts, replicas]) => `${counted(replicas, "replica", "replicas")} × ${counted(hosts, "host", "hosts")}`,
    );
    const wanted = [...bySize].reduce((sum, [hosts, replicas]) => sum + hosts * replicas, 0);
    return `${subject}: the autoscalers on TPU servers may ask for ${terms.join(" + ")} = ${counted(wanted, "node", "nodes")} together (a replica takes every host of its slice), but the TPU node ${pools.length === 1 ? "pool" : "pools"} they can land on (${pools.join(", ")}) ${pools.length === 1 ? "holds" : "hold"} at most ${counted(nodes, "node", "nodes")}; the rest would stay Pending.`;
}

export const requireTpuAwareAutoscaling: StackValidationPolicy & PolicyText = {
    ...policyText(
        "tpu-autoscaling",
        "require-tpu-aware-autoscaling",
        "An autoscaler on TPU model servers must hold scale-down for at least their startup budget, and all of them together must not ask for more nodes, a whole slice per replica, than the TPU node pools they can land on hold.",
    ),
    enforcementLevel: "advisory",
    severity: "medium",
    configSchema: STARTUP_BUDGET_CONFIG,
    validateStack: (args, reportViolation) => {
        const minimum = minimumStartupSeconds(args);
        const targets = tpuTargets(args.resources, minimum);
        const onTpu = args.resources.flatMap((resource) =>
            readAutoscalers(resource).flatMap((autoscaler) => {
                const target = targets.get(autoscaler.targetKey);
                return target ? [{ resource, autoscaler, target }] : [];
            }),
        );
        if (onTpu.length === 0) {
            args.notApplicable("no autoscaler targets a TPU workload");
        }
        for (const { resource, autoscaler, target } of onTpu) {
            const { hpaWindow: window, cooldown, idle } = autoscaler.scaleDown;
            const what = `${resource.props.kind} ${resource.props.metadata?.name}`;
            if (window !== undefined && window < target.startupSeconds) {
                reportViolation(
                    `${what} may remove a replica of ${target.description} ${window} s after scaling up, within the ${target.startupSeconds} s its replicas take to start; hold scale-down for at least ${target.startupSeconds} s.`,
                    resource.urn,
                );
            }
            if (cooldown !== undefined && cooldown < target.startupSeconds) {
                reportViolation(
                    `${what} may scale ${target.description} to ${idle} replicas ${cooldown} s after its triggers go idle (cooldownPeriod), within the ${target.startupSeconds} s a replica takes to start; set cooldownPeriod to at least ${target.startupSeconds} s.`,
                    resource.urn,
                );
            }
        }
        // Capacity: the autoscalers whose replicas can only land within one autoscaler's pools must fit those pools'
        // nodes together, each replica a whole slice.
        const pools = tpuV6ePools(args.resources);
        const classes = computeClassesOf(args.resources);
        const namesKnown = poolNamesKnown(args.resources);
        const placed = onTpu.flatMap((entry) => {
            const placement = placementOf(entry.target, pools, classes, namesKnown);
            return placement ? [{ ...entry, ...placement }] : [];
        });
        const reported = new Set<string>();
        for (const { pools: landing } of placed) {
            const maxima = landing.map(poolMaximum);
            if (maxima.some((maximum) => maximum === undefined)) {
                continue;
            }
            const capacity = (maxima as number[]).reduce((sum, maximum) => sum + maximum, 0);
            const sharing = placed.filter((other) => other.pools.every((pool) => landing.includes(pool)));
            const demand = sharing.map(({ autoscaler, hosts }) => ({ replicas: autoscaler.max, hosts }));
            if (demand.reduce((sum, { replicas, hosts }) => sum + replicas * hosts, 0) <= capacity) {
                continue;
            }
            for (const { resource } of sharing) {
                const message = tpuCapacityMessage(
                    `${resource.props.kind} ${resource.props.metadata?.name}`,
                    demand,
                    landing.map(poolName),
                    capacity,
                );
                if (!reported.has(`${resource.urn}\n${message}`)) {
                    reported.add(`${resource.urn}\n${message}`);
                    reportViolation(message, resource.urn);
                }
            }
        }
    },
};
