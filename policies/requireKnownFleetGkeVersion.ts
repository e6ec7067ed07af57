import { StackValidationPolicy } from "@pulumi/policy";
import { MULTI_CLUSTER_INFERENCE, gkeVersionStanding, readKnown, PolicyText, policyText } from "./facts";
import { clusterName, fleetClusterVersions } from "./support/fleet";

const FLOOR = MULTI_CLUSTER_INFERENCE.minimumGkeVersion;

/**
 * The report on fleet cluster `cluster`, whose version the pack cannot judge: it sets no minMasterVersion (`version`
 * undefined; `channel` its release channel, when it names one), asks for an alias of the floor's own minor or patch,
 * or for what is no GKE version.
 */
export function unjudgedVersionMessage(cluster: string, version: unknown, channel: unknown, unknownAtPreview = false): string {
    const asked = unknownAtPreview
        ? "asks for a GKE version (minMasterVersion) that this preview cannot know yet, a value the program reads during the update"
        : version === undefined || version === "" || version === "-"
          ? `sets no minMasterVersion, so GKE creates it at the default version of ${typeof channel === "string" ? `release channel ${channel}` : "its release channel"}, known only then`
          : gkeVersionStanding(String(version), FLOOR) === "undecided"
            ? `asks for GKE ${JSON.stringify(version)} (minMasterVersion), an alias GKE resolves to its newest ${version} patch only when it creates the cluster`
            : `asks for GKE ${JSON.stringify(version)} (minMasterVersion), which is no GKE version or version alias`;
    return (
        `Cluster ${cluster} is registered to a fleet that serves multi-cluster inference and ${asked}: the pack cannot tell whether it is at least ${FLOOR}, ` +
        `the first version GKE's multi-cluster Inference Gateway supports. Check it (gcloud container get-server-config --location LOCATION), or set minMasterVersion to ${FLOOR} or later.`
    );
}

/**
 * Advisory: what the mandatory policy cannot judge, a version GKE picks at creation (the release channel's default, or
 * the newest patch of an alias of the floor's own minor or patch) or one that is no GKE version.
 */
export const requireKnownFleetGkeVersion: StackValidationPolicy & PolicyText = {
    ...policyText(
        "fleet-version-floor",
        "require-known-fleet-gke-version",
        `Every cluster registered to a fleet that serves multi-cluster inference should ask for a GKE version known to be ${FLOOR} or later.`,
    ),
    enforcementLevel: "advisory",
    severity: "medium",
    validateStack: (args, reportViolation) => {
        const clusters = fleetClusterVersions(args.resources, FLOOR);
        if (clusters.length === 0) {
            args.notApplicable("no cluster is registered to a fleet that serves multi-cluster inference");
        }
        for (const { cluster, version, standing } of clusters) {
            if (standing === "undecided" || standing === "unknown" || standing === "unknownAtPreview") {
                const channel = readKnown(() => cluster.props.releaseChannel?.channel).value;
                reportViolation(
                    unjudgedVersionMessage(clusterName(cluster), version, channel, standing === "unknownAtPreview"),
                    cluster.urn,
                );
            }
        }
    },
};
