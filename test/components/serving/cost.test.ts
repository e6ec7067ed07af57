import { TPU_CAPACITY_OPTIONS } from "@gke-tpu-inference/facts";
import { capacityPlan } from "../../../components/serving/capacityPlan";
import { estimateTpuHourlyCost } from "../../../components/serving/cost";
import { MODELS, parse } from "../settings/parse";

const ON_DEMAND_RATE = {
    option: "on-demand",
    usdPerChipHour: 2.7,
    basis: "on-demand starting-at US list price per chip-hour; other regions differ",
    source: TPU_CAPACITY_OPTIONS["on-demand"].rate.source,
    reviewed: "2026-11-21",
};

/** Two options, each in both of us-east5's v6e zones: four pools. */
const TWO_BY_TWO = JSON.stringify([
    { type: "reservation", name: "trillium", zones: ["us-east5-a", "us-east5-b"] },
    { type: "on-demand", zones: ["us-east5-a", "us-east5-b"] },
]);

describe("estimateTpuHourlyCost", () => {
    test("one VM per replica at the on-demand list price; the floor counts; paused costs nothing", () => {
        expect(estimateTpuHourlyCost(parse({ models: MODELS }))).toEqual({
            nodes: 3,
            chips: 12,
            usdPerHour: { cheapest: 32.4, cheapestOption: "on-demand", dearest: 32.4, dearestOption: "on-demand" },
            atCeiling: { nodes: 3, chips: 12, usdPerHour: 32.4 },
            rates: [ON_DEMAND_RATE],
        });
        expect(estimateTpuHourlyCost(parse({ tpuMinNodes: "2" })).nodes).toBe(2);
        expect(estimateTpuHourlyCost(parse({ models: MODELS, paused: "true" })).usdPerHour).toEqual({
            cheapest: 0,
            cheapestOption: "on-demand",
            dearest: 0,
            dearestOption: "on-demand",
        });
        expect(
            estimateTpuHourlyCost(parse({ tpuMachineType: "ct6e-standard-8t", models: '[{"name": "a", "pattern": "pattern1"}]' })),
        ).toEqual(expect.objectContaining({ nodes: 1, chips: 8, usdPerHour: expect.objectContaining({ cheapest: 21.6 }) }));
    });

    test("autoscaled services: the bill at their minimum, and at their maximum; none when paused", () => {
        const models = JSON.stringify([
            { name: "a", pattern: "pattern3", autoscaling: { minReplicas: 2, maxReplicas: 4 } },
            { name: "b", pattern: "pattern1", replicas: 1 },
        ]);
        const estimate = estimateTpuHourlyCost(parse({ models, tpuMaxNodes: "5" }));
        expect([estimate.nodes, estimate.chips, estimate.usdPerHour?.dearest]).toEqual([3, 12, 32.4]);
        expect(estimate.atMaximum).toEqual({
            nodes: 5,
            chips: 20,
            usdPerHour: { cheapest: 54, cheapestOption: "on-demand", dearest: 54, dearestOption: "on-demand" },
        });
        expect(estimateTpuHourlyCost(parse({ models, tpuMaxNodes: "5", paused: "true" })).atMaximum).toEqual(
            expect.objectContaining({ nodes: 0, chips: 0 }),
        );
        expect(estimateTpuHourlyCost(parse({ models: MODELS }))).not.toHaveProperty("atMaximum");
    });

    test("a fallback plan: the range from its cheapest to its dearest known rate, each rate with its source; unknown rates named", () => {
        const tpuCapacity = JSON.stringify([{ type: "reservation", name: "trillium" }, { type: "on-demand" }, { type: "spot" }]);
        const estimate = estimateTpuHourlyCost(parse({ models: MODELS, tpuCapacity }));
        expect(estimate.usdPerHour).toEqual({ cheapest: 22.68, cheapestOption: "reservation", dearest: 32.4, dearestOption: "on-demand" });
        expect(estimate.rates.map((rate) => [rate.option, rate.usdPerChipHour, rate.reviewed])).toEqual([
            ["reservation", 1.89, "2026-11-21"],
            ["on-demand", 2.7, "2026-11-21"],
            ["spot", undefined, "2026-11-21"],
        ]);
        for (const rate of estimate.rates) {
            expect(rate.source).toBe(TPU_CAPACITY_OPTIONS[rate.option].rate.source);
        }
        expect(estimate.unknownRates).toBe("spot: no catalogued TPU v6e rate; the range leaves it out");
    });

    test("every pool full: each option in each of its zones at tpuMaxNodes, each at its option's rate (one rate per option, whatever the zone)", () => {
        const estimate = estimateTpuHourlyCost(parse({ zone: "us-east5-a", models: MODELS, tpuCapacity: TWO_BY_TWO }));
        // 2 reservation pools and 2 on-demand pools of 3 VMs of 4 chips: 24 chips at 1.89 and 24 at 2.7.
        expect(estimate.atCeiling).toEqual({ nodes: 12, chips: 48, usdPerHour: 110.16 });
        // The range is per option, not per pool: the busy VMs cost the same in either zone.
        expect(estimate.usdPerHour).toEqual({ cheapest: 22.68, cheapestOption: "reservation", dearest: 32.4, dearestOption: "on-demand" });
        expect(estimate.rates.map((rate) => rate.option)).toEqual(["reservation", "on-demand"]);
        expect(estimateTpuHourlyCost(parse({ models: MODELS })).atCeiling).toEqual({ nodes: 3, chips: 12, usdPerHour: 32.4 });
        expect(
            estimateTpuHourlyCost(parse({ models: MODELS, tpuCapacity: TWO_BY_TWO, zone: "us-east5-a", paused: "true" })).atCeiling,
        ).toEqual({
            nodes: 0,
            chips: 0,
            usdPerHour: 0,
        });
    });

    test("every pool full, where some options have no rate: the priced pools' sum; none priced, no sum", () => {
        const mixed = JSON.stringify([
            { type: "on-demand", zones: ["us-east5-a", "us-east5-b"] },
            { type: "spot", zones: ["us-east5-b"] },
        ]);
        expect(estimateTpuHourlyCost(parse({ zone: "us-east5-a", tpuCapacity: mixed })).atCeiling).toEqual({
            nodes: 9,
            chips: 36,
            usdPerHour: 64.8,
        });
        const unpriced = JSON.stringify([{ type: "spot", zones: ["us-east5-a", "us-east5-b"] }]);
        expect(estimateTpuHourlyCost(parse({ zone: "us-east5-a", tpuCapacity: unpriced })).atCeiling).toEqual({ nodes: 6, chips: 24 });
    });

    test("a plan with no known rate: no range, and it says which options lack one", () => {
        const tpuCapacity = JSON.stringify([{ type: "flex-start" }, { type: "spot" }]);
        const estimate = estimateTpuHourlyCost(parse({ zone: "us-east5-a", models: MODELS, tpuCapacity }));
        expect(estimate).not.toHaveProperty("usdPerHour");
        expect(estimate.unknownRates).toBe("flex-start, spot: no catalogued TPU v6e rate; the range leaves them out");
    });
});

