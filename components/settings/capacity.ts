/**
 * The TPU capacity the stack asks for: the v6e machine type and slice shape of the TPU node pools, how far they scale,
 * and how the capacity is bought (a reservation, on demand, flex-start, spot), in the order GKE tries the options. Any
 * other way of sizing or buying TPU capacity is a setting of this area.
 */
import { z } from "zod";
import {
    FLEX_START_MAX_RUN_SECONDS,
    GKE_LIMITS,
    GKE_TPU_V6E_ZONES,
    TPU_CAPACITY_OPTIONS,
    TPU_CAPACITY_OPTION_NAMES,
    TPU_V6E_MACHINE_TYPES,
    TpuCapacityOption,
    findTpuShape,
    regionOfZone,
} from "@gke-tpu-inference/facts";
import { TPU_CAPACITY_ORDERS, TpuCapacityOrder } from "./capacityOrder";
import { v6eZonesAllowedIn } from "./cluster";
import { Rule, Setting, ValuesOf, oneOf, says, wholeNumber } from "./setting";

/** How TPU capacity is bought, as the one-option settings name it. */
export type TpuProvisioning = "on-demand" | "spot" | "reservation";
const TPU_PROVISIONING: readonly TpuProvisioning[] = ["on-demand", "spot", "reservation"];

/** One option of the capacity plan (a rung of the fallback): one node pool that buys TPU VMs this way. */
export type TpuCapacityRung =
    | {
          type: "reservation";
          /** The specific reservation in each of the option's zones: its name, or `projects/<owner>/reservations/<name>` when shared, maybe with `/reservationBlocks/<block>`. */
          name: string;
      }
    | { type: "any-reservation" }
    | { type: "on-demand" }
    | {
          type: "flex-start";
          /** How long GKE lets each node run before reclaiming it. */
          maxRunDurationSeconds: number;
      }
    | { type: "spot" };

/** One option of the plan and the zones it buys in: a node pool in each. */
export type ZonedCapacityRung = TpuCapacityRung & {
    /** GKE TPU v6e zones of the stack's region, each once; the first option's order is the plan's order of zones. */
    zones: string[];
};

/** The TPU v6e node pool as the stack asks for it, already checked against the catalog. */
export interface TpuSettings {
    machineType: string;
    topology: string;
    /** Chips on one VM, from the catalog. */
    chipsPerVm: number;
    /** VMs in one slice, from the catalog; more than one means a multi-host slice. */
    hostsPerSlice: number;
    /** Autoscaler floor of the first option's pool; 0 lets it scale to nothing (paused). Fallback pools start from 0. */
    minNodes: number;
    /** Autoscaler ceiling of every option's pool. */
    maxNodes: number;
    /** The options in the plan's order, each with its zones; one pool is a plain pool, more are a fallback through a ComputeClass. */
    capacity: ZonedCapacityRung[];
    /** How the ComputeClass orders the pools of options in several zones. */
    order: TpuCapacityOrder;
}

/** A GCP resource name: lowercase letters, digits and hyphens, starting with a letter, at most 63 characters. */
const NAME = "[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?";
/**
 * A reservation as a node pool's affinity names it: its name in the project, or `projects/<owner>/reservations/<name>`
 * for one shared from another project, either followed by `/reservationBlocks/<block>` to take one block. Source:
 * `CAPACITY_SOURCES.sharedReservations` in the catalog.
 */
const RESERVATION_NAME = new RegExp(`^(?:projects/[a-z][-a-z0-9]{4,28}[a-z0-9]/reservations/)?${NAME}(?:/reservationBlocks/${NAME})?$`);
const RESERVATION_NAME_ALLOWED =
    "a reservation's name (lowercase letters, digits and hyphens, starting with a letter, at most 63 characters), or projects/<owner>/reservations/<name> for one shared from another project, either with /reservationBlocks/<block> for one of its blocks";

/** The fields every option takes. */
const COMMON_FIELDS = ["type", "zones"];
/** The fields each option takes besides the common ones. */
const RUNG_FIELDS: Readonly<Record<TpuCapacityOption, readonly string[]>> = {
    reservation: ["name"],
    "any-reservation": [],
    "on-demand": [],
    "flex-start": ["maxRunDurationSeconds"],
    spot: [],
};

