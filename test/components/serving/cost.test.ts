import { estimateTpuHourlyCost } from "../../../components/serving/cost";
import { MODELS, parse } from "../settings/parse";

describe("estimateTpuHourlyCost", () => {
    test("one VM per replica at the list price; the floor counts; paused costs nothing", () => {
        expect(estimateTpuHourlyCost(parse({ models: MODELS }))).toEqual({
            nodes: 3,
            chips: 12,
            usdPerHour: 32.4,
            rate: {
                usdPerChipHour: 2.7,
                basis: "on-demand US list price per chip-hour; other regions, spot and commitments differ",
                reviewed: "2026-11-21",
            },
        });
        expect(estimateTpuHourlyCost(parse({ tpuMinNodes: "2" })).nodes).toBe(2);
        expect(estimateTpuHourlyCost(parse({ models: MODELS, paused: "true" })).usdPerHour).toBe(0);
        expect(
            estimateTpuHourlyCost(parse({ tpuMachineType: "ct6e-standard-8t", models: '[{"name": "a", "pattern": "pattern1"}]' })),
        ).toEqual(expect.objectContaining({ nodes: 1, chips: 8, usdPerHour: 21.6 }));
    });

    test("autoscaled services: the bill at their minimum, and at their maximum; none when paused", () => {
        const models = JSON.stringify([
            { name: "a", pattern: "pattern3", autoscaling: { minReplicas: 2, maxReplicas: 4 } },
            { name: "b", pattern: "pattern1", replicas: 1 },
        ]);
        const estimate = estimateTpuHourlyCost(parse({ models, tpuMaxNodes: "5" }));
        expect([estimate.nodes, estimate.chips, estimate.usdPerHour]).toEqual([3, 12, 32.4]);
        expect(estimate.atMaximum).toEqual({ nodes: 5, chips: 20, usdPerHour: 54 });
        expect(estimateTpuHourlyCost(parse({ models, tpuMaxNodes: "5", paused: "true" })).atMaximum).toEqual({
            nodes: 0,
            chips: 0,
            usdPerHour: 0,
        });
        expect(estimateTpuHourlyCost(parse({ models: MODELS }))).not.toHaveProperty("atMaximum");
    });
});