describe("capacityPlan", () => {
    test("each option in order: zone, pool, bounds, limits and the busy VMs' cost at its rate", () => {
        const settings = parse({
            zone: "us-east5-a",
            tpuMinNodes: "1",
            models: MODELS,
            tpuCapacity: JSON.stringify([
                { type: "reservation", name: "trillium" },
                { type: "flex-start", maxRunDurationSeconds: 86400 },
                { type: "on-demand" },
            ]),
        });
        const pools = settings.tpu.capacity.map((capacity, index) => ({
            capacity,
            zone: "us-east5-a",
            nodePoolName: `pool-${index}`,
            minNodes: index === 0 ? 1 : 0,
            maxNodes: 3,
        }));
        expect(capacityPlan(settings, pools, "tpu-inference-tpu")).toEqual({
            computeClass: "tpu-inference-tpu",
            options: [
                {
                    option: "reservation",
                    zone: "us-east5-a",
                    nodePool: "pool-0",
                    minNodes: 1,
                    maxNodes: 3,
                    reservation: "trillium",
                    limits: TPU_CAPACITY_OPTIONS.reservation.limits,
                    usdPerHour: 22.68,
                },
                {
                    option: "flex-start",
                    zone: "us-east5-a",
                    nodePool: "pool-1",
                    minNodes: 0,
                    maxNodes: 3,
                    maxRunDurationSeconds: 86400,
                    limits: TPU_CAPACITY_OPTIONS["flex-start"].limits,
                    usdPerHour: "unknown",
                },
                {
                    option: "on-demand",
                    zone: "us-east5-a",
                    nodePool: "pool-2",
                    minNodes: 0,
                    maxNodes: 3,
                    limits: TPU_CAPACITY_OPTIONS["on-demand"].limits,
                    usdPerHour: 32.4,
                },
            ],
            // Every option's maximum: a rollout's surge pod may spill onto the next option.
            ceilingNodes: 9,
        });
    });

    test("on a multi-host slice, each option but the last says how long GKE may wait on it before the next", () => {
        const settings = parse({
            zone: "us-east5-a",
            tpuTopology: "4x4",
            tpuMaxNodes: "4",
            tpuCapacity: JSON.stringify([{ type: "flex-start" }, { type: "on-demand" }, { type: "spot" }]),
        });
        const pools = settings.tpu.capacity.map((capacity, index) => ({
            capacity,
            zone: "us-east5-a",
            nodePoolName: `pool-${index}`,
            minNodes: 0,
            maxNodes: 4,
        }));
        const plan = capacityPlan(settings, pools, "tpu-inference-tpu");
        expect(plan.options.map((option) => [option.option, option.scaleUpWaitMinutes])).toEqual([
            ["flex-start", 30],
            ["on-demand", 600],
            ["spot", undefined],
        ]);
        expect(plan.ceilingNodes).toBe(12);
    });

    test("a plan of one option names no ComputeClass", () => {
        const settings = parse({});
        expect(
            capacityPlan(settings, [
                { capacity: { type: "on-demand" }, zone: "europe-west4-a", nodePoolName: "p", minNodes: 0, maxNodes: 3 },
            ]),
        ).toEqual({
            options: [expect.objectContaining({ option: "on-demand", zone: "europe-west4-a", usdPerHour: 0 })],
            ceilingNodes: 3,
        });
    });

    test("an option in two zones is a pool in each: each pool shows its zone, at its option's one rate; the ceiling counts every pool", () => {
        const settings = parse({ zone: "us-east5-a", models: MODELS, tpuCapacity: TWO_BY_TWO });
        const pools = [
            ["reservation", "us-east5-a"],
            ["reservation", "us-east5-b"],
            ["on-demand", "us-east5-a"],
            ["on-demand", "us-east5-b"],
        ].map(([option, zone], index) => ({
            capacity: settings.tpu.capacity.find((rung) => rung.type === option)!,
            zone,
            nodePoolName: `pool-${index}`,
            minNodes: 0,
            maxNodes: 3,
        }));
        const plan = capacityPlan(settings, pools, "tpu-inference-tpu");
        expect(plan.options.map((option) => [option.option, option.zone, option.nodePool, option.usdPerHour])).toEqual([
            ["reservation", "us-east5-a", "pool-0", 22.68],
            ["reservation", "us-east5-b", "pool-1", 22.68],
            ["on-demand", "us-east5-a", "pool-2", 32.4],
            ["on-demand", "us-east5-b", "pool-3", 32.4],
        ]);
        expect(plan.ceilingNodes).toBe(12);
    });
});
