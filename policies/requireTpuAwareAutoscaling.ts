import { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { KSERVE_CHILDREN, MINIMUM_TPU_STARTUP_SECONDS, containersOf, policyText, tpuStartupBudgetSeconds, usesTpu } from "./facts";
import { Props, isKubernetesKind, isLlmInferenceService, kindOfType, namespaceOf } from "./support/resources";
import { tpuV6ePools } from "./support/tpuPools";
import { declaredStart } from "./support/workloads";

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

/** A TPU workload an autoscaler may target, with the startup budget its replicas need. */
interface TpuTarget {
    description: string;
    startupSeconds: number;
}

/** The startup budget of an LLMInferenceService's replicas: from its declared start, else the minimum. */
function serviceBudget(props: Props, minimum: number): number {
    const start = declaredStart(props);
    return start !== undefined ? tpuStartupBudgetSeconds(start, minimum) : minimum;
}

/** `namespace/Kind/name` of the workloads whose pods ask for TPU chips: KServe's Deployment of a TPU LLMInferenceService, or one the stack declares. */
function tpuTargets(resources: PolicyResource[], minimum: number): Map<string, TpuTarget> {
    const targets = new Map<string, TpuTarget>();
    for (const resource of resources) {
        if (!containersOf(kindOfType(resource.type), resource.props).some(({ container }) => usesTpu(container))) {
            continue;
        }
        const name = resource.props.metadata?.name;
        if (isLlmInferenceService(resource.type)) {
            targets.set(`${namespaceOf(resource)}/Deployment/${KSERVE_CHILDREN.workloadDeployment(name)}`, {
                description: `LLMInferenceService ${name}`,
                startupSeconds: serviceBudget(resource.props, minimum),
            });
        }
        const workload = WORKLOADS.find(([group, kind]) => isKubernetesKind(resource.type, group, kind));
        if (workload !== undefined) {
            targets.set(`${namespaceOf(resource)}/${workload[1]}/${name}`, {
                description: `${workload[1]} ${name}`,
                startupSeconds: minimum,
            });
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

/** An autoscaler: what it scales (a workload by `namespace/Kind/name`, or a TPU target itself), how it scales down, its maximum. */
interface Autoscaler {
    targetKey?: string;
    target?: TpuTarget;
    scaleDown: ScaleDown;
    max: number;
}

/**
 * The autoscalers `resource` declares, read the same way for an HPA (autoscaling/v1, v2beta2, v2), a KEDA ScaledObject
 * and an LLMInferenceService's own `scaling` (and its prefill's), which KServe turns into an HPA or a ScaledObject.
 */
function readAutoscalers(resource: PolicyResource, minimum: number): Autoscaler[] {
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
        const name = resource.props.metadata?.name;
        const onTpu = containersOf(kindOfType(resource.type), resource.props).some(({ container }) => usesTpu(container));
        const target = { description: `LLMInferenceService ${name}`, startupSeconds: serviceBudget(resource.props, minimum) };
        return [spec.scaling, spec.prefill?.scaling].flatMap((scaling: Props | undefined) => {
            if (!onTpu || scaling === undefined || scaling === null || typeof scaling.maxReplicas !== "number") {
                return [];
            }
            const min = scaling.minReplicas ?? 1;
            const scaleDown: ScaleDown = scaling.wva?.keda
                ? kedaScaleDown(scaling.wva.keda, min, scaling.maxReplicas)
                : { hpaWindow: hpaWindow(scaling.wva?.hpa?.behavior, min, scaling.maxReplicas) };
            return [{ target, scaleDown, max: scaling.maxReplicas }];
        });
    }
    return [];
}

/** The most nodes a TPU pool may grow to: its autoscaling ceiling, else its fixed size. */
function poolMaximum(pool: Props): number | undefined {
    return pool.autoscaling?.maxNodeCount ?? pool.autoscaling?.totalMaxNodeCount ?? pool.nodeCount ?? pool.initialNodeCount;
}

/** Enforces lesson tpu-autoscaling (policies/facts/lessons). */
export const requireTpuAwareAutoscaling: StackValidationPolicy = {
    ...policyText(
        "require-tpu-aware-autoscaling",
        "An autoscaler on TPU model servers must hold scale-down for at least their startup budget, and all of them together must not reach past what the TPU node pools can hold.",
    ),
    enforcementLevel: "advisory",
    severity: "medium",
    configSchema: {
        properties: {
            minimumStartupSeconds: {
                type: "integer",
                default: MINIMUM_TPU_STARTUP_SECONDS,
                description: "Startup budget of a TPU server that carries no estimate of its own.",
            },
        },
    },
    validateStack: (args, reportViolation) => {
        const minimum = args.getConfig<{ minimumStartupSeconds?: number }>().minimumStartupSeconds ?? MINIMUM_TPU_STARTUP_SECONDS;
        const targets = tpuTargets(args.resources, minimum);
        const onTpu = args.resources.flatMap((resource) =>
            readAutoscalers(resource, minimum).flatMap((autoscaler) => {
                const target = autoscaler.target ?? (autoscaler.targetKey !== undefined ? targets.get(autoscaler.targetKey) : undefined);
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
        const pools = tpuV6ePools(args.resources).map((pool) =>
            poolMaximum(
                pool.path.startsWith("nodePools[") ? pool.resource.props.nodePools[Number(/\d+/.exec(pool.path)![0])] : pool.resource.props,
            ),
        );
        if (pools.length === 0 || pools.some((maximum) => maximum === undefined)) {
            return;
        }
        const capacity = (pools as number[]).reduce((sum, maximum) => sum + maximum, 0);
        const wanted = onTpu.reduce((sum, { autoscaler }) => sum + autoscaler.max, 0);
        if (wanted > capacity) {
            for (const { resource } of onTpu) {
                reportViolation(
                    `${resource.props.kind} ${resource.props.metadata?.name}: the autoscalers on TPU servers may ask for ${wanted} replicas together, but the TPU node pools hold at most ${capacity} nodes; the rest would stay Pending.`,
                    resource.urn,
                );
            }
        }
    },
};
