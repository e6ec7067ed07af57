/**
 * A capacity plan of several options through the whole program: one node pool per option, the ComputeClass that orders
 * them, the model services' pods selecting the class, what waits for what, and the plan and its cost as outputs.
 */
import { Graph, runProgram, transitiveDependencies } from "./harness";
import { evaluatePack } from "./support/wholePack";
import { shippedRun } from "./shippedStacks";

const MODELS = JSON.stringify([{ name: "qwen", pattern: "pattern1" }]);
const POOL = "gcp:container/nodePool:NodePool";
const CLASS = "kubernetes:cloud.google.com/v1:ComputeClass";

describe("a single-host fallback plan: reservation, flex-start, on-demand, spot", () => {
    let graph: Graph;
    beforeAll(async () => {
        graph = await runProgram({
            zone: "us-east5-a",
            tpuMinNodes: "1",
            models: MODELS,
            tpuCapacity: JSON.stringify([
                { type: "reservation", name: "trillium" },
                { type: "flex-start", maxRunDurationSeconds: 86400 },
                { type: "on-demand" },
                { type: "spot" },
            ]),
        });
    });

    test("one pool per option: the first keeps the stack's TPU pool name and the floor, the others start from zero", () => {
        const pools = ["tpu-inference-tpu-pool", "tpu-inference-flex-pool", "tpu-inference-ondemand-pool", "tpu-inference-spot-pool"].map(
            (name) => graph.get(POOL, name).inputs,
        );
        expect(pools.map((pool) => pool.autoscaling)).toEqual([
            { minNodeCount: 1, maxNodeCount: 3 },
            { minNodeCount: 0, maxNodeCount: 3 },
            { minNodeCount: 0, maxNodeCount: 3 },
            { minNodeCount: 0, maxNodeCount: 3 },
        ]);
        const nodeConfigs = pools.map((pool) => pool.nodeConfig as Record<string, unknown>);
        expect(nodeConfigs.map((config) => [config.spot, config.flexStart, config.maxRunDuration, config.reservationAffinity])).toEqual([
            [
                false,
                undefined,
                undefined,
                { consumeReservationType: "SPECIFIC_RESERVATION", key: "compute.googleapis.com/reservation-name", values: ["trillium"] },
            ],
            [false, true, "86400s", { consumeReservationType: "NO_RESERVATION" }],
            [false, undefined, undefined, undefined],
            [true, undefined, undefined, undefined],
        ]);
        expect(pools.map((pool) => (pool.management as { autoRepair: boolean }).autoRepair)).toEqual([true, false, true, true]);
        for (const config of nodeConfigs) {
            expect(config.taints).toEqual([{ key: "cloud.google.com/compute-class", value: "tpu-inference-tpu", effect: "NO_SCHEDULE" }]);
            expect((config.labels as Record<string, string>)["cloud.google.com/compute-class"]).toBe("tpu-inference-tpu");
        }
        expect(nodeConfigs.map((config) => (config.labels as Record<string, string>)["gke-tpu-inference/capacity"])).toEqual([
            "reservation",
            "flex-start",
            "on-demand",
            "spot",
        ]);
    });

    test("the ComputeClass names the pools in order and waits only for them and the cluster's provider", () => {
        const computeClass = graph.get(CLASS, "tpu-inference-tpu-class");
        const plan = graph.recording.outputs.tpuCapacityPlan as { options: Array<{ nodePool: string }> };
        const names = plan.options.map((option) => option.nodePool);
        expect(names.map((name) => name.replace(/-[0-9a-f]{7}$/, ""))).toEqual([
            "tpu-inference-tpu-pool",
            "tpu-inference-flex-pool",
            "tpu-inference-ondemand-pool",
            "tpu-inference-spot-pool",
        ]);
        expect((computeClass.inputs.spec as { priorities: unknown }).priorities).toEqual(names.map((name) => ({ nodepools: [name] })));
        // Its pools by name, and the probe that the API server serves ComputeClasses (GKE installs the CRD late).
        expect(graph.dependencyNames(computeClass)).toEqual([
            ...["tpu-inference-flex-pool", "tpu-inference-ondemand-pool", "tpu-inference-spot-pool", "tpu-inference-tpu-pool"].map(
                (name) => `${POOL} ${name}`,
            ),
            "kubernetes:batch/v1:Job tpu-inference-tpu-served-probe",
        ]);
        expect(computeClass.provider).toContain("tpu-inference-k8s");
    });

    test("the model service's pods select the class and tolerate its taint and spot's; nothing else selects a capacity", () => {
        const llmisvc = graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService", "qwen-llmisvc");
        const template = (llmisvc.inputs.spec as { template: { nodeSelector: unknown; tolerations: unknown } }).template;
        expect(template.nodeSelector).toEqual({
            "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
            "cloud.google.com/gke-tpu-topology": "2x2",
            "cloud.google.com/compute-class": "tpu-inference-tpu",
        });
        expect(template.tolerations).toEqual([
            { key: "google.com/tpu", operator: "Equal", value: "present", effect: "NoSchedule" },
            { key: "cloud.google.com/compute-class", operator: "Equal", value: "tpu-inference-tpu", effect: "NoSchedule" },
            { key: "cloud.google.com/gke-spot", operator: "Equal", value: "true", effect: "NoSchedule" },
        ]);
    });

    test("only the model service waits for the class (so no TPU pod exists before the order), and through it for the pools; nothing else does", () => {
        const pools = graph.ofType(POOL).filter((pool) => pool.name !== "tpu-inference-system");
        expect(pools).toHaveLength(4);
        const computeClass = graph.get(CLASS, "tpu-inference-tpu-class");
        const waiting = graph.resources
            .filter((candidate) => candidate.type.startsWith("kubernetes:") && candidate !== computeClass)
            .filter((resource) => {
                const waits = transitiveDependencies(graph, resource);
                return pools.some((pool) => waits.has(pool.urn)) || waits.has(computeClass.urn);
            })
            .map((resource) => resource.name);
        // The service's autoscaler is created after the service it scales.
        expect(waiting.sort()).toEqual(["qwen-llmisvc"]);
        expect(
            transitiveDependencies(graph, graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService", "qwen-llmisvc")).has(
                computeClass.urn,
            ),
        ).toBe(true);
    });

    test("outputs: the plan in order with zone, pool and cost, and the cost range over the known rates", () => {
        const { tpuCapacityPlan, tpuHourlyCost } = graph.recording.outputs as Record<string, Record<string, unknown>>;
        expect(tpuCapacityPlan.computeClass).toBe("tpu-inference-tpu");
        expect(
            (tpuCapacityPlan.options as Array<Record<string, unknown>>).map((option) => [option.option, option.zone, option.usdPerHour]),
        ).toEqual([
            ["reservation", "us-east5-a", 7.56],
            ["flex-start", "us-east5-a", "unknown"],
            ["on-demand", "us-east5-a", 10.8],
            ["spot", "us-east5-a", "unknown"],
        ]);
        expect(tpuHourlyCost.usdPerHour).toEqual({
            cheapest: 7.56,
            cheapestOption: "reservation",
            dearest: 10.8,
            dearestOption: "on-demand",
        });
        expect(tpuHourlyCost.unknownRates).toBe("flex-start, spot: no catalogued TPU v6e rate; the range leaves them out");
    });
});

