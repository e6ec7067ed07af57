import * as fs from "fs";
import * as path from "path";
import { parseAllDocuments } from "yaml";
import { SCALE_UP_FAILURES } from "@gke-tpu-inference/facts";
import type { KubeObject } from "../../scripts/cluster/kube";
import { CapacityPlanOutput, capacityOfNodes, computeClassHealth, pendingCapacity } from "../../scripts/doctor/capacity";
import type { KubeEvent } from "../../scripts/doctor/pods";

/** The objects of a recorded cluster state, by kind. */
function state(name: string) {
    const text = fs.readFileSync(path.join(__dirname, "..", "fixtures", "cluster", "capacity", `${name}.yaml`), "utf8");
    const objects = parseAllDocuments(text).map((document) => document.toJSON() as KubeObject & KubeEvent);
    const of = (kind: string) => objects.filter((object) => object.kind === kind);
    return { nodes: of("Node"), pods: of("Pod"), events: of("Event") as KubeEvent[], computeClass: of("ComputeClass")[0] };
}

const PLAN: CapacityPlanOutput = {
    computeClass: "tpu-inference-tpu",
    options: [
        { option: "on-demand", nodePool: "tpu-inference-tpu-pool-1f3162a" },
        { option: "spot", nodePool: "tpu-inference-spot-pool-9c0d2e1" },
    ],
};

describe("the doctor's capacity checks, against recorded cluster states", () => {
    test("each TPU node names the option it came from; system nodes are not TPU capacity", () => {
        expect(capacityOfNodes(state("fallback").nodes, PLAN)).toEqual([
            {
                status: "OK",
                check: "capacity option",
                object: "Node gke-tpu-inference-prod-tpu-inference-tpu-pool-1f3162a-a1b2",
                evidence: "pool tpu-inference-tpu-pool-1f3162a (option 1 of 2: on-demand), cloud.google.com/gke-provisioning=standard",
            },
            {
                status: "OK",
                check: "capacity option",
                object: "Node gke-tpu-inference-prod-tpu-inference-spot-pool-9c0d2e1-c3d4",
                evidence:
                    "pool tpu-inference-spot-pool-9c0d2e1 (option 2 of 2: spot), cloud.google.com/gke-provisioning=spot, cloud.google.com/gke-spot=true",
            },
        ]);
    });

    test("a TPU node outside the plan's pools is a warning", () => {
        const [node] = capacityOfNodes(state("fallback").nodes, { options: [PLAN.options[1]] });
        expect([node.status, node.fix]).toEqual([
            "WARN",
            "this TPU node is in no pool of the stack's tpuCapacityPlan; check which pool made it and whether its pods belong there",
        ]);
    });

    test("a Pending pod after a stockout: GKE's reason and the next step", () => {
        const { pods, events } = state("fallback");
        expect(pendingCapacity(pods[0], events)).toEqual({
            status: "FAIL",
            check: "TPU capacity",
            object: "Pod llm-inference/qwen2-3b-cache-kserve-5d7c8b9f6-p9q8r",
            evidence:
                "stockout: the zone has no free TPU v6e capacity of this option (FailedScaleUp: Node scale up in zones europe-west4-a associated with this pod failed: GCE out of resources. Pod is at risk of not being scheduled.)",
            fix: "the ComputeClass moves to the next option after GKE's backoff; add a flex-start or spot option to tpuCapacity, or move to another v6e zone",
        });
    });

    test("a Pending pod out of quota", () => {
        const { pods, events } = state("misconfigured");
        expect(pendingCapacity(pods[0], events)?.evidence).toMatch(/^quota: the project's TPU v6e quota in the region is used up/);
    });

    test("the class healthy, its first priority backing off for a stockout", () => {
        const { computeClass } = state("fallback");
        expect(computeClassHealth(computeClass, "tpu-inference-tpu", PLAN)).toEqual([
            { status: "OK", check: "ComputeClass", object: "ComputeClass tpu-inference-tpu", evidence: "Crd is healthy." },
            {
                status: "WARN",
                check: "ComputeClass priority",
                object: "ComputeClass tpu-inference-tpu priority 0 (on-demand)",
                evidence:
                    "OutOfResources: NodeProvisioning associated with this priority failed due to the OutOfResources error. Backing off the priority until 2026-11-20T10:05:00Z.",
                fix: SCALE_UP_FAILURES[0].next,
            },
        ]);
    });

    test("an unhealthy class names GKE's reason; a missing class points at the CRD GKE installs", () => {
        expect(computeClassHealth(state("misconfigured").computeClass, "tpu-inference-tpu", PLAN)[0]).toEqual({
            status: "FAIL",
            check: "ComputeClass",
            object: "ComputeClass tpu-inference-tpu",
            evidence: "Crd is not healthy.; TaintMissing: Crd taint is missing for the nodepool tpu-inference-spot-pool-9c0d2e1.",
            fix: "each pool of the plan must exist with autoscaling on and carry the class's label and taint (`pulumi up` sets them)",
        });
        expect(computeClassHealth(undefined, "tpu-inference-tpu")[0]).toEqual(
            expect.objectContaining({ status: "WARN", evidence: "not found" }),
        );
    });

    test.each([
        ["Reservation capacity exceeded", /^reservation exhausted/],
        ["Reservation not found or incorrectly shared", /^reservation unusable/],
        ["Invalid TPU topology: 4x4", /^the TPU shape/],
        ["no.scale.up.flex.start.misconfigured.error", /^flex-start queued/],
    ])("GKE's %s", (text, cause) => {
        const pod = { metadata: { name: "p", namespace: "n" } } as KubeObject;
        const events: KubeEvent[] = [
            {
                reason: "FailedScaleUp",
                message: `Node scale up in zones z associated with this pod failed: ${text}.`,
                involvedObject: { name: "p" },
            },
        ];
        expect(pendingCapacity(pod, events)?.evidence).toMatch(cause);
    });
});