/** What an option of tpuCapacity may say, for messages. */
function fieldsAllowed(type: TpuCapacityOption): string {
    return [...COMMON_FIELDS, ...RUNG_FIELDS[type]].join(", ");
}

const ZONES_ALLOWED = 'a non-empty list of the GKE TPU v6e zones of the stack\'s region, each once, such as ["us-east5-a", "us-east5-b"]';

/** Problems of an option's `zones` that need no other setting: a non-empty list of strings, each zone once. */
function zonesIssues(zones: unknown): Array<{ path: PropertyKey[]; message: string }> {
    if (!Array.isArray(zones) || zones.length === 0 || !zones.every((zone) => typeof zone === "string")) {
        return [{ path: [], message: says("is not a list of zones", ZONES_ALLOWED) }];
    }
    return zones.flatMap((zone, index) => {
        const first = zones.indexOf(zone);
        return first < index ? [{ path: [index], message: says(`repeats zones[${first}]`, "each zone once per option") }] : [];
    });
}

/** A rung's identity for the duplicate check: reservations once per name, every other option once. */
function rungIdentity(rung: Record<string, unknown>): string {
    return rung.type === "reservation" ? `reservation/${String(rung.name)}` : String(rung.type);
}

/** Checks each option of tpuCapacity on its own and against the ones before it; messages name the field at fault. */
const CAPACITY_SCHEMA = z
    .array(z.record(z.string(), z.unknown(), { error: says("is not an object", 'an object such as {"type": "on-demand"}') }), {
        error: says("is not a list", 'a list of options such as [{"type": "on-demand"}, {"type": "spot"}]'),
    })
    .superRefine((rungs, ctx) => {
        const seen = new Map<string, number>();
        rungs.forEach((rung, index) => {
            const type = rung.type;
            if (typeof type !== "string" || !TPU_CAPACITY_OPTION_NAMES.includes(type as TpuCapacityOption)) {
                ctx.addIssue({
                    code: "custom",
                    path: [index, "type"],
                    message: says("is not a TPU capacity option", TPU_CAPACITY_OPTION_NAMES.join(", ")),
                });
                return;
            }
            const option = type as TpuCapacityOption;
            for (const field of Object.keys(rung).filter(
                (field) => !COMMON_FIELDS.includes(field) && !RUNG_FIELDS[option].includes(field),
            )) {
                ctx.addIssue({
                    code: "custom",
                    path: [index, field],
                    message:
                        option === "flex-start" && field === "spot"
                            ? says(
                                  'is not allowed on a "flex-start" option: GKE\'s flex-start is incompatible with spot',
                                  'spot as an option of its own, {"type": "spot"}, after flex-start',
                              )
                            : says(`is not a field of a "${option}" option`, fieldsAllowed(option)),
                });
            }
            if (option === "reservation") {
                if (typeof rung.name !== "string" || !RESERVATION_NAME.test(rung.name)) {
                    ctx.addIssue({
                        code: "custom",
                        path: [index, "name"],
                        message:
                            rung.name === undefined
                                ? says(
                                      'is not set on a "reservation" option',
                                      `a specific TPU reservation in the zone, by ${RESERVATION_NAME_ALLOWED}`,
                                  )
                                : says("is not a reservation name", RESERVATION_NAME_ALLOWED),
                    });
                }
            }
            if (option === "flex-start" && rung.maxRunDurationSeconds !== undefined) {
                const { minimum, maximum } = FLEX_START_MAX_RUN_SECONDS;
                const seconds = rung.maxRunDurationSeconds;
                if (typeof seconds !== "number" || !Number.isSafeInteger(seconds) || seconds < minimum || seconds > maximum) {
                    ctx.addIssue({
                        code: "custom",
                        path: [index, "maxRunDurationSeconds"],
                        message: says(
                            "is not a flex-start run limit",
                            `a whole number of seconds from ${minimum} to ${maximum} (GKE runs a flex-start node for at most seven days)`,
                        ),
                    });
                }
            }
            if (rung.zones !== undefined) {
                for (const issue of zonesIssues(rung.zones)) {
                    ctx.addIssue({ code: "custom", path: [index, "zones", ...issue.path], message: issue.message });
                }
            }
            const identity = rungIdentity(rung);
            const first = seen.get(identity);
            if (first !== undefined) {
                ctx.addIssue({
                    code: "custom",
                    path: [index],
                    message: says(
                        `repeats tpuCapacity[${first}]`,
                        "each option once (a reservation once per name), in the order GKE should try them",
                    ),
                });
            } else {
                seen.set(identity, index);
            }
        });
    });

