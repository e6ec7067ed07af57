import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { GCP_NAME_RULES } from "@gke-tpu-inference/facts";
import { StackNames } from "../lib/names";
import { GatewayProviderDescriptor } from "../settings/gatewayProviders";

/** Arguments of {@link GatewayAddress}. */
export interface GatewayAddressArgs {
    project: string;
    /** The cluster's region: the Gateway's load balancer is regional. */
    region: string;
    /** An internal load balancer takes a VPC address in the node subnet; an external one a public address. */
    internal: boolean;
    /** The node subnet, for an internal address. */
    subnetworkId: pulumi.Input<string>;
    /** Stack-qualified names for the address. */
    names: StackNames;
    /** The Compute Engine API enabled. */
    dependsOn: pulumi.Input<pulumi.Resource>[];
}

/**
 * The inference Gateway's reserved regional address: known before the Gateway exists, so that its certificate can carry
 * it and it survives the Gateway's replacement. Source: `SOURCES.gatewayTls` (spec.addresses) in the catalog.
 */
export class GatewayAddress extends pulumi.ComponentResource {
    /** The address resource's name, which GKE's Gateway takes as a `NamedAddress`. */
    public readonly name: pulumi.Output<string>;
    /** The IP address, which Istio's Gateway takes as an `IPAddress` and the certificate carries. */
    public readonly ip: pulumi.Output<string>;

    constructor(name: string, args: GatewayAddressArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:gateway:GatewayAddress", name, {}, opts);
        const address = new gcp.compute.Address(
            `${name}-address`,
            {
                project: args.project,
                region: args.region,
                name: args.names.name("gateway", GCP_NAME_RULES.compute),
                description: "The inference Gateway's address",
                addressType: args.internal ? "INTERNAL" : "EXTERNAL",
                ...(args.internal ? { subnetwork: args.subnetworkId } : {}),
            },
            { parent: this, dependsOn: args.dependsOn },
        );
        this.name = address.name;
        this.ip = address.address;
        this.registerOutputs({ name: this.name, ip: this.ip });
    }

    /** The address as a Gateway's `spec.addresses` names it, of `type` (the gateway provider's descriptor's `addressType`). */
    specAddress(type: GatewayProviderDescriptor["addressType"]): {
        type: GatewayProviderDescriptor["addressType"];
        value: pulumi.Output<string>;
    } {
        return { type, value: type === "NamedAddress" ? this.name : this.ip };
    }
}
