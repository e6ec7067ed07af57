import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { MULTI_CLUSTER_INFERENCE, PROJECT_APIS } from "@gke-tpu-inference/facts";

/** One cluster of the fleet. */
export interface FleetMember {
    /** The cluster's region, unique in the fleet. */
    region: string;
    /** The cluster's name, which names its membership as GKE's setup page registers it. */
    clusterName: pulumi.Input<string>;
    /** The cluster's resource ID, `projects/P/locations/L/clusters/N` (`gcp.container.Cluster.id`). */
    clusterId: pulumi.Input<string>;
}

/** Arguments of {@link FleetRegistration}. */
export interface FleetRegistrationArgs {
    /** The GCP project: the fleet's host, every member's, and the one the service agent's role is granted on. */
    project: string;
    /** The project's number, which names the multi-cluster Gateway controller's service agent. */
    projectNumber: pulumi.Input<string>;
    /** Every cluster of the fleet, at least two, each in its own region. */
    members: readonly FleetMember[];
    /** The region of the member whose cluster holds the multi-cluster Gateway: one of the members'. */
    configRegion: string;
    /** The GKE Hub API enabled (`preflight.prerequisites("gkeHub")`): the memberships and the feature call it. */
    gkeHub: pulumi.Input<pulumi.Resource>[];
    /** The multi-cluster Ingress API enabled (`preflight.prerequisites("multiClusterIngress")`): its service agent and the feature need it. */
    multiClusterIngress: pulumi.Input<pulumi.Resource>[];
}

/** The multi-cluster Gateway controller's service agent of the project numbered `projectNumber`, as an IAM member. */
export function multiClusterIngressAgent(projectNumber: string): string {
    return `serviceAccount:service-${projectNumber}@${MULTI_CLUSTER_INFERENCE.serviceAgent.domain}`;
}

/** Why `args` cannot make a fleet, one line per problem (none when they can). */
export function fleetRegistrationProblems(args: Pick<FleetRegistrationArgs, "members" | "configRegion">): string[] {
    const regions = args.members.map((member) => member.region);
    const repeated = [...new Set(regions.filter((region, index) => regions.indexOf(region) !== index))];
    return [
        ...(args.members.length < 2 ? [`a fleet needs at least two members, got ${args.members.length}`] : []),
        ...repeated.map((region) => `region ${region} has more than one member; allowed: one member per region`),
        ...(regions.includes(args.configRegion)
            ? []
            : [`the config region ${args.configRegion} is no member's; allowed: ${regions.join(", ")}`]),
    ];
}

/**
 * The clusters registered to the project's fleet, and the fleet's multi-cluster Ingress feature, which lets the config
 * member's Gateway span every member: a GKE Hub membership per cluster in `global` (its GKE endpoint and its Workload
 * Identity issuer), the feature naming the config member's membership, and the multi-cluster Gateway controller's
 * service agent granted the role GKE's guide names on the project, once the agent exists. Sources:
 * `SOURCES.gkeMultiClusterInferenceSetup`, `SOURCES.gkeHubResources` and `SOURCES.multiClusterIngressAgent` in the catalog.
 */
export class FleetRegistration extends pulumi.ComponentResource {
    /** Each member's membership, `projects/P/locations/global/memberships/<cluster>`, by region. */
    public readonly memberships: Record<string, pulumi.Output<string>>;
    /** The config member's membership, which the feature names. */
    public readonly configMembership: pulumi.Output<string>;
    /**
     * What a member's exported pools and the config cluster's Gateway wait for: every membership, the feature and the
     * agent's grant (the controller can do nothing for the fleet before all three exist).
     */
    public readonly ready: pulumi.Resource[];

    constructor(name: string, args: FleetRegistrationArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:fleet:FleetRegistration", name, {}, opts);
        const problems = fleetRegistrationProblems(args);
        if (problems.length > 0) {
            throw new Error(`FleetRegistration ${name}: ${problems.join("; ")}`);
        }
        const memberships = new Map(
            args.members.map((member) => [
                member.region,
                new gcp.gkehub.Membership(
                    `${name}-${member.region}`,
                    {
                        project: args.project,
                        location: MULTI_CLUSTER_INFERENCE.membershipLocation,
                        membershipId: member.clusterName,
                        endpoint: { gkeCluster: { resourceLink: pulumi.interpolate`//container.googleapis.com/${member.clusterId}` } },
                        // The cluster's Workload Identity issuer: fleet workload identity for its workloads.
                        authority: { issuer: pulumi.interpolate`https://container.googleapis.com/v1/${member.clusterId}` },
                    },
                    // The memberships are created through the GKE Hub API.
                    { parent: this, dependsOn: args.gkeHub },
                ),
            ]),
        );
        const config = memberships.get(args.configRegion)!;
        const feature = new gcp.gkehub.Feature(
            `${name}-ingress`,
            {
                project: args.project,
                name: MULTI_CLUSTER_INFERENCE.fleetFeature.name,
                location: MULTI_CLUSTER_INFERENCE.fleetFeature.location,
                spec: { multiclusteringress: { configMembership: config.id } },
            },
            // The feature is a GKE Hub object whose controller is the multi-cluster Ingress API's.
            { parent: this, dependsOn: [...args.gkeHub, ...args.multiClusterIngress] },
        );
        // The agent exists only once the API has made it: generateServiceIdentity makes it now, so that the grant names an account that is there.
        const agent = new gcp.projects.ServiceIdentity(
            `${name}-agent`,
            { project: args.project, service: PROJECT_APIS.multiClusterIngress },
            { parent: this, dependsOn: args.multiClusterIngress },
        );
        const member = pulumi.output(args.projectNumber).apply(multiClusterIngressAgent);
        const grants = MULTI_CLUSTER_INFERENCE.serviceAgent.roles.map(
            (role) =>
                new gcp.projects.IAMMember(
                    `${name}-agent-${role.slice("roles/".length).replace(/\./g, "-").toLowerCase()}`,
                    { project: args.project, role, member },
                    // IAM refuses a grant to a service agent not yet created.
                    { parent: this, dependsOn: [agent] },
                ),
        );
        this.memberships = Object.fromEntries([...memberships].map(([region, membership]) => [region, membership.id]));
        this.configMembership = config.id;
        this.ready = [...memberships.values(), feature, ...grants];
        this.registerOutputs({ memberships: this.memberships, configMembership: this.configMembership });
    }
}
