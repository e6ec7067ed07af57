/**
 * The node pools of a GKE cluster as GKE creates them, however a program declares them: a NodePool resource, a pool
 * inline in a Cluster (`nodePools`), or the cluster's default pool, which its own `nodeConfig` describes and which
 * exists unless the cluster declares pools inline or removes it (`removeDefaultNodePool`).
 */
import { Props } from "./resources";

export const CLUSTER_TYPE = "gcp:container/cluster:Cluster";
export const NODE_POOL_TYPE = "gcp:container/nodePool:NodePool";

/** One node pool: where it sits (for messages), its node and network configuration. */
export interface NodePoolAt {
    where: string;
    kind: "pool" | "inline" | "default";
    nodeConfig: Props;
    networkConfig: Props;
}

/** True for an Autopilot cluster, whose nodes GKE manages (shielded, Workload Identity, its own service account). */
export function isAutopilot(props: Props): boolean {
    return props.enableAutopilot === true;
}

/** The node pools a Cluster or NodePool resource `name` declares (none for an Autopilot cluster or any other resource). */
export function nodePoolsOf(type: string, name: string, props: Props): NodePoolAt[] {
    if (type === NODE_POOL_TYPE) {
        return [{ where: `Node pool ${name}`, kind: "pool", nodeConfig: props.nodeConfig ?? {}, networkConfig: props.networkConfig ?? {} }];
    }
    if (type !== CLUSTER_TYPE || isAutopilot(props)) {
        return [];
    }
    const inline: Props[] = Array.isArray(props.nodePools) ? props.nodePools : [];
    if (inline.length > 0) {
        return inline.map((pool, index) => ({
            where: `Cluster ${name} nodePools[${index}]${pool?.name ? ` (${pool.name})` : ""}`,
            kind: "inline",
            nodeConfig: pool?.nodeConfig ?? {},
            networkConfig: pool?.networkConfig ?? {},
        }));
    }
    return props.removeDefaultNodePool === true
        ? []
        : [
              {
                  where: `Cluster ${name} default node pool (nodeConfig)`,
                  kind: "default",
                  nodeConfig: props.nodeConfig ?? {},
                  networkConfig: {},
              },
          ];
}
