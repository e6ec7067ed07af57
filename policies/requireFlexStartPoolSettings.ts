import { StackValidationPolicy } from "@pulumi/policy";
import { flexStartPoolProblems, PolicyText, policyText } from "./facts";
import { Props } from "./support/resources";

/**
 * Judges every node pool that buys its VMs with flex-start, standalone or inline in a Cluster, by what GKE requires of
 * one; each requirement it lacks is its own violation.
 */
export const requireFlexStartPoolSettings: StackValidationPolicy & PolicyText = {
    ...policyText(
        "tpu-flex-start",
        "require-flex-start-pool-settings",
        "A flex-start node pool (nodeConfig.flexStart) must have auto-repair off, consume no reservation, be neither spot nor preemptible, be sized by the autoscaler alone from 0, and keep any run limit it sets (nodeConfig.maxRunDuration) within 1s to 604800s.",
    ),
    enforcementLevel: "mandatory",
    severity: "medium",
    validateStack: (args, reportViolation) => {
        for (const resource of args.resources) {
            const pools: Array<[Props, string]> =
                resource.type === "gcp:container/nodePool:NodePool"
                    ? [[resource.props, `Node pool ${resource.name}`]]
                    : resource.type === "gcp:container/cluster:Cluster"
                      ? ((resource.props.nodePools ?? []) as Props[]).map((pool, index) => [
                            pool ?? {},
                            `Cluster ${resource.name} (nodePools[${index}]${typeof pool?.name === "string" ? ` ${pool.name}` : ""})`,
                        ])
                      : [];
            for (const [pool, where] of pools) {
                for (const problem of flexStartPoolProblems(pool, where)) {
                    reportViolation(problem, resource.urn);
                }
            }
        }
    },
};
