import { ResourceValidationPolicy } from "@pulumi/policy";
import { TPU_REJECTED_VLLM_FLAGS, commandLine, containersOf, PolicyText, policyText, usesTpu, vllmFlags, withEnvExpanded } from "./facts";
import { kindOfType } from "./support/resources";

/** What the policy reports: container `path` of `name` passes `shown` (the flag, or its spelling and the flag). */
export const VLLM_FLAG_MESSAGES = {
    rejected: (name: string, path: string, shown: string, reason: string) => `${name} ${path} passes ${shown} to vLLM on TPU: ${reason}.`,
};

/**
 * The policy keeps its name, which pack configs refer to. Flags are read as vLLM reads them: in any spelling, alias or
 * shell script, with the `$(VAR)` references the kubelet expands.
 */
export const disallowGpuOnlyVllmFlags: ResourceValidationPolicy & PolicyText = {
    ...policyText("vllm-flag", "disallow-gpu-only-vllm-flags", "A vLLM container on TPU must not pass flags that vLLM rejects at startup."),
    enforcementLevel: "mandatory",
    severity: "critical",
    validateResource: (args, reportViolation) => {
        for (const { path, container } of containersOf(kindOfType(args.type), args.props)) {
            if (!usesTpu(container)) {
                continue;
            }
            for (const { flag, raw } of vllmFlags(commandLine(withEnvExpanded(container)))) {
                const reason = TPU_REJECTED_VLLM_FLAGS[flag];
                if (reason !== undefined) {
                    const shown = raw === flag || raw.startsWith(`${flag}=`) || raw.startsWith(`${flag} `) ? flag : `${raw} (${flag})`;
                    reportViolation(VLLM_FLAG_MESSAGES.rejected(args.name, path, shown, reason));
                }
            }
        }
    },
};
