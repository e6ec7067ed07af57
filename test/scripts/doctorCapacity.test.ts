import * as fs from "fs";
import * as path from "path";
import { parseAllDocuments } from "yaml";
import { SCALE_UP_FAILURES } from "@gke-tpu-inference/facts";
import type { KubeObject } from "../../scripts/cluster/kube";
import { CapacityPlanOutput, capacityOfNodes, computeClassHealth, pendingCapacity } from "../../scripts/doctor/capacity";
import { DOCTOR_CHECKS } from "../../scripts/doctor/checks";
import { runDoctor, targetsFromOutputs } from "../../scripts/doctor/diagnose";
import type { KubeEvent } from "../../scripts/doctor/pods";
import { clusterState } from "../fakeCluster";
import { memoryReader } from "../memoryCluster";

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
/** The plan of a stack in us-east5-a with a reservation there and on-demand in both of the region's zones (option-first). */
const TWO_ZONES: CapacityPlanOutput = {
    computeClass: "tpu-inference-tpu",
    options: [
        { option: "reservation", nodePool: "tpu-inference-tpu-pool-1a2b3c4", zone: "us-east5-a" },
        { option: "on-demand", nodePool: "tpu-inference-ondemand-pool-5d6e7f8", zone: "us-east5-a" },
        { option: "on-demand", nodePool: "tpu-inference-ondemand-b-pool-9a0b1c2", zone: "us-east5-b" },
    ],
};
/** When the states were recorded: the on-demand priority's backoff ends now. */
const NOW = new Date("2026-11-20T10:05:00Z");