/**
 * tpuProvisioning and tpuReservation, the one-option plan from before tpuCapacity: deprecated, and removed in the release
 * `removedIn`. Until then a stack that sets either gets a warning at every preview, with the tpuCapacity that keeps
 * its plan ({@link legacyCapacityWarning}).
 */
export const LEGACY_CAPACITY_SETTINGS = {
    names: ["tpuProvisioning", "tpuReservation"],
    replacedBy: "tpuCapacity",
    removedIn: "0.3.0",
} as const;
const DEPRECATED = `Deprecated: ${LEGACY_CAPACITY_SETTINGS.replacedBy} replaces it, and release ${LEGACY_CAPACITY_SETTINGS.removedIn} removes it.`;

/** The TPU node pool's settings, in the order the settings reference lists them. */
export const TPU_POOL_SETTINGS = {
    tpuMachineType: {
        type: "string",
        default: "ct6e-standard-4t",
        description: "TPU v6e machine type of the TPU node pool.",
        allowed: Object.keys(TPU_V6E_MACHINE_TYPES).join(", "),
        schema: oneOf(Object.keys(TPU_V6E_MACHINE_TYPES), "is not a TPU v6e machine type"),
    },
    tpuTopology: {
        type: "string",
        default: "",
        description:
            "Slice topology; empty takes the machine type's single-host shape (2x2 for ct6e-standard-4t); a multi-host shape (4x4 and up) serves one model replica per slice across its hosts.",
        allowed: `empty, or a topology of the machine type (${Object.entries(TPU_V6E_MACHINE_TYPES)
            .map(([machineType, machine]) => `${machineType}: ${machine.shapes.map((shape) => shape.topology).join(", ")}`)
            .join("; ")})`,
        schema: z.string(),
    },
    tpuMinNodes: {
        type: "integer",
        default: 0,
        description: "Autoscaler floor of the TPU pool; 0 lets it scale to nothing; multi-host: 0 or the slice's hosts.",
        allowed: `0 to ${GKE_LIMITS.nodesPerPoolZone}`,
        schema: wholeNumber(0, GKE_LIMITS.nodesPerPoolZone, "GKE's nodes per node pool zone"),
    },
    tpuMaxNodes: {
        type: "integer",
        default: 3,
        description: "Autoscaler ceiling of the TPU pool, one VM per model replica; multi-host: exactly the slice's hosts.",
        allowed: `0 to ${GKE_LIMITS.nodesPerPoolZone}`,
        schema: wholeNumber(0, GKE_LIMITS.nodesPerPoolZone, "GKE's nodes per node pool zone"),
    },
    tpuProvisioning: {
        type: "string",
        default: "on-demand",
        description: `${DEPRECATED} How TPU capacity is bought.`,
        allowed: TPU_PROVISIONING.join(", "),
        schema: oneOf(TPU_PROVISIONING, "is not a TPU provisioning model"),
    },
    tpuReservation: {
        type: "string",
        default: "",
        description: `${DEPRECATED} Name of a specific TPU reservation in the zone; only with tpuProvisioning reservation.`,
        allowed: "empty, or lowercase letters, digits and hyphens, starting with a letter, at most 63 characters",
        schema: z.string().refine((value) => value === "" || RESERVATION_NAME.test(value), {
            error: says("is not a reservation name", RESERVATION_NAME_ALLOWED),
        }),
    },
    tpuCapacity: {
        type: "array<object>",
        default: [],
        description:
            "TPU capacity options in the order GKE tries them, one node pool per option and zone (`zones`, default the stack's zone), ordered by a ComputeClass; empty takes the deprecated tpuProvisioning and tpuReservation as a plan of one. See docs/explanation/tpu-capacity.md.",
        allowed:
            'a list of options, each once: {"type": "reservation", "name": <reservation>}, {"type": "any-reservation"}, {"type": "on-demand"}, ' +
            `{"type": "flex-start", "maxRunDurationSeconds"?: ${FLEX_START_MAX_RUN_SECONDS.minimum} to ${FLEX_START_MAX_RUN_SECONDS.maximum}}, {"type": "spot"}; ` +
            'each may add "zones": GKE TPU v6e zones of the stack\'s region that offer the option, each once',
        schema: CAPACITY_SCHEMA,
    },
    tpuCapacityOrder: {
        type: "string",
        default: "option-first",
        description:
            "How the ComputeClass orders the pools of options in several zones: option-first tries every zone of the first option, then every zone of the next; zone-first tries every option in the first zone, then every option in the next. Zones come in the order the first option lists them, then those later options add, in the order they list them. See docs/explanation/tpu-capacity.md.",
        allowed: TPU_CAPACITY_ORDERS.join(", "),
        schema: oneOf(TPU_CAPACITY_ORDERS, "is not an order of the capacity plan's pools"),
    },
} as const satisfies Record<string, Setting>;

