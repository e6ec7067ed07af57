import { StackValidationPolicy } from "@pulumi/policy";
import { TPU_NODE, TPU_V6E_MACHINE_TYPES, containersOf, policyText, usesTpu } from "./facts";
import { effectiveServiceSpec } from "./support/kserve";
import { isLlmInferenceService, kindOfType } from "./support/resources";
import { placements, tpuV6ePools } from "./support/tpuPools";

/** Every topology a TPU v6e node can carry. */
const V6E_TOPOLOGIES = [
    ...new Set(Object.values(TPU_V6E_MACHINE_TYPES).flatMap((machine) => machine.shapes.map((shape) => shape.topology))),
];

/**
 * Enforces lesson tpu-selector (policies/facts/lessons). The selection may be a nodeSelector or a required node
 * affinity; the pools may be NodePools or inline in a Cluster, or live in another stack, when the selector must still
 * name v6e's label and a real v6e topology. Every alternative placement counts (the nodeSelector with each ORed node
 * affinity term), and an LLMInferenceService is read with its base configs merged in, as KServe builds its pods.
 */
export const requireTpuSelectorMatchingPool: StackValidationPolicy = {
    ...policyText(
        "require-tpu-selector-matching-pool",
        "A pod that requests TPU v6e chips must select the accelerator and topology labels that TPU v6e node pools actually carry.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateStack: (args, reportViolation) => {
        const pools = tpuV6ePools(args.resources);
        // With no pool in this stack, any real v6e topology is one some pool can carry.
        const topologies = new Set(pools.length > 0 ? pools.flatMap((pool) => (pool.topology ? [pool.topology] : [])) : V6E_TOPOLOGIES);
        const where = pools.length > 0 ? "no TPU node pool in the stack has" : "is not a TPU v6e topology";
        const shown = (values: string[] | undefined) => JSON.stringify(values?.join(", ") ?? null);
        for (const resource of args.resources) {
            // An LLMInferenceService's pods are its spec over its base configs, as KServe builds them.
            const service = isLlmInferenceService(resource.type) ? effectiveServiceSpec(resource, args.resources) : undefined;
            const seen = new Set<string>();
            for (const { pod, container } of containersOf(
                kindOfType(resource.type),
                service ? { ...resource.props, spec: service.spec } : resource.props,
            )) {
                if (!usesTpu(container) || seen.has(pod.path)) {
                    continue;
                }
                seen.add(pod.path);
                const options = placements(pod.spec);
                const accelerators = options.map((placement) => placement.get(TPU_NODE.acceleratorLabel));
                if (
                    accelerators.every(
                        (values) => values !== undefined && values.length > 0 && !values.some((value) => value.includes("v6e")),
                    )
                ) {
                    // Another TPU generation (v5e, v5p...): not this pack's to judge.
                    continue;
                }
                if (
                    service?.complete === false &&
                    options.some((placement) => !placement.has(TPU_NODE.acceleratorLabel) || !placement.has(TPU_NODE.topologyLabel))
                ) {
                    // A base config outside the stack may select the node.
                    continue;
                }
                // Every alternative a pod may be placed by must lead to a v6e node of a pool's topology.
                const problems = options.map((placement, index) => {
                    const at = `${resource.name} (${pod.path}${options.length > 1 ? `, node affinity term #${index}` : ""})`;
                    const chosen = placement.get(TPU_NODE.acceleratorLabel);
                    const topology = placement.get(TPU_NODE.topologyLabel);
                    if (chosen?.length === 0 || topology?.length === 0) {
                        return `${at} can never be placed: its nodeSelector and required node affinity allow no common ${chosen?.length === 0 ? TPU_NODE.acceleratorLabel : TPU_NODE.topologyLabel}.`;
                    }
                    if (chosen === undefined || !chosen.includes(TPU_NODE.acceleratorValue)) {
                        return `${at} selects ${TPU_NODE.acceleratorLabel} = ${shown(chosen)}; TPU v6e nodes carry "${TPU_NODE.acceleratorValue}".`;
                    }
                    if (topology === undefined || !topology.some((value) => topologies.has(value))) {
                        return `${at} selects ${TPU_NODE.topologyLabel} = ${shown(topology)}, which ${where}; ${pools.length > 0 ? "pools offer" : "v6e topologies are"} ${[...topologies].sort().join(", ")}.`;
                    }
                    return undefined;
                });
                const problem = problems.find((message) => message !== undefined);
                if (problem !== undefined) {
                    reportViolation(problem, resource.urn);
                }
            }
        }
    },
};
