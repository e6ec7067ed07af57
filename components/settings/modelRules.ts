/**
 * The rules between the model services and the TPU pool they run on: each entry complete and consistent with the
 * catalog, its replicas (or autoscaling bounds) within the pool, and its weights and KV cache within one replica's
 * TPU memory.
 */
import {
    AUTOSCALING_SIGNALS,
    AutoscalingSignal,
    KNOWN_MODELS,
    KNOWN_WEIGHTS_TOLERANCE,
    TPU_V6E_HBM_GB_PER_CHIP,
    TPU_V6E_MACHINE_TYPES,
    VLLM_MEMORY,
} from "@gke-tpu-inference/facts";
import { singleHostTopologies, tpuShape } from "./capacity";
import { replicaMemory, smallestFittingShape } from "./modelMemory";
import { ModelEntry, knownModel, modelNameOf, replicasOf } from "./models";
import { Rule } from "./setting";

/** What the rules read of the TPU pool. */
interface TpuPool {
    tpuMachineType: string;
    tpuTopology: string;
}

/** `count` and the noun, plural unless one. */
function plural(count: number, noun: string): string {
    return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** GB to one decimal, for messages: what is needed rounded up, what is there rounded down, so that the two never read alike. */
function gb(value: number, round: "up" | "down" = "up"): string {
    return ((round === "up" ? Math.ceil(value * 10) : Math.floor(value * 10)) / 10).toFixed(1);
}

/** What is wrong with a model entry's autoscaling: with fixed replicas, a floor above its ceiling, a target out of range. */
function autoscalingProblems(model: ModelEntry, at: string): string[] {
    const scaling = model.autoscaling;
    if (scaling === undefined) {
        return [];
    }
    const problems: string[] = [];
    if (model.replicas !== undefined) {
        problems.push(`${at} sets both replicas and autoscaling; allowed: one of them (autoscaling.minReplicas is where it starts)`);
    }
    if (scaling.minReplicas > scaling.maxReplicas) {
        problems.push(
            `${at}.autoscaling.minReplicas = ${scaling.minReplicas} is greater than maxReplicas = ${scaling.maxReplicas}; allowed: minReplicas <= maxReplicas`,
        );
    }
    if (model.pattern === "pattern3" && scaling.minReplicas < 2) {
        problems.push(
            `${at}.autoscaling.minReplicas = ${scaling.minReplicas} leaves pattern3 nothing to route between by prefix; allowed: 2 or more (or pattern1)`,
        );
    }
    const { maximumTarget } = AUTOSCALING_SIGNALS[scaling.signal as AutoscalingSignal];
    if (scaling.target !== undefined && scaling.target > maximumTarget) {
        problems.push(
            `${at}.autoscaling.target = ${scaling.target} is above what ${scaling.signal} can reach; allowed: more than 0, at most ${maximumTarget}`,
        );
    }
    return problems;
}

/**
 * What each entry says of itself, read with no other setting, so that a wrong pool setting does not hold these back to
 * a second run: names unique, an unknown model's figures given, autoscaling consistent, pattern3 with replicas to route between.
 */
export const modelEntries: Rule<{ models: ModelEntry[] }> = {
    description:
        "Model names are unique; pattern3 has at least 2 replicas; a model the catalog does not know gives weightsGb and layers; autoscaling replaces replicas, with minReplicas <= maxReplicas (2 or more for pattern3) and a target the signal can reach.",
    reads: ["models"],
    check: (values, key) => {
        const problems: string[] = [];
        const seen = new Set<string>();
        for (const [index, model] of values.models.entries()) {
            const known = knownModel(model);
            for (const field of ["weightsGb", "layers"] as const) {
                if (known === undefined && model[field] === undefined) {
                    problems.push(
                        `${key("models")}[${index}].${field} is not set and the catalog does not know ${JSON.stringify(modelNameOf(model))}; ` +
                            `allowed: ${field === "weightsGb" ? "the size of its weights in GB" : "its number of transformer layers"} (known models: ${Object.keys(KNOWN_MODELS).join(", ")})`,
                    );
                }
            }
            if (seen.has(model.name)) {
                problems.push(
                    `${key("models")}[${index}].name = ${JSON.stringify(model.name)} is used twice; allowed: a name unique in the stack`,
                );
            }
            seen.add(model.name);
            problems.push(...autoscalingProblems(model, `${key("models")}[${index}]`));
            if (model.pattern === "pattern3" && model.replicas !== undefined && model.replicas < 2) {
                problems.push(
                    `${key("models")}[${index}].replicas = ${model.replicas} gives pattern3 nothing to route between; allowed: 2 or more (or pattern1 for one replica)`,
                );
            }
        }
        return problems;
    },
};

export const modelEntriesFitPool: Rule<TpuPool & { models: ModelEntry[]; tpuMinNodes: number; tpuMaxNodes: number }> = {
    description:
        "tpuMinNodes is at most the autoscaled services' minimums; on a multi-host shape a replica is a whole slice and does not autoscale; the services' replicas (autoscaled ones at maxReplicas), a VM or a slice each, fit in tpuMaxNodes.",
    reads: ["models", "tpuMachineType", "tpuTopology", "tpuMinNodes", "tpuMaxNodes"],
    check: (values, key) => {
        const problems: string[] = [];
        const shape = tpuShape(values);
        if (shape === undefined || values.models.length === 0) {
            return problems;
        }
        if (shape.hosts > 1) {
            // KServe sizes a multi-host service's LeaderWorkerSet itself; only a Deployment's replicas can be handed to KEDA.
            for (const [index, model] of values.models.entries()) {
                if (model.autoscaling !== undefined) {
                    problems.push(
                        `${key("models")}[${index}].autoscaling scales a Deployment, but on ${key("tpuTopology")} = ${JSON.stringify(shape.topology)} (${shape.hosts} hosts) a replica is one LeaderWorkerSet group across a slice; allowed: replicas without autoscaling, or a single-host tpuTopology (${singleHostTopologies(values.tpuMachineType)})`,
                    );
                }
            }
        }
        // The pool's floor follows the services' minimums, so the TPU VMs an autoscaler releases leave the bill.
        const autoscales = values.models.some((model) => model.autoscaling !== undefined);
        const minimum = values.models.reduce((sum, model) => sum + replicasOf(model), 0);
        if (autoscales && values.tpuMinNodes > minimum * shape.hosts) {
            problems.push(
                `${key("tpuMinNodes")} = ${values.tpuMinNodes} keeps TPU VMs that the services at their minimum (${minimum} replica${minimum === 1 ? "" : "s"}) leave idle; allowed: at most ${minimum * shape.hosts}`,
            );
        }
        // An autoscaled service may grow to its maximum: the pool must hold every service at its largest, a whole slice per replica.
        const replicas = values.models.reduce((sum, model) => sum + (model.autoscaling?.maxReplicas ?? replicasOf(model)), 0);
        if (replicas * shape.hosts > values.tpuMaxNodes) {
            const perReplica =
                shape.hosts === 1
                    ? `one ${values.tpuMachineType} ${shape.topology} VM each`
                    : `one ${shape.topology} slice of ${shape.hosts} ${values.tpuMachineType} VMs each`;
            problems.push(
                `${key("models")} asks for ${autoscales ? `up to ${replicas} replicas (autoscaled services at their maxReplicas)` : `${replicas} replicas`}, ${perReplica}, but ${key("tpuMaxNodes")} = ${values.tpuMaxNodes}; ` +
                    `allowed: at most ${plural(Math.floor(values.tpuMaxNodes / shape.hosts), "replica")} in total, or a larger tpuMaxNodes`,
            );
        }
        return problems;
    },
};

/** What an entry's figures contradict in the catalog's, for a model it knows: its weights, its layers, its context. */
function catalogProblems(model: ModelEntry, at: string): string[] {
    const known = knownModel(model);
    if (known === undefined) {
        return [];
    }
    const name = modelNameOf(model);
    const problems: string[] = [];
    if (model.weightsGb !== undefined && Math.abs(model.weightsGb - known.weightsGb) > KNOWN_WEIGHTS_TOLERANCE * known.weightsGb) {
        problems.push(
            `${at}.weightsGb = ${model.weightsGb} contradicts the catalog's ${known.weightsGb} GB for ${name}; allowed: unset (the catalog's figure), or within ${KNOWN_WEIGHTS_TOLERANCE * 100} % of it`,
        );
    }
    if (model.layers !== undefined && model.layers !== known.layers) {
        problems.push(
            `${at}.layers = ${model.layers} contradicts the catalog's ${known.layers} for ${name}; allowed: unset, or ${known.layers}`,
        );
    }
    if (model.maxModelLen > known.maxContext) {
        problems.push(
            `${at}.maxModelLen = ${model.maxModelLen} is longer than ${name}'s context (max_position_embeddings ${known.maxContext}), which vLLM refuses; allowed: at most ${known.maxContext}`,
        );
    }
    return problems;
}

export const modelsAgreeWithCatalog: Rule<{ models: ModelEntry[] }> = {
    description:
        "A model the catalog knows keeps its figures (weightsGb within 10 % of the catalog's, its layers) and a maxModelLen within its context.",
    reads: ["models"],
    check: (values, key) => values.models.flatMap((model, index) => catalogProblems(model, `${key("models")}[${index}]`)),
};

export const modelsFitMemory: Rule<TpuPool & { models: ModelEntry[] }> = {
    description: "Each model's weights and the KV cache of one maxModelLen sequence fit the TPU memory vLLM uses of one replica.",
    reads: ["models", "tpuMachineType", "tpuTopology"],
    check: (values, key) => {
        const problems: string[] = [];
        const shape = tpuShape(values);
        for (const [index, model] of values.models.entries()) {
            const at = `${key("models")}[${index}]`;
            const known = knownModel(model);
            const name = modelNameOf(model);
            const weightsGb = model.weightsGb ?? known?.weightsGb;
            // A figure that contradicts the catalog is reported by modelsAgreeWithCatalog; the memory is judged once the entry agrees with it.
            if (shape === undefined || weightsGb === undefined || catalogProblems(model, at).length > 0) {
                continue;
            }
            const footprint = { weightsGb, maxModelLen: model.maxModelLen, extraArgs: model.extraArgs, known };
            const chipsPerVm = TPU_V6E_MACHINE_TYPES[values.tpuMachineType].chipsPerVm;
            const memory = replicaMemory(footprint, { chipsPerVm, hosts: shape.hosts });
            if (memory.neededGb > memory.availableGb) {
                const fits = smallestFittingShape(footprint);
                const needs =
                    memory.kvCacheGb === undefined
                        ? `${gb(memory.weightsGb)} GB of weights alone (its KV cache not counted: the catalog does not know its attention shape)`
                        : `${gb(memory.neededGb)} GB: ${gb(memory.weightsGb)} GB of weights and ${gb(memory.kvCacheGb)} GB of KV cache for maxModelLen ${footprint.maxModelLen}`;
                problems.push(
                    `${at} (${name}) needs ${needs}, more than the ${gb(memory.availableGb, "down")} GB vLLM uses of one ${shape.topology} replica ` +
                        `(${chipsPerVm * shape.hosts} chips of ${TPU_V6E_HBM_GB_PER_CHIP} GB, at ${VLLM_MEMORY.utilizationFlag} ${memory.utilization}); allowed: ` +
                        (fits
                            ? `tpuMachineType ${fits.machineType} with tpuTopology ${fits.topology} (${fits.chips} chips) or larger${memory.kvCacheGb ? ", or a smaller maxModelLen" : ""}`
                            : `no TPU v6e shape holds it; a smaller model${memory.kvCacheGb ? " or maxModelLen" : ""}`),
                );
            }
        }
        return problems;
    },
};
