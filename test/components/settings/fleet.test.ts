import { SETTINGS } from "../../../components/settings/stack";
import { regionTag } from "../../../components/lib/names";
import { GKE_TPU_V6E_ZONES, regionOfZone } from "@gke-tpu-inference/facts";
import { parse, problemsOf } from "./parse";

/** A fleet setting as a stack writes it, with the hostname its certificate needs. */
function fleetStack(fleet: unknown, config: Record<string, string> = {}): Record<string, string> {
    return { gatewayHostname: "inference.fleet.internal", fleet: JSON.stringify(fleet), ...config };
}

const TWO = { configRegion: "us-east5", members: [{ region: "us-east5" }, { region: "us-south1" }] };

describe("the fleet setting", () => {
    test("is declared as a Pulumi object, empty by default: one cluster", () => {
        expect(SETTINGS.fleet.type).toBe("object");
        expect(SETTINGS.fleet.default).toEqual({});
        expect(parse({}).fleet).toBeUndefined();
    });

    test("gives each member its region, its zone (default the region's first v6e zone), its plan (default the stack's) and its share of the ranges", () => {
        const settings = parse(
            fleetStack(
                {
                    configRegion: "us-south1",
                    members: [
                        {
                            region: "us-east5",
                            zone: "us-east5-b",
                            tpuCapacity: [{ type: "on-demand", zones: ["us-east5-a", "us-east5-b"] }],
                        },
                        { region: "us-south1" },
                    ],
                },
                { tpuCapacity: JSON.stringify([{ type: "spot" }]) },
            ),
        );
        expect(settings.fleet!.configRegion).toBe("us-south1");
        expect(
            settings.fleet!.members.map(({ region, zone, tpu, network }) => ({ region, zone, capacity: tpu.capacity, network })),
        ).toEqual([
            {
                region: "us-east5",
                zone: "us-east5-b",
                capacity: [{ type: "on-demand", zones: ["us-east5-a", "us-east5-b"] }],
                network: {
                    nodeCidr: "10.0.0.0/21",
                    podCidr: "10.4.0.0/15",
                    serviceCidr: "10.8.0.0/21",
                    proxyOnlyCidr: "10.9.0.0/24",
                    masterCidr: "172.16.0.0/28",
                },
            },
            {
                region: "us-south1",
                zone: "us-south1-a",
                capacity: [{ type: "spot", zones: ["us-south1-a"] }],
                network: {
                    nodeCidr: "10.0.8.0/21",
                    podCidr: "10.6.0.0/15",
                    serviceCidr: "10.8.8.0/21",
                    proxyOnlyCidr: "10.9.1.0/24",
                    masterCidr: "172.16.0.16/28",
                },
            },
        ]);
    });

    test("the stack's zone and region are not read: a zone outside the region is no problem of a fleet", () => {
        expect(parse(fleetStack(TWO, { zone: "europe-west4-a", region: "us-east5" })).fleet!.members.map((member) => member.zone)).toEqual([
            "us-east5-a",
            "us-south1-a",
        ]);
        expect(problemsOf({ zone: "europe-west4-a", region: "us-east5" })).toEqual([
            'gke-tpu-inference:zone = "europe-west4-a" is not in gke-tpu-inference:region = "us-east5"; allowed: us-east5-a, us-east5-b',
        ]);
    });

    test.each<[string, unknown, Record<string, string>, string]>([
        [
            "a region with no GKE v6e zone",
            { configRegion: "us-east5", members: [{ region: "us-east5" }, { region: "us-west1" }] },
            {},
            'gke-tpu-inference:fleet.members[1].region = "us-west1" is not a region with a GKE TPU v6e zone; allowed: a region with GKE TPU v6e zones: europe-west4, us-central1, us-east1, us-east5, us-south1',
        ],
        [
            "the same region twice",
            {
                configRegion: "us-east5",
                members: [{ region: "us-east5" }, { region: "us-south1" }, { region: "us-east5", zone: "us-east5-b" }],
            },
            {},
            'gke-tpu-inference:fleet.members[2].region = "us-east5" repeats fleet.members[0].region; allowed: each region once (a region holds one cluster of the fleet)',
        ],
        [
            "fewer than two members",
            { configRegion: "us-east5", members: [{ region: "us-east5" }] },
            {},
            'gke-tpu-inference:fleet.members = [{"region":"us-east5"}] has 1 member; allowed: two members or more, each in its own region (one cluster needs no fleet: leave fleet {})',
        ],
        [
            "a config region outside the fleet",
            { configRegion: "europe-west4", members: [{ region: "us-east5" }, { region: "us-south1" }] },
            {},
            'gke-tpu-inference:fleet.configRegion = "europe-west4" is not a member\'s region; allowed: the region of the member whose cluster holds the multi-cluster Gateway: us-east5, us-south1',
        ],
        [
            "Model Armor with the multi-cluster Gateway",
            TWO,
            { modelArmor: "true" },
            "gke-tpu-inference:modelArmor = true with gke-tpu-inference:fleet: GKE's multi-cluster Inference Gateway does not support Model Armor; allowed: false (or fleet {})",
        ],
        [
            "a gateway provider other than GKE",
            TWO,
            { gatewayProvider: "istio" },
            'gke-tpu-inference:gatewayProvider = "istio" cannot front a fleet, which GKE\'s multi-cluster Inference Gateway (gke-l7-cross-regional-internal-managed-mc) serves; allowed: gke (or fleet {})',
        ],
        [
            "a member zone outside its region",
            { configRegion: "us-east5", members: [{ region: "us-east5", zone: "us-south1-a" }, { region: "us-south1" }] },
            {},
            'gke-tpu-inference:fleet.members[0].zone = "us-south1-a" is not a GKE TPU v6e zone of the member\'s region us-east5; allowed: us-east5-a, us-east5-b',
        ],
        [
            "a member's capacity option in a zone of another region",
            {
                configRegion: "us-east5",
                members: [{ region: "us-east5", tpuCapacity: [{ type: "on-demand", zones: ["us-south1-a"] }] }, { region: "us-south1" }],
            },
            {},
            'gke-tpu-inference:fleet.members[0].tpuCapacity[0].zones[0] = "us-south1-a" is not in the stack\'s region us-east5; allowed: us-east5-a, us-east5-b',
        ],
        [
            "a member's capacity option that is not one",
            { configRegion: "us-east5", members: [{ region: "us-east5", tpuCapacity: [{ type: "cheap" }] }, { region: "us-south1" }] },
            {},
            'gke-tpu-inference:fleet.members[0].tpuCapacity[0].type = "cheap" is not a TPU capacity option; allowed: reservation, any-reservation, on-demand, flex-start, spot',
        ],
        [
            "a field a member does not have",
            { configRegion: "us-east5", members: [{ region: "us-east5", zones: ["us-east5-a"] }, { region: "us-south1" }] },
            {},
            'gke-tpu-inference:fleet.members[0].zones = ["us-east5-a"] is not a field of a fleet member; allowed: region, zone, tpuCapacity',
        ],
        [
            "no hostname for the certificate",
            TWO,
            { gatewayHostname: "" },
            "gke-tpu-inference:gatewayHostname = \"\" with gke-tpu-inference:fleet: the multi-cluster Gateway's addresses are ephemeral, known only once GKE has programmed it, so its certificate must name a hostname; allowed: a DNS name you point at the Gateway's addresses (or gatewayTlsSecret, a certificate of your own)",
        ],
        [
            "an allowlist the fleet's Gateway does not apply",
            TWO,
            { allowedSourceRanges: '["10.128.0.0/16"]' },
            'gke-tpu-inference:allowedSourceRanges = ["10.128.0.0/16"] with gke-tpu-inference:fleet: the fleet\'s multi-cluster Gateway (gke-l7-cross-regional-internal-managed-mc) is an internal load balancer, reachable from the VPC only, to which the stack attaches no Cloud Armor policy and no IAP; allowed: [] (or fleet {})',
        ],
        [
            "a rate limit the fleet's Gateway does not apply",
            TWO,
            { gatewayRateLimit: "1200" },
            "gke-tpu-inference:gatewayRateLimit = 1200 with gke-tpu-inference:fleet: the fleet's multi-cluster Gateway (gke-l7-cross-regional-internal-managed-mc) is an internal load balancer, reachable from the VPC only, to which the stack attaches no Cloud Armor policy and no IAP, so no rate limit applies; allowed: unset (or fleet {})",
        ],
        [
            "an identity check the fleet's Gateway does not apply",
            TWO,
            {
                gatewayIdentity: "iap",
                iapClientId: "123-abc.apps.googleusercontent.com",
                iapClientSecret: "client-secret",
                allowedIdentities: JSON.stringify(["serviceAccount:caller@acme.iam.gserviceaccount.com"]),
            },
            'gke-tpu-inference:gatewayIdentity = "iap" with gke-tpu-inference:fleet: the fleet\'s multi-cluster Gateway (gke-l7-cross-regional-internal-managed-mc) is an internal load balancer, reachable from the VPC only, to which the stack attaches no Cloud Armor policy and no IAP; allowed: api-key (or fleet {})',
        ],
        [
            "a node range too small to split among the members",
            { configRegion: "us-east5", members: [{ region: "us-east5" }, { region: "us-south1" }, { region: "us-central1" }] },
            { nodeCidr: "10.0.0.0/28" },
            'gke-tpu-inference:nodeCidr = "10.0.0.0/28" split among 3 fleet members gives each a /30, too small for nodes; allowed: a prefix of /27 or larger',
        ],
        [
            "a control plane range whose next /28 is taken",
            TWO,
            { masterCidr: "10.9.255.240/28", proxyOnlyCidr: "10.10.0.0/23" },
            'gke-tpu-inference:masterCidr = "10.9.255.240/28" gives fleet member 1 the control plane range 10.10.0.0/28, which overlaps gke-tpu-inference:proxyOnlyCidr = "10.10.0.0/23"; allowed: a /28 followed by 1 free private /28s',
        ],
    ])("%s stops the stack with one message", (_, fleet, config, message) => {
        expect(problemsOf(fleetStack(fleet, config))).toEqual([message]);
    });
});

describe("a member's region tag", () => {
    test("is unique among the regions with GKE TPU v6e zones, and short enough for a member's service account", () => {
        const regions = [...new Set(GKE_TPU_V6E_ZONES.map(regionOfZone))];
        const tags = regions.map(regionTag);
        expect(Object.fromEntries(regions.map((region, index) => [region, tags[index]]))).toEqual({
            "europe-west4": "euw4",
            "us-central1": "usc1",
            "us-east1": "use1",
            "us-east5": "use5",
            "us-south1": "uss1",
        });
        expect(new Set(tags).size).toBe(regions.length);
    });
});
