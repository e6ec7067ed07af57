/**
 * Lesson ext-proc-modes, the whole category: an EnvoyFilter's ext_proc filter or route override that calls the EPP (by
 * Istio's outbound cluster, a cluster it adds by name, or a google_grpc target), in snake_case or lowerCamelCase, that
 * withholds what the EPP picks by (Envoy's defaults, BUFFERED or STREAMED bodies, skipped trailers) or skips every
 * request with no override turning it on, is caught; the modes the EPP needs, and a skipping filter turned on per route
 * in them, are left alone.
 */
import * as k8s from "@pulumi/kubernetes";
import { INFERENCE_EXT_PROC_MODE, SKIPPED_FILTER_PROBLEM, effectiveMode, wrongModesProblem } from "../../policies/facts";
import { extProcModeMessage, requireEppExtProcMode as policy } from "../../policies/requireEppExtProcMode";
import { RecordedResource } from "../../scripts/offline/recorder";
import {
    EPP_CLUSTER,
    EPP_MODE,
    SEED_002_MODE,
    clusterPatch,
    envoyFilter,
    extProcFilterPatch,
    routeOverridePatch,
    seed002Filter,
} from "../support/extProcFixtures";
import { llmService } from "../support/fixtures";
import { check } from "../support/harness";
import { meta } from "../support/lessonObjects";
import { summary, verdict } from "../support/pack";
import { useWorkerPack } from "../workerPack";

describe("the rule", () => {
    const NEEDED =
        "request_header_mode SEND, request_body_mode FULL_DUPLEX_STREAMED, request_trailer_mode SEND, response_header_mode SEND, response_body_mode FULL_DUPLEX_STREAMED, response_trailer_mode SEND";

    describe("require-epp-ext-proc-mode", () => {
        test("passes the mode Istio writes for an InferencePool, on a filter or on a filter that skips until a route override turns it on", async () => {
            expect(await check(policy, [envoyFilter("epp", [extProcFilterPatch(EPP_CLUSTER, EPP_MODE)])])).toEqual([]);
            const perRoute = envoyFilter("epp", [
                extProcFilterPatch(EPP_CLUSTER, { request_header_mode: "SKIP", response_header_mode: "SKIP" }),
                routeOverridePatch("models.qwen-kserve-route.0", EPP_MODE),
            ]);
            expect(await check(policy, [perRoute])).toEqual([]);
        });

        test("fails seed 002's filter: everything skipped and no route override, so the EPP is never called", async () => {
            const seed = seed002Filter();
            expect(await check(policy, [seed])).toEqual([
                {
                    level: "mandatory",
                    resource: "epp-ext-proc-poc",
                    message:
                        "EnvoyFilter gateway/epp-ext-proc-poc spec.configPatches[0] skips every request's headers and no route override turns it on, so the EPP is never called and requests reach an endpoint it did not pick.",
                },
            ]);
        });

        test("fails modes that starve or block the EPP: no body (seed 002's advice), a buffered body (the field reports' pattern 3), Envoy's defaults", async () => {
            const noBody = envoyFilter("no-body", [
                extProcFilterPatch(EPP_CLUSTER, { request_header_mode: "SEND", request_body_mode: "NONE" }),
            ]);
            expect(await check(policy, [noBody])).toEqual([
                {
                    level: "mandatory",
                    resource: "no-body",
                    message: `EnvoyFilter gateway/no-body spec.configPatches[0] calls the EPP with request_body_mode NONE, request_trailer_mode SKIP, response_body_mode NONE, response_trailer_mode SKIP; it needs ${NEEDED}: without the body it cannot see the model or the prompt it routes by, and it supports no body mode but FULL_DUPLEX_STREAMED.`,
                },
            ]);
            // shared/reference/llm-d-xks-gke/istio-envoyfilter-route-extproc-body.yaml: overrides of Istio's own filter on KServe's routes.
            const buffered = envoyFilter("pattern3-body", [
                routeOverridePatch("llm-d-inference-scheduling.qwen-kserve-route.0", {
                    request_header_mode: "SEND",
                    response_header_mode: "SEND",
                    request_body_mode: "BUFFERED",
                    response_body_mode: "NONE",
                }),
            ]);
            expect(await check(policy, [buffered, llmService()])).toEqual([
                expect.objectContaining({
                    resource: "pattern3-body",
                    message: expect.stringContaining(
                        "calls the EPP with request_body_mode BUFFERED, request_trailer_mode SKIP, response_body_mode NONE",
                    ),
                }),
            ]);
            const defaults = envoyFilter("defaults", [extProcFilterPatch(EPP_CLUSTER)]);
            expect(await check(policy, [defaults])).toHaveLength(1);
        });

        test("an EPP is recognised by its port, KServe's Service name, or an added cluster's endpoints", async () => {
            const byName = envoyFilter("by-name", [
                extProcFilterPatch("outbound|8443||qwen-epp-service.models.svc.cluster.local", SEED_002_MODE),
            ]);
            const byCluster = envoyFilter("by-cluster", [
                extProcFilterPatch("epp", SEED_002_MODE),
                clusterPatch("epp", "scheduler.models.svc"),
            ]);
            expect((await check(policy, [byName, byCluster])).map((finding) => finding.resource)).toEqual(["by-name", "by-cluster"]);
        });

        test("not applicable: ext_proc to other servers, route overrides with no EPP or InferencePool in the stack", async () => {
            const authz = envoyFilter("authz", [
                extProcFilterPatch("outbound|8080||authz.security.svc.cluster.local", { request_body_mode: "BUFFERED" }),
            ]);
            const orphan = envoyFilter("orphan", [routeOverridePatch("r.0", { request_body_mode: "BUFFERED" })]);
            expect(await check(policy, [authz, orphan])).toEqual([]);
        });
    });
});

