/**
 * Lesson ext-proc-cluster-by-ip, the whole category: an ext_proc filter or route override (snake_case or
 * lowerCamelCase) reaching its server through a cluster the EnvoyFilter adds at an IPv4 or IPv6 literal (STATIC or
 * STRICT_DNS, with or without TLS), through a STATIC cluster whose address a preview does not know yet (a Service's
 * clusterIP read with Service.get: STATIC takes only resolved IP addresses), or through a google_grpc target dialling one (`10.0.0.1:9002`, `dns:///…`,
 * `ipv4:`, `ipv6:`, a bracketed IPv6), is caught; Istio's outbound cluster names, clusters and targets by hostname (with
 * or without a gRPC scheme) and unix sockets are left alone.
 */
import { clusterByIpMessages, disallowExtProcClusterByIp as policy } from "../../policies/disallowExtProcClusterByIp";
import { RecordedResource } from "../../scripts/offline/recorder";
import {
    EPP_CLUSTER,
    EPP_MODE,
    clusterPatch,
    envoyFilter,
    extProcFilterPatch,
    routeOverridePatch,
    seed002Filter,
} from "../support/extProcFixtures";
import { UNKNOWN, check } from "../support/harness";

describe("every spelling", () => {
    type Obj = Record<string, unknown>;
    const at = (index: number) => `EnvoyFilter gateway/epp spec.configPatches[${index}]`;
    const verdict = async (resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);

    /** An ext_proc filter dialling `target` with google_grpc, in `spelling`. */
    function googleGrpcFilter(target: string, spelling: "snake" | "camel" = "snake"): Obj {
        const patch = extProcFilterPatch(EPP_CLUSTER, EPP_MODE, spelling) as { patch: { value: Obj } };
        const config = patch.patch.value.typed_config as Obj;
        delete config.grpc_service;
        delete config.grpcService;
        config[spelling === "snake" ? "grpc_service" : "grpcService"] =
            spelling === "snake" ? { google_grpc: { target_uri: target } } : { googleGrpc: { targetUri: target } };
        return patch;
    }

    /** A route override calling `cluster` itself. */
    function overrideCalling(cluster: string): Obj {
        const patch = routeOverridePatch("completions", EPP_MODE) as {
            patch: { value: { typed_per_filter_config: Record<string, { overrides: Obj }> } };
        };
        patch.patch.value.typed_per_filter_config["envoy.filters.http.ext_proc"].overrides.grpc_service = {
            envoy_grpc: { cluster_name: cluster },
        };
        return patch;
    }

    const LITERALS = ["10.96.12.34", "fd00:10:96::1234", "::1"];
    const HOSTNAMES = ["qwen-epp-service.models.svc.cluster.local", "qwen-epp-service", "localhost"];

    describe("lesson ext-proc-cluster-by-ip: every way an ext_proc call is pinned to a literal address", () => {
        describe.each(["snake", "camel"] as const)("filters in %s_case", (spelling) => {
            test.each(LITERALS)("a cluster added at %s is caught, with or without TLS", async (address) => {
                for (const tls of [false, true]) {
                    expect(
                        await verdict([
                            envoyFilter("epp", [extProcFilterPatch("epp", EPP_MODE, spelling), clusterPatch("epp", address, 9002, tls)]),
                        ]),
                    ).toEqual([clusterByIpMessages.cluster(at(1), "epp", [`${address}:9002`], at(0))]);
                }
            });

            test.each(HOSTNAMES)("a cluster added at %s is clean", async (address) => {
                expect(
                    await verdict([envoyFilter("epp", [extProcFilterPatch("epp", EPP_MODE, spelling), clusterPatch("epp", address)])]),
                ).toEqual([]);
            });

            test.each([
                "10.96.12.34:9002",
                "dns:///10.96.12.34:9002",
                "dns://8.8.8.8/10.96.12.34:9002",
                "dns:10.96.12.34:9002",
                "ipv4:10.96.12.34:9002",
                "ipv4:10.96.12.34:9002,10.96.12.35:9002",
                "ipv6:[fd00::1234]:9002",
                "ipv6:fd00::1234",
                "[fd00::1234]:9002",
                "dns:///[fd00::1234]:9002",
            ])("a google_grpc target %s is caught", async (target) => {
                expect(await verdict([envoyFilter("epp", [googleGrpcFilter(target, spelling)])])).toEqual([
                    clusterByIpMessages.target(at(0), target),
                ]);
            });

            test.each([
                "qwen-epp-service.models:9002",
                "dns:///qwen-epp-service.models.svc.cluster.local:9002",
                "dns:qwen-epp-service.models:9002",
                "dns://8.8.8.8/qwen-epp-service.models:9002",
                "qwen-epp-service",
                "unix:///var/run/epp.sock",
                "unix:epp.sock",
            ])("a google_grpc target %s is clean", async (target) => {
                expect(await verdict([envoyFilter("epp", [googleGrpcFilter(target, spelling)])])).toEqual([]);
            });
        });

        test("a route override calling a cluster added at a literal address is caught; one cluster is reported once", async () => {
            expect(await verdict([envoyFilter("epp", [overrideCalling("epp"), clusterPatch("epp", "10.96.12.34")])])).toEqual([
                clusterByIpMessages.cluster(at(1), "epp", ["10.96.12.34:9002"], at(0)),
            ]);
            expect(
                await verdict([
                    envoyFilter("epp", [extProcFilterPatch("epp", EPP_MODE), overrideCalling("epp"), clusterPatch("epp", "10.96.12.34")]),
                ]),
            ).toEqual([clusterByIpMessages.cluster(at(2), "epp", ["10.96.12.34:9002"], at(0))]);
        });

        test("not this lesson's: Istio's outbound cluster, and a literal-address cluster no ext_proc calls", async () => {
            expect(await verdict([envoyFilter("epp", [extProcFilterPatch(EPP_CLUSTER, EPP_MODE)])])).toEqual([]);
            expect(
                await verdict([envoyFilter("epp", [extProcFilterPatch(EPP_CLUSTER, EPP_MODE), clusterPatch("other", "10.96.12.34")])]),
            ).toEqual([]);
        });

        test("a STATIC cluster (written so, or by Envoy's default) at an address known only at the update is caught; STRICT_DNS is not judged by it", async () => {
            const unknownAddress = (type: string | undefined) => {
                const patch = clusterPatch("epp", "10.96.12.34") as { patch: { value: Obj } };
                const value = patch.patch.value as { type?: string; load_assignment: { endpoints: Array<{ lb_endpoints: Obj[] }> } };
                if (type === undefined) {
                    delete value.type;
                } else {
                    value.type = type;
                }
                value.load_assignment.endpoints[0].lb_endpoints = [
                    { endpoint: { address: { socket_address: { address: UNKNOWN, port_value: 9002 } } } },
                ];
                return patch;
            };
            for (const type of ["STATIC", undefined]) {
                expect(await check(policy, [envoyFilter("epp", [extProcFilterPatch("epp", EPP_MODE), unknownAddress(type)])])).toEqual([
                    { level: "mandatory", resource: "epp", message: clusterByIpMessages.staticCluster(at(1), "epp", at(0)) },
                ]);
            }
            expect(await check(policy, [envoyFilter("epp", [extProcFilterPatch("epp", EPP_MODE), unknownAddress("STRICT_DNS")])])).toEqual(
                [],
            );
        });

        test("reported as mandatory against the EnvoyFilter that adds the cluster, which may be another; nothing without ext_proc", async () => {
            const filter = envoyFilter("ext-proc", [extProcFilterPatch("epp-cluster", EPP_MODE, "camel")]);
            const cluster = envoyFilter("epp-cluster", [clusterPatch("epp-cluster", "10.96.12.34")]);
            expect((await check(policy, [filter, cluster])).map((finding) => `${finding.level} ${finding.resource}`)).toEqual([
                "mandatory epp-cluster",
            ]);
            expect(await check(policy, [envoyFilter("other", [clusterPatch("metrics", "10.0.0.5", 9090)])])).toEqual([]);
            expect(await check(policy, [])).toEqual([]);
        });

        test("the field report's own filter (seed 002): a STATIC cluster at the EPP Service's ClusterIP", async () => {
            expect(await verdict([seed002Filter()])).toEqual([
                "EnvoyFilter gateway/epp-ext-proc-poc spec.configPatches[1] adds cluster epp-cluster at 10.96.12.34:9002, which EnvoyFilter gateway/epp-ext-proc-poc spec.configPatches[0] calls for ext_proc; a ClusterIP changes when its Service is recreated, and the Gateway goes on calling the old address.",
            ]);
        });
    });
});
