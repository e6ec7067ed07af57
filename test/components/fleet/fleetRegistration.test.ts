import * as gcp from "@pulumi/gcp";
import { FleetRegistration, fleetRegistrationProblems, multiClusterIngressAgent } from "../../../components/fleet/fleetRegistration";
import { record } from "../../harness";

const MEMBERS = [
    {
        region: "us-east5",
        clusterName: "tpu-inference-test-us-east5",
        clusterId: "projects/acme-inference/locations/us-east5/clusters/tpu-inference-test-us-east5",
    },
    {
        region: "us-south1",
        clusterName: "tpu-inference-test-us-south1",
        clusterId: "projects/acme-inference/locations/us-south1/clusters/tpu-inference-test-us-south1",
    },
];

describe("FleetRegistration", () => {
    async function registered(configRegion = "us-east5") {
        let outputs: { memberships?: Record<string, string>; config?: string } = {};
        const graph = await record(() => {
            const hub = new gcp.projects.Service("hub-api", { project: "acme-inference", service: "gkehub.googleapis.com" });
            const ingress = new gcp.projects.Service("mci-api", {
                project: "acme-inference",
                service: "multiclusteringress.googleapis.com",
            });
            const fleet = new FleetRegistration("fleet", {
                project: "acme-inference",
                projectNumber: "123456789012",
                members: MEMBERS,
                configRegion,
                gkeHub: [hub],
                multiClusterIngress: [ingress],
            });
            fleet.configMembership.apply((config) => (outputs = { ...outputs, config }));
            for (const [region, membership] of Object.entries(fleet.memberships)) {
                membership.apply((id) => (outputs = { ...outputs, memberships: { ...outputs.memberships, [region]: id } }));
            }
        });
        return { graph, outputs };
    }

    test("a membership per member in global, with its cluster's endpoint and Workload Identity issuer, after the GKE Hub API", async () => {
        const { graph, outputs } = await registered();
        for (const member of MEMBERS) {
            const membership = graph.get("gcp:gkehub/membership:Membership", `fleet-${member.region}`);
            expect(membership.inputs).toEqual({
                project: "acme-inference",
                location: "global",
                membershipId: member.clusterName,
                endpoint: { gkeCluster: { resourceLink: `//container.googleapis.com/${member.clusterId}` } },
                authority: { issuer: `https://container.googleapis.com/v1/${member.clusterId}` },
            });
            expect(graph.dependencyNames(membership)).toEqual(["gcp:projects/service:Service hub-api"]);
        }
        expect(outputs.memberships).toEqual({
            "us-east5": "projects/acme-inference/locations/global/memberships/tpu-inference-test-us-east5",
            "us-south1": "projects/acme-inference/locations/global/memberships/tpu-inference-test-us-south1",
        });
    });

    test("the multi-cluster Ingress feature names the config member's membership, after both APIs and the memberships", async () => {
        for (const configRegion of ["us-east5", "us-south1"]) {
            const { graph, outputs } = await registered(configRegion);
            const feature = graph.get("gcp:gkehub/feature:Feature", "fleet-ingress");
            const membership = `projects/acme-inference/locations/global/memberships/tpu-inference-test-${configRegion}`;
            expect(feature.inputs).toEqual({
                project: "acme-inference",
                name: "multiclusteringress",
                location: "global",
                spec: { multiclusteringress: { configMembership: membership } },
            });
            expect(outputs.config).toBe(membership);
            expect(graph.dependencyNames(feature)).toEqual([
                `gcp:gkehub/membership:Membership fleet-${configRegion}`,
                "gcp:projects/service:Service hub-api",
                "gcp:projects/service:Service mci-api",
            ]);
        }
    });

    test("the controller's service agent is made once its API is on, and granted its two roles only once it exists", async () => {
        const { graph } = await registered();
        const agent = graph.get("gcp:projects/serviceIdentity:ServiceIdentity", "fleet-agent");
        expect(agent.inputs).toEqual({ project: "acme-inference", service: "multiclusteringress.googleapis.com" });
        expect(graph.dependencyNames(agent)).toEqual(["gcp:projects/service:Service mci-api"]);
        // The clusters' credentials (GKE's guide), and the load balancer's Compute Engine resources (its agent role).
        for (const [name, role] of [
            ["fleet-agent-container-admin", "roles/container.admin"],
            ["fleet-agent-multiclusteringress-serviceagent", "roles/multiclusteringress.serviceAgent"],
        ]) {
            const grant = graph.get("gcp:projects/iAMMember:IAMMember", name);
            expect(grant.inputs).toEqual({
                project: "acme-inference",
                role,
                member: "serviceAccount:service-123456789012@gcp-sa-multiclusteringress.iam.gserviceaccount.com",
            });
            expect(graph.dependencyNames(grant)).toEqual(["gcp:projects/serviceIdentity:ServiceIdentity fleet-agent"]);
        }
        expect(multiClusterIngressAgent("42")).toBe("serviceAccount:service-42@gcp-sa-multiclusteringress.iam.gserviceaccount.com");
    });

    test("refuses one member, a region twice and a config region outside the fleet, each with its own message", () => {
        expect(fleetRegistrationProblems({ members: MEMBERS, configRegion: "us-east5" })).toEqual([]);
        expect(fleetRegistrationProblems({ members: [MEMBERS[0]], configRegion: "us-east5" })).toEqual([
            "a fleet needs at least two members, got 1",
        ]);
        expect(fleetRegistrationProblems({ members: [MEMBERS[0], MEMBERS[0]], configRegion: "europe-west4" })).toEqual([
            "region us-east5 has more than one member; allowed: one member per region",
            "the config region europe-west4 is no member's; allowed: us-east5, us-east5",
        ]);
        expect(
            () =>
                new FleetRegistration("fleet", {
                    project: "acme-inference",
                    projectNumber: "1",
                    members: MEMBERS,
                    configRegion: "europe-west4",
                    gkeHub: [],
                    multiClusterIngress: [],
                }),
        ).toThrow("FleetRegistration fleet: the config region europe-west4 is no member's; allowed: us-east5, us-south1");
    });
});
