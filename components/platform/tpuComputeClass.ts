import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { COMPUTE_CLASS } from "@gke-tpu-inference/facts";
import { TpuScheduling, computeClassScheduling } from "../serving/tpuScheduling";
import type { TpuCapacityRung } from "../settings/capacity";
import { WebhookGate } from "./webhookGate";

/** One pool of the plan as the class orders it: the node pool that buys one option in one zone. */
export interface ComputeClassRung {
    /** GKE's name of the option's node pool. */
    nodePoolName: pulumi.Input<string>;
    capacity: TpuCapacityRung;
}

/** Arguments of {@link TpuComputeClass}. */
export interface TpuComputeClassArgs {
    /** Provider of the target cluster: the class needs nothing else installed (GKE's autoscaler serves its CRD). */
    provider: k8s.Provider;
    /** Kubernetes name of the class (cluster-scoped); the pools carry it as their label and taint. */
    className: string;
    /** The plan's pools (an option in a zone each), in the order GKE should try them; at least two. */
    rungs: readonly ComputeClassRung[];
    /** What a pod needs to land on any one of the pools (the first pool's selector and TPU toleration). */
    poolScheduling: TpuScheduling;
}

/**
 * A GKE ComputeClass that orders the capacity plan's node pools: GKE's autoscaler scales up the first pool it can get
 * capacity for, in the order of `priorities`, so a stockout, an exhausted reservation or a queued flex-start request
 * moves a pending pod to the next option without anyone changing the stack. Pods select the class by its node label and
 * tolerate its taint (and spot's, when a spot pool is in the plan); the pools carry both.
 *
 * GKE's autoscaler installs the ComputeClass CRD, on a fresh cluster up to an hour after it is created
 * ({@link COMPUTE_CLASS.crdInstallMinutes}), and until the class exists the autoscaler treats the labelled pools as one
 * unordered group, free to buy spot or flex-start first. So a gate (a Job that asks the API server to create a class in a
 * dry run until it can) comes first, the class after it, and {@link TpuComputeClass.ready} is what the model services
 * wait for: no TPU pod exists before the order does. Nothing here waits for TPU nodes.
 */
export class TpuComputeClass extends pulumi.ComponentResource {
    public readonly className: string;
    /** What a model service's pods need: the class's selector, its taint's toleration, and spot's when the plan has spot. */
    public readonly scheduling: TpuScheduling;
    /** The class, created once GKE serves its kind: the model services wait for it. */
    public readonly ready: k8s.apiextensions.CustomResource;

    constructor(name: string, args: TpuComputeClassArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:platform:TpuComputeClass", name, {}, opts);
        if (args.rungs.length < 2) {
            throw new Error(
                `TpuComputeClass ${name} orders ${args.rungs.length} node pool; a ComputeClass is only for a plan of two pools or more`,
            );
        }
        this.className = args.className;
        const spec = {
            // A priority that names node pools may say nothing else: each pool's own config is the option.
            priorities: args.rungs.map((rung) => ({ nodepools: [rung.nodePoolName] })),
            // The plan is exactly these pools: GKE must not create pools of its own for the class.
            nodePoolAutoCreation: { enabled: false },
            // When no option has capacity the pod stays Pending (and says why) rather than landing on a node that matches
            // none of them.
            whenUnsatisfiable: "DoNotScaleUp",
        };
        // The probe is a class of another name, never persisted: a dry run of the class itself would fail once it exists.
        const served = new WebhookGate(
            `${name}-served`,
            {
                provider: args.provider,
                // Every cluster has it from the start, and nothing else of the stack lives there.
                namespace: "default",
                probes: [
                    {
                        apiVersion: COMPUTE_CLASS.apiVersion,
                        kind: COMPUTE_CLASS.kind,
                        metadata: { name: `${args.className}-probe` },
                        spec: {
                            priorities: [{ nodepools: ["probe"] }],
                            nodePoolAutoCreation: { enabled: false },
                            whenUnsatisfiable: "DoNotScaleUp",
                        },
                    },
                ],
                resources: [{ apiGroup: COMPUTE_CLASS.apiVersion.split("/")[0], resources: ["computeclasses"] }],
                version: COMPUTE_CLASS.apiVersion,
                dependsOn: [],
                // GKE's hour, and a margin for the probe's own start.
                timeoutSeconds: (COMPUTE_CLASS.crdInstallMinutes + 10) * 60,
            },
            { parent: this },
        );

        this.ready = new k8s.apiextensions.CustomResource(
            `${name}-class`,
            { apiVersion: COMPUTE_CLASS.apiVersion, kind: COMPUTE_CLASS.kind, metadata: { name: args.className }, spec },
            // Created once the API serves the kind, rather than failing after the provider's few retries.
            { parent: this, provider: args.provider, dependsOn: [served.ready] },
        );

        this.scheduling = computeClassScheduling(
            args.poolScheduling,
            args.className,
            args.rungs.map((rung) => rung.capacity),
        );
        this.registerOutputs({ className: this.className, scheduling: this.scheduling });
    }
}
