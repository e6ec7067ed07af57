import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { EPP_PORTS, GCP_NAME_RULES, MULTI_CLUSTER_INFERENCE, PROXY_ONLY_SUBNET, VLLM_PORT } from "@gke-tpu-inference/facts";
import { StackNames, memberNames } from "../lib/names";
import { FROZEN_TYPE_TOKENS } from "../lib/typeTokens";
import { NetworkSettings } from "../settings/cluster";

/** One region of the network: where a cluster of the stack runs, and its address plan. */
export interface NetworkRegion {
    region: string;
    /** Disjoint address ranges, validated by the settings. */
    cidrs: NetworkSettings;
}

/** Arguments of {@link Network}. */
export interface NetworkArgs {
    /** GCP project that owns the VPC. */
    project: string;
    /**
     * Where the stack's clusters are: the single cluster's region, or each fleet member's. A fleet's subnets, router and
     * NAT carry their region in their Pulumi and GCP names; a single cluster's keep the names they always had.
     */
    regions: readonly NetworkRegion[];
    /** The regions are a fleet's: their proxy-only subnets serve the cross-regional load balancer of the multi-cluster Gateway. */
    fleet: boolean;
    /** GCP names of the VPC and its parts, unique per stack in the project. */
    names: StackNames;
    /** Refuse to delete or replace the VPC and the node subnets the clusters live on (Pulumi's `protect`). */
    protect: boolean;
    /** What creating network resources needs first: the Compute Engine API. */
    dependsOn?: pulumi.Input<pulumi.Input<pulumi.Resource>[]>;
}

/** A region's subnets, as its cluster and its load balancer use them. */
export interface RegionalSubnets {
    /** The node subnet's self link. */
    subnetworkId: pulumi.Output<string>;
    subnetworkName: pulumi.Output<string>;
    /** The proxy-only subnet, where the settings give it a range; GKE's Gateway cannot be programmed without it. */
    proxyOnlySubnetwork?: gcp.compute.Subnetwork;
}

/** Names of the node subnet's secondary ranges, referenced by the cluster's IP allocation policy. */
export const SECONDARY_RANGE_NAMES = { pods: "pods", services: "services" } as const;

/**
 * A custom-mode VPC for private, VPC-native GKE clusters behind a Gateway, and in each of their regions: a node subnet
 * with named secondary ranges for pods and services, the proxy-only subnet that Envoy-based load balancers require (when
 * the settings give it a range: GKE's Gateway needs it, Istio's passthrough load balancer does not; a fleet's is
 * GLOBAL_MANAGED_PROXY, for the multi-cluster Gateway's cross-regional load balancer, since a region holds one proxy-only
 * subnet per network), and a Cloud Router with NAT so private nodes can pull images and model weights. Every member of
 * a fleet must be in one VPC network (Source: {@link SOURCES.gkeMultiClusterInferenceSetup}).
 */
export class Network extends pulumi.ComponentResource {
    /** The VPC's self link. */
    public readonly networkId: pulumi.Output<string>;
    public readonly networkName: pulumi.Output<string>;
    /** Each region's subnets, by region. */
    public readonly subnets: ReadonlyMap<string, RegionalSubnets>;

