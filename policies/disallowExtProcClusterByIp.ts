import { StackValidationPolicy } from "@pulumi/policy";
import { addedClusters, describePatch, extProcPatches, isLiteralIp } from "./facts";
import { envoyFilters } from "./support/envoyFilters";

/**
 * Seed 002: a hand-written EnvoyFilter added an ext_proc cluster of type STATIC whose one endpoint was the EPP
 * Service's ClusterIP, pasted in with sed. A Service that is recreated gets another ClusterIP, and the Gateway keeps
 * calling the old one: the filter stops reaching the EPP and nothing says so.
 */
export const disallowExtProcClusterByIp: StackValidationPolicy = {
    name: "disallow-ext-proc-cluster-by-ip",
    description:
        "An ext_proc filter in an EnvoyFilter must reach its server by the Service's name, not through a cluster or target pinned to a literal IP address.",
    enforcementLevel: "mandatory",
    severity: "high",
    remediationSteps:
        "Call the Service's cluster as Istio names it (outbound|9002||<service>.<namespace>.svc.cluster.local) instead of adding a STATIC cluster; for an EPP, drop the EnvoyFilter and let Istio's InferencePool support (istiod with ENABLE_GATEWAY_API_INFERENCE_EXTENSION=true) call it.",
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
