import { StackValidationPolicy } from "@pulumi/policy";
import { addedClusters, describePatch, extProcPatches, grpcTargetHosts, isLiteralIp, PolicyText, policyText } from "./facts";
import { envoyFilters } from "./support/envoyFilters";

const STALE = "a ClusterIP changes when its Service is recreated, and the Gateway goes on calling the old address.";

/** The reports of this policy: a cluster an ext_proc filter calls, added at literal addresses; a google_grpc target at one. */
export const clusterByIpMessages = {
    cluster: (clusterPatch: string, cluster: string, addresses: string[], caller: string) =>
        `${clusterPatch} adds cluster ${cluster} at ${addresses.join(", ")}, which ${caller} calls for ext_proc; ${STALE}`,
    staticCluster: (clusterPatch: string, cluster: string, caller: string) =>
        `${clusterPatch} adds STATIC cluster ${cluster}, whose hosts are resolved IP addresses (here one known only at the update, such as a Service's clusterIP), which ${caller} calls for ext_proc; ${STALE} Use STRICT_DNS with the Service's name.`,
    target: (patch: string, targetUri: string) => `${patch} dials ext_proc at ${targetUri}, a literal address; ${STALE}`,
};

/**
 * A STATIC cluster (Envoy's default discovery type) lists its hosts as resolved IP addresses
 * (https://www.envoyproxy.io/docs/envoy/latest/intro/arch_overview/upstream/service_discovery, "Static"; api-v3
 * config/cluster/v3/cluster.proto DiscoveryType, STATIC the default), so one whose address the preview does not know
 * yet (read from a Service's clusterIP) is pinned to an IP all the same.
 */
export const disallowExtProcClusterByIp: StackValidationPolicy & PolicyText = {
    ...policyText(
        "ext-proc-cluster-by-ip",
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
            const staticUnknown = cluster !== undefined && cluster.discovery === "STATIC" && cluster.unknownAddresses > 0;
            if (cluster && (literal.length > 0 || staticUnknown) && !reported.has(`${cluster.filter.source.urn}|${cluster.at}`)) {
                reported.add(`${cluster.filter.source.urn}|${cluster.at}`);
                const addresses = literal.map((endpoint) => `${endpoint.address}${endpoint.port !== undefined ? `:${endpoint.port}` : ""}`);
                reportViolation(
                    literal.length > 0
                        ? clusterByIpMessages.cluster(describePatch(cluster), cluster.name, addresses, describePatch(patch))
                        : clusterByIpMessages.staticCluster(describePatch(cluster), cluster.name, describePatch(patch)),
                    cluster.filter.source.urn,
                );
            }
            if (patch.targetUri !== undefined && grpcTargetHosts(patch.targetUri).some(isLiteralIp)) {
                reportViolation(clusterByIpMessages.target(describePatch(patch), patch.targetUri), patch.filter.source.urn);
            }
        }
    },
};
