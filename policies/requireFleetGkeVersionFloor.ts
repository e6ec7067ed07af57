import { StackValidationPolicy } from "@pulumi/policy";
import { MULTI_CLUSTER_INFERENCE, PolicyText, policyText } from "./facts";
import { clusterName, fleetClusterVersions } from "./support/fleet";

const FLOOR = MULTI_CLUSTER_INFERENCE.minimumGkeVersion;

/** The report on fleet cluster `cluster`, which asks for GKE `version`, below the floor. */
export function belowFloorMessage(cluster: string, version: string): string {
    return (
        `Cluster ${cluster} is registered to a fleet that serves multi-cluster inference but asks for GKE ${version} (minMasterVersion), below ${FLOOR}, ` +
        `the first version GKE's multi-cluster Inference Gateway supports; set minMasterVersion to ${FLOOR} or later.`
    );
}

/** A fleet cluster that asks for an older version than the floor, exactly or by an alias all of whose versions are older. */
export const requireFleetGkeVersionFloor: StackValidationPolicy & PolicyText = {
    ...policyText(
        "fleet-version-floor",
        "require-fleet-gke-version-floor",
        `Every cluster registered to a fleet that serves multi-cluster inference must run GKE ${FLOOR} or later.`,
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateStack: (args, reportViolation) => {
        const clusters = fleetClusterVersions(args.resources, FLOOR);
        if (clusters.length === 0) {
            args.notApplicable("no cluster is registered to a fleet that serves multi-cluster inference");
        }
        for (const { cluster, version, standing } of clusters) {
            if (standing === "below") {
                reportViolation(belowFloorMessage(clusterName(cluster), String(version)), cluster.urn);
            }
        }
    },
};
