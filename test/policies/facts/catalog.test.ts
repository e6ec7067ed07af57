import { GKE_TPU_V6E_ZONES, TPU_V6E_MACHINE_TYPES, findTpuShape, regionOfZone } from "@gke-tpu-inference/facts";

describe("catalog", () => {
    test("every v6e shape has as many chips as hosts times chips per VM", () => {
        for (const [machineType, machine] of Object.entries(TPU_V6E_MACHINE_TYPES)) {
            for (const shape of machine.shapes) {
                const chips = shape.topology
                    .split("x")
                    .map(Number)
                    .reduce((a, b) => a * b, 1);
                expect({ machineType, topology: shape.topology, chips }).toEqual({
                    machineType,
                    topology: shape.topology,
                    chips: shape.hosts * machine.chipsPerVm,
                });
            }
        }
    });

    test("zones map to their regions", () => {
        expect(GKE_TPU_V6E_ZONES.map(regionOfZone)).toEqual([
            "europe-west4",
            "us-central1",
            "us-east1",
            "us-east5",
            "us-east5",
            "us-south1",
            "us-south1",
        ]);
    });

    test("findTpuShape finds only pairs that exist", () => {
        expect(findTpuShape("ct6e-standard-4t", "4x8")).toEqual({ topology: "4x8", hosts: 8 });
        expect(findTpuShape("ct6e-standard-8t", "2x2")).toBeUndefined();
        expect(findTpuShape("ct5lp-hightpu-4t", "2x2")).toBeUndefined();
    });
});