type TpuPoolValues = ValuesOf<typeof TPU_POOL_SETTINGS>;

/** The TPU shape the values select, when the topology is one of the machine type's. */
export function tpuShape(values: Pick<TpuPoolValues, "tpuMachineType" | "tpuTopology">) {
    return findTpuShape(values.tpuMachineType, values.tpuTopology || TPU_V6E_MACHINE_TYPES[values.tpuMachineType].shapes[0].topology);
}

/** The machine type's single-host topologies, for messages. */
export function singleHostTopologies(machineType: string): string {
    return TPU_V6E_MACHINE_TYPES[machineType].shapes
        .filter((candidate) => candidate.hosts === 1)
        .map((candidate) => candidate.topology)
        .join(", ");
}

export const topologyOfMachineType: Rule<Pick<TpuPoolValues, "tpuMachineType" | "tpuTopology">> = {
    description: "tpuTopology, when set, is a topology of tpuMachineType.",
    reads: ["tpuMachineType", "tpuTopology"],
    check: ({ tpuMachineType, tpuTopology }, key) => {
        const topologies = TPU_V6E_MACHINE_TYPES[tpuMachineType].shapes.map((shape) => shape.topology);
        return tpuTopology === "" || topologies.includes(tpuTopology)
            ? []
            : [
                  `${key("tpuTopology")} = ${JSON.stringify(tpuTopology)} ${says(`is not a topology of ${tpuMachineType}`, topologies.join(", "))}`,
              ];
    },
};

export const tpuNodeBounds: Rule<Pick<TpuPoolValues, "tpuMachineType" | "tpuTopology" | "tpuMinNodes" | "tpuMaxNodes">> = {
    description:
        "tpuMinNodes is at most tpuMaxNodes; a multi-host slice scales as one unit, so tpuMaxNodes is its hosts and tpuMinNodes 0 or its hosts.",
    reads: ["tpuMachineType", "tpuTopology", "tpuMinNodes", "tpuMaxNodes"],
    check: (values, key) => {
        const shape = tpuShape(values);
        if (shape === undefined) {
            return [];
        }
        if (values.tpuMinNodes > values.tpuMaxNodes) {
            return [
                `${key("tpuMinNodes")} = ${values.tpuMinNodes} is greater than ${key("tpuMaxNodes")} = ${values.tpuMaxNodes}; allowed: tpuMinNodes <= tpuMaxNodes`,
            ];
        }
        if (shape.hosts > 1 && (values.tpuMaxNodes !== shape.hosts || (values.tpuMinNodes !== 0 && values.tpuMinNodes !== shape.hosts))) {
            return [
                `${key("tpuMaxNodes")} = ${values.tpuMaxNodes} with tpuMinNodes = ${values.tpuMinNodes} cannot hold one ${shape.topology} slice of ${values.tpuMachineType}, ` +
                    `which is ${shape.hosts} hosts scaled as one unit; allowed: tpuMaxNodes = ${shape.hosts} and tpuMinNodes = 0 or ${shape.hosts}`,
            ];
        }
        return [];
    },
};

