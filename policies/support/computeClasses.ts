/**
 * GKE ComputeClasses the stack declares, and the node pools a class's priorities name: what a pod that selects a class
 * may be given. A class's priorities name pools by their GKE name; a TPU priority describes the nodes GKE creates.
 */
import { PolicyResource } from "@pulumi/policy";
import { COMPUTE_CLASS, CapacityOffer, TPU_NODE, TPU_V6E_MACHINE_TYPES, offerOfPool, offerOfPriority } from "../facts";
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

/** True when a class creates no pool of its own (nodePoolAutoCreation off, the CRD's default): only existing pools serve it. */
export function createsNoPools(computeClass: DeclaredComputeClass): boolean {
    return computeClass.resource.props.spec?.nodePoolAutoCreation?.enabled !== true;
}

/** True when a class lets labelled pools that no priority matches serve it last (whenUnsatisfiable ScaleUpAnyway). */
export function scalesUpAnyway(computeClass: DeclaredComputeClass): boolean {
    return computeClass.resource.props.spec?.whenUnsatisfiable === "ScaleUpAnyway";
}

/** The pools that carry a class's label. */
function labelledPools(computeClass: DeclaredComputeClass, pools: TpuPool[]): TpuPool[] {
    return pools.filter((pool) => pool.props.nodeConfig?.labels?.[COMPUTE_CLASS.label] === computeClass.name);
}

/**
 * Whether a `tpu` priority matches an existing pool as GKE's autoscaler matches them: TPU type, topology and chips per
 * VM exactly (one the priority omits matches nothing), spot where the priority says (true or false), flex-start where
 * it asks for it, and a reservation rule only a pool whose affinity consumes that way. Source: {@link CAPACITY_SOURCES.classPools}.
 */
export function tpuPriorityMatches(priority: Props, pool: TpuPool): boolean {
    const wanted = offerOfPriority(priority, "");
    const offered = offerOfPool(pool.props, pool.topology, "");
    const tpu: Props = priority?.tpu ?? {};
    const affinity: Props | undefined = pool.props.nodeConfig?.reservationAffinity;
    const rule: Props | undefined = priority?.reservations;
    const reservations =
        rule === undefined ||
        (rule.affinity === "Specific"
            ? offered.reservations.some((reference) =>
                  wanted!.reservations.includes(
                      reference
                          .replace(/\/reservationBlocks\/.*$/, "")
                          .split("/")
                          .pop()!,
                  ),
              )
            : rule.affinity === "AnyBestEffort"
              ? affinity?.consumeReservationType === "ANY_RESERVATION"
              : affinity?.consumeReservationType === "NO_RESERVATION");
    return (
        wanted !== undefined &&
        wanted.accelerator === TPU_NODE.acceleratorValue &&
        wanted.topology === pool.topology &&
        Number(tpu.count) === TPU_V6E_MACHINE_TYPES[pool.machineType]?.chipsPerVm &&
        // A priority that names no spot takes either (its rule's spot is nil: rules/machine_spec.go); one without
        // flex-start takes any pool (rules/flex_start.go: a disabled rule matches).
        (priority?.spot === undefined || wanted.spot === offered.spot) &&
        (!wanted.flexStart || offered.flexStart) &&
        reservations
    );
}

/**
 * The TPU v6e pools of the stack a class gives nodes from, each once, in its order, with the priority that gives each:
 * those its priorities name (by name, or, where names are not known, the pools that carry its label), the labelled
 * pools its `tpu` priorities match, and with ScaleUpAnyway every other labelled pool last.
 */
function givenPools(computeClass: DeclaredComputeClass, pools: TpuPool[], namesKnown: boolean): Array<{ pool: TpuPool; where: string }> {
    const labelled = labelledPools(computeClass, pools);
    const given = computeClass.priorities.flatMap((priority, index) =>
        (offerOfPriority(priority, "") !== undefined
            ? labelled.filter((pool) => tpuPriorityMatches(priority, pool))
            : priorityPools(computeClass, priority, pools, namesKnown)
        ).map((pool) => ({ pool, where: `priorities[${index}]` })),
    );
    const last = scalesUpAnyway(computeClass) ? labelled.map((pool) => ({ pool, where: "whenUnsatisfiable ScaleUpAnyway" })) : [];
    return [...given, ...last].filter((entry, index, all) => all.findIndex((other) => other.pool === entry.pool) === index);
}

/**
 * The TPU v6e pools of the stack a class gives nodes from ({@link givenPools}); undefined when it may create pools
 * itself (a `tpu` priority with nodePoolAutoCreation on), which no declared pool bounds.
 */
export function poolsOfClass(computeClass: DeclaredComputeClass, pools: TpuPool[], namesKnown: boolean): TpuPool[] | undefined {
    if (!createsNoPools(computeClass) && computeClass.priorities.some((priority) => offerOfPriority(priority, "") !== undefined)) {
        return undefined;
    }
    return givenPools(computeClass, pools, namesKnown).map(({ pool }) => pool);
}

/**
 * What a class's priorities give a pod: the pools it gives nodes from, and what its `tpu` priorities describe where it
 * may create pools for them, or where no pool of the stack matches them (the class then gives no node, which is
 * reported on the class once).
 */
export function offersOfClass(computeClass: DeclaredComputeClass, pools: TpuPool[], namesKnown: boolean): CapacityOffer[] {
    const given = givenPools(computeClass, pools, namesKnown).map(({ pool, where }) =>
        offerOfPool(pool.props, pool.topology, `node pool ${poolName(pool)} (${where})`),
    );
    const described = computeClass.priorities.flatMap((priority, index) => offerOfPriority(priority, `priorities[${index}].tpu`) ?? []);
    return createsNoPools(computeClass) && given.length > 0 ? given : [...given, ...described];
}

/** A TPU pool's GKE name, else its resource's name, for messages. */
export function poolName(pool: TpuPool): string {
    return typeof pool.props.name === "string" ? pool.props.name : pool.resource.name;
}

/** The TPU v6e pools one priority of a class names: by name, or, where names are not known, the pools that carry the class's label. */
function priorityPools(computeClass: DeclaredComputeClass, priority: Props, pools: TpuPool[], namesKnown: boolean): TpuPool[] {
    const labelled = labelledPools(computeClass, pools);
    return poolNamesOf(priority).flatMap((name) => {
        const byName = pools.filter((pool) => pool.props.name === name);
        return byName.length > 0 || namesKnown ? byName : labelled;
    });
}

/** How an offer reads in a message: `node pool X (priorities[0]): tpu-v6e-slice 2x2, spot`. */
export function describeOffer(offer: CapacityOffer): string {
    const how = [
        offer.spot ? "spot" : offer.flexStart ? "flex-start" : "",
        ...offer.reservations.map((name) => `reservation ${name}`),
    ].filter(Boolean);
    return `${offer.where}: ${offer.accelerator} ${offer.topology ?? "(no topology)"}${how.length > 0 ? `, ${how.join(", ")}` : ""}`;
}
