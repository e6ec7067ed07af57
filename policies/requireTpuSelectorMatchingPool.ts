import { StackValidationPolicy } from "@pulumi/policy";
import { TPU_NODE, TPU_V6E_MACHINE_TYPES } from "../components/catalog";
import { containersOf, isTpuV6eNodePool, usesTpu } from "./support";

/** The topologies a TPU node pool's nodes carry: its multi-host tpuTopology, or its machine type's single-host shape. */
function poolTopologies(props: Record<string, any>): string[] { // eslint-disable-line @typescript-eslint/no-explicit-any
    const multiHost: string | undefined = props.placementPolicy?.tpuTopology;
    if (multiHost) {
        return [multiHost];
    }
    const machine = TPU_V6E_MACHINE_TYPES[props.nodeConfig?.machineType];
    return machine ? [machine.shapes[0].topology] : [];
}

/**
 * Seed 003, issue #2 and the seed manifests: the accelerator names differ between the TPU VM
 * API (`tpu-v6e`) and GKE's node label (`tpu-v6e-slice`); a pod that selects the wrong one,
 * or a topology no pool has, stays Pending forever.
 */
export const requireTpuSelectorMatchingPool: StackValidationPolicy = {
    name: "require-tpu-selector-matching-pool",
    description: "A pod that requests TPU chips must select the accelerator and topology labels that the stack's TPU node pools actually carry.",
    enforcementLevel: "mandatory",
    severity: "high",
    remediationSteps: `Set nodeSelector ${TPU_NODE.acceleratorLabel}: ${TPU_NODE.acceleratorValue} and ${TPU_NODE.topologyLabel} to the pool's topology (e.g. 2x2 for ct6e-standard-4t).`,
    validateStack: (args, reportViolation) => {
        const pools = args.resources.filter((resource) => isTpuV6eNodePool(resource.type, resource.props));
        if (pools.length === 0) {
            args.notApplicable("the stack has no TPU v6e node pool");
        }
        const topologies = new Set(pools.flatMap((pool) => poolTopologies(pool.props)));
        for (const resource of args.resources) {
            const seen = new Set<string>();
            for (const { pod, container } of containersOf(resource.type, resource.props)) {
                if (!usesTpu(container) || seen.has(pod.path)) {
                    continue;
                }
                seen.add(pod.path);
                const selector = pod.spec.nodeSelector ?? {};
                const accelerator = selector[TPU_NODE.acceleratorLabel];
                const topology = selector[TPU_NODE.topologyLabel];
                if (accelerator !== TPU_NODE.acceleratorValue) {
                    reportViolation(
                        `${resource.name} (${pod.path}) selects ${TPU_NODE.acceleratorLabel} = ${JSON.stringify(accelerator ?? null)}; TPU v6e nodes carry "${TPU_NODE.acceleratorValue}".`,
                        resource.urn,
                    );
                } else if (!topologies.has(topology)) {
                    reportViolation(
                        `${resource.name} (${pod.path}) selects ${TPU_NODE.topologyLabel} = ${JSON.stringify(topology ?? null)}, which no TPU node pool in the stack has; pools offer ${[...topologies].sort().join(", ")}.`,
                        resource.urn,
                    );
                }
            }
        }
    },
};