describe("a multi-host fallback plan for a 4x4 slice: a reservation shared from another project, flex-start, on-demand, spot", () => {
    test("every pool is a COMPACT 4x4 slice from zero, the reservation named as GKE takes a shared one; the pods select the class; the pack passes it", async () => {
        const shared = "projects/capacity-owner/reservations/trillium/reservationBlocks/block-1";
        const graph = await runProgram({
            zone: "us-east5-a",
            tpuTopology: "4x4",
            tpuMaxNodes: "4",
            models: JSON.stringify([
                {
                    name: "big",
                    pattern: "pattern1",
                    modelName: "Qwen/Qwen2.5-72B-Instruct",
                    modelUri: "hf://Qwen/Qwen2.5-72B-Instruct",
                    maxModelLen: 8192,
                },
            ]),
            tpuCapacity: JSON.stringify([
                { type: "reservation", name: shared },
                { type: "flex-start" },
                { type: "on-demand" },
                { type: "spot" },
            ]),
        });
        for (const name of [
            "tpu-inference-tpu-pool",
            "tpu-inference-flex-pool",
            "tpu-inference-ondemand-pool",
            "tpu-inference-spot-pool",
        ]) {
            expect(graph.get(POOL, name).inputs).toEqual(
                expect.objectContaining({
                    placementPolicy: { type: "COMPACT", tpuTopology: "4x4" },
                    autoscaling: { minNodeCount: 0, maxNodeCount: 4 },
                }),
            );
        }
        const llmisvc = graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService", "big-llmisvc");
        type Pod = { nodeSelector: Record<string, string>; tolerations: unknown[] };
        const spec = llmisvc.inputs.spec as { template: Pod; worker: Pod };
        // The leader and every worker of the group may land on either pool: the class, the shape, and no pool or capacity label.
        for (const pod of [spec.template, spec.worker]) {
            expect(pod.nodeSelector).toEqual({
                "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
                "cloud.google.com/gke-tpu-topology": "4x4",
                "cloud.google.com/compute-class": "tpu-inference-tpu",
            });
            expect(pod.tolerations).toEqual([
                { key: "google.com/tpu", operator: "Equal", value: "present", effect: "NoSchedule" },
                { key: "cloud.google.com/compute-class", operator: "Equal", value: "tpu-inference-tpu", effect: "NoSchedule" },
                { key: "cloud.google.com/gke-spot", operator: "Equal", value: "true", effect: "NoSchedule" },
            ]);
        }
        expect((graph.get(POOL, "tpu-inference-tpu-pool").inputs.nodeConfig as Record<string, unknown>).reservationAffinity).toEqual({
            consumeReservationType: "SPECIFIC_RESERVATION",
            key: "compute.googleapis.com/reservation-name",
            values: [shared],
        });
        expect((graph.get(POOL, "tpu-inference-flex-pool").inputs.nodeConfig as Record<string, unknown>).flexStart).toBe(true);
        const mandatory = (await evaluatePack(graph.resources)).filter((violation) => violation.enforcementLevel === "mandatory");
        expect(mandatory.map((violation) => `${violation.policyName}: ${violation.message}`)).toEqual([]);
        // A group stays within one pool (one slice), whichever option it came from.
        expect((llmisvc.inputs.metadata as { annotations: Record<string, string> }).annotations).toEqual(
            expect.objectContaining({ "leaderworkerset.sigs.k8s.io/exclusive-topology": "cloud.google.com/gke-nodepool" }),
        );
    });
});

