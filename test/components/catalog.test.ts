import { GKE_TPU_V6E_ZONES, TPU_V6E_MACHINE_TYPES, findTpuShape, regionOfZone } from "@gke-tpu-inference/facts";
import { overlaps, parseCidr } from "../../components/cidr";

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

describe("cidr", () => {
    test("parses network addresses and finds overlaps", () => {
        const pods = parseCidr("10.4.0.0/14");
        const services = parseCidr("10.8.0.0/20");
        const inside = parseCidr("10.7.255.0/24");
        if (typeof pods === "string" || typeof services === "string" || typeof inside === "string") {
            throw new Error("expected ranges");
        }
        expect(pods).toEqual({
            cidr: "10.4.0.0/14",
            prefixLength: 14,
            first: 10 * 2 ** 24 + 4 * 2 ** 16,
            last: 10 * 2 ** 24 + 8 * 2 ** 16 - 1,
        });
        expect(overlaps(pods, services)).toBe(false);
        expect(overlaps(pods, inside)).toBe(true);
        expect(parseCidr("0.0.0.0/0")).toEqual({ cidr: "0.0.0.0/0", prefixLength: 0, first: 0, last: 2 ** 32 - 1 });
    });
});
