import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { GCP_NAME_RULES, PROXY_ONLY_SUBNET } from "@gke-tpu-inference/facts";
import { StackNames } from "../lib/names";
import { FROZEN_TYPE_TOKENS } from "../lib/typeTokens";
import { NetworkSettings } from "../settings/cluster";

/** Arguments of {@link Network}. */
export interface NetworkArgs {
    /** GCP project that owns the VPC. */
    project: string;
    /** Region of the node subnet, the proxy-only subnet and the Cloud NAT. */
    region: string;
    /** Disjoint address ranges, validated by the settings. */
    cidrs: NetworkSettings;
    /** GCP names of the VPC and its parts, unique per stack in the project. */
    names: StackNames;
    /** Refuse to delete or replace the VPC and the node subnet the cluster lives on (Pulumi's `protect`). */
    protect: boolean;
    /** What creating network resources needs first: the Compute Engine API. */
    dependsOn?: pulumi.Input<pulumi.Input<pulumi.Resource>[]>;
}

/** Names of the node subnet's secondary ranges, referenced by the cluster's IP allocation policy. */
export const SECONDARY_RANGE_NAMES = { pods: "pods", services: "services" } as const;

/**
 * A custom-mode VPC for a private, VPC-native GKE cluster behind a regional Gateway:
 * a node subnet with named secondary ranges for pods and services, the proxy-only subnet
 * that regional Envoy-based load balancers require (when the settings give it a range: GKE's
 * Gateway needs it, Istio's passthrough load balancer does not), and a Cloud Router with NAT so
 * private nodes can pull images and model weights.
 */
export class Network extends pulumi.ComponentResource {
    /** The VPC's self link. */
    public readonly networkId: pulumi.Output<string>;
    public readonly networkName: pulumi.Output<string>;
    /** The node subnet's self link. */
    public readonly subnetworkId: pulumi.Output<string>;
    public readonly subnetworkName: pulumi.Output<string>;
    /** The proxy-only subnet, where the settings give it a range; GKE's regional Gateway cannot be programmed without it. */
    public readonly proxyOnlySubnetwork?: gcp.compute.Subnetwork;

    constructor(name: string, args: NetworkArgs, opts?: pulumi.ComponentResourceOptions) {
        super(FROZEN_TYPE_TOKENS.Network, name, {}, opts);
        const { project, region, cidrs, names } = args;
        const computeName = (role: string) => names.name(role, GCP_NAME_RULES.compute);
        // Explicit names cannot be created before their predecessor is deleted, so a replacement deletes first.
        const named = { parent: this, deleteBeforeReplace: true };

        const network = new gcp.compute.Network(
            `${name}-vpc`,
            { project, name: computeName(""), autoCreateSubnetworks: false, routingMode: "REGIONAL" },
            { ...named, protect: args.protect, dependsOn: args.dependsOn },
        );

        const subnetwork = new gcp.compute.Subnetwork(
            `${name}-node-subnet`,
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

        this.proxyOnlySubnetwork =
            cidrs.proxyOnlyCidr === undefined
                ? undefined
                : new gcp.compute.Subnetwork(
                      `${name}-proxy-only`,
                      {
                          project,
                          region,
                          name: computeName("proxy-only"),
                          network: network.id,
                          ipCidrRange: cidrs.proxyOnlyCidr,
                          purpose: PROXY_ONLY_SUBNET.purpose,
                          role: PROXY_ONLY_SUBNET.role,
                      },
                      named,
                  );

        const router = new gcp.compute.Router(
            `${name}-router`,
            { project, region, name: computeName("router"), network: network.id },
            named,
        );

        new gcp.compute.RouterNat(
            `${name}-nat`,
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

        this.networkId = network.id;
        this.networkName = network.name;
        this.subnetworkId = subnetwork.id;
        this.subnetworkName = subnetwork.name;
        this.registerOutputs({
            networkId: this.networkId,
            networkName: this.networkName,
            subnetworkId: this.subnetworkId,
            proxyOnlySubnetworkId: this.proxyOnlySubnetwork?.id,
        });
    }
}