export const reservationWithProvisioning: Rule<Pick<TpuPoolValues, "tpuProvisioning" | "tpuReservation"> & { zone: string }> = {
    description: "tpuReservation is set exactly when tpuProvisioning is reservation.",
    reads: ["zone", "tpuProvisioning", "tpuReservation"],
    check: ({ zone, tpuProvisioning, tpuReservation }, key) => {
        if (tpuProvisioning === "reservation" && tpuReservation === "") {
            return [
                `${key("tpuReservation")} is not set but ${key("tpuProvisioning")} = "reservation"; allowed: the name of a specific TPU reservation in ${zone}`,
            ];
        }
        if (tpuReservation !== "" && tpuProvisioning !== "reservation") {
            return [
                `${key("tpuReservation")} = ${JSON.stringify(tpuReservation)} is set but ${key("tpuProvisioning")} = ${JSON.stringify(tpuProvisioning)}; allowed: tpuReservation only with tpuProvisioning = "reservation"`,
            ];
        }
        return [];
    },
};

/** The plan's options in order: tpuCapacity, or the one option tpuProvisioning and tpuReservation describe. */
function capacityOf(values: Pick<TpuPoolValues, "tpuCapacity" | "tpuProvisioning" | "tpuReservation">): TpuCapacityRung[] {
    if (values.tpuCapacity.length === 0) {
        const provisioning = values.tpuProvisioning as TpuProvisioning;
        return [provisioning === "reservation" ? { type: "reservation", name: values.tpuReservation } : { type: provisioning }];
    }
    return values.tpuCapacity.map((rung): TpuCapacityRung => {
        const type = rung.type as TpuCapacityOption;
        switch (type) {
            case "reservation":
                return { type, name: rung.name as string };
            case "flex-start":
                return {
                    type,
                    maxRunDurationSeconds: (rung.maxRunDurationSeconds as number | undefined) ?? FLEX_START_MAX_RUN_SECONDS.default,
                };
            default:
                return { type };
        }
    });
}

/** `tpuCapacity[<i>] = "<type>"`, how the rules below name an option. */
function rungText(key: (name: string) => string, index: number, type: string): string {
    return `${key("tpuCapacity")}[${index}] = ${JSON.stringify(type)}`;
}

export const capacityOrLegacySettings: Rule<Pick<TpuPoolValues, "tpuCapacity" | "tpuProvisioning" | "tpuReservation">> = {
    description: "tpuCapacity, when set, replaces tpuProvisioning and tpuReservation, which then keep their defaults.",
    reads: ["tpuCapacity", "tpuProvisioning", "tpuReservation"],
    check: ({ tpuCapacity, tpuProvisioning, tpuReservation }, key) => {
        if (tpuCapacity.length === 0) {
            return [];
        }
        const legacy = [
            ...(tpuProvisioning !== "on-demand" ? [`${key("tpuProvisioning")} = ${JSON.stringify(tpuProvisioning)}`] : []),
            ...(tpuReservation !== "" ? [`${key("tpuReservation")} = ${JSON.stringify(tpuReservation)}`] : []),
        ];
        return legacy.length === 0
            ? []
            : [
                  `${legacy.join(" and ")} ${legacy.length > 1 ? "are" : "is"} set together with ${key("tpuCapacity")}; ` +
                      'allowed: one of them (tpuCapacity lists every option in order, a reservation as {"type": "reservation", "name": …})',
              ];
    },
};

/** The zones an option of checked tpuCapacity buys in: its own, else the stack's zone. */
function zonesOfRung(rung: Record<string, unknown>, zone: string): string[] {
    return (rung.zones as string[] | undefined) ?? [zone];
}

