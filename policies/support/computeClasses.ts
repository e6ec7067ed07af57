/**
 * GKE ComputeClasses the stack declares, and the node pools a class's priorities name: what a pod that selects a class
 * may be given. A class's priorities name pools by their GKE name; a TPU priority describes the nodes GKE creates.
 */
import { PolicyResource } from "@pulumi/policy";
import { COMPUTE_CLASS, CapacityOffer, offerOfPool, offerOfPriority } from "../facts";
import { Props } from "./resources";
import { TpuPool } from "./tpuPools";

/** A ComputeClass of the stack. */
export interface DeclaredComputeClass {
    resource: PolicyResource;
    name: string;
    priorities: Props[];
}

/** A node pool's name, standalone or inline in a Cluster, with where it is. */
export interface NamedPool {
    resource: PolicyResource;
    name: string;
    props: Props;
}

/** Every ComputeClass among `resources` whose name is known, by name. */
export function computeClassesOf(resources: PolicyResource[]): Map<string, DeclaredComputeClass> {
    const type = `kubernetes:${COMPUTE_CLASS.apiVersion}:${COMPUTE_CLASS.kind}`;
    return new Map(
        resources
            .filter((resource) => resource.type === type && typeof resource.props.metadata?.name === "string")
            .map((resource) => [
                resource.props.metadata.name as string,
                {
                    resource,
                    name: resource.props.metadata.name as string,
                    priorities: (Array.isArray(resource.props.spec?.priorities) ? resource.props.spec.priorities : []) as Props[],
                },
            ]),
    );
}

/**
 * Whether every node pool among `resources` has a GKE name the preview knows. A real preview knows an auto-name (the
 * provider chooses it at check); where one is missing, a class's pool names cannot be matched and its label decides.
 */
export function poolNamesKnown(resources: PolicyResource[]): boolean {
    return resources.every((resource) =>
        resource.type === "gcp:container/nodePool:NodePool"
            ? typeof resource.props.name === "string"
            : resource.type !== "gcp:container/cluster:Cluster" ||
              ((resource.props.nodePools ?? []) as Props[]).every((pool) => typeof pool?.name === "string"),
    );
}

/** Every node pool among `resources` whose GKE name is known: NodePools and pools inline in a Cluster. */
export function namedPools(resources: PolicyResource[]): NamedPool[] {
    return resources.flatMap((resource): NamedPool[] => {
        if (resource.type === "gcp:container/nodePool:NodePool") {
            return typeof resource.props.name === "string" ? [{ resource, name: resource.props.name, props: resource.props }] : [];
        }
        if (resource.type === "gcp:container/cluster:Cluster") {
            return ((resource.props.nodePools ?? []) as Props[]).flatMap((pool) =>
                typeof pool?.name === "string" ? [{ resource, name: pool.name as string, props: pool }] : [],
            );
        }
        return [];
    });
}

/** The pool names a priority lists (`nodepools`), those known at preview. */
export function poolNamesOf(priority: Props): string[] {
    return (Array.isArray(priority?.nodepools) ? priority.nodepools : []).filter(
        (name: unknown): name is string => typeof name === "string",
    );
}

/**
 * What a class's priorities give a pod: the TPU v6e pools they name (found among `pools` by name, or, where names are
 * not known, the pools that carry the class's label) and their TPU priorities.
 */
export function offersOfClass(computeClass: DeclaredComputeClass, pools: TpuPool[], namesKnown: boolean): CapacityOffer[] {
    return computeClass.priorities.flatMap((priority, index) => {
        const where = `priorities[${index}]`;
        const named = priorityPools(computeClass, priority, pools, namesKnown).map((pool) =>
            offerOfPool(pool.props, pool.topology, `node pool ${poolName(pool)} (${where})`),
        );
        const tpu = offerOfPriority(priority, `${where}.tpu`);
        return [...named, ...(tpu ? [tpu] : [])];
    });
}

/** A TPU pool's GKE name, else its resource's name, for messages. */
export function poolName(pool: TpuPool): string {
    return typeof pool.props.name === "string" ? pool.props.name : pool.resource.name;
}

/** The TPU v6e pools one priority of a class names: by name, or, where names are not known, the pools that carry the class's label. */
function priorityPools(computeClass: DeclaredComputeClass, priority: Props, pools: TpuPool[], namesKnown: boolean): TpuPool[] {
    const labelled = pools.filter((pool) => pool.props.nodeConfig?.labels?.[COMPUTE_CLASS.label] === computeClass.name);
    return poolNamesOf(priority).flatMap((name) => {
        const byName = pools.filter((pool) => pool.props.name === name);
        return byName.length > 0 || namesKnown ? byName : labelled;
    });
}

/**
 * The TPU v6e pools of the stack a class's priorities give nodes from, each once; undefined when a priority describes
 * TPU nodes itself (`tpu`: GKE creates pools for it, which no declared pool bounds).
 */
export function poolsOfClass(computeClass: DeclaredComputeClass, pools: TpuPool[], namesKnown: boolean): TpuPool[] | undefined {
    if (computeClass.priorities.some((priority) => offerOfPriority(priority, "") !== undefined)) {
        return undefined;
    }
    return [...new Set(computeClass.priorities.flatMap((priority) => priorityPools(computeClass, priority, pools, namesKnown)))];
}

/** How an offer reads in a message: `node pool X (priorities[0]): tpu-v6e-slice 2x2, spot`. */
export function describeOffer(offer: CapacityOffer): string {
    const how = [
        offer.spot ? "spot" : offer.flexStart ? "flex-start" : "",
        ...offer.reservations.map((name) => `reservation ${name}`),
    ].filter(Boolean);
    return `${offer.where}: ${offer.accelerator} ${offer.topology ?? "(no topology)"}${how.length > 0 ? `, ${how.join(", ")}` : ""}`;
}
