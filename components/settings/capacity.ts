/**
 * The TPU capacity the stack asks for: the v6e machine type and slice shape of the TPU node pool, how far it scales,
 * and how the capacity is bought (on demand, spot, a reservation). Any other way of sizing or buying TPU capacity is a
 * setting of this area.
 */
import { z } from "zod";
import { GKE_LIMITS, TPU_V6E_MACHINE_TYPES, findTpuShape } from "@gke-tpu-inference/facts";
import { Rule, Setting, ValuesOf, oneOf, says, wholeNumber } from "./setting";

/** How TPU capacity is bought. */
export type TpuProvisioning = "on-demand" | "spot" | "reservation";
const TPU_PROVISIONING: readonly TpuProvisioning[] = ["on-demand", "spot", "reservation"];

/** The TPU v6e node pool as the stack asks for it, already checked against the catalog. */
export interface TpuSettings {
    machineType: string;
    topology: string;
    /** Chips on one VM, from the catalog. */
    chipsPerVm: number;
    /** VMs in one slice, from the catalog; more than one means a multi-host slice. */
    hostsPerSlice: number;
    /** Autoscaler floor; 0 lets the pool scale to nothing (paused). */
    minNodes: number;
    maxNodes: number;
    provisioning: TpuProvisioning;
    /** Name of a specific reservation; set only when `provisioning` is `reservation`. */
    reservation?: string;
}

const RESOURCE_NAME = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The TPU node pool's settings, in the order the README lists them. */
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
        description: "How TPU capacity is bought.",
        allowed: TPU_PROVISIONING.join(", "),
        schema: oneOf(TPU_PROVISIONING, "is not a TPU provisioning model"),
    },
    tpuReservation: {
        type: "string",
        default: "",
        description: "Name of a specific TPU reservation in the zone; only with tpuProvisioning reservation.",
        allowed: "empty, or lowercase letters, digits and hyphens, starting with a letter, at most 63 characters",
        schema: z.string().refine((value) => value === "" || RESOURCE_NAME.test(value), {
            error: says(
                "is not a reservation name",
                "lowercase letters, digits and hyphens, starting with a letter, at most 63 characters",
            ),
        }),
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

/** The TPU pool from checked values; the rules above have made sure the topology is one of the machine type's. */
export function tpuSettingsOf(values: TpuPoolValues): TpuSettings {
    const shape = tpuShape(values)!;
    return {
        machineType: values.tpuMachineType,
        topology: shape.topology,
        chipsPerVm: TPU_V6E_MACHINE_TYPES[values.tpuMachineType].chipsPerVm,
        hostsPerSlice: shape.hosts,
        minNodes: values.tpuMinNodes,
        maxNodes: values.tpuMaxNodes,
        provisioning: values.tpuProvisioning as TpuProvisioning,
        ...(values.tpuReservation !== "" ? { reservation: values.tpuReservation } : {}),
    };
}
