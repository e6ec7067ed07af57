import { StackValidationPolicy } from "@pulumi/policy";
import { PolicyResource } from "@pulumi/policy";
import {
    CAPACITY_SELECTORS,
    COMPUTE_CLASS,
    CapacityOffer,
    TPU_NODE,
    TPU_V6E_MACHINE_TYPES,
    computeClassBinding,
    containersOf,
    offerHasShape,
    offerOfPool,
    PolicyText,
    policyText,
    unmetCapacitySelectors,
    usesTpu,
} from "./facts";
import {
    DeclaredComputeClass,
    computeClassesOf,
    createsNoPools,
    scalesUpAnyway,
    tpuPriorityMatches,
    describeOffer,
    namedPools,
    offersOfClass,
    poolName,
    poolNamesKnown,
    poolNamesOf,
} from "./support/computeClasses";
import { effectiveServiceSpec } from "./support/kserve";
import { isLlmInferenceService, kindOfType } from "./support/resources";
import { TpuPool, placements, tpuV6ePools } from "./support/tpuPools";

/** Every topology a TPU v6e node can carry. */
const V6E_TOPOLOGIES = [
    ...new Set(Object.values(TPU_V6E_MACHINE_TYPES).flatMap((machine) => machine.shapes.map((shape) => shape.topology))),
];

const shown = (values: readonly string[] | undefined) => JSON.stringify(values?.join(", ") ?? null);

/**
 * A ComputeClass's pools that cannot serve it: a name in its priorities no node pool of the stack has (only where the
 * stack declares pools, which may otherwise live in another stack); a pool it names without its label or taint, or
 * without autoscaling; a pool that carries its label but no priority matches; and a class that can create no pool whose
 * TPU priorities match none of the stack's pools. Source: {@link CAPACITY_SOURCES.classPools}.
 */
function classPoolProblems(computeClass: DeclaredComputeClass, resources: PolicyResource[]): Array<[string, string]> {
    const pools = namedPools(resources);
    const declaresPools = resources.some(
        (resource) => resource.type === "gcp:container/nodePool:NodePool" || (resource.props.nodePools ?? []).length > 0,
    );
    const namesKnown = poolNamesKnown(resources);
    const binding = `${COMPUTE_CLASS.label}=${computeClass.name}`;
    const named = computeClass.priorities.flatMap((priority, index) =>
        poolNamesOf(priority).flatMap((name): Array<[string, string]> => {
            const pool = pools.find((candidate) => candidate.name === name);
            if (!pool) {
                return declaresPools && namesKnown
                    ? [
                          [
                              `ComputeClass ${computeClass.name} names node pool ${name} in priorities[${index}], which no node pool of the stack is; GKE reports NodePoolNotExist and skips it.`,
                              computeClass.resource.urn,
                          ],
                      ]
                    : [];
            }
            const { label, taint } = computeClassBinding(pool.props, computeClass.name);
            const missing = [...(label ? [] : [`label ${binding}`]), ...(taint ? [] : [`taint ${binding}`])];
            const where = `Node pool ${name}, named in ComputeClass ${computeClass.name}'s priorities[${index}],`;
            return [
                ...(missing.length > 0
                    ? [
                          [
                              `${where} lacks its ${missing.join(" and ")} (nodeConfig.labels, nodeConfig.taints); GKE binds a pool it did not create to a class only through both.`,
                              pool.resource.urn,
                          ] as [string, string],
                      ]
                    : []),
                ...(!pool.props.autoscaling
                    ? [
                          [
                              `${where} has no autoscaling: GKE's autoscaler never adds a node to it, so the class never falls back to it; set autoscaling on the pool.`,
                              pool.resource.urn,
                          ] as [string, string],
                      ]
                    : []),
            ];
        }),
    );
    const tpuPriorities = computeClass.priorities.flatMap((priority, index) => (priority?.tpu !== undefined ? [index] : []));
    const v6ePools = tpuV6ePools(resources);
    const labelled = v6ePools.filter((pool) => pool.props.nodeConfig?.labels?.[COMPUTE_CLASS.label] === computeClass.name);
    // A labelled pool that no priority names (or, for a tpu priority, matches) is not given for the class.
    const unmatched =
        namesKnown && !scalesUpAnyway(computeClass)
            ? labelled
                  .filter(
                      (pool) =>
                          !computeClass.priorities.some((priority) =>
                              priority?.tpu !== undefined
                                  ? tpuPriorityMatches(priority, pool)
                                  : poolNamesOf(priority).includes(pool.props.name),
                          ),
                  )
                  .map((pool): [string, string] => [
                      `Node pool ${poolName(pool)} carries ComputeClass ${computeClass.name}'s label, but no priority of the class names or matches it: GKE does not scale it for the class (NodepoolMisconfigured); name it in a priority, or drop the label.`,
                      pool.resource.urn,
                  ])
            : [];
    const starved =
        createsNoPools(computeClass) &&
        declaresPools &&
        tpuPriorities.length > 0 &&
        tpuPriorities.length === computeClass.priorities.length &&
        !labelled.some(
            (pool) =>
                pool.props.autoscaling &&
                (scalesUpAnyway(computeClass) || tpuPriorities.some((index) => tpuPriorityMatches(computeClass.priorities[index], pool))),
        )
            ? [
                  [
                      `ComputeClass ${computeClass.name} gives no node: its priorities describe TPU nodes and nodePoolAutoCreation is off, so only an autoscaled pool of the stack that carries its label and matches one could serve it, and none does.`,
                      computeClass.resource.urn,
                  ] as [string, string],
              ]
            : [];
    // A class that gives no node at all is one finding, not one per pool it fails to match.
    return [...named, ...(starved.length > 0 ? starved : unmatched)];
}

