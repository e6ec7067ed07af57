import { ResourceValidationPolicy } from "@pulumi/policy";
import { TPU_REJECTED_VLLM_FLAGS } from "../components/catalog";
import { commandLine, containersOf, usesTpu } from "./support";

/**
 * Seed 003, issue #12: `--prefix-cache-block-size=16`, copied from GPU documentation, put the
 * vLLM TPU pods in a crash loop ("unrecognized arguments").
 */
export const disallowGpuOnlyVllmFlags: ResourceValidationPolicy = {
    name: "disallow-gpu-only-vllm-flags",
    description: "A vLLM container on TPU must not pass GPU-only flags, which the TPU build rejects at startup.",
    enforcementLevel: "mandatory",
    severity: "critical",
    remediationSteps: `Remove ${Object.keys(TPU_REJECTED_VLLM_FLAGS).join(", ")} from the container's command and args.`,
    validateResource: (args, reportViolation) => {
        for (const { path, container } of containersOf(args.type, args.props)) {
            if (!usesTpu(container)) {
                continue;
            }
            for (const token of commandLine(container)) {
                const flag = token.split("=")[0];
                const reason = TPU_REJECTED_VLLM_FLAGS[flag];
                if (reason !== undefined) {
                    reportViolation(`${args.name} ${path} passes ${flag} to vLLM on TPU: ${reason}.`);
                }
            }
        }
    },
};