describe("the doctor's capacity checks, against recorded cluster states", () => {
    test("each TPU node names the option it came from; system nodes are not TPU capacity", () => {
        expect(capacityOfNodes(state("fallback").nodes, PLAN, NOW)).toEqual([
            {
                status: "OK",
                check: "TPU node in the capacity plan",
                object: "Node gke-tpu-inference-prod-tpu-inference-tpu-pool-1f3162a-a1b2",
                evidence: "pool tpu-inference-tpu-pool-1f3162a (option 1 of 2: on-demand), cloud.google.com/gke-provisioning=standard",
            },
            {
                status: "OK",
                check: "TPU node in the capacity plan",
                object: "Node gke-tpu-inference-prod-tpu-inference-spot-pool-9c0d2e1-c3d4",
                evidence:
                    "pool tpu-inference-spot-pool-9c0d2e1 (option 2 of 2: spot), cloud.google.com/gke-provisioning=spot, cloud.google.com/gke-spot=true",
            },
        ]);
    });

    test("a multi-host slice from the fallback pool: each of its four nodes names the spot option", () => {
        const plan: CapacityPlanOutput = {
            computeClass: "tpu-inference-tpu",
            options: [
                { option: "on-demand", nodePool: "tpu-inference-tpu-pool-2d3e4f5" },
                { option: "spot", nodePool: "tpu-inference-spot-pool-5a6b7c8" },
            ],
        };
        const { nodes, computeClass } = state("multihost");
        expect(capacityOfNodes(nodes, plan, NOW)).toEqual(
            ["w0a1", "w1b2", "w2c3", "w3d4"].map((suffix) => ({
                status: "OK",
                check: "TPU node in the capacity plan",
                object: `Node gke-tpu-inference-multihost-tpu-inference-spot-pool-5a6b7c8-${suffix}`,
                evidence:
                    "pool tpu-inference-spot-pool-5a6b7c8 (option 2 of 2: spot), cloud.google.com/gke-provisioning=spot, cloud.google.com/gke-spot=true",
            })),
        );
        expect(
            computeClassHealth(computeClass, "tpu-inference-tpu", plan).map((diagnosis) => [diagnosis.status, diagnosis.object]),
        ).toEqual([
            ["OK", "ComputeClass tpu-inference-tpu"],
            ["WARN", "ComputeClass tpu-inference-tpu priority 0 (on-demand)"],
        ]);
    });

    test("a plan across two zones: each TPU node names its option and the zone it came from, and a backed-off priority its zone", () => {
        const { nodes, computeClass } = state("two-zones");
        expect(capacityOfNodes(nodes, TWO_ZONES, NOW)).toEqual([
            {
                status: "OK",
                check: "TPU node in the capacity plan",
                object: "Node gke-tpu-inference-zones-tpu-inference-tpu-pool-1a2b3c4-h1j2",
                evidence:
                    "pool tpu-inference-tpu-pool-1a2b3c4 (option 1 of 3: reservation in us-east5-a), topology.kubernetes.io/zone=us-east5-a, cloud.google.com/gke-provisioning=standard, cloud.google.com/reservation-name=r1",
            },
            {
                status: "OK",
                check: "TPU node in the capacity plan",
                object: "Node gke-tpu-inference-zones-tpu-inference-ondemand-b-pool-9a0b1c2-k3l4",
                evidence:
                    "pool tpu-inference-ondemand-b-pool-9a0b1c2 (option 3 of 3: on-demand in us-east5-b), topology.kubernetes.io/zone=us-east5-b, cloud.google.com/gke-provisioning=standard",
            },
        ]);
        expect(
            computeClassHealth(computeClass, "tpu-inference-tpu", TWO_ZONES).map((diagnosis) => [diagnosis.status, diagnosis.object]),
        ).toEqual([
            ["OK", "ComputeClass tpu-inference-tpu"],
            ["WARN", "ComputeClass tpu-inference-tpu priority 1 (on-demand in us-east5-a)"],
        ]);
    });

    test("a TPU node outside the plan's pools is a warning", () => {
        const [node] = capacityOfNodes(state("fallback").nodes, { options: [PLAN.options[1]] }, NOW);
        expect([node.status, node.fix]).toEqual([
            "WARN",
            "this TPU node is in no pool of the stack's tpuCapacityPlan; check which pool made it and whether its pods belong there",
        ]);
    });

    test("a flex-start node within an hour of its run limit is a warning with the flex-start lesson; one with a day left is not", () => {
        const plan: CapacityPlanOutput = { options: [{ option: "flex-start", nodePool: "tpu-inference-flex-pool-7e8f9a0" }] };
        const [ending, later] = capacityOfNodes(state("flex-start").nodes, plan, NOW);
        expect(ending).toEqual({
            status: "WARN",
            check: "TPU node in the capacity plan",
            object: "Node gke-tpu-inference-flex-tpu-inference-flex-pool-7e8f9a0-g7h8",
            evidence:
                "pool tpu-inference-flex-pool-7e8f9a0 (option 1 of 1: flex-start), cloud.google.com/gke-provisioning=flex-start, cloud.google.com/gke-flex-start=true, cloud.google.com/gke-max-run-duration-seconds=604800, reclaimed at 2026-11-20T10:35:00Z: its run limit ends in 30 min",
            lesson: "tpu-flex-start",
            fix: "GKE reclaims a flex-start node at its run limit (maxRunDurationSeconds); its pods restart on the node the autoscaler adds from the plan, so expect a cold start",
        });
        expect(later.status).toBe("OK");
    });

    test("a Pending pod after a stockout: GKE's text, the cause, the lesson and the next step", () => {
        const { pods, events } = state("fallback");
        expect(pendingCapacity(pods[0], events)).toEqual({
            status: "FAIL",
            check: "pod scheduled",
            object: "Pod llm-inference/qwen2-3b-cache-kserve-5d7c8b9f6-p9q8r",
            evidence:
                "FailedScaleUp: Node scale up in zones europe-west4-a associated with this pod failed: GCE out of resources. Pod is at risk of not being scheduled. (stockout: the zone has no free TPU v6e capacity of this option)",
            lesson: "tpu-capacity",
            fix: "the ComputeClass moves to the next option after GKE's backoff; add a flex-start or spot option to tpuCapacity, or move to another v6e zone",
        });
    });

    test.each([
        ["misconfigured", "tpu-quota", /\(quota: the project's TPU v6e quota in the region is used up\)$/],
        ["reservation", "tpu-reservation", /\(reservation exhausted: every VM of the reservation is in use\)$/],
        ["flex-start", "tpu-flex-start", /\(flex-start misconfigured: the pod tolerates cloud.google.com\/gke-flex-start/],
        [
            "timed-out",
            "tpu-capacity",
            /failed to appear in time\. .*\(scale-up timed out: GKE asked for the VMs and they did not appear within its wait \(on a multi-host slice up to 30 min with flex-start, 10 h otherwise\)/,
        ],
    ])("a Pending pod in state %s names lesson %s", (name, lesson, evidence) => {
        const { pods, events } = state(name);
        const diagnosis = pendingCapacity(pods[0], events)!;
        expect([diagnosis.check, diagnosis.lesson]).toEqual(["pod scheduled", lesson]);
        expect(diagnosis.evidence).toMatch(evidence);
    });

    test("the class healthy, its first priority backing off for a stockout", () => {
        const { computeClass } = state("fallback");
        expect(computeClassHealth(computeClass, "tpu-inference-tpu", PLAN)).toEqual([
            { status: "OK", check: "ComputeClass healthy", object: "ComputeClass tpu-inference-tpu", evidence: "Crd is healthy." },
            {
                status: "WARN",
                check: "ComputeClass priority not backed off",
                object: "ComputeClass tpu-inference-tpu priority 0 (on-demand)",
                evidence:
                    "OutOfResources: NodeProvisioning associated with this priority failed due to the OutOfResources error. Backing off the priority until 2026-11-20T10:05:00Z.",
                lesson: "tpu-capacity",
                fix: SCALE_UP_FAILURES[0].next,
            },
        ]);
    });

    test("an unhealthy class names GKE's reason; a missing class points at the CRD GKE installs", () => {
        expect(computeClassHealth(state("misconfigured").computeClass, "tpu-inference-tpu", PLAN)[0]).toEqual({
            status: "FAIL",
            check: "ComputeClass healthy",
            object: "ComputeClass tpu-inference-tpu",
            evidence: "Crd is not healthy.; TaintMissing: Crd taint is missing for the nodepool tpu-inference-spot-pool-9c0d2e1.",
            lesson: "tpu-capacity",
            fix: "each pool of the plan must exist with autoscaling on and carry the class's label and taint (`pulumi up` sets them)",
        });
        expect(computeClassHealth(undefined, "tpu-inference-tpu")[0]).toEqual(
            expect.objectContaining({ status: "WARN", evidence: "not found", lesson: "tpu-capacity" }),
        );
    });

    test("a reservation the class cannot find, and a reservation's priority backing off, name the reservation lesson", () => {
        const plan: CapacityPlanOutput = {
            computeClass: "tpu-inference-tpu",
            options: [
                { option: "reservation", nodePool: "tpu-inference-tpu-pool-1f3162a" },
                { option: "reservation", nodePool: "tpu-inference-res-21e972-pool-4b5c6d7" },
            ],
        };
        const [health, priority] = computeClassHealth(state("reservation").computeClass, "tpu-inference-tpu", plan);
        expect([health.status, health.lesson, health.evidence]).toEqual([
            "FAIL",
            "tpu-reservation",
            'Crd is not healthy.; ReservationNotFound: Reservation "v6e-spare" either does not exist or not accessible.',
        ]);
        expect(health.fix).toMatch(/^the reservation a priority names must exist, be shared with the project/);
        expect([priority.check, priority.object, priority.lesson, priority.fix]).toEqual([
            "ComputeClass priority not backed off",
            "ComputeClass tpu-inference-tpu priority 0 (reservation)",
            "tpu-reservation",
            "the next option takes over; grow the reservation or lower tpuMaxNodes",
        ]);
    });

    test.each([
        ["Reservation capacity exceeded", /\(reservation exhausted/, "tpu-reservation"],
        ["Reservation not found or incorrectly shared", /\(reservation unusable/, "tpu-reservation"],
        ["Invalid TPU topology: 4x4", /\(the TPU shape/, "tpu-zones"],
        ["GCE quota exceeded", /\(quota/, "tpu-quota"],
        ["no.scale.up.flex.start.misconfigured.error", /\(flex-start misconfigured/, "tpu-flex-start"],
        ["Flex Start request queued", /\(flex-start queued/, "tpu-flex-start"],
    ])("GKE's %s", (text, cause, lesson) => {
        const pod = { metadata: { name: "p", namespace: "n" } } as KubeObject;
        const events: KubeEvent[] = [
            {
                reason: "FailedScaleUp",
                message: `Node scale up in zones z associated with this pod failed: ${text}.`,
                involvedObject: { name: "p" },
            },
        ];
        expect(pendingCapacity(pod, events)).toEqual(expect.objectContaining({ evidence: expect.stringMatching(cause), lesson }));
    });

    test("the cause is the event that happened last, not the one the API lists last: a repeated event is updated in place", () => {
        const pod = { metadata: { name: "p", namespace: "n" } } as KubeObject;
        const failed = (text: string, lastTimestamp: string): KubeEvent => ({
            reason: "FailedScaleUp",
            message: `Node scale up in zones europe-west4-a associated with this pod failed: ${text}. Pod is at risk of not being scheduled.`,
            involvedObject: { name: "p" },
            lastTimestamp,
        });
        // The stockout was first recorded before the quota failure, and has repeated since.
        const events = [failed("GCE out of resources", "2026-11-20T10:04:00Z"), failed("GCE quota exceeded", "2026-11-20T09:40:00Z")];
        expect(pendingCapacity(pod, events)).toEqual({
            status: "FAIL",
            check: "pod scheduled",
            object: "Pod n/p",
            evidence:
                "FailedScaleUp: Node scale up in zones europe-west4-a associated with this pod failed: GCE out of resources. Pod is at risk of not being scheduled. (stockout: the zone has no free TPU v6e capacity of this option)",
            lesson: "tpu-capacity",
            fix: SCALE_UP_FAILURES[0].next,
        });
        expect(pendingCapacity(pod, [...events].reverse())?.lesson).toBe("tpu-capacity");
    });

    test("every cause names a lesson the pod scheduled check can report", () => {
        for (const failure of SCALE_UP_FAILURES) {
            expect(DOCTOR_CHECKS["pod scheduled"]).toContain(failure.lesson);
        }
    });
});

describe("npm run doctor runs the capacity checks", () => {
    /** The healthy stack with a recorded capacity state, its own TPU node left out (it is in no pool of the plan). */
    const objects = (name: string) =>
        clusterState(`capacity/${name}`).filter((object) => object.metadata?.name !== "gke-tpu-inference-dev-tpu-3f9a1c2e-k7qz");

    test("with the stack's tpuCapacityPlan output: each node's option, the class's health and its backed-off priority", async () => {
        const targets = targetsFromOutputs({ tpuCapacityPlan: { computeClass: PLAN.computeClass, options: PLAN.options } });
        expect(targets.capacityPlan).toEqual(PLAN);
        const capacity = (await runDoctor(memoryReader(objects("fallback")), targets, { now: NOW })).filter(
            (diagnosis) => diagnosis.area === "TPU capacity",
        );
        expect(capacity.map((diagnosis) => [diagnosis.status, diagnosis.check, diagnosis.object])).toEqual([
            ["OK", "TPU node in the capacity plan", "Node gke-tpu-inference-prod-tpu-inference-tpu-pool-1f3162a-a1b2"],
            ["OK", "TPU node in the capacity plan", "Node gke-tpu-inference-prod-tpu-inference-spot-pool-9c0d2e1-c3d4"],
            ["OK", "ComputeClass healthy", "ComputeClass tpu-inference-tpu"],
            ["WARN", "ComputeClass priority not backed off", "ComputeClass tpu-inference-tpu priority 0 (on-demand)"],
        ]);
        expect(capacity.every((diagnosis) => Object.keys(DOCTOR_CHECKS).includes(diagnosis.check))).toBe(true);
    });

    test("a plan across two zones: the zones from the stack's output, each node's zone from its label", async () => {
        const targets = targetsFromOutputs({
            tpuCapacityPlan: {
                computeClass: TWO_ZONES.computeClass,
                options: TWO_ZONES.options.map((option) => ({ ...option, minNodes: 0 })),
            },
        });
        expect(targets.capacityPlan).toEqual(TWO_ZONES);
        const capacity = (await runDoctor(memoryReader(objects("two-zones")), targets, { now: NOW })).filter(
            (diagnosis) => diagnosis.area === "TPU capacity",
        );
        expect(
            capacity.map((diagnosis) => [diagnosis.status, diagnosis.object, diagnosis.evidence.split(", ").slice(0, 2).join(", ")]),
        ).toEqual([
            [
                "OK",
                "Node gke-tpu-inference-zones-tpu-inference-tpu-pool-1a2b3c4-h1j2",
                "pool tpu-inference-tpu-pool-1a2b3c4 (option 1 of 3: reservation in us-east5-a), topology.kubernetes.io/zone=us-east5-a",
            ],
            [
                "OK",
                "Node gke-tpu-inference-zones-tpu-inference-ondemand-b-pool-9a0b1c2-k3l4",
                "pool tpu-inference-ondemand-b-pool-9a0b1c2 (option 3 of 3: on-demand in us-east5-b), topology.kubernetes.io/zone=us-east5-b",
            ],
            ["OK", "ComputeClass tpu-inference-tpu", "Crd is healthy."],
            [
                "WARN",
                "ComputeClass tpu-inference-tpu priority 1 (on-demand in us-east5-a)",
                "OutOfResources: NodeProvisioning associated with this priority failed due to the OutOfResources error. Backing off the priority until 2026-11-20T10:05:00Z.",
            ],
        ]);
    });

    test("a plan whose class the cluster does not serve yet: a warning that points at the CRD", async () => {
        const targets = targetsFromOutputs({ tpuCapacityPlan: { computeClass: "tpu-inference-tpu", options: PLAN.options } });
        const capacity = (await runDoctor(memoryReader(objects("flex-start")), targets, { now: NOW })).filter(
            (diagnosis) => diagnosis.check === "ComputeClass healthy",
        );
        expect(capacity.map((diagnosis) => [diagnosis.status, diagnosis.evidence])).toEqual([["WARN", "not found"]]);
    });

    test("without outputs every TPU node is still shown; a plan of one option has no class to read", async () => {
        const diagnoses = await runDoctor(memoryReader(objects("flex-start")), targetsFromOutputs({ tpuCapacityPlan: { options: [] } }), {
            now: NOW,
        });
        expect(diagnoses.filter((diagnosis) => diagnosis.area === "TPU capacity").map((diagnosis) => diagnosis.check)).toEqual([
            "TPU node in the capacity plan",
            "TPU node in the capacity plan",
        ]);
    });
});
