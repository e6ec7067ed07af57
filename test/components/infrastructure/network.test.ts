import * as gcp from "@pulumi/gcp";
import { Network } from "../../../components/infrastructure/network";
import { stackNames } from "../../../components/lib/names";
import { parseSettings } from "../../../components/settings/stack";
import { PROJECT, record } from "../../harness";

const cidrs = parseSettings(PROJECT, () => undefined, "acme-inference").network;

describe("Network", () => {
    let graph: Awaited<ReturnType<typeof record>>;
    beforeAll(async () => {
        graph = await record(() => {
            const compute = new gcp.projects.Service("compute", { project: "acme-inference", service: "compute.googleapis.com" });
            return new Network("edge", {
                project: "acme-inference",
                region: "europe-west4",
                cidrs,
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
