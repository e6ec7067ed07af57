import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { TPU_NODE } from "@gke-tpu-inference/facts";
import { TpuSettings } from "../settings/capacity";
import { hardenedNodeConfig } from "./cluster";

/** Arguments of {@link TpuNodePool}. */
export interface TpuNodePoolArgs {
    /** GCP project of the cluster. */
    project: string;
    /** `projects/<p>/locations/<region>/clusters/<name>` of the cluster to join. */
    clusterId: pulumi.Input<string>;
    /** Region of the cluster. */
    region: string;
    /** A GKE TPU v6e zone inside `region`; the pool's nodes live only there. */
    zone: string;
    /** Machine type, slice shape, autoscaling bounds and provisioning model, validated against the catalog. */
    tpu: TpuSettings;
    /** Node service account (the cluster's dedicated one, never the Compute Engine default). */
    serviceAccountEmail: pulumi.Input<string>;
    /** Paused: the autoscaler floor drops to 0 so that idle TPU VMs are released; the pool itself stays. */
    paused?: boolean;
    /** GKE image streaming: containers start while their image streams from Artifact Registry. */
    imageStreaming: boolean;
    /**
     * What the pool waits for: the node service account's role grants (nodes log and report metrics from their
     * first boot) and the check that the zone offers the machine type.
     */
    dependsOn: pulumi.Input<pulumi.Input<pulumi.Resource>[]>;
}

/** How a pod lands on this pool's nodes. */
export interface TpuScheduling {
    nodeSelector: Record<string, string>;
    toleration: { key: string; operator: "Equal"; value: string; effect: string };
    /** `google.com/tpu` a pod must request and limit: every chip of the VM. */
    chipsPerVm: number;
    /** VMs in one slice: the pods one model replica spans. */
    hostsPerSlice: number;
}

/**
 * A TPU v6e slice node pool. GKE derives the TPU node labels and the `google.com/tpu` taint
 * from the machine type and placement policy, so the pool declares neither; it publishes
 * the matching selector and toleration for workloads instead.
 */
export class TpuNodePool extends pulumi.ComponentResource {
    public readonly nodePoolName: pulumi.Output<string>;
    /** What a pod needs to be scheduled here. */
    public readonly scheduling: TpuScheduling;
    /** The autoscaler's bounds; the floor is 0 while paused. */
    public readonly autoscaling: { minNodes: number; maxNodes: number };

    constructor(name: string, args: TpuNodePoolArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:tpu:TpuNodePool", name, {}, opts);
        const { tpu } = args;
        const multiHost = tpu.hostsPerSlice > 1;
        // Min 0 lets the autoscaler release every TPU VM: the pool is paused, not deleted.
        this.autoscaling = { minNodes: args.paused ? 0 : tpu.minNodes, maxNodes: tpu.maxNodes };

        const pool = new gcp.container.NodePool(
            `${name}-pool`,
            {
                project: args.project,
                location: args.region,
                cluster: args.clusterId,
                nodeLocations: [args.zone],
                initialNodeCount: tpu.minNodes,
                autoscaling: { minNodeCount: this.autoscaling.minNodes, maxNodeCount: this.autoscaling.maxNodes },
                // A multi-host slice needs its hosts on one ICI domain; single-host shapes take no placement policy.
                ...(multiHost ? { placementPolicy: { type: "COMPACT", tpuTopology: tpu.topology } } : {}),
                management: { autoRepair: true, autoUpgrade: true },
                nodeConfig: {
                    ...hardenedNodeConfig(args.serviceAccountEmail),
                    machineType: tpu.machineType,
                    spot: tpu.provisioning === "spot",
                    ...(tpu.reservation !== undefined
                        ? {
                              reservationAffinity: {
                                  consumeReservationType: "SPECIFIC_RESERVATION",
                                  key: "compute.googleapis.com/reservation-name",
                                  values: [tpu.reservation],
                              },
                          }
                        : {}),
                    labels: { "gke-tpu-inference/pool": "tpu" },
                    ...(args.imageStreaming ? { gcfsConfig: { enabled: true } } : {}),
                },
            },
            {
                parent: this,
                dependsOn: args.dependsOn,
                // The autoscaler owns the node count after creation; a changed initial count must not replace the pool.
                ignoreChanges: ["initialNodeCount"],
                // Finding TPU capacity (and draining it) takes far longer than the provider's 30 min default.
                customTimeouts: { create: "90m", update: "90m", delete: "60m" },
            },
        );

        this.nodePoolName = pool.name;
        this.scheduling = {
            nodeSelector: { [TPU_NODE.acceleratorLabel]: TPU_NODE.acceleratorValue, [TPU_NODE.topologyLabel]: tpu.topology },
            toleration: { key: TPU_NODE.taint.key, operator: "Equal", value: TPU_NODE.taint.value, effect: TPU_NODE.taint.effect },
            chipsPerVm: tpu.chipsPerVm,
            hostsPerSlice: tpu.hostsPerSlice,
        };
        this.registerOutputs({ nodePoolName: this.nodePoolName, scheduling: this.scheduling, autoscaling: this.autoscaling });
    }
}