/**
 * What keeps a pod's placement from a node of the capacity it selects: a ComputeClass the stack does not declare, a
 * class whose priorities give no node of the pod's shape, or spot, flex-start or reservation labels no pool (or class
 * priority) of its shape provides. Undefined when it selects neither, or when what it selects lives outside the stack.
 */
function capacityProblem(
    placement: Map<string, string[]>,
    at: string,
    pools: TpuPool[],
    classes: Map<string, DeclaredComputeClass>,
    namesKnown: boolean,
): string | undefined {
    const wanted = placement.get(COMPUTE_CLASS.label);
    const asked = CAPACITY_SELECTORS.filter((key) => placement.has(key));
    let offers: CapacityOffer[];
    let through = "";
    if (wanted !== undefined) {
        if (wanted.length === 0) {
            return `${at} can never be placed: its nodeSelector and required node affinity allow no common ${COMPUTE_CLASS.label}.`;
        }
        if (classes.size === 0 && pools.length === 0) {
            return undefined;
        }
        const found = wanted.flatMap((name) => classes.get(name) ?? []);
        if (found.length === 0) {
            return `${at} selects ${COMPUTE_CLASS.label} = ${shown(wanted)}, but the stack declares no such ComputeClass${classes.size > 0 ? ` (it declares ${[...classes.keys()].sort().join(", ")})` : ""}; no node is ever given to it.`;
        }
        const names = found.map((computeClass) => computeClass.name).join(", ");
        const given = found.flatMap((computeClass) => offersOfClass(computeClass, pools, namesKnown));
        offers = given.filter((offer) => offerHasShape(placement, offer));
        if (offers.length === 0) {
            const shape = [TPU_NODE.acceleratorLabel, TPU_NODE.topologyLabel]
                .map((label) => placement.get(label)?.join("|"))
                .filter(Boolean)
                .map((part) => `${part} `)
                .join("");
            return `${at} selects ComputeClass ${names}, whose priorities give no ${shape}TPU node: ${given.length > 0 ? given.map(describeOffer).join("; ") : "they name no TPU v6e node pool of the stack and no TPU shape"}.`;
        }
        through = ` through ComputeClass ${names}`;
    } else {
        offers = pools
            .map((pool) => offerOfPool(pool.props, pool.topology, `node pool ${pool.resource.name}`))
            .filter((offer) => offerHasShape(placement, offer));
        if (offers.length === 0) {
            return undefined;
        }
    }
    if (asked.length === 0 || offers.some((offer) => unmetCapacitySelectors(placement, offer).length === 0)) {
        return undefined;
    }
    return `${at} selects ${asked.map((key) => `${key} = ${shown(placement.get(key))}`).join(" and ")}${through}, which no TPU node of its shape provides: ${offers.map(describeOffer).join("; ")}.`;
}

/**
 * The selection may be a nodeSelector or a required node affinity; the pools may be NodePools or inline in a Cluster,
 * or live in another stack, when the selector must still name v6e's label and a real v6e topology. Every alternative
 * placement counts (the nodeSelector with each ORed node affinity term), and an LLMInferenceService is read with its
 * base configs merged in, as KServe builds its pods. A pod that selects a ComputeClass is judged by what the class's
 * priorities give (the pools they name, its TPU priorities), and the pools a class names must carry its label and
 * taint; spot, flex-start and reservation selectors need a pool (or a class priority) of that kind.
 */
export const requireTpuSelectorMatchingPool: StackValidationPolicy & PolicyText = {
    ...policyText(
        "tpu-selector",
        "require-tpu-selector-matching-pool",
        "A pod that requests TPU v6e chips must select the accelerator and topology labels that TPU v6e node pools actually carry, or a ComputeClass of the stack whose priorities give such nodes, and only capacity (spot, flex-start, a reservation) some pool provides.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateStack: (args, reportViolation) => {
        const pools = tpuV6ePools(args.resources);
        // With no pool in this stack, any real v6e topology is one some pool can carry.
        const topologies = new Set(pools.length > 0 ? pools.flatMap((pool) => (pool.topology ? [pool.topology] : [])) : V6E_TOPOLOGIES);
        const where = pools.length > 0 ? "no TPU node pool in the stack has" : "is not a TPU v6e topology";
        const classes = computeClassesOf(args.resources);
        const namesKnown = poolNamesKnown(args.resources);
        for (const computeClass of classes.values()) {
            for (const [message, urn] of classPoolProblems(computeClass, args.resources)) {
                reportViolation(message, urn);
            }
        }
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
                    if (placement.has(COMPUTE_CLASS.label)) {
                        // The class gives the node: its priorities say which accelerator and topology.
                        return capacityProblem(placement, at, pools, classes, namesKnown);
                    }
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
                    return capacityProblem(placement, at, pools, classes, namesKnown);
                });
                const problem = problems.find((message) => message !== undefined);
                if (problem !== undefined) {
                    reportViolation(problem, resource.urn);
                }
            }
        }
    },
};