describe("a plan across two zones: a reservation in the stack's zone, on-demand in both of us-east5's v6e zones", () => {
    test("a pool per option and zone, each in its zone, ordered by the class; the pack passes every pool", async () => {
        const graph = await runProgram({
            zone: "us-east5-a",
            models: MODELS,
            tpuCapacity: JSON.stringify([
                { type: "reservation", name: "r1" },
                { type: "on-demand", zones: ["us-east5-a", "us-east5-b"] },
            ]),
        });
        expect(
            graph
                .ofType(POOL)
                .filter((pool) => pool.name !== "tpu-inference-system")
                .map((pool) => [pool.name, pool.inputs.nodeLocations])
                .sort(),
        ).toEqual([
            ["tpu-inference-ondemand-b-pool", ["us-east5-b"]],
            ["tpu-inference-ondemand-pool", ["us-east5-a"]],
            ["tpu-inference-tpu-pool", ["us-east5-a"]],
        ]);
        const plan = graph.recording.outputs.tpuCapacityPlan as { options: Array<{ option: string; zone: string }> };
        expect(plan.options.map((option) => [option.option, option.zone])).toEqual([
            ["reservation", "us-east5-a"],
            ["on-demand", "us-east5-a"],
            ["on-demand", "us-east5-b"],
        ]);
        const violations = await evaluatePack(graph.resources);
        expect(violations.map((violation) => `${violation.policyName}: ${violation.message}`)).toEqual([]);
    });
});

