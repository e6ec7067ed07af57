import { StackValidationPolicy } from "@pulumi/policy";
import { addedClusters, describePatch, extProcPatches, isLiteralIp, policyText } from "./facts";
import { envoyFilters } from "./support/envoyFilters";

/** Enforces lesson ext-proc-cluster-by-ip (policies/facts/lessons). */
export const disallowExtProcClusterByIp: StackValidationPolicy = {
    ...policyText(
        "disallow-ext-proc-cluster-by-ip",
        "An ext_proc filter in an EnvoyFilter must reach its server by the Service's name, not through a cluster or target pinned to a literal IP address.",
    ),
    enforcementLevel: "mandatory",
    severity: "high",
    validateStack: (args, reportViolation) => {
        const filters = envoyFilters(args.resources);
        const patches = extProcPatches(filters);
        if (patches.length === 0) {
            args.notApplicable("no EnvoyFilter patches in an ext_proc filter");
        }
        const clusters = addedClusters(filters);
        const reported = new Set<string>();
        for (const patch of patches) {
            const cluster = clusters.find((candidate) => candidate.name === patch.clusterName);
            const literal = cluster?.endpoints.filter((endpoint) => isLiteralIp(endpoint.address)) ?? [];
            if (cluster && literal.length > 0 && !reported.has(`${cluster.filter.source.urn}|${cluster.at}`)) {
                reported.add(`${cluster.filter.source.urn}|${cluster.at}`);
                const addresses = literal.map((endpoint) => `${endpoint.address}${endpoint.port !== undefined ? `:${endpoint.port}` : ""}`);
                reportViolation(
                    `${describePatch(cluster)} adds cluster ${cluster.name} at ${addresses.join(", ")}, which ${describePatch(patch)} calls for ext_proc; a ClusterIP changes when its Service is recreated, and the Gateway goes on calling the old address.`,
                    cluster.filter.source.urn,
                );
            }
            const host = patch.targetUri?.replace(/^(dns:\/\/\/?|ipv4:)/, "").replace(/:\d+$/, "");
            if (host !== undefined && isLiteralIp(host)) {
                reportViolation(
                    `${describePatch(patch)} dials ext_proc at ${patch.targetUri}, a literal address; a ClusterIP changes when its Service is recreated, and the Gateway goes on calling the old address.`,
                    patch.filter.source.urn,
                );
            }
        }
    },
};
