import { disallowExtProcClusterByIp as policy } from "../../policies/disallowExtProcClusterByIp";
import { EPP_CLUSTER, EPP_MODE, clusterPatch, envoyFilter, extProcFilterPatch, seed002Filter } from "./extProcFixtures";
import { check } from "./harness";

describe("disallow-ext-proc-cluster-by-ip", () => {
    test("passes a filter calling the Service's cluster by name, or an added cluster of DNS names", async () => {
        expect(await check(policy, [envoyFilter("epp", [extProcFilterPatch(EPP_CLUSTER, EPP_MODE)])])).toEqual([]);
        const byName = envoyFilter("epp", [
            extProcFilterPatch("epp-cluster", EPP_MODE),
            clusterPatch("epp-cluster", "qwen-epp-service.models.svc.cluster.local"),
        ]);
        expect(await check(policy, [byName])).toEqual([]);
    });

    test("fails seed 002's STATIC cluster at the EPP Service's ClusterIP", async () => {
        const seed = seed002Filter();
        expect(await check(policy, [seed])).toEqual([
            {
                level: "mandatory",
                resource: "epp-ext-proc-poc",
                message:
                    "EnvoyFilter gateway/epp-ext-proc-poc spec.configPatches[1] adds cluster epp-cluster at 10.96.12.34:9002, which EnvoyFilter gateway/epp-ext-proc-poc spec.configPatches[0] calls for ext_proc; a ClusterIP changes when its Service is recreated, and the Gateway goes on calling the old address.",
            },
        ]);
    });

    test("fails the cluster when it is added by another EnvoyFilter, written in camelCase, or a google_grpc target at an IP", async () => {
        const filter = envoyFilter("ext-proc", [extProcFilterPatch("epp-cluster", EPP_MODE, "camel")]);
        const cluster = envoyFilter("epp-cluster", [clusterPatch("epp-cluster", "10.96.12.34")]);
        expect((await check(policy, [filter, cluster])).map((finding) => finding.resource)).toEqual(["epp-cluster"]);
        const google = envoyFilter("google", [
            {
                applyTo: "HTTP_FILTER",
                patch: {
                    operation: "INSERT_FIRST",
                    value: {
                        name: "envoy.filters.http.ext_proc",
                        typed_config: { grpc_service: { google_grpc: { target_uri: "10.96.12.34:9002", stat_prefix: "epp" } } },
                    },
                },
            },
        ]);
        expect(await check(policy, [google])).toEqual([
            expect.objectContaining({
                message: expect.stringMatching(
                    /^EnvoyFilter gateway\/google spec\.configPatches\[0\] dials ext_proc at 10\.96\.12\.34:9002, a literal address;/,
                ),
            }),
        ]);
    });

    test("not applicable: no ext_proc in any EnvoyFilter, or a literal-IP cluster nothing calls for ext_proc", async () => {
        expect(await check(policy, [envoyFilter("other", [clusterPatch("metrics", "10.0.0.5", 9090)])])).toEqual([]);
        expect(await check(policy, [])).toEqual([]);
    });
});