describe("every spelling", () => {
    type Obj = Record<string, unknown>;
    const camel = (mode: Obj) =>
        Object.fromEntries(
            Object.entries(mode).map(([key, value]) => [key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), value]),
        );

    /** The problem of a call in `mode`. */
    const wrong = (mode: Obj | undefined) => {
        const effective = effectiveMode(mode);
        return wrongModesProblem(
            Object.entries(INFERENCE_EXT_PROC_MODE)
                .filter(([name, value]) => effective[name as keyof typeof effective] !== value)
                .map(([name]) => [name, effective[name as keyof typeof effective]]),
        );
    };

    /** How a filter names the EPP: patches making the call in `mode`. */
    const CALLS: Array<[string, (mode: Obj | undefined, spelling: "snake" | "camel") => Obj[]]> = [
        ["Istio's outbound cluster of the EPP Service", (mode, spelling) => [extProcFilterPatch(EPP_CLUSTER, mode, spelling)]],
        [
            "a cluster it adds by the Service's name",
            (mode, spelling) => [
                extProcFilterPatch("epp", mode, spelling),
                clusterPatch("epp", "qwen-epp-service.models.svc.cluster.local"),
            ],
        ],
        [
            "a google_grpc target",
            (mode, spelling) => {
                const patch = extProcFilterPatch(EPP_CLUSTER, mode, spelling) as { patch: { value: Obj } };
                const config = patch.patch.value.typed_config as Obj;
                delete config.grpc_service;
                delete config.grpcService;
                config[spelling === "snake" ? "grpc_service" : "grpcService"] = {
                    google_grpc: { target_uri: "qwen-epp-service.models:9002" },
                };
                return [patch];
            },
        ],
    ];

    const BROKEN: Array<Obj | undefined> = [
        undefined,
        {},
        { ...EPP_MODE, request_body_mode: "BUFFERED" },
        { ...EPP_MODE, request_body_mode: "STREAMED", response_body_mode: "STREAMED" },
        { ...EPP_MODE, request_trailer_mode: "DEFAULT", response_trailer_mode: "SKIP" },
        { request_header_mode: "SEND", request_body_mode: "FULL_DUPLEX_STREAMED" },
    ];

    const at = (index: number) => `EnvoyFilter gateway/epp spec.configPatches[${index}]`;
    const verdict = async (resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);

    describe("lesson ext-proc-modes: every ext_proc call to the EPP that withholds what it picks by", () => {
        describe.each(CALLS)("calling %s", (_, call) => {
            test.each(["snake", "camel"] as const)("%s_case: wrong modes caught, the EPP's clean", async (spelling) => {
                const written = (mode: Obj | undefined) => (mode && spelling === "camel" ? camel(mode) : mode);
                for (const mode of BROKEN) {
                    expect(await verdict([envoyFilter("epp", call(written(mode), spelling))])).toEqual([
                        extProcModeMessage(at(0), wrong(mode)),
                    ]);
                }
                expect(await verdict([envoyFilter("epp", call(written(EPP_MODE), spelling))])).toEqual([]);
            });

            test("a filter skipping every request: caught alone, clean when a route override turns it on in the EPP's modes", async () => {
                expect(await verdict([envoyFilter("epp", call(SEED_002_MODE, "snake"))])).toEqual([
                    extProcModeMessage(at(0), SKIPPED_FILTER_PROBLEM),
                ]);
                const patches = call(SEED_002_MODE, "snake");
                expect(await verdict([envoyFilter("epp", [...patches, routeOverridePatch("completions", EPP_MODE)])])).toEqual([]);
                const override = { ...EPP_MODE, request_body_mode: "BUFFERED" };
                expect(await verdict([envoyFilter("epp", [...patches, routeOverridePatch("completions", override)])])).toEqual([
                    extProcModeMessage(at(patches.length), wrong(override)),
                ]);
            });
        });

        test("a route override alone on Istio's own InferencePool filter is judged; without an InferencePool it is not", async () => {
            const override = { ...EPP_MODE, response_body_mode: "NONE" };
            expect(await verdict([llmService(), envoyFilter("epp", [routeOverridePatch("completions", override)])])).toEqual([
                extProcModeMessage(at(0), wrong(override)),
            ]);
            expect(await verdict([envoyFilter("epp", [routeOverridePatch("completions", override)])])).toEqual([]);
        });

        test("not this lesson's: an ext_proc filter calling another server", async () => {
            expect(await verdict([envoyFilter("epp", [extProcFilterPatch("outbound|9000||authz.security.svc.cluster.local")])])).toEqual(
                [],
            );
        });
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();

    describe("Istio: ext_proc to the EPP written by hand (seed 002)", () => {
        /** Seed 002's EnvoyFilter as its guide writes it, with the ClusterIP its sed step pastes in. */
        const seed002 = () =>
            new k8s.apiextensions.CustomResource("epp-ext-proc-poc", {
                apiVersion: "networking.istio.io/v1alpha3",
                kind: "EnvoyFilter",
                metadata: meta("epp-ext-proc-poc", "llm-d-inference-scheduler"),
                spec: {
                    workloadSelector: {
                        labels: { "gateway.networking.k8s.io/gateway-name": "infra-inference-scheduling-inference-gateway" },
                    },
                    configPatches: [
                        {
                            applyTo: "HTTP_FILTER",
                            match: {
                                context: "GATEWAY",
                                listener: {
                                    filterChain: {
                                        filter: {
                                            name: "envoy.filters.network.http_connection_manager",
                                            subFilter: { name: "envoy.filters.http.ext_proc" },
                                        },
                                    },
                                },
                            },
                            patch: {
                                operation: "REPLACE",
                                value: {
                                    name: "envoy.filters.http.ext_proc",
                                    typed_config: {
                                        "@type": "type.googleapis.com/envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor",
                                        grpc_service: { envoy_grpc: { cluster_name: "epp-cluster" }, timeout: "2s" },
                                        processing_mode: {
                                            request_header_mode: "SKIP",
                                            request_body_mode: "NONE",
                                            response_header_mode: "SKIP",
                                            response_body_mode: "NONE",
                                        },
                                    },
                                },
                            },
                        },
                        {
                            applyTo: "CLUSTER",
                            match: { context: "GATEWAY" },
                            patch: {
                                operation: "ADD",
                                value: {
                                    name: "epp-cluster",
                                    type: "STATIC",
                                    connect_timeout: "2s",
                                    lb_policy: "ROUND_ROBIN",
                                    http2_protocol_options: {},
                                    load_assignment: {
                                        cluster_name: "epp-cluster",
                                        endpoints: [
                                            {
                                                lb_endpoints: [
                                                    {
                                                        endpoint: {
                                                            address: { socket_address: { address: "10.96.41.7", port_value: 9002 } },
                                                        },
                                                    },
                                                ],
                                            },
                                        ],
                                    },
                                },
                            },
                        },
                    ],
                },
            });

        test("a program that repeats seed 002's EnvoyFilter is caught twice: a ClusterIP, and an EPP never called", async () => {
            expect(summary(await verdict(pack(), seed002))).toEqual([
                "mandatory disallow-ext-proc-cluster-by-ip @epp-ext-proc-poc",
                "mandatory require-epp-ext-proc-mode @epp-ext-proc-poc",
            ]);
        });

        test("the same filter sending what the EPP needs to its Service by name passes", async () => {
            const fixed = () =>
                new k8s.apiextensions.CustomResource("epp-ext-proc", {
                    apiVersion: "networking.istio.io/v1alpha3",
                    kind: "EnvoyFilter",
                    metadata: meta("epp-ext-proc", "gateway"),
                    spec: {
                        configPatches: [
                            {
                                applyTo: "HTTP_FILTER",
                                match: { context: "GATEWAY" },
                                patch: {
                                    operation: "INSERT_FIRST",
                                    value: {
                                        name: "envoy.filters.http.ext_proc",
                                        typed_config: {
                                            "@type": "type.googleapis.com/envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor",
                                            grpc_service: {
                                                envoy_grpc: { cluster_name: "outbound|9002||qwen-epp-service.models.svc.cluster.local" },
                                            },
                                            processing_mode: {
                                                request_header_mode: "SEND",
                                                request_body_mode: "FULL_DUPLEX_STREAMED",
                                                request_trailer_mode: "SEND",
                                                response_header_mode: "SEND",
                                                response_body_mode: "FULL_DUPLEX_STREAMED",
                                                response_trailer_mode: "SEND",
                                            },
                                        },
                                    },
                                },
                            },
                        ],
                    },
                });
            expect(summary(await verdict(pack(), fixed))).toEqual([]);
        });
    });
});
