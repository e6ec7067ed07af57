import * as pulumi from "@pulumi/pulumi";
import { GkeCluster } from "../infrastructure/cluster";
import { Preflight } from "../infrastructure/preflight";
import { TpuNodePool, tpuPoolName } from "../infrastructure/tpuNodePool";
import { CapacityPlan, capacityPlan } from "../serving/capacityPlan";
import { TpuScheduling } from "../serving/tpuScheduling";
import { plannedPools } from "../settings/capacityOrder";
import { Settings } from "../settings/stack";
import { TpuComputeClass } from "./tpuComputeClass";

/** Arguments of {@link TpuCapacity}. */
export interface TpuCapacityArgs {
    /**
     * The TPU capacity as the settings ask for it: the project, region and zone (whose pools keep their names from before
     * plans had zones), the pools' shape, bounds, plan and order, pausing, image streaming, and the model services whose
     * replicas the plan's hourly cost counts.
     */
    settings: Pick<Settings, "project" | "region" | "zone" | "tpu" | "paused" | "models" | "coldStart">;
    /** The cluster the pools join: its ID, its Kubernetes provider (for the ComputeClass), its node account and that account's grants. */
    cluster: Pick<GkeCluster, "clusterId" | "provider" | "nodeServiceAccountEmail" | "nodeRoleGrants" | "imageStreamingGrants">;
    /** What the callers of each API wait for. */
    preflight: Pick<Preflight, "prerequisites">;
}

/**
 * The stack's TPU capacity: one {@link TpuNodePool} per option of the plan and zone of the option, in the plan's order
 * ({@link plannedPools}), and with two pools or more the {@link TpuComputeClass} that orders them, made together so that
 * neither needs the other's output from outside. GKE's autoscaler tries a class's pools in the order of its priorities,
 * and a `nodepools` priority matches a pool by its name alone, whatever its zone (GoogleCloudPlatform/cluster-autoscaler
 * 7d25050 pkg/computeclass/organizer.go:70-104, rules/rule.go:94-99).
 * It gives what the model services need (the scheduling, and what they wait for) and the plan as the stack shows it.
 *
 * The pools and the class were the stack's own children before this component held them. Each names that former parent
 * in `aliases`, so `pulumi up` moves it under the component instead of replacing it: the engine matches the alias's URN
 * in the stack's state, and gives each of their own children, at any depth, an alias under its matched parent's old URN
 * (pulumi/pulumi@v3.259.0 pkg/resource/deploy/step_generator.go:545-584 `collapseAliasToUrn`, :590-619
 * `inheritedChildAlias`, :621-653 `generateAliases`, :703 `sg.aliases`). The SDK sends the alias as a spec with
 * `noParent` (node_modules/@pulumi/pulumi 3.270.0 runtime/resource.js:345-391 `mapAliasesForRequest`, :837-844).
 */
export class TpuCapacity extends pulumi.ComponentResource {
    /** One pool per option and zone, in the plan's order; the first option's in the stack's zone keeps the stack's TPU pool from before plans had several. */
    public readonly pools: TpuNodePool[];
    /** What a model service's pods need: the ComputeClass's selector and tolerations with several options, else the pool's. */
    public readonly scheduling: TpuScheduling;
    /** What the model services wait for: the ComputeClass, so that no TPU pod exists before the plan's order does. */
    public readonly ready: pulumi.Resource[];
    /** The plan as the `tpuCapacityPlan` output shows it. */
    public readonly plan: CapacityPlan;

    constructor(name: string, args: TpuCapacityArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:platform:TpuCapacity", name, {}, opts);
        const { settings, cluster, preflight } = args;
        const { tpu } = settings;
        if (tpu.capacity.length === 0) {
            throw new Error(`TpuCapacity ${name} has no capacity option; the settings give at least one`);
        }
        const imageStreaming = settings.coldStart.imageStreaming;
        // The machine-type check reads the Compute Engine API; the node account's roles exist before nodes boot, and with
        // image streaming its use of the Container File System API.
        const poolPrerequisites = [
            ...cluster.nodeRoleGrants,
            ...preflight.prerequisites("compute"),
            ...(imageStreaming ? [...preflight.prerequisites("containerFilesystem"), ...cluster.imageStreamingGrants] : []),
        ];
        // `rootStackResource` when the component has no parent of its own: the stack was the former parent then. Only what
        // existed before this component (the class, and the pools in the stack's own zone) had that parent.
        const adopted = { parent: this, aliases: [{ parent: opts?.parent ?? pulumi.rootStackResource }] };
        const planned = plannedPools(tpu);
        const className = planned.length > 1 ? `${name}-tpu` : undefined;
        const rungs = planned.map(({ capacity, index, zone }, place) => ({
            capacity,
            zone,
            pool: new TpuNodePool(
                tpuPoolName(name, capacity, index, zone, settings.zone),
                {
                    project: settings.project,
                    clusterId: cluster.clusterId,
                    region: settings.region,
                    zone,
                    tpu,
                    capacity,
                    // The first pool holds the floor; a fallback pool only grows when the pools above it have no capacity.
                    minNodes: place === 0 ? tpu.minNodes : 0,
                    computeClass: className,
                    serviceAccountEmail: cluster.nodeServiceAccountEmail,
                    paused: settings.paused,
                    imageStreaming,
                    dependsOn: poolPrerequisites,
                },
                zone === settings.zone ? adopted : { parent: this },
            ),
        }));
        this.pools = rungs.map(({ pool }) => pool);
        const [first] = this.pools;
        // GKE's autoscaler needs the pools' names in the plan's order; nothing of the pools waits for the class.
        const computeClass =
            className !== undefined
                ? new TpuComputeClass(
                      className,
                      {
                          provider: cluster.provider,
                          className,
                          rungs: rungs.map(({ capacity, pool }) => ({ capacity, nodePoolName: pool.nodePoolName })),
                          poolScheduling: first.scheduling,
                      },
                      adopted,
                  )
                : undefined;
        this.scheduling = computeClass?.scheduling ?? first.scheduling;
        this.ready = computeClass ? [computeClass.ready] : [];
        this.plan = capacityPlan(
            settings,
            rungs.map(({ capacity, zone, pool }) => ({ capacity, zone, nodePoolName: pool.nodePoolName, ...pool.autoscaling })),
            className,
        );
        this.registerOutputs({ scheduling: this.scheduling, plan: this.plan });
    }
}
