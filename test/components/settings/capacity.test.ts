import { plannedPools } from "../../../components/settings/capacityOrder";
import { SETTINGS, settingWarnings } from "../../../components/settings/stack";
import { PROJECT } from "../../harness";
import { errorOf, parse, problemsOf } from "./parse";

/** What a reservation's name may be, as every message about one says. */
const RESERVATION_ALLOWED =
    "a reservation's name (lowercase letters, digits and hyphens, starting with a letter, at most 63 characters), or projects/<owner>/reservations/<name> for one shared from another project, either with /reservationBlocks/<block> for one of its blocks";

describe("settings defaults", () => {
    test("a multi-host topology takes its hosts as the pool's maximum", () => {
        const settings = parse({ tpuTopology: "4x4", tpuMaxNodes: "4" });
        expect(settings.tpu).toEqual(expect.objectContaining({ topology: "4x4", hostsPerSlice: 4, minNodes: 0, maxNodes: 4 }));
    });

    test("2x4 is one ct6e-standard-8t VM, or a slice of two ct6e-standard-4t VMs, which GKE alone offers", () => {
        expect(parse({ tpuMachineType: "ct6e-standard-8t", tpuTopology: "2x4" }).tpu).toEqual(
            expect.objectContaining({ topology: "2x4", hostsPerSlice: 1 }),
        );
        expect(parse({ tpuMachineType: "ct6e-standard-4t", tpuTopology: "2x4", tpuMaxNodes: "2" }).tpu).toEqual(
            expect.objectContaining({ topology: "2x4", hostsPerSlice: 2, maxNodes: 2 }),
        );
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
            `gke-tpu-inference:tpuReservation = "Trillium_1" is not a reservation name; allowed: ${RESERVATION_ALLOWED}`,
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

describe("tpuCapacity: the options in the order GKE tries them", () => {
    const plan = (rungs: unknown[], values: Record<string, string> = {}) => ({ tpuCapacity: JSON.stringify(rungs), ...values });

    test("each option as the program reads it; flex-start's run limit defaults to GKE's seven days", () => {
        const settings = parse(
            plan(
                [
                    { type: "reservation", name: "trillium" },
                    { type: "any-reservation" },
                    { type: "flex-start" },
                    { type: "on-demand" },
                    { type: "spot" },
                ],
                { zone: "us-east5-a" },
            ),
        );
        expect(settings.tpu.capacity).toEqual(
            [
                { type: "reservation", name: "trillium" },
                { type: "any-reservation" },
                { type: "flex-start", maxRunDurationSeconds: 604800 },
                { type: "on-demand" },
                { type: "spot" },
            ].map((rung) => ({ ...rung, zones: ["us-east5-a"] })),
        );
    });

    test("the old settings are a plan of one option", () => {
        const zones = ["europe-west4-a"];
        expect(parse({}).tpu.capacity).toEqual([{ type: "on-demand", zones }]);
        expect(parse({ tpuProvisioning: "spot" }).tpu.capacity).toEqual([{ type: "spot", zones }]);
        expect(parse({ tpuProvisioning: "reservation", tpuReservation: "trillium" }).tpu.capacity).toEqual([
            { type: "reservation", name: "trillium", zones },
        ]);
    });

    test("multi-host shapes take every option GKE builds them with, flex-start among them (without queued provisioning), each pool a whole slice", () => {
        const settings = parse(
            plan([{ type: "reservation", name: "slice" }, { type: "on-demand" }, { type: "flex-start" }, { type: "spot" }], {
                zone: "us-east5-a",
                tpuTopology: "4x4",
                tpuMaxNodes: "4",
            }),
        );
        expect(settings.tpu).toEqual(expect.objectContaining({ hostsPerSlice: 4, maxNodes: 4 }));
        expect(settings.tpu.capacity.map((rung) => rung.type)).toEqual(["reservation", "on-demand", "flex-start", "spot"]);
    });

    test("a reservation shared from another project, and one of its blocks, by the names a node pool's affinity takes", () => {
        const names = [
            "projects/capacity-owner/reservations/trillium",
            "projects/capacity-owner/reservations/trillium/reservationBlocks/block-1",
            "trillium/reservationBlocks/block-1",
        ];
        const zones = ["europe-west4-a"];
        expect(parse(plan(names.map((name) => ({ type: "reservation", name })))).tpu.capacity).toEqual(
            names.map((name) => ({ type: "reservation", name, zones })),
        );
        expect(parse({ tpuProvisioning: "reservation", tpuReservation: names[0] }).tpu.capacity).toEqual([
            { type: "reservation", name: names[0], zones },
        ]);
    });

    test.each<[string, Record<string, string>, string]>([
        [
            "a reservation option without a name",
            plan([{ type: "reservation" }, { type: "on-demand" }]),
            `gke-tpu-inference:tpuCapacity[0].name is not set on a "reservation" option; allowed: a specific TPU reservation in the zone, by ${RESERVATION_ALLOWED}`,
        ],
        [
            "a reservation name GCP refuses",
            plan([{ type: "reservation", name: "Trillium_1" }]),
            `gke-tpu-inference:tpuCapacity[0].name = "Trillium_1" is not a reservation name; allowed: ${RESERVATION_ALLOWED}`,
        ],
        [
            "an unknown option",
            plan([{ type: "preemptible" }]),
            'gke-tpu-inference:tpuCapacity[0].type = "preemptible" is not a TPU capacity option; allowed: reservation, any-reservation, on-demand, flex-start, spot',
        ],
        [
            "an option without a type",
            plan([{ name: "trillium" }]),
            "gke-tpu-inference:tpuCapacity[0].type is not set; allowed: reservation, any-reservation, on-demand, flex-start, spot",
        ],
        [
            "the same option twice",
            plan([{ type: "on-demand" }, { type: "spot" }, { type: "on-demand" }]),
            'gke-tpu-inference:tpuCapacity[2] = {"type":"on-demand"} repeats tpuCapacity[0]; allowed: each option once (a reservation once per name), in the order GKE should try them',
        ],
        [
            "the same reservation twice",
            plan([
                { type: "reservation", name: "trillium" },
                { type: "reservation", name: "trillium" },
            ]),
            'gke-tpu-inference:tpuCapacity[1] = {"type":"reservation","name":"trillium"} repeats tpuCapacity[0]; allowed: each option once (a reservation once per name), in the order GKE should try them',
        ],
        [
            "flex-start with spot on one option",
            plan([{ type: "flex-start", spot: true }], { zone: "us-east5-a" }),
            'gke-tpu-inference:tpuCapacity[0].spot = true is not allowed on a "flex-start" option: GKE\'s flex-start is incompatible with spot; allowed: spot as an option of its own, {"type": "spot"}, after flex-start',
        ],
        [
            "a field the option does not take",
            plan([{ type: "on-demand", maxRunDurationSeconds: 3600 }]),
            'gke-tpu-inference:tpuCapacity[0].maxRunDurationSeconds = 3600 is not a field of a "on-demand" option; allowed: type, zones',
        ],
        [
            "a run limit beyond seven days",
            plan([{ type: "flex-start", maxRunDurationSeconds: 604801 }], { zone: "us-east5-a" }),
            "gke-tpu-inference:tpuCapacity[0].maxRunDurationSeconds = 604801 is not a flex-start run limit; allowed: a whole number of seconds from 1 to 604800 (GKE runs a flex-start node for at most seven days)",
        ],
        [
            "a run limit of zero",
            plan([{ type: "flex-start", maxRunDurationSeconds: 0 }], { zone: "us-east5-a" }),
            "gke-tpu-inference:tpuCapacity[0].maxRunDurationSeconds = 0 is not a flex-start run limit; allowed: a whole number of seconds from 1 to 604800 (GKE runs a flex-start node for at most seven days)",
        ],
        [
            "a fractional run limit",
            plan([{ type: "flex-start", maxRunDurationSeconds: 3600.5 }], { zone: "us-east5-a" }),
            "gke-tpu-inference:tpuCapacity[0].maxRunDurationSeconds = 3600.5 is not a flex-start run limit; allowed: a whole number of seconds from 1 to 604800 (GKE runs a flex-start node for at most seven days)",
        ],
        [
            "flex-start in a zone without it for v6e",
            plan([{ type: "on-demand" }, { type: "flex-start" }]),
            'gke-tpu-inference:tpuCapacity[1] = "flex-start" is not offered for TPU v6e in gke-tpu-inference:zone = "europe-west4-a"; allowed: flex-start in us-east5-a, us-east5-b',
        ],
        ...[
            "projects/Owner/reservations/trillium",
            "projects/owner/reservation/trillium",
            "trillium/blocks/b1",
            "projects/owner/reservations/",
        ].map((name): [string, Record<string, string>, string] => [
            `a malformed shared reservation ${name}`,
            plan([{ type: "reservation", name }]),
            `gke-tpu-inference:tpuCapacity[0].name = ${JSON.stringify(name)} is not a reservation name; allowed: ${RESERVATION_ALLOWED}`,
        ]),
        [
            "a flex-start first option holding nodes",
            plan([{ type: "flex-start" }, { type: "on-demand" }], { zone: "us-east5-a", tpuMinNodes: "1" }),
            'gke-tpu-inference:tpuMinNodes = 1 with "flex-start" as the first option of gke-tpu-inference:tpuCapacity; allowed: 0 (GKE requires a flex-start pool to scale from zero)',
        ],
        [
            "a plan and the old settings together",
            plan([{ type: "on-demand" }], { tpuProvisioning: "spot" }),
            'gke-tpu-inference:tpuProvisioning = "spot" is set together with gke-tpu-inference:tpuCapacity; allowed: one of them (tpuCapacity lists every option in order, a reservation as {"type": "reservation", "name": …})',
        ],
        [
            "a zone without TPU v6e",
            plan([{ type: "on-demand" }, { type: "spot" }], { zone: "us-west1-a" }),
            'gke-tpu-inference:zone = "us-west1-a" is not a zone where GKE offers TPU v6e node pools (TPU VM zones differ); allowed: europe-west4-a, us-central1-b, us-east1-d, us-east5-a, us-east5-b, us-south1-a, us-south1-b',
        ],
        [
            "not a list",
            { tpuCapacity: '{"type": "spot"}' },
            'gke-tpu-inference:tpuCapacity = {"type":"spot"} is not a list; allowed: a list of options such as [{"type": "on-demand"}, {"type": "spot"}]',
        ],
    ])("%s", (_case, values, message) => {
        expect(problemsOf(values)).toEqual([message]);
    });
});

describe("tpuCapacity zones and tpuCapacityOrder: a pool per option and zone, in the order asked for", () => {
    const plan = (rungs: unknown[], values: Record<string, string> = {}) => ({
        tpuCapacity: JSON.stringify(rungs),
        zone: "us-east5-a",
        ...values,
    });
    const BOTH = ["us-east5-a", "us-east5-b"];
    /** Each pool of the plan as "<option>@<zone>", in the order GKE tries them. */
    const poolsOf = (values: Record<string, string>) =>
        plannedPools(parse(values).tpu).map(({ capacity, index, zone }) => `${index}:${capacity.type}@${zone}`);

    test("an option without zones takes the stack's zone; with zones, those, in its order; the order defaults to option-first", () => {
        const settings = parse(
            plan([
                { type: "reservation", name: "r1" },
                { type: "on-demand", zones: ["us-east5-b", "us-east5-a"] },
            ]),
        );
        expect(settings.tpu.capacity).toEqual([
            { type: "reservation", name: "r1", zones: ["us-east5-a"] },
            { type: "on-demand", zones: ["us-east5-b", "us-east5-a"] },
        ]);
        expect(settings.tpu.order).toBe("option-first");
        expect(parse({}).tpu.capacity).toEqual([{ type: "on-demand", zones: ["europe-west4-a"] }]);
        expect(parse({ tpuProvisioning: "spot", zone: "us-south1-b" }).tpu.capacity).toEqual([{ type: "spot", zones: ["us-south1-b"] }]);
    });

    test("two options in two zones: option-first tries every zone of option 1 first, zone-first every option in the first zone", () => {
        const rungs = [
            { type: "reservation", name: "r1", zones: BOTH },
            { type: "on-demand", zones: BOTH },
        ];
        expect(poolsOf(plan(rungs))).toEqual([
            "0:reservation@us-east5-a",
            "0:reservation@us-east5-b",
            "1:on-demand@us-east5-a",
            "1:on-demand@us-east5-b",
        ]);
        expect(poolsOf(plan(rungs, { tpuCapacityOrder: "zone-first" }))).toEqual([
            "0:reservation@us-east5-a",
            "1:on-demand@us-east5-a",
            "0:reservation@us-east5-b",
            "1:on-demand@us-east5-b",
        ]);
    });

    test("the zones' order is the first option's, then those later options add; an option skips the zones it does not list", () => {
        const rungs = [
            { type: "reservation", name: "r1", zones: ["us-east5-b"] },
            { type: "on-demand", zones: BOTH },
            { type: "spot", zones: ["us-east5-a", "us-east5-b"] },
        ];
        expect(poolsOf(plan(rungs))).toEqual([
            "0:reservation@us-east5-b",
            "1:on-demand@us-east5-b",
            "1:on-demand@us-east5-a",
            "2:spot@us-east5-b",
            "2:spot@us-east5-a",
        ]);
        expect(poolsOf(plan(rungs, { tpuCapacityOrder: "zone-first" }))).toEqual([
            "0:reservation@us-east5-b",
            "1:on-demand@us-east5-b",
            "2:spot@us-east5-b",
            "1:on-demand@us-east5-a",
            "2:spot@us-east5-a",
        ]);
    });

    test("flex-start in the zones that offer it, and a region's zones while region is set, are accepted", () => {
        expect(parse(plan([{ type: "flex-start", zones: BOTH }], { region: "us-east5" })).tpu.capacity[0].zones).toEqual(BOTH);
    });

    test.each<[string, Record<string, string>, string]>([
        [
            "zones that are not a list",
            plan([{ type: "on-demand", zones: "us-east5-b" }]),
            'gke-tpu-inference:tpuCapacity[0].zones = "us-east5-b" is not a list of zones; allowed: a non-empty list of the GKE TPU v6e zones of the stack\'s region, each once, such as ["us-east5-a", "us-east5-b"]',
        ],
        [
            "an empty list of zones",
            plan([{ type: "on-demand", zones: [] }]),
            'gke-tpu-inference:tpuCapacity[0].zones = [] is not a list of zones; allowed: a non-empty list of the GKE TPU v6e zones of the stack\'s region, each once, such as ["us-east5-a", "us-east5-b"]',
        ],
        [
            "a zone that is not a string",
            plan([{ type: "on-demand", zones: ["us-east5-a", 5] }]),
            'gke-tpu-inference:tpuCapacity[0].zones = ["us-east5-a",5] is not a list of zones; allowed: a non-empty list of the GKE TPU v6e zones of the stack\'s region, each once, such as ["us-east5-a", "us-east5-b"]',
        ],
        [
            "a zone listed twice",
            plan([{ type: "spot" }, { type: "on-demand", zones: ["us-east5-b", "us-east5-a", "us-east5-b"] }]),
            'gke-tpu-inference:tpuCapacity[1].zones[2] = "us-east5-b" repeats zones[0]; allowed: each zone once per option',
        ],
        [
            "a zone of another region",
            plan([{ type: "on-demand", zones: ["us-east5-a", "us-south1-a"] }]),
            'gke-tpu-inference:tpuCapacity[0].zones[1] = "us-south1-a" is not in the stack\'s region us-east5; allowed: us-east5-a, us-east5-b',
        ],
        [
            "a zone of the region without GKE TPU v6e",
            plan([{ type: "on-demand", zones: ["us-east5-c"] }]),
            'gke-tpu-inference:tpuCapacity[0].zones[0] = "us-east5-c" is not a zone where GKE offers TPU v6e node pools (TPU VM zones differ); allowed: us-east5-a, us-east5-b',
        ],
        [
            "a zone that does not offer the option",
            plan([{ type: "on-demand" }, { type: "flex-start", zones: ["us-south1-b"] }], { zone: "us-south1-a" }),
            'gke-tpu-inference:tpuCapacity[1].zones[0] = "us-south1-b" does not offer "flex-start" for TPU v6e; allowed: flex-start in us-east5-a, us-east5-b',
        ],
        [
            "an unknown order",
            { tpuCapacityOrder: "region-first" },
            'gke-tpu-inference:tpuCapacityOrder = "region-first" is not an order of the capacity plan\'s pools; allowed: option-first, zone-first',
        ],
    ])("%s", (_case, values, message) => {
        expect(problemsOf(values)).toEqual([message]);
    });
});

describe("tpuProvisioning and tpuReservation are deprecated", () => {
    const warnings = (values: Record<string, string>) => settingWarnings(PROJECT, (key) => values[key]);

    test.each<[string, Record<string, string>, string[]]>([
        ["a stack on tpuCapacity alone", { tpuCapacity: '[{"type": "spot"}]' }, []],
        // Pulumi hands every stack the defaults Pulumi.yaml declares: those are no stack's own choice.
        ["the legacy settings at their defaults", { tpuProvisioning: "on-demand", tpuReservation: "" }, []],
        [
            "spot through tpuProvisioning",
            { tpuProvisioning: "spot" },
            [
                "gke-tpu-inference:tpuProvisioning is deprecated: tpuCapacity replaces it, and release 0.3.0 removes it; " +
                    "run pulumi config set --path 'tpuCapacity[0].type' spot && pulumi config rm tpuProvisioning (the same plan of one option: the TPU pool stays)",
            ],
        ],
        [
            "a reservation through both",
            { tpuProvisioning: "reservation", tpuReservation: "trillium" },
            [
                "gke-tpu-inference:tpuProvisioning and gke-tpu-inference:tpuReservation are deprecated: tpuCapacity replaces them, and release 0.3.0 removes them; " +
                    "run pulumi config set --path 'tpuCapacity[0].type' reservation && pulumi config set --path 'tpuCapacity[0].name' trillium && " +
                    "pulumi config rm tpuProvisioning && pulumi config rm tpuReservation (the same plan of one option: the TPU pool stays)",
            ],
        ],
    ])("%s: %j", (_case, values, expected) => {
        expect(warnings(values)).toEqual(expected);
    });

    test("the plan the warning writes is the one the legacy settings made", () => {
        const legacy = { tpuProvisioning: "reservation", tpuReservation: "trillium" };
        expect(parse(legacy).tpu).toEqual(parse({ tpuCapacity: '[{"type": "reservation", "name": "trillium"}]' }).tpu);
    });

    test("the settings' descriptions say so, with the release that removes them", () => {
        expect(SETTINGS.tpuProvisioning.description).toBe(
            "Deprecated: tpuCapacity replaces it, and release 0.3.0 removes it. How TPU capacity is bought.",
        );
        expect(SETTINGS.tpuReservation.description).toMatch(/^Deprecated: tpuCapacity replaces it, and release 0\.3\.0 removes it\. /);
    });
});