    constructor(name: string, args: NetworkArgs, opts?: pulumi.ComponentResourceOptions) {
        super(FROZEN_TYPE_TOKENS.Network, name, {}, opts);
        const { project } = args;
        // Explicit names cannot be created before their predecessor is deleted, so a replacement deletes first.
        const named = { parent: this, deleteBeforeReplace: true };

        const network = new gcp.compute.Network(
            `${name}-vpc`,
            { project, name: args.names.name("", GCP_NAME_RULES.compute), autoCreateSubnetworks: false, routingMode: "REGIONAL" },
            { ...named, protect: args.protect, dependsOn: args.dependsOn },
        );
        const proxyOnlyPurpose = args.fleet ? MULTI_CLUSTER_INFERENCE.proxyOnlySubnetPurpose : PROXY_ONLY_SUBNET.purpose;

        this.subnets = new Map(
            args.regions.map(({ region, cidrs }) => {
                // A fleet's regions each take their own names; a single cluster's region keeps the stack's.
                const prefix = args.fleet ? `${name}-${region}` : name;
                const names = args.fleet ? memberNames(args.names, region) : args.names;
                const computeName = (role: string) => names.name(role, GCP_NAME_RULES.compute);

                const subnetwork = new gcp.compute.Subnetwork(
                    `${prefix}-node-subnet`,
                    {
                        project,
                        region,
                        name: computeName("nodes"),
                        network: network.id,
                        ipCidrRange: cidrs.nodeCidr,
                        privateIpGoogleAccess: true,
                        secondaryIpRanges: [
                            { rangeName: SECONDARY_RANGE_NAMES.pods, ipCidrRange: cidrs.podCidr },
                            { rangeName: SECONDARY_RANGE_NAMES.services, ipCidrRange: cidrs.serviceCidr },
                        ],
                    },
                    { ...named, protect: args.protect },
                );

                const proxyOnlySubnetwork =
                    cidrs.proxyOnlyCidr === undefined
                        ? undefined
                        : new gcp.compute.Subnetwork(
                              `${prefix}-proxy-only`,
                              {
                                  project,
                                  region,
                                  name: computeName("proxy-only"),
                                  network: network.id,
                                  ipCidrRange: cidrs.proxyOnlyCidr,
                                  purpose: proxyOnlyPurpose,
                                  role: PROXY_ONLY_SUBNET.role,
                              },
                              named,
                          );

                const router = new gcp.compute.Router(
                    `${prefix}-router`,
                    { project, region, name: computeName("router"), network: network.id },
                    named,
                );

                new gcp.compute.RouterNat(
                    `${prefix}-nat`,
                    {
                        project,
                        region,
                        name: computeName("nat"),
                        router: router.name,
                        natIpAllocateOption: "AUTO_ONLY",
                        sourceSubnetworkIpRangesToNat: "ALL_SUBNETWORKS_ALL_IP_RANGES",
                        logConfig: { enable: true, filter: "ERRORS_ONLY" },
                    },
                    named,
                );
                const subnets: RegionalSubnets = {
                    subnetworkId: subnetwork.id,
                    subnetworkName: subnetwork.name,
                    ...(proxyOnlySubnetwork ? { proxyOnlySubnetwork } : {}),
                };
                return [region, subnets] as const;
            }),
        );

        if (args.fleet) {
            // GKE's controller opens a regional proxy-only range to the pods it serves, not a GLOBAL_MANAGED_PROXY one
            // (kubernetes/ingress-gce acbcf5d6 pkg/loadbalancers/features/l7ilb.go:37-54): the cross-regional load
            // balancer's proxies, in every member region, reach vLLM and the EPP in every member only through this rule.
            // The VPC holds the fleet's nodes alone, so the rule targets every instance in it.
            new gcp.compute.Firewall(
                `${name}-proxy-ingress`,
                {
                    project,
                    name: args.names.name("proxy-ingress", GCP_NAME_RULES.compute),
                    network: network.id,
                    direction: "INGRESS",
                    sourceRanges: args.regions.flatMap(({ cidrs }) => (cidrs.proxyOnlyCidr !== undefined ? [cidrs.proxyOnlyCidr] : [])),
                    allows: [{ protocol: "tcp", ports: [String(VLLM_PORT), String(EPP_PORTS.grpc)] }],
                    description: "The multi-cluster Gateway's proxies to vLLM and the EPP on the fleet's nodes",
                },
                named,
            );
        }

        this.networkId = network.id;
        this.networkName = network.name;
        this.registerOutputs({
            networkId: this.networkId,
            networkName: this.networkName,
            subnets: Object.fromEntries(
                [...this.subnets].map(([region, subnets]) => [
                    region,
                    { subnetworkId: subnets.subnetworkId, proxyOnlySubnetworkId: subnets.proxyOnlySubnetwork?.id },
                ]),
            ),
        });
    }

    /** The subnets of `region`, one of the network's. */
    subnetsOf(region: string): RegionalSubnets {
        const subnets = this.subnets.get(region);
        if (subnets === undefined) {
            throw new Error(`the network has no subnets in ${region}; it has ${[...this.subnets.keys()].join(", ")}`);
        }
        return subnets;
    }
}
