import { StackValidationPolicy } from "@pulumi/policy";
import { MULTI_CLUSTER_INFERENCE, PolicyText, policyText } from "./facts";
import { ServedModel, clusterName, servedModels } from "./support/fleet";

const { key, value } = MULTI_CLUSTER_INFERENCE.exportAnnotation;

/** The report on cluster `cluster`, which serves the model service of InferencePool `pool` (`namespace/name`) that only `exporters` export. */
export function unexportedMemberMessage(cluster: string, pool: string, exporters: readonly string[]): string {
    return (
        `Cluster ${cluster} serves the same model service as InferencePool ${pool} but does not export it, while ${exporters.join(", ")} ` +
        `${exporters.length === 1 ? "does" : "do"}; the config cluster's ${MULTI_CLUSTER_INFERENCE.importKind.kind} ${pool} never sends requests to ${cluster}. ` +
        `Annotate an InferencePool ${pool} on ${cluster} with ${key}: "${value}".`
    );
}

/**
 * The program shows every cluster of the stack, so a cluster that serves a model service (the same pods' selector in the
 * same namespace) which another exports, without exporting it under the same name, is a fault of the program. Reported
 * against that cluster's pool of the exported name when it has one (the annotation goes there), else against what
 * makes it serve the model service.
 */
export const requireExportFromEveryMember: StackValidationPolicy & PolicyText = {
    ...policyText(
        "fleet-exports",
        "require-export-from-every-member",
        "Every cluster of the stack that serves a model service another cluster exports must export it under the same namespace and name.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateStack: (args, reportViolation) => {
        const served = servedModels(args.resources);
        const exports = served.filter((model) => model.pool?.exported);
        if (exports.length === 0) {
            args.notApplicable("no InferencePool is exported");
        }
        const reported = new Set<string>();
        for (const pool of [...new Set(exports.map((model) => model.pool!.key))].sort()) {
            const exporting = exports.filter((model) => model.pool!.key === pool);
            const exporters = new Set(exporting.map((model) => model.cluster));
            const identities = new Set(exporting.map((model) => model.identity));
            const missing = new Map<ServedModel["cluster"], ServedModel[]>();
            for (const model of served.filter((candidate) => identities.has(candidate.identity) && !exporters.has(candidate.cluster))) {
                missing.set(model.cluster, [...(missing.get(model.cluster) ?? []), model]);
            }
            for (const [cluster, models] of missing) {
                const where = models.find((model) => model.pool?.key === pool) ?? models[0];
                const message = unexportedMemberMessage(clusterName(cluster), pool, [...exporters].map(clusterName).sort());
                if (!reported.has(`${where.resource.urn} ${message}`)) {
                    reported.add(`${where.resource.urn} ${message}`);
                    reportViolation(message, where.resource.urn);
                }
            }
        }
    },
};
