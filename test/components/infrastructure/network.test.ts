import * as gcp from "@pulumi/gcp";
import { Network } from "../../../components/infrastructure/network";
import { stackNames } from "../../../components/lib/names";
import { parseSettings } from "../../../components/settings/stack";
import { PROJECT, record } from "../../harness";

const cidrs = parseSettings(PROJECT, () => undefined, "acme-inference").network;

/** A fleet of three members, as the settings carve the stack's default ranges among them. */
const FLEET: Record<string, string> = {
    fleet: JSON.stringify({
        configRegion: "us-east5",
        members: [{ region: "us-east5" }, { region: "us-south1" }, { region: "us-central1" }],
    }),
    gatewayHostname: "inference.fleet.internal",
};
const fleet = parseSettings(PROJECT, (key) => FLEET[key], "acme-inference").fleet!;

describe("Network", () => {
    let graph: Awaited<ReturnType<typeof record>>;
    beforeAll(async () => {
        graph = await record(() => {
            const compute = new gcp.projects.Service("compute", { project: "acme-inference", service: "compute.googleapis.com" });
            return new Network("edge", {
                project: "acme-inference",
                regions: [{ region: "europe-west4", cidrs }],
                fleet: false,
                names: stackNames("edge", "prod"),
                protect: true,
                dependsOn: [compute],
            });
        });
    });

    test("is a custom-mode VPC with regional routing, after the Compute Engine API, protected", () => {
        const vpc = graph.get("gcp:compute/network:Network", "edge-vpc");
        expect(vpc.inputs).toEqual({
            project: "acme-inference",
            name: "edge-prod",
            autoCreateSubnetworks: false,
            routingMode: "REGIONAL",
        });
        expect(vpc.options).toEqual({ protect: true, deleteBeforeReplace: true });
        expect(graph.dependencyNames(vpc)).toEqual(["gcp:projects/service:Service compute"]);
    });

    test("every part has a name of the stack; a replacement deletes first; only the VPC and the node subnet are protected", () => {
        const children = graph.resources.filter((resource) => resource.type.startsWith("gcp:compute/"));
        expect(Object.fromEntries(children.map((child) => [child.name, child.inputs.name]))).toEqual({
            "edge-vpc": "edge-prod",
            "edge-node-subnet": "edge-prod-nodes",
            "edge-proxy-only": "edge-prod-proxy-only",
            "edge-router": "edge-prod-router",
            "edge-nat": "edge-prod-nat",
        });
        expect(children.every((child) => child.options.deleteBeforeReplace === true)).toBe(true);
        expect(
            children
                .filter((child) => child.options.protect)
                .map((child) => child.name)
                .sort(),
        ).toEqual(["edge-node-subnet", "edge-vpc"]);
    });

    test("the node subnet carries named secondary ranges for pods and services", () => {
        const subnet = graph.get("gcp:compute/subnetwork:Subnetwork", "edge-node-subnet");
        expect(subnet.inputs).toEqual(
            expect.objectContaining({
                region: "europe-west4",
                ipCidrRange: "10.0.0.0/20",
                privateIpGoogleAccess: true,
                network: "projects/acme-inference/global/networks/edge-prod",
                secondaryIpRanges: [
                    { rangeName: "pods", ipCidrRange: "10.4.0.0/14" },
                    { rangeName: "services", ipCidrRange: "10.8.0.0/20" },
                ],
            }),
        );
        expect(graph.dependencyNames(subnet)).toEqual(["gcp:compute/network:Network edge-vpc"]);
    });

    test("the proxy-only subnet is REGIONAL_MANAGED_PROXY with role ACTIVE in the region", () => {
        const proxyOnly = graph.get("gcp:compute/subnetwork:Subnetwork", "edge-proxy-only");
        expect(proxyOnly.inputs).toEqual(
            expect.objectContaining({
                region: "europe-west4",
                ipCidrRange: "10.9.0.0/23",
                purpose: "REGIONAL_MANAGED_PROXY",
                role: "ACTIVE",
            }),
        );
        expect(proxyOnly.inputs).not.toHaveProperty("secondaryIpRanges");
    });

    test("a Cloud Router with NAT lets private nodes reach registries and model hubs", () => {
        const router = graph.get("gcp:compute/router:Router", "edge-router");
        const nat = graph.get("gcp:compute/routerNat:RouterNat", "edge-nat");
        expect(nat.inputs).toEqual(
            expect.objectContaining({
                region: "europe-west4",
                router: "edge-prod-router",
                natIpAllocateOption: "AUTO_ONLY",
                sourceSubnetworkIpRangesToNat: "ALL_SUBNETWORKS_ALL_IP_RANGES",
            }),
        );
        expect(graph.dependencyNames(nat)).toEqual(["gcp:compute/router:Router edge-router"]);
        expect(graph.dependencyNames(router)).toEqual(["gcp:compute/network:Network edge-vpc"]);
    });

    test("a single cluster's network has no firewall rule of its own", () => {
        expect(graph.resources.filter((resource) => resource.type === "gcp:compute/firewall:Firewall")).toEqual([]);
    });

    test("every child is parented to the component and named after it", () => {
        const component = graph.get("gke-tpu-inference:network:Network", "edge");
        const children = graph.resources.filter((resource) => resource.parent === component.urn);
        expect(children.map((child) => child.name).sort()).toEqual([
            "edge-nat",
            "edge-node-subnet",
            "edge-proxy-only",
            "edge-router",
            "edge-vpc",
        ]);
    });
});

