import { ResourceValidationPolicy } from "@pulumi/policy";
import { TPU_REJECTED_VLLM_FLAGS, commandLine, containersOf, policyText, usesTpu, vllmFlags } from "./facts";
import { kindOfType } from "./support/resources";

/**
 * Enforces lesson vllm-flag (policies/facts/lessons). The policy keeps its name, which pack configs refer to. Flags are
 * read as vLLM reads them: in any spelling, alias or shell script.
 */
export const disallowGpuOnlyVllmFlags: ResourceValidationPolicy = {
    ...policyText("disallow-gpu-only-vllm-flags", "A vLLM container on TPU must not pass flags that vLLM rejects at startup."),
    enforcementLevel: "mandatory",
    severity: "critical",
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