describe("a fleet of three regions, one of them buying in both of its zones", () => {
    test("a cluster and plan per member, us-east5's on-demand pools in both zones and spot in its own, ordered by its class; the whole pack passes it", async () => {
        const graph = await runProgram({
            models: MODELS,
            gatewayHostname: "inference.fleet.internal",
            fleet: JSON.stringify({
                configRegion: "us-east5",
                members: [
                    { region: "us-east5", tpuCapacity: [{ type: "on-demand", zones: ["us-east5-a", "us-east5-b"] }, { type: "spot" }] },
                    { region: "us-south1" },
                    { region: "us-central1" },
                ],
            }),
        });
        expect(graph.ofType("gcp:container/cluster:Cluster").map((cluster) => cluster.inputs.location)).toEqual([
            "us-east5",
            "us-south1",
            "us-central1",
        ]);
        expect(
            graph
                .ofType(POOL)
                .filter((pool) => !pool.name.endsWith("-system"))
                .map((pool) => [pool.name, pool.inputs.nodeLocations])
                .sort(),
        ).toEqual([
            ["tpu-inference-us-central1-tpu-pool", ["us-central1-b"]],
            ["tpu-inference-us-east5-spot-pool", ["us-east5-a"]],
            ["tpu-inference-us-east5-tpu-b-pool", ["us-east5-b"]],
            ["tpu-inference-us-east5-tpu-pool", ["us-east5-a"]],
            ["tpu-inference-us-south1-tpu-pool", ["us-south1-a"]],
        ]);
        expect(graph.ofType(CLASS).map((computeClass) => computeClass.name)).toEqual(["tpu-inference-us-east5-tpu-class"]);
        const violations = await evaluatePack(graph.resources);
        expect(violations.map((violation) => `${violation.enforcementLevel} ${violation.policyName}: ${violation.message}`)).toEqual([]);
    });
});

describe("shipped stacks", () => {
    test.each(["dev", "multimodel", "multihost", "istio"])("%s: a plan of one on-demand option, without a ComputeClass", async (stack) => {
        const run = await shippedRun(stack);
        expect(run.resources.filter((resource) => resource.type === CLASS)).toEqual([]);
        const plan = run.outputs.tpuCapacityPlan as { computeClass?: string; options: Array<{ option: string }> };
        expect(plan.computeClass).toBeUndefined();
        expect(plan.options.map((option) => option.option)).toEqual(["on-demand"]);
    });

    test("prod: on-demand, then spot, ordered by a ComputeClass", async () => {
        const run = await shippedRun("prod");
        const plan = run.outputs.tpuCapacityPlan as { computeClass?: string; options: Array<{ option: string; zone: string }> };
        expect(plan.computeClass).toBe("tpu-inference-tpu");
        expect(plan.options.map((option) => [option.option, option.zone])).toEqual([
            ["on-demand", "europe-west4-a"],
            ["spot", "europe-west4-a"],
        ]);
        expect(run.resources.filter((resource) => resource.type === CLASS).map((resource) => resource.name)).toEqual([
            "tpu-inference-tpu-class",
        ]);
    });

    test("fleet: a plan per member, us-east5 on demand in both its zones ordered by a ComputeClass, us-south1 on demand alone", async () => {
        const run = await shippedRun("fleet");
        expect(run.outputs.tpuCapacityPlan).toBeUndefined();
        const members = run.outputs.members as Record<
            string,
            { tpuCapacityPlan: { computeClass?: string; options: Array<{ option: string; zone: string }> } }
        >;
        expect(
            Object.entries(members).map(([region, { tpuCapacityPlan: plan }]) => [
                region,
                plan.computeClass,
                plan.options.map((option) => [option.option, option.zone]),
            ]),
        ).toEqual([
            [
                "us-east5",
                "tpu-inference-us-east5-tpu",
                [
                    ["on-demand", "us-east5-a"],
                    ["on-demand", "us-east5-b"],
                ],
            ],
            ["us-south1", undefined, [["on-demand", "us-south1-a"]]],
        ]);
        expect(run.resources.filter((resource) => resource.type === CLASS).map((resource) => resource.name)).toEqual([
            "tpu-inference-us-east5-tpu-class",
        ]);
    });
});
