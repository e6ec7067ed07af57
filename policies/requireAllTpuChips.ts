import { ResourceValidationPolicy } from "@pulumi/policy";
import { TPU_NODE, chipsPerVmForTopology, containersOf, policyText, tpuResources, usesTpu } from "./facts";
import { kindOfType } from "./support/resources";
import { placements } from "./support/tpuPools";

/**
 * Enforces lesson all-tpu-chips (policies/facts/lessons). A limit alone is enough: Kubernetes sets the request of an
 * extended resource to its limit.
 */
export const requireAllTpuChips: ResourceValidationPolicy = {
    ...policyText("require-all-tpu-chips", "A TPU container must request and limit exactly the chips of the VM its topology selects."),
    enforcementLevel: "mandatory",
    severity: "high",
    validateResource: (args, reportViolation) => {
        for (const { path, container, pod } of containersOf(kindOfType(args.type), args.props)) {
            if (!usesTpu(container)) {
                continue;
            }
            const topologies = [...new Set(placements(pod.spec).flatMap((placement) => placement.get(TPU_NODE.topologyLabel) ?? []))];
            const expected = [...new Set(topologies.map(chipsPerVmForTopology).filter((chips): chips is number => chips !== undefined))];
            const { requests, limits } = tpuResources(container);
            if (limits !== undefined && requests !== limits) {
                reportViolation(
                    `${args.name} ${path} requests ${requests} and limits ${limits} ${TPU_NODE.resourceName}; they must be equal.`,
                );
            } else if (expected.length === 1 && requests !== expected[0]) {
                reportViolation(
                    `${args.name} ${path} requests ${requests} ${TPU_NODE.resourceName} on a ${topologies.join("/")} VM, which has ${expected[0]} chips; request all of them.`,
                );
            }
        }
    },
};
