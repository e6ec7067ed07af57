import { errorOf, parse, problemsOf } from "./parse";

describe("settings defaults", () => {
    test("a multi-host topology takes its hosts as the pool's maximum", () => {
        const settings = parse({ tpuTopology: "4x4", tpuMaxNodes: "4" });
        expect(settings.tpu).toEqual(expect.objectContaining({ topology: "4x4", hostsPerSlice: 4, minNodes: 0, maxNodes: 4 }));
    });
});

describe("settings validation names the key, the value and what is allowed", () => {
    test.each<[string, Record<string, string>, string]>([
        [
            "machine type outside the catalog",
            { tpuMachineType: "ct5lp-hightpu-4t" },
            'gke-tpu-inference:tpuMachineType = "ct5lp-hightpu-4t" is not a TPU v6e machine type; allowed: ct6e-standard-1t, ct6e-standard-4t, ct6e-standard-8t',
        ],
        [
            "topology that does not fit the machine type",
            { tpuMachineType: "ct6e-standard-8t", tpuTopology: "2x2" },
            'gke-tpu-inference:tpuTopology = "2x2" is not a topology of ct6e-standard-8t; allowed: 2x4',
        ],
        [
            "node counts that cannot hold a multi-host slice",
            { tpuTopology: "4x4", tpuMaxNodes: "3" },
            "gke-tpu-inference:tpuMaxNodes = 3 with tpuMinNodes = 0 cannot hold one 4x4 slice of ct6e-standard-4t, which is 4 hosts scaled as one unit; " +
                "allowed: tpuMaxNodes = 4 and tpuMinNodes = 0 or 4",
        ],
        [
            "a multi-host floor that is part of a slice",
            { tpuTopology: "4x8", tpuMinNodes: "2", tpuMaxNodes: "8" },
            "gke-tpu-inference:tpuMaxNodes = 8 with tpuMinNodes = 2 cannot hold one 4x8 slice of ct6e-standard-4t, which is 8 hosts scaled as one unit; " +
                "allowed: tpuMaxNodes = 8 and tpuMinNodes = 0 or 8",
        ],
        [
            "negative minimum",
            { tpuMinNodes: "-1" },
            'gke-tpu-inference:tpuMinNodes = "-1" is not a whole number from 0 to 1000; allowed: 0 to 1000 (GKE\'s nodes per node pool zone)',
        ],
        [
            "non-numeric maximum",
            { tpuMaxNodes: "three" },
            'gke-tpu-inference:tpuMaxNodes = "three" is not a whole number; allowed: 0 to 1000 (GKE\'s nodes per node pool zone)',
        ],
        [
            "fractional maximum",
            { tpuMaxNodes: "1.5" },
            'gke-tpu-inference:tpuMaxNodes = "1.5" is not a whole number; allowed: 0 to 1000 (GKE\'s nodes per node pool zone)',
        ],
        [
            "inverted TPU bounds",
            { tpuMinNodes: "4", tpuMaxNodes: "2" },
            "gke-tpu-inference:tpuMinNodes = 4 is greater than gke-tpu-inference:tpuMaxNodes = 2; allowed: tpuMinNodes <= tpuMaxNodes",
        ],
        [
            "unknown provisioning model",
            { tpuProvisioning: "preemptible" },
            'gke-tpu-inference:tpuProvisioning = "preemptible" is not a TPU provisioning model; allowed: on-demand, spot, reservation',
        ],
        [
            "reservation without its name",
            { tpuProvisioning: "reservation" },
            'gke-tpu-inference:tpuReservation is not set but gke-tpu-inference:tpuProvisioning = "reservation"; allowed: the name of a specific TPU reservation in europe-west4-a',
        ],
        [
            "reservation name without the reservation model",
            { tpuReservation: "trillium" },
            'gke-tpu-inference:tpuReservation = "trillium" is set but gke-tpu-inference:tpuProvisioning = "on-demand"; allowed: tpuReservation only with tpuProvisioning = "reservation"',
        ],
        [
            "malformed reservation name",
            { tpuProvisioning: "reservation", tpuReservation: "Trillium_1" },
            'gke-tpu-inference:tpuReservation = "Trillium_1" is not a reservation name; allowed: lowercase letters, digits and hyphens, starting with a letter, at most 63 characters',
        ],
    ])("%s", (_case, values, message) => {
        expect(errorOf(values)).toBe(message);
    });
});

describe("values the cloud or the cluster would refuse", () => {
    test.each<[string, Record<string, string>, string]>([
        [
            "more nodes than GKE puts in a pool zone",
            { tpuMaxNodes: "1001" },
            'gke-tpu-inference:tpuMaxNodes = "1001" is not a whole number from 0 to 1000; allowed: 0 to 1000 (GKE\'s nodes per node pool zone)',
        ],
    ])("%s", (_, values, message) => {
        expect(problemsOf(values)).toEqual([message]);
    });
});
