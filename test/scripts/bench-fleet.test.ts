import { CliError } from "../../scripts/cli";
import { V6E_REGIONS, fleetConfig, formatMeasurements } from "../../scripts/bench-fleet";

describe("npm run bench:fleet", () => {
    test("a fleet of n regions takes the catalog's first n v6e regions, the first holding the config cluster, and m copies of the model", () => {
        expect(V6E_REGIONS).toEqual(["europe-west4", "us-central1", "us-east1", "us-east5", "us-south1"]);
        const [, fleet, , models, , maxNodes] = fleetConfig({ regions: 3, models: 2 });
        expect(maxNodes).toBe("tpuMaxNodes=3");
        expect(fleetConfig({ regions: 2, models: 4 })[5]).toBe("tpuMaxNodes=4");
        expect(JSON.parse(fleet.slice("fleet=".length))).toEqual({
            configRegion: "europe-west4",
            members: [{ region: "europe-west4" }, { region: "us-central1" }, { region: "us-east1" }],
        });
        expect(JSON.parse(models.slice("models=".length)).map((model: { name: string }) => model.name)).toEqual([
            "qwen2-3b-1",
            "qwen2-3b-2",
        ]);
    });

    test("a size outside the regions that have v6e is a usage error naming them", () => {
        expect(() => fleetConfig({ regions: 8, models: 1 })).toThrow(
            new CliError(
                "a fleet spans 2 to 5 regions (those with GKE TPU v6e zones: europe-west4, us-central1, us-east1, us-east5, us-south1); got 8",
            ),
        );
    });

    test("the table gives each figure, and CPU per resource, which stays flat when growth is linear", () => {
        expect(
            formatMeasurements([{ regions: 2, models: 1, resources: 200, wallSeconds: 4.04, cpuSeconds: 5, maxRssMb: 300 }]).split("\n"),
        ).toEqual([
            "| regions | models | resources | wall s | CPU s | max RSS MB | CPU ms per resource |",
            "|---|---|---|---|---|---|---|",
            "| 2 | 1 | 200 | 4.0 | 5.0 | 300 | 25.0 |",
            "",
        ]);
    });
});
