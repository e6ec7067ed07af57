/** This repository's whole pack, its policies run in this process as the pack's server runs them (./evaluate.ts). */
import { PACK_NAME, PACK_VERSION, policies } from "../../policies/pack";
import { PolicyViolation } from "../../scripts/offline/analyzer";
import { RecordedResource } from "../../scripts/offline/recorder";
import { PackConfig, evaluatePolicies } from "./evaluate";

/** Every violation the whole pack reports over `resources`, with pack `config`. */
export function evaluatePack(resources: readonly RecordedResource[], config: PackConfig = {}): Promise<PolicyViolation[]> {
    return evaluatePolicies({ name: PACK_NAME, version: PACK_VERSION, policies }, resources, config);
}