export const capacityOfferedInZone: Rule<Pick<TpuPoolValues, "tpuCapacity" | "tpuMinNodes"> & { zone: string; region: string }> = {
    description:
        "Every zone of every option of tpuCapacity (default: zone) is a GKE TPU v6e zone of the stack's region that offers the option (flex-start: in its zones); a flex-start first option keeps tpuMinNodes at 0.",
    reads: ["tpuCapacity", "tpuMinNodes", "zone", "region"],
    check: (values, key) => {
        const region = values.region || regionOfZone(values.zone);
        const problems: string[] = [];
        values.tpuCapacity.forEach((rung, index) => {
            const type = String(rung.type);
            const option = TPU_CAPACITY_OPTIONS[type as TpuCapacityOption];
            zonesOfRung(rung, values.zone).forEach((zone, place) => {
                // The stack's zone is already checked on its own (a v6e zone, in the region); a zone the option lists is named by its place.
                const where =
                    rung.zones === undefined ? undefined : `${key("tpuCapacity")}[${index}].zones[${place}] = ${JSON.stringify(zone)}`;
                if (where !== undefined && regionOfZone(zone) !== region) {
                    problems.push(`${where} is not in the stack's region ${region}; allowed: ${v6eZonesAllowedIn(region)}`);
                } else if (where !== undefined && !GKE_TPU_V6E_ZONES.includes(zone)) {
                    problems.push(
                        `${where} is not a zone where GKE offers TPU v6e node pools (TPU VM zones differ); allowed: ${v6eZonesAllowedIn(region)}`,
                    );
                } else if (option.zones !== undefined && !option.zones.includes(zone)) {
                    const problem =
                        where === undefined
                            ? `${rungText(key, index, type)} is not offered for TPU v6e in ${key("zone")} = ${JSON.stringify(values.zone)}`
                            : `${where} does not offer ${JSON.stringify(type)} for TPU v6e`;
                    problems.push(`${problem}; allowed: ${type} in ${option.zones.join(", ")}`);
                }
            });
        });
        if (values.tpuCapacity[0]?.type === "flex-start" && values.tpuMinNodes !== 0) {
            problems.push(
                `${key("tpuMinNodes")} = ${values.tpuMinNodes} with "flex-start" as the first option of ${key("tpuCapacity")}; ` +
                    "allowed: 0 (GKE requires a flex-start pool to scale from zero)",
            );
        }
        return problems;
    },
};

/**
 * The warning for a stack whose plan comes from tpuProvisioning and tpuReservation, which are deprecated: what to run
 * instead, tpuCapacity's same plan of one option, which keeps the pool (its name and inputs depend on the option alone).
 * Pulumi gives every stack the defaults Pulumi.yaml declares (pulumi/pulumi@v3.259.0 pkg/workspace/config.go:327-346),
 * so a legacy setting is the stack's own where it differs from its default; {@link capacityOrLegacySettings} has then
 * made sure tpuCapacity lists nothing.
 */
export function legacyCapacityWarning(
    values: Pick<TpuPoolValues, "tpuProvisioning" | "tpuReservation">,
    key: (name: string) => string,
): string | undefined {
    const { names, replacedBy, removedIn } = LEGACY_CAPACITY_SETTINGS;
    const set = names.filter((name) => values[name] !== TPU_POOL_SETTINGS[name].default);
    if (set.length === 0) {
        return undefined;
    }
    const [option] = capacityOf({ ...values, tpuCapacity: [] });
    const commands = [
        `pulumi config set --path '${replacedBy}[0].type' ${option.type}`,
        ...(option.type === "reservation" ? [`pulumi config set --path '${replacedBy}[0].name' ${option.name}`] : []),
        ...set.map((name) => `pulumi config rm ${name}`),
    ];
    const them = set.length > 1 ? "them" : "it";
    return (
        `${set.map(key).join(" and ")} ${set.length > 1 ? "are" : "is"} deprecated: ${replacedBy} replaces ${them}, and release ${removedIn} removes ${them}; ` +
        `run ${commands.join(" && ")} (the same plan of one option: the TPU pool stays)`
    );
}

/** The TPU pools from checked values; the rules above have made sure the topology is one of the machine type's. */
export function tpuSettingsOf(values: TpuPoolValues & { zone: string }): TpuSettings {
    const shape = tpuShape(values)!;
    return {
        machineType: values.tpuMachineType,
        topology: shape.topology,
        chipsPerVm: TPU_V6E_MACHINE_TYPES[values.tpuMachineType].chipsPerVm,
        hostsPerSlice: shape.hosts,
        minNodes: values.tpuMinNodes,
        maxNodes: values.tpuMaxNodes,
        capacity: capacityOf(values).map((rung, index) => ({ ...rung, zones: zonesOfRung(values.tpuCapacity[index] ?? {}, values.zone) })),
        order: values.tpuCapacityOrder as TpuCapacityOrder,
    };
}
