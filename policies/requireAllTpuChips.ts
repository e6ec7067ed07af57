import { ResourceValidationPolicy } from "@pulumi/policy";
import { TPU_NODE, chipsPerVmForTopology } from "../components/catalog";
import { containersOf, tpuResources, usesTpu } from "./support";

/**
 * The seed manifests (llmisvc-tpu.yaml: "MUST request all 4 chips"): GKE hands out TPU VMs
 * whole, so a container must request and limit every chip of its VM.
 */
export const requireAllTpuChips: ResourceValidationPolicy = {
    name: "require-all-tpu-chips",
    description: "A TPU container must request and limit exactly the chips of the VM its topology selects.",
    enforcementLevel: "mandatory",
    severity: "high",
    remediationSteps: `Set resources.requests and resources.limits ${TPU_NODE.resourceName} to the chips per VM: 1 for 1x1, 4 for 2x2 and multi-host shapes, 8 for 2x4.`,
    validateResource: (args, reportViolation) => {
        for (const { path, container, pod } of containersOf(args.type, args.props)) {
            if (!usesTpu(container)) {
                continue;
            }
            const topology = pod.spec.nodeSelector?.[TPU_NODE.topologyLabel];
            const expected = typeof topology === "string" ? chipsPerVmForTopology(topology) : undefined;
            const { requests, limits } = tpuResources(container);
            if (requests !== limits) {
                reportViolation(`${args.name} ${path} requests ${requests ?? "no"} and limits ${limits ?? "no"} ${TPU_NODE.resourceName}; they must be equal.`);
            } else if (expected !== undefined && requests !== expected) {
                reportViolation(`${args.name} ${path} requests ${requests} ${TPU_NODE.resourceName} on a ${topology} VM, which has ${expected} chips; request all of them.`);
            }
        }
    },
};