describe("Network of a fleet", () => {
    let graph: Awaited<ReturnType<typeof record>>;
    let network: Network;
    beforeAll(async () => {
        graph = await record(
            () =>
                (network = new Network("edge", {
                    project: "acme-inference",
                    regions: fleet.members.map(({ region, network }) => ({ region, cidrs: network })),
                    fleet: true,
                    names: stackNames("edge", "prod"),
                    protect: true,
                })),
        );
    });

    test("one VPC and its proxies' firewall rule; in each member's region a node subnet, a proxy-only subnet, a router and a NAT, named after the region", () => {
        const children = graph.resources.filter((resource) => resource.type.startsWith("gcp:compute/"));
        expect(Object.fromEntries(children.map((child) => [child.name, [child.inputs.name, child.inputs.region]]))).toEqual({
            "edge-vpc": ["edge-prod", undefined],
            "edge-proxy-ingress": ["edge-prod-proxy-ingress", undefined],
            ...Object.fromEntries(
                [
                    ["us-east5", "use5"],
                    ["us-south1", "uss1"],
                    ["us-central1", "usc1"],
                ].flatMap(([region, tag]) => [
                    [`edge-${region}-node-subnet`, [`edge-prod-${tag}-nodes`, region]],
                    [`edge-${region}-proxy-only`, [`edge-prod-${tag}-proxy-only`, region]],
                    [`edge-${region}-router`, [`edge-prod-${tag}-router`, region]],
                    [`edge-${region}-nat`, [`edge-prod-${tag}-nat`, region]],
                ]),
            ),
        });
    });

    test("each member's node subnet takes its quarter of the stack's ranges, and its proxy-only subnet is GLOBAL_MANAGED_PROXY: no REGIONAL one", () => {
        const subnets = graph.resources.filter((resource) => resource.type === "gcp:compute/subnetwork:Subnetwork");
        subnets.sort((a, b) => a.name.localeCompare(b.name));
        expect(subnets.map(({ name, inputs }) => [name, inputs.ipCidrRange, inputs.purpose, inputs.secondaryIpRanges])).toEqual(
            [
                ["us-central1", "10.0.8.0/22", "10.6.0.0/16", "10.8.8.0/22", "10.9.1.0/25"],
                ["us-east5", "10.0.0.0/22", "10.4.0.0/16", "10.8.0.0/22", "10.9.0.0/25"],
                ["us-south1", "10.0.4.0/22", "10.5.0.0/16", "10.8.4.0/22", "10.9.0.128/25"],
            ].flatMap(([region, nodes, pods, services, proxyOnly]) => [
                [
                    `edge-${region}-node-subnet`,
                    nodes,
                    undefined,
                    [
                        { rangeName: "pods", ipCidrRange: pods },
                        { rangeName: "services", ipCidrRange: services },
                    ],
                ],
                [`edge-${region}-proxy-only`, proxyOnly, "GLOBAL_MANAGED_PROXY", undefined],
            ]),
        );
    });

    test("a firewall rule lets every member region's proxies reach vLLM and the EPP; a single cluster has none (GKE's controller opens its regional range)", () => {
        const rule = graph.get("gcp:compute/firewall:Firewall", "edge-proxy-ingress");
        expect(rule.inputs).toEqual(
            expect.objectContaining({
                name: "edge-prod-proxy-ingress",
                direction: "INGRESS",
                sourceRanges: ["10.9.0.0/25", "10.9.0.128/25", "10.9.1.0/25"],
                allows: [{ protocol: "tcp", ports: ["8000", "9002"] }],
            }),
        );
    });

    test("asks for a region it has no subnets in are refused, naming the regions it has", () => {
        expect(() => network.subnetsOf("europe-west4")).toThrow(
            "the network has no subnets in europe-west4; it has us-east5, us-south1, us-central1",
        );
        expect(network.subnetsOf("us-south1").proxyOnlySubnetwork).toBeDefined();
    });
});
