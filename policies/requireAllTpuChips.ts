import { ResourceValidationPolicy } from "@pulumi/policy";
import { TPU_NODE, containersOf, PolicyText, policyText, tpuResources, tpuShapesForTopology, usesTpu } from "./facts";
import { kindOfType } from "./support/resources";
import { placements } from "./support/tpuPools";

/** What the policy reports of container `path` of resource `name`. */
export const ALL_TPU_CHIPS_MESSAGES = {
    unequal: (name: string, path: string, requests: number | undefined, limits: number) =>
        `${name} ${path} requests ${requests} and limits ${limits} ${TPU_NODE.resourceName}; they must be equal.`,
    noLimit: (name: string, path: string, requests: number | undefined) =>
        `${name} ${path} requests ${requests} ${TPU_NODE.resourceName} without a limit; Kubernetes requires an extended resource's limit, equal to its request.`,
    notAll: (name: string, path: string, requests: number | undefined, topologies: string[], chips: readonly number[]) =>
        `${name} ${path} requests ${requests} ${TPU_NODE.resourceName} on a ${topologies.join("/")} VM, which has ${chips.join(" or ")} chips; request all of them.`,
};

/**
 * A limit alone is enough: Kubernetes sets the request of an extended resource to its limit; a request alone is not, as
 * Kubernetes refuses an extended resource without a limit.
 */
export const requireAllTpuChips: ResourceValidationPolicy & PolicyText = {
    ...policyText(
        "all-tpu-chips",
        "require-all-tpu-chips",
        "A TPU container must request and limit exactly the chips of the VM its topology selects.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateResource: (args, reportViolation) => {
        for (const { path, container, pod } of containersOf(kindOfType(args.type), args.props)) {
            if (!usesTpu(container)) {
                continue;
            }
            const topologies = [...new Set(placements(pod.spec).flatMap((placement) => placement.get(TPU_NODE.topologyLabel) ?? []))];
            // A topology two machine types offer (2x4: 8 chips on one VM, or 4 on each of two) takes either VM's chips.
            const expected = [
                ...new Set(topologies.flatMap((topology) => tpuShapesForTopology(topology).map((shape) => shape.chipsPerVm))),
            ].sort((a, b) => a - b);
            const { requests, limits } = tpuResources(container);
            if (limits !== undefined && requests !== limits) {
                reportViolation(ALL_TPU_CHIPS_MESSAGES.unequal(args.name, path, requests, limits));
            } else if (limits === undefined) {
                reportViolation(ALL_TPU_CHIPS_MESSAGES.noLimit(args.name, path, requests));
            } else if (expected.length > 0 && !expected.includes(requests!) && (topologies.length === 1 || expected.length === 1)) {
                // Several topologies of VMs of one size, or one topology two machine types offer: none of their chip counts.
                reportViolation(ALL_TPU_CHIPS_MESSAGES.notAll(args.name, path, requests, topologies, expected));
            }
        }
    },
};
