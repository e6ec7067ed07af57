/**
 * TPU v6e capacity against TPU pods: the node pools the stack declares (NodePool resources, or pools inline in a
 * Cluster), with their machine type, topology and zones, and where a pod may be placed.
 */
import { PolicyResource } from "@pulumi/policy";
import { TPU_V6E_MACHINE_TYPE_PREFIX, TPU_V6E_MACHINE_TYPES } from "../facts";
import { Props } from "./resources";

/**
 * Where a pod may be placed, as alternatives: its nodeSelector AND one term of its required node affinity (terms are
 * ORed, a term's expressions ANDed); one alternative when it has no terms. Each maps a label to the values it allows
 * (`In`, less `NotIn`), empty when the alternative can never be met; a label it does not constrain is absent.
 */
export function placements(pod: Props): Array<Map<string, string[]>> {
    const selector = new Map<string, string[]>(
        Object.entries((pod.nodeSelector ?? {}) as Record<string, unknown>).map(([label, value]) => [label, [String(value)]]),
    );
    const terms: Props[] = pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
    return (terms.length > 0 ? terms : [{}]).map((term) => {
        const allowed = new Map(selector);
        for (const expression of (term.matchExpressions ?? []) as Props[]) {
            const values = ((expression.values ?? []) as unknown[]).map(String);
            const current = allowed.get(expression.key);
            if (expression.operator === "In") {
                allowed.set(expression.key, current === undefined ? values : current.filter((value) => values.includes(value)));
            } else if (expression.operator === "NotIn" && current !== undefined) {
                allowed.set(
                    expression.key,
                    current.filter((value) => !values.includes(value)),
                );
            }
        }
        return allowed;
    });
}

/** A TPU v6e node pool the stack declares: a NodePool resource, or a pool inline in a Cluster. */
export interface TpuPool {
    resource: PolicyResource;
    /** Where it sits in the resource, for messages. */
    path: string;
    machineType: string;
    /** The slice topology its nodes carry. */
    topology: string | undefined;
    /** Zones it places nodes in; empty when it names none (a regional pool). */
    zones: string[];
    /** The pool's own props: the NodePool's, or the inline pool's. */
    props: Props;
}

/** True when `machineType` is a TPU v6e machine type. */
function isTpuV6e(machineType: unknown): machineType is string {
    return typeof machineType === "string" && machineType.startsWith(TPU_V6E_MACHINE_TYPE_PREFIX);
}

/** Zones named by a pool's nodeLocations, or by a zonal location. */
function zonesOf(nodeLocations: unknown, location: unknown): string[] {
    if (Array.isArray(nodeLocations) && nodeLocations.length > 0) {
        return nodeLocations.map(String);
    }
    return typeof location === "string" && /-[a-z]$/.test(location) ? [location] : [];
}

/** The topology a pool's nodes carry: its multi-host `tpuTopology`, else its machine type's single-host shape. */
function poolTopology(pool: Props, machineType: string): string | undefined {
    return pool.placementPolicy?.tpuTopology ?? TPU_V6E_MACHINE_TYPES[machineType]?.shapes[0].topology;
}

/** Every TPU v6e node pool among `resources`, standalone or inline in a Cluster. */
export function tpuV6ePools(resources: PolicyResource[]): TpuPool[] {
    const clusters = resources.filter((resource) => resource.type === "gcp:container/cluster:Cluster");
    return resources.flatMap((resource): TpuPool[] => {
        const props = resource.props;
        if (resource.type === "gcp:container/nodePool:NodePool" && isTpuV6e(props.nodeConfig?.machineType)) {
            const machineType = props.nodeConfig.machineType;
            // Without nodeLocations a pool takes its cluster's (the cluster input is its name or its id, projects/…/clusters/NAME).
            const cluster = clusters.find(
                (candidate) => typeof props.cluster === "string" && props.cluster.split("/").pop() === candidate.props.name,
            );
            const zones = zonesOf(props.nodeLocations, props.location);
            return [
                {
                    resource,
                    path: "nodeConfig.machineType",
                    machineType,
                    topology: poolTopology(props, machineType),
                    zones: zones.length > 0 || !cluster ? zones : zonesOf(cluster.props.nodeLocations, cluster.props.location),
                    props,
                },
            ];
        }
        if (resource.type === "gcp:container/cluster:Cluster") {
            return ((props.nodePools ?? []) as Props[]).flatMap((pool, index) =>
                isTpuV6e(pool?.nodeConfig?.machineType)
                    ? [
                          {
                              resource,
                              path: `nodePools[${index}]`,
                              machineType: pool.nodeConfig.machineType,
                              topology: poolTopology(pool, pool.nodeConfig.machineType),
                              zones: zonesOf(pool.nodeLocations ?? props.nodeLocations, props.location),
                              props: pool,
                          },
                      ]
                    : [],
            );
        }
        return [];
    });
}
