import { Network } from "../../components/network";
import { parseSettings } from "../../components/settings";
import { PROJECT, record } from "../harness";

const cidrs = parseSettings(PROJECT, () => undefined, "acme-inference").network;

describe("Network", () => {
    let graph: Awaited<ReturnType<typeof record>>;
    beforeAll(async () => {
        graph = await record(() => new Network("edge", { project: "acme-inference", region: "europe-west4", cidrs }));
    });

    test("is a custom-mode VPC with regional routing", () => {
        expect(graph.get("gcp:compute/network:Network", "edge-vpc").inputs).toEqual({
            project: "acme-inference",
            autoCreateSubnetworks: false,
            routingMode: "REGIONAL",
        });
    });

    test("the node subnet carries named secondary ranges for pods and services", () => {
        const subnet = graph.get("gcp:compute/subnetwork:Subnetwork", "edge-node-subnet");
        expect(subnet.inputs).toEqual(
            expect.objectContaining({
                region: "europe-west4",
                ipCidrRange: "10.0.0.0/20",
                privateIpGoogleAccess: true,
                network: expect.stringMatching(/^projects\/acme-inference\/global\/networks\/edge-vpc-/),
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
            expect.objectContaining({ region: "europe-west4", ipCidrRange: "10.9.0.0/23", purpose: "REGIONAL_MANAGED_PROXY", role: "ACTIVE" }),
        );
        expect(proxyOnly.inputs).not.toHaveProperty("secondaryIpRanges");
    });

    test("a Cloud Router with NAT lets private nodes reach registries and model hubs", () => {
        const router = graph.get("gcp:compute/router:Router", "edge-router");
        const nat = graph.get("gcp:compute/routerNat:RouterNat", "edge-nat");
        expect(nat.inputs).toEqual(
            expect.objectContaining({
                region: "europe-west4",
                router: expect.stringMatching(/^edge-router-/),
                natIpAllocateOption: "AUTO_ONLY",
                sourceSubnetworkIpRangesToNat: "ALL_SUBNETWORKS_ALL_IP_RANGES",
            }),
        );
        expect(graph.dependencyNames(nat)).toEqual(["gcp:compute/router:Router edge-router"]);
        expect(graph.dependencyNames(router)).toEqual(["gcp:compute/network:Network edge-vpc"]);
    });

    test("every child is parented to the component and named after it", () => {
        const component = graph.get("gke-tpu-inference:network:Network", "edge");
        const children = graph.resources.filter((resource) => resource.parent === component.urn);
        expect(children.map((child) => child.name).sort()).toEqual(["edge-nat", "edge-node-subnet", "edge-proxy-only", "edge-router", "edge-vpc"]);
    });
});
