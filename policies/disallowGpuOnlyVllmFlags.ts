import { ResourceValidationPolicy } from "@pulumi/policy";
import { TPU_REJECTED_VLLM_FLAGS, commandLine, containersOf, usesTpu, vllmFlags } from "./facts";
import { kindOfType } from "./support/resources";

/**
 * Seed 003, issue #12: `--prefix-cache-block-size=16`, copied from a GPU write-up, put the vLLM TPU
 * pods in a crash loop ("unrecognized arguments"). It is not a vLLM flag on any platform; the
 * policy keeps its name, which pack configs refer to. Flags are read as vLLM reads them: in any
 * spelling, alias or shell script.
 */
export const disallowGpuOnlyVllmFlags: ResourceValidationPolicy = {
    name: "disallow-gpu-only-vllm-flags",
    description:
        "A vLLM container on TPU must not pass flags that vLLM rejects at startup, such as --prefix-cache-block-size from GPU write-ups, which is no vLLM flag at all.",
    enforcementLevel: "mandatory",
    severity: "critical",
    remediationSteps: `Remove ${Object.keys(TPU_REJECTED_VLLM_FLAGS).join(", ")} from the container's command and args.`,
    validateResource: (args, reportViolation) => {
        for (const { path, container } of containersOf(kindOfType(args.type), args.props)) {
            if (!usesTpu(container)) {
                continue;
            }
            for (const { flag, raw } of vllmFlags(commandLine(container))) {
                const reason = TPU_REJECTED_VLLM_FLAGS[flag];
                if (reason !== undefined) {
                    reportViolation(
                        `${args.name} ${path} passes ${raw === flag || raw.startsWith(`${flag}=`) || raw.startsWith(`${flag} `) ? flag : `${raw} (${flag})`} to vLLM on TPU: ${reason}.`,
                    );
                }
            }
        }
    },
};
