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
    ["leaderworkerset.x-k8s.io", "LeaderWorkerSet"],
];

/** A TPU workload an autoscaler may target, with the startup budget its replicas need. */
interface TpuTarget {
    description: string;
    startupSeconds: number;
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
            const start = declaredStart(resource.props);
            targets.set(`${namespaceOf(resource)}/Deployment/${KSERVE_CHILDREN.workloadDeployment(name)}`, {
                description: `LLMInferenceService ${name}`,
                startupSeconds: start !== undefined ? tpuStartupBudgetSeconds(start, minimum) : minimum,
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

/** An autoscaler's target, scale-down window and maximum, read the same way for KEDA and for an HPA. */
function readAutoscaler(resource: PolicyResource): { target: Props; window: number; max: number } | undefined {
    const spec = resource.props.spec ?? {};
    if (isKubernetesKind(resource.type, "keda.sh", "ScaledObject")) {
        const window = spec.advanced?.horizontalPodAutoscalerConfig?.behavior?.scaleDown?.stabilizationWindowSeconds;
        // KEDA's scaleTargetRef.kind defaults to Deployment.
        return {
            target: { kind: "Deployment", ...spec.scaleTargetRef },
            window: window ?? DEFAULT_SCALE_DOWN_WINDOW_SECONDS,
            max: spec.maxReplicaCount ?? KEDA_DEFAULT_MAX_REPLICAS,
        };
    }
    if (isKubernetesKind(resource.type, "autoscaling", "HorizontalPodAutoscaler")) {
        const window = spec.behavior?.scaleDown?.stabilizationWindowSeconds;
        return { target: spec.scaleTargetRef ?? {}, window: window ?? DEFAULT_SCALE_DOWN_WINDOW_SECONDS, max: spec.maxReplicas };
    }
    return undefined;
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
        const onTpu = args.resources.flatMap((resource) => {
            const autoscaler = readAutoscaler(resource);
            const target = autoscaler && targets.get(`${namespaceOf(resource)}/${autoscaler.target.kind}/${autoscaler.target.name}`);
            return autoscaler && target ? [{ resource, autoscaler, target }] : [];
        });
        if (onTpu.length === 0) {
            args.notApplicable("no autoscaler targets a TPU workload");
        }
        for (const { resource, autoscaler, target } of onTpu) {
            if (autoscaler.window < target.startupSeconds) {
                reportViolation(
                    `${resource.props.kind} ${resource.props.metadata?.name} may remove a replica of ${target.description} ${autoscaler.window} s after scaling up, within the ${target.startupSeconds} s its replicas take to start; hold scale-down for at least ${target.startupSeconds} s.`,
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
