import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { KSERVE_CHILDREN, MULTI_CLUSTER_INFERENCE, renderKServeInferencePool } from "@gke-tpu-inference/facts";

/** The suffix of the pool a member exports for a service; the config cluster's import carries the same name. */
export const FLEET_POOL_SUFFIX = "-fleet";

/** The name of the pool every member exports for `service`, and of the import the config cluster routes to. */
export function fleetPoolName(service: string): string {
    return `${service}${FLEET_POOL_SUFFIX}`;
}

/** Arguments of {@link FleetExport}. */
export interface FleetExportArgs {
    /** Provider of the member cluster. */
    provider: k8s.Provider;
    /** The model service's name (its LLMInferenceService's), at most KServe's child-name limit. */
    service: string;
    /** The serving namespace the service runs in: every member exports from the same one. */
    namespace: string;
    /**
     * What the pool waits for: the service's LLMInferenceService (its EPP and pods are KServe's) and the fleet's
     * registration (GKE exports nothing from a cluster outside the fleet).
     */
    dependsOn: pulumi.Input<pulumi.Resource>[];
}

/**
 * The InferencePool `<service>-fleet` exported object of one member: KServe's pool of the service
 * ({@link renderKServeInferencePool}: the same selector, target ports and endpoint picker), under the stack's own name
 * and with GKE's export annotation. KServe's own pool cannot carry the annotation: KServe's next full update of it drops
 * every annotation it did not write (kserve v0.20.0 pkg/controller/v1alpha2/llmisvc/lifecycle_crud.go:151-170). Every
 * member exports the same namespace and name, so the config cluster sees one import per service. Source:
 * `SOURCES.gkeMultiClusterInferenceSetup` in the catalog.
 */
export class FleetExport extends pulumi.ComponentResource {
    /** The exported pool's name, which the config cluster's import carries. */
    public readonly poolName: pulumi.Output<string>;

    constructor(name: string, args: FleetExportArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:fleet:FleetExport", name, {}, opts);
        // Longer, KServe hashes its children's names and the EPP Service the pool names would not be the one computed here.
        if (args.service.length > KSERVE_CHILDREN.maxServiceNameLength) {
            throw new Error(
                `FleetExport ${name}: service ${JSON.stringify(args.service)} is longer than ${KSERVE_CHILDREN.maxServiceNameLength} characters`,
            );
        }
        const kservePool = renderKServeInferencePool({ namespace: args.namespace, name: args.service });
        const pool = new k8s.apiextensions.CustomResource(
            `${name}-pool`,
            {
                apiVersion: kservePool.apiVersion,
                kind: kservePool.kind,
                metadata: {
                    name: fleetPoolName(args.service),
                    namespace: args.namespace,
                    annotations: { [MULTI_CLUSTER_INFERENCE.exportAnnotation.key]: MULTI_CLUSTER_INFERENCE.exportAnnotation.value },
                },
                spec: kservePool.spec,
            },
            { parent: this, provider: args.provider, dependsOn: args.dependsOn },
        );
        this.poolName = pool.metadata.name;
        this.registerOutputs({ poolName: this.poolName });
    }
}
