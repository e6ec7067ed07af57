/**
 * Whether a model fits the TPU memory of one replica, as vLLM on TPU sizes it: the weights and the KV cache of one
 * `maxModelLen` sequence within `--gpu-memory-utilization` of the replica's HBM (see {@link VLLM_MEMORY}). Pure: the
 * settings refuse a model that does not fit, naming the smallest shape that does.
 */
import { KnownModel, TPU_V6E_HBM_GB_PER_CHIP, TPU_V6E_MACHINE_TYPES, VLLM_MEMORY, commandWords, vllmFlags } from "@gke-tpu-inference/facts";

/** What one replica spans: the chips of each VM, and its VMs. */
export interface ReplicaSpan {
    chipsPerVm: number;
    hosts: number;
}

/** A model as the memory check needs it: its weights, its context, its flags, and what the catalog knows of it. */
export interface ModelFootprint {
    weightsGb: number;
    maxModelLen: number;
    extraArgs: readonly string[];
    /** The catalog's entry, which alone gives the attention shape the KV cache needs. */
    known?: Pick<KnownModel, "layers" | "kvHeads" | "headDim">;
}

/** The memory one replica of a model needs and what vLLM may use of its chips, in GB. */
export interface ReplicaMemory {
    weightsGb: number;
    /** The KV cache of one `maxModelLen` sequence; undefined for a model whose attention shape the catalog does not know. */
    kvCacheGb?: number;
    neededGb: number;
    /** The share of the chips' HBM vLLM uses. */
    utilization: number;
    availableGb: number;
}

/** The value the entry's extra flags give `flag`, if any. */
function flagOf(extraArgs: readonly string[], flag: string): string | undefined {
    return vllmFlags(commandWords([], extraArgs)).find((found) => found.flag === flag)?.value;
}

/** `--gpu-memory-utilization` as the entry's extra flags set it, else vLLM's default. */
function utilizationOf(extraArgs: readonly string[]): number {
    const set = flagOf(extraArgs, VLLM_MEMORY.utilizationFlag);
    const value = set === undefined ? NaN : Number(set);
    return Number.isFinite(value) && value > 0 && value <= 1 ? value : VLLM_MEMORY.defaultUtilization;
}

/** Bytes per KV cache value: the model's bf16, or one byte where `--kv-cache-dtype` asks for an fp8 cache. */
function kvBytesOf(extraArgs: readonly string[]): number {
    return flagOf(extraArgs, VLLM_MEMORY.kvCacheDtypeFlag)?.startsWith("fp8") ? 1 : VLLM_MEMORY.bytesPerValue;
}

/** `value` rounded up to a multiple of `multiple`. */
function alignTo(value: number, multiple: number): number {
    return Math.ceil(value / multiple) * multiple;
}

/**
 * GB of KV cache one sequence of `tokens` takes across a replica whose tensor parallelism spans `chipsPerVm` chips, as
 * vLLM on TPU lays it out (see {@link VLLM_MEMORY}): each chip holds max(1, kvHeads / chips) heads (fewer heads than chips
 * are replicated), their keys and values packed per 32-bit word of the dtype and padded to that packing, each head's
 * width padded to a multiple of 128 (a width of 64 packs a key and a value into 128).
 */
export function kvCacheGb(
    model: NonNullable<ModelFootprint["known"]>,
    tokens: number,
    chipsPerVm: number,
    bytesPerValue: number = VLLM_MEMORY.bytesPerValue,
): number {
    const headsPerChip = Math.max(1, Math.floor(model.kvHeads / chipsPerVm));
    const packing = VLLM_MEMORY.packingBits / (8 * bytesPerValue);
    const lanes = VLLM_MEMORY.headDimAlignment;
    const valuesPerTokenLayer =
        model.headDim === lanes / 2
            ? alignTo(headsPerChip, packing) * lanes
            : alignTo(2 * headsPerChip, packing) * alignTo(model.headDim, lanes);
    return (chipsPerVm * model.layers * valuesPerTokenLayer * bytesPerValue * tokens) / 1e9;
}

/** The memory one replica of `model` needs on `span`, against what vLLM may use of it. */
export function replicaMemory(model: ModelFootprint, span: ReplicaSpan): ReplicaMemory {
    const kv = model.known ? kvCacheGb(model.known, model.maxModelLen, span.chipsPerVm, kvBytesOf(model.extraArgs)) : undefined;
    const utilization = utilizationOf(model.extraArgs);
    return {
        weightsGb: model.weightsGb,
        ...(kv !== undefined ? { kvCacheGb: kv } : {}),
        neededGb: model.weightsGb + (kv ?? 0),
        utilization,
        availableGb: span.chipsPerVm * span.hosts * TPU_V6E_HBM_GB_PER_CHIP * utilization,
    };
}

/** The TPU v6e shape with the fewest chips that holds `model`, or undefined when none does. */
export function smallestFittingShape(model: ModelFootprint): { machineType: string; topology: string; chips: number } | undefined {
    return (
        Object.entries(TPU_V6E_MACHINE_TYPES)
            .flatMap(([machineType, machine]) =>
                machine.shapes.map((shape) => ({
                    machineType,
                    topology: shape.topology,
                    chips: machine.chipsPerVm * shape.hosts,
                    span: { chipsPerVm: machine.chipsPerVm, hosts: shape.hosts },
                })),
            )
            // The fewest chips, then the fewest VMs: of 2x4's two shapes, one 8-chip VM rather than a two-host slice.
            .sort((a, b) => a.chips - b.chips || a.span.hosts - b.span.hosts)
            .filter(({ span }) => {
                const memory = replicaMemory(model, span);
                return memory.neededGb <= memory.availableGb;
            })
            .map(({ machineType, topology, chips }) => ({ machineType, topology, chips }))[0]
    );
}
