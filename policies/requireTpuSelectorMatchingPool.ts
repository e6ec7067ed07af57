import { StackValidationPolicy } from "@pulumi/policy";
import { TPU_NODE, TPU_V6E_MACHINE_TYPES } from "@gke-tpu-inference/facts";
import { containersOf, selectedValues, tpuV6ePools, usesTpu } from "./support";

/** Every topology a TPU v6e node can carry. */
const V6E_TOPOLOGIES = [...new Set(Object.values(TPU_V6E_MACHINE_TYPES).flatMap((machine) => machine.shapes.map((shape) => shape.topology)))];

/**
 * Seed 003, issue #2 and the seed manifests: the accelerator names differ between the TPU VM
 * API (`tpu-v6e`) and GKE's node label (`tpu-v6e-slice`); a pod that selects the wrong one,
 * or a topology no pool has, stays Pending forever. The selection may be a nodeSelector or a
 * required node affinity; the pools may be NodePools or inline in a Cluster, or live in another
 * stack, when the selector must still name v6e's label and a real v6e topology.
 */
export const requireTpuSelectorMatchingPool: StackValidationPolicy = {
    name: "require-tpu-selector-matching-pool",
    description: "A pod that requests TPU v6e chips must select the accelerator and topology labels that TPU v6e node pools actually carry.",
    enforcementLevel: "mandatory",
    severity: "high",
    remediationSteps: `Select ${TPU_NODE.acceleratorLabel}: ${TPU_NODE.acceleratorValue} and ${TPU_NODE.topologyLabel}: the pool's topology (e.g. 2x2 for ct6e-standard-4t), with a nodeSelector or a required node affinity.`,
    validateStack: (args, reportViolation) => {
        const pools = tpuV6ePools(args.resources);
        // With no pool in this stack, any real v6e topology is one some pool can carry.
        const topologies = new Set(pools.length > 0 ? pools.flatMap((pool) => (pool.topology ? [pool.topology] : [])) : V6E_TOPOLOGIES);
        const where = pools.length > 0 ? "no TPU node pool in the stack has" : "is not a TPU v6e topology";
        for (const resource of args.resources) {
            const seen = new Set<string>();
            for (const { pod, container } of containersOf(resource.type, resource.props)) {
                if (!usesTpu(container) || seen.has(pod.path)) {
                    continue;
                }
                seen.add(pod.path);
                const accelerators = selectedValues(pod.spec, TPU_NODE.acceleratorLabel);
                const selected = selectedValues(pod.spec, TPU_NODE.topologyLabel);
                const aimsAtV6e = accelerators === undefined || accelerators.some((value) => value.includes("v6e"));
                if (!aimsAtV6e) {
                    // Another TPU generation (v5e, v5p...): not this pack's to judge.
                    continue;
                }
                if (accelerators === undefined || !accelerators.includes(TPU_NODE.acceleratorValue)) {
                    reportViolation(
                        `${resource.name} (${pod.path}) selects ${TPU_NODE.acceleratorLabel} = ${JSON.stringify(accelerators?.join(", ") ?? null)}; TPU v6e nodes carry "${TPU_NODE.acceleratorValue}".`,
                        resource.urn,
                    );
                } else if (selected === undefined || !selected.some((topology) => topologies.has(topology))) {
                    reportViolation(
                        `${resource.name} (${pod.path}) selects ${TPU_NODE.topologyLabel} = ${JSON.stringify(selected?.join(", ") ?? null)}, which ${where}; ${pools.length > 0 ? "pools offer" : "v6e topologies are"} ${[...topologies].sort().join(", ")}.`,
                        resource.urn,
                    );
                }
            }
        }
    },
};
