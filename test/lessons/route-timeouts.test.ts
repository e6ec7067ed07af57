/**
 * Lesson route-timeouts, the whole category: timeouts (`request`, `backendRequest`, both) on a rule of an HTTPRoute (v1
 * or v1beta1) attached to a GKE Gateway, in the service's own `spec.router.route`, in the well-known
 * LLMInferenceServiceConfig KServe reads (the stack's, or KServe's default when the stack ships none) or in a baseRef's
 * template are caught, however the objects are declared; rules without timeouts, and routes on another
 * implementation's Gateway, are left alone.
 */
import * as k8s from "@pulumi/kubernetes";
import { routerRouteSpec } from "../../components/serving/routerRoute";
import { disallowHttpRouteTimeoutsOnGke as policy, routeTimeoutMessages } from "../../policies/disallowHttpRouteTimeoutsOnGke";
import { KSERVE } from "../../policies/facts";
import { RecordedResource } from "../../scripts/offline/recorder";
import { gateway, llmService, vllmContainer } from "../support/fixtures";
import { backendPolicy, gkeGateway, healthCheck, pool, poolBackend, route } from "../support/gatewayObjects";
import { UNKNOWN, check, kube, resource } from "../support/harness";
import { llmInferenceService, tpuPod, vllm } from "../support/lessonObjects";
import { summary, verdict } from "../support/pack";
import { useWorkerPack } from "../workerPack";

describe("the rule", () => {
    function routeConfig(spec: Record<string, unknown>, namespace = "models") {
        return kube("serving.kserve.io/v1alpha2", "LLMInferenceServiceConfig", `route-${namespace}`, {
            metadata: { name: "kserve-config-llm-router-route", namespace },
            spec: { router: { route: { http: { spec } } } },
        });
    }

    function httpRoute(rule: Record<string, unknown>) {
        return kube("gateway.networking.k8s.io/v1", "HTTPRoute", "route", {
            metadata: { name: "route", namespace: "models" },
            spec: { parentRefs: [{ name: "inference-gateway", namespace: "gateway" }], rules: [{ name: "completions", ...rule }] },
        });
    }

    describe("disallow-httproute-timeouts-on-gke", () => {
        test("passes a service whose namespace ships a timeout-free route template", async () => {
            expect(await check(policy, [gateway(), routeConfig(routerRouteSpec(false)), llmService()])).toEqual([]);
        });

        test("fails a service that falls back to KServe's own template", async () => {
            expect(await check(policy, [gateway(), llmService()])).toEqual([
                {
                    level: "mandatory",
                    resource: "qwen",
                    message:
                        "LLMInferenceService models/qwen gets its HTTPRoute from KServe's default kserve-config-llm-router-route, which sets timeouts that its GKE Gateway rejects; add a timeout-free kserve-config-llm-router-route to namespace models.",
                },
            ]);
        });

        test("judges a route template where a service resolves it: its namespace first, then KServe's", async () => {
            const timeouts = { request: "0s", backendRequest: "0s" };
            const withTimeouts = { rules: [{ name: "v1-completions-path", timeouts }] };
            // KServe's own template has timeouts, but the service's namespace overrides it: nothing to report.
            expect(
                await check(policy, [gateway(), routeConfig(withTimeouts, "kserve"), routeConfig(routerRouteSpec(false)), llmService()]),
            ).toEqual([]);
            // The namespace has no override: the service falls back to KServe's template with timeouts.
            expect(
                (await check(policy, [gateway(), routeConfig(withTimeouts, "kserve"), llmService()])).map((violation) => violation.message),
            ).toEqual([
                "LLMInferenceService models/qwen gets its HTTPRoute from kserve/kserve-config-llm-router-route, which writes timeouts on rules v1-completions-path that its GKE Gateway rejects; add a timeout-free kserve-config-llm-router-route to namespace models.",
            ]);
            // The namespace's own override has timeouts.
            expect(
                (await check(policy, [gateway(), routeConfig(withTimeouts), llmService()])).map((violation) => violation.resource),
            ).toEqual(["qwen"]);
            // A template with timeouts that no service resolves is nobody's route.
            expect(
                await check(policy, [gateway(), routeConfig(withTimeouts, "elsewhere"), routeConfig(routerRouteSpec(false)), llmService()]),
            ).toEqual([]);
            expect((await check(policy, [gateway(), httpRoute({ timeouts })])).map((violation) => violation.message)).toEqual([
                "HTTPRoute route sets timeouts on rules completions but attaches to a GKE Gateway, which rejects it.",
            ]);
        });

        test("a template a service names in its baseRefs counts too", async () => {
            const custom = kube("serving.kserve.io/v1alpha2", "LLMInferenceServiceConfig", "custom", {
                metadata: { name: "my-route", namespace: "models" },
                spec: { router: { route: { http: { spec: { rules: [{ name: "all", timeouts: { request: "30s" } }] } } } } },
            });
            const service = llmService();
            (service.inputs.spec as Record<string, unknown>).baseRefs = [{ name: "my-route" }];
            expect(
                (await check(policy, [gateway(), routeConfig(routerRouteSpec(false)), custom, service])).map(
                    (violation) => violation.message,
                ),
            ).toEqual([
                "LLMInferenceService models/qwen takes its route from LLMInferenceServiceConfig models/my-route, which writes timeouts on rules all; GKE rejects the HTTPRoute.",
            ]);
        });

        test("route rules are replaced whole when KServe merges, so the last layer with rules decides", async () => {
            const withTimeouts = { rules: [{ name: "v1-completions-path", timeouts: { request: "0s" } }] };
            const timeoutFree = kube("serving.kserve.io/v1alpha2", "LLMInferenceServiceConfig", "custom", {
                metadata: { name: "my-route", namespace: "models" },
                spec: { router: { route: { http: { spec: routerRouteSpec(false) } } } },
            });
            // A baseRef with timeout-free rules overrides the well-known template's.
            const viaBaseRef = llmService();
            (viaBaseRef.inputs.spec as Record<string, unknown>).baseRefs = [{ name: "my-route" }];
            expect(await check(policy, [gateway(), routeConfig(withTimeouts, "kserve"), timeoutFree, viaBaseRef])).toEqual([]);
            // So does the service's own route spec with rules; one without rules (parentRefs only) does not.
            const own = llmService();
            (own.inputs.spec as { router: { route: unknown } }).router.route = { http: { spec: routerRouteSpec(false) } };
            expect(await check(policy, [gateway(), routeConfig(withTimeouts, "kserve"), own])).toEqual([]);
            const parentsOnly = llmService();
            (parentsOnly.inputs.spec as { router: { route: unknown } }).router.route = {
                http: { spec: { parentRefs: [{ name: "inference-gateway" }] } },
            };
            expect(
                (await check(policy, [gateway(), routeConfig(withTimeouts, "kserve"), parentsOnly])).map((violation) => violation.resource),
            ).toEqual(["qwen"]);
        });

        test("not applicable: no GKE Gateway (Istio may take timeouts)", async () => {
            expect(await check(policy, [gateway("istio"), llmService(), httpRoute({ timeouts: { request: "10s" } })])).toEqual([]);
        });

        test("a service that points at its own routes is not judged by templates", async () => {
            const service = llmService();
            (service.inputs.spec as { router: { route: unknown } }).router.route = { http: { refs: [{ name: "own-route" }] } };
            expect(await check(policy, [gateway(), service])).toEqual([]);
        });

        test("preview: an unknown route spec is not a violation", async () => {
            expect((await check(policy, [gateway(), httpRoute({ timeouts: UNKNOWN })]))[0].level).toBe("advisory");
        });
    });
});

describe("every spelling", () => {
    type Obj = Record<string, unknown>;

    const TIMEOUTS: Obj[] = [{ request: "0s" }, { backendRequest: "600s" }, { request: "600s", backendRequest: "600s" }, {}];
    const DECLARED = ["CustomResource", "kubernetes:yaml/v2:ConfigGroup", "kubernetes:helm.sh/v4:Chart"];
    const parentOf = (how: string) => (how === "CustomResource" ? undefined : resource(how, "manifests", {}));

    const rules = (timeouts?: Obj) => [
        {
            name: "completions",
            backendRefs: [{ group: "inference.networking.k8s.io", kind: "InferencePool", name: "qwen-inference-pool" }],
            ...(timeouts !== undefined ? { timeouts } : {}),
        },
        { backendRefs: [{ name: "qwen-http", port: 8000 }] },
    ];

    const route = (apiVersion: string, timeouts: Obj | undefined, how = "CustomResource") =>
        kube(
            apiVersion,
            "HTTPRoute",
            "route",
            {
                metadata: { name: "route", namespace: "models" },
                spec: { parentRefs: [{ name: "inference-gateway", namespace: "gateway" }], rules: rules(timeouts) },
            },
            { parent: parentOf(how) },
        );

    /** An LLMInferenceServiceConfig `name` in `namespace` whose route template's rules carry `timeouts`. */
    const config = (name: string, namespace: string, timeouts: Obj | undefined, how = "CustomResource") =>
        kube(
            "serving.kserve.io/v1alpha2",
            "LLMInferenceServiceConfig",
            `${namespace}/${name}`,
            { metadata: { name, namespace }, spec: { router: { route: { http: { spec: { rules: rules(timeouts) } } } } } },
            { parent: parentOf(how) },
        );

    /** The service, with its own route rules, or naming base configs. */
    function service(extra: { ownTimeouts?: Obj | null; baseRefs?: string[] } = {}): RecordedResource {
        const svc = llmService(vllmContainer(), { name: "qwen" });
        const spec = svc.inputs.spec as Obj & { router: Obj };
        if (extra.ownTimeouts !== undefined) {
            spec.router.route = { http: { spec: { rules: rules(extra.ownTimeouts ?? undefined) } } };
        }
        if (extra.baseRefs) {
            spec.baseRefs = extra.baseRefs.map((name) => ({ name }));
        }
        return svc;
    }

    const GKE = gateway();
    const WELL_KNOWN = KSERVE.routerRouteConfigName;
    const verdict = async (resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);

    describe("lesson route-timeouts: every place a route's timeouts reach a GKE Gateway", () => {
        describe.each(DECLARED)("objects declared by %s", (how) => {
            test.each(["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1"])(
                "an HTTPRoute %s: every timeouts spelling caught, none clean",
                async (apiVersion) => {
                    for (const timeouts of TIMEOUTS) {
                        expect(await verdict([GKE, route(apiVersion, timeouts, how)])).toEqual([
                            routeTimeoutMessages.route("route", ["completions"]),
                        ]);
                    }
                    expect(await verdict([GKE, route(apiVersion, undefined, how)])).toEqual([]);
                },
            );

            test("the well-known route config in the service's namespace: with timeouts caught, without clean", async () => {
                for (const timeouts of TIMEOUTS) {
                    expect(await verdict([GKE, config(WELL_KNOWN, "models", timeouts, how), service()])).toEqual([
                        routeTimeoutMessages.template("models/qwen", "models", `models/${WELL_KNOWN}`, ["completions"]),
                    ]);
                }
                expect(await verdict([GKE, config(WELL_KNOWN, "models", undefined, how), service()])).toEqual([]);
            });

            test("a baseRef's route template: with timeouts caught, without clean", async () => {
                const safe = config(WELL_KNOWN, "models", undefined, how);
                for (const timeouts of TIMEOUTS) {
                    expect(
                        await verdict([GKE, safe, config("routes", "models", timeouts, how), service({ baseRefs: ["routes"] })]),
                    ).toEqual([routeTimeoutMessages.baseRef("models/qwen", "models/routes", ["completions"])]);
                }
                expect(await verdict([GKE, safe, config("routes", "models", undefined, how), service({ baseRefs: ["routes"] })])).toEqual(
                    [],
                );
            });
        });

        test("the service's own spec.router.route rules: with timeouts caught, without clean, over any template", async () => {
            for (const timeouts of TIMEOUTS) {
                expect(await verdict([GKE, service({ ownTimeouts: timeouts })])).toEqual([
                    routeTimeoutMessages.service("models/qwen", ["completions"]),
                ]);
            }
            expect(await verdict([GKE, config(WELL_KNOWN, "models", { request: "0s" }), service({ ownTimeouts: null })])).toEqual([]);
        });

        test("KServe's own well-known config (none in the stack) writes timeouts: caught", async () => {
            expect(await verdict([GKE, service()])).toEqual([routeTimeoutMessages.kserveDefault("models/qwen", "models")]);
        });

        test("KServe's controller namespace's config serves a namespace without its own", async () => {
            expect(await verdict([GKE, config(WELL_KNOWN, KSERVE.namespace, { request: "0s" }), service()])).toEqual([
                routeTimeoutMessages.template("models/qwen", "models", `${KSERVE.namespace}/${WELL_KNOWN}`, ["completions"]),
            ]);
            expect(await verdict([GKE, config(WELL_KNOWN, KSERVE.namespace, undefined), service()])).toEqual([]);
        });

        test("not this lesson's: timeouts null, a route on Istio's Gateway, a stack without a GKE Gateway", async () => {
            expect(await verdict([GKE, route("gateway.networking.k8s.io/v1", null as unknown as Obj)])).toEqual([]);
            const istio = gateway("istio", "istio-gateway");
            const onIstio = route("gateway.networking.k8s.io/v1", { request: "0s" });
            (onIstio.inputs.spec as Obj).parentRefs = [{ name: "istio-gateway", namespace: "gateway" }];
            expect(await verdict([GKE, istio, onIstio])).toEqual([]);
            expect(await verdict([istio, route("gateway.networking.k8s.io/v1", { request: "0s" })])).toEqual([]);
        });
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();

    describe("GKE Gateway routes: timeouts", () => {
        test("route timeouts are caught under a GKE Gateway and left alone under another implementation's", async () => {
            const withTimeouts = (className: string) => () => {
                gkeGateway(className);
                pool();
                route(poolBackend, { timeouts: { request: "300s" } });
                backendPolicy(600);
                healthCheck({ type: "HTTP", httpHealthCheck: { portSpecification: "USE_FIXED_PORT", port: 8000, requestPath: "/health" } });
            };
            expect(summary(await verdict(pack(), withTimeouts("gke-l7-regional-external-managed")))).toEqual([
                "mandatory disallow-httproute-timeouts-on-gke @route",
            ]);
            // An external Istio Gateway without an AuthorizationPolicy is open (lesson open-endpoint), its timeouts are fine.
            expect(summary(await verdict(pack(), withTimeouts("istio")))).toEqual(["mandatory require-gateway-access-control @gateway"]);
        });
    });

    describe("services on KServe's default Gateway, objects without a namespace", () => {
        const httpGateway = (namespace: string, name: string) =>
            new k8s.apiextensions.CustomResource("gateway", {
                apiVersion: "gateway.networking.k8s.io/v1",
                kind: "Gateway",
                metadata: { name, namespace },
                spec: { gatewayClassName: "gke-l7-regional-external-managed", listeners: [{ name: "http", protocol: "HTTP", port: 80 }] },
            });
        const routedService = () => llmInferenceService({ template: tpuPod([vllm()]), router: { route: {}, scheduler: {} } });
        const lessons = (findings: Awaited<ReturnType<typeof verdict>>) =>
            [...new Set(findings.map((finding) => `${finding.level} ${finding.policy}`))].sort();

        test("a service that names no Gateway attaches to KServe's default, as the controller's ConfigMap or the chart's default says", async () => {
            const expected = [
                "advisory require-long-inference-backend-timeout",
                "mandatory disallow-httproute-timeouts-on-gke",
                // An external Gateway, no Cloud Armor on the pool, KServe's route on its HTTP listener (lesson open-endpoint).
                "mandatory require-gateway-access-control",
                "mandatory require-http-health-check-policy",
            ];
            expect(
                lessons(
                    await verdict(pack(), () => {
                        httpGateway("kserve", "kserve-ingress-gateway");
                        routedService();
                    }),
                ),
            ).toEqual(expected);
            expect(
                lessons(
                    await verdict(pack(), () => {
                        httpGateway("gateway", "inference");
                        new k8s.core.v1.ConfigMap("kserve-settings", {
                            metadata: { name: "inferenceservice-config", namespace: "kserve" },
                            data: { ingress: JSON.stringify({ kserveIngressGateway: "gateway/inference" }) },
                        });
                        routedService();
                    }),
                ),
            ).toEqual(expected);
            // Another default Gateway, outside the stack: nothing here to judge against.
            expect(
                lessons(
                    await verdict(pack(), () => {
                        httpGateway("gateway", "inference");
                        routedService();
                    }),
                ),
            ).toEqual([]);
        });

        test("objects without a namespace share the provider's default namespace", async () => {
            const findings = await verdict(pack(), () => {
                const provider = new k8s.Provider("k8s", { kubeconfig: "{}", namespace: "models" });
                new k8s.apiextensions.CustomResource(
                    "gateway",
                    {
                        apiVersion: "gateway.networking.k8s.io/v1",
                        kind: "Gateway",
                        metadata: { name: "inference" },
                        spec: {
                            gatewayClassName: "gke-l7-regional-external-managed",
                            listeners: [{ name: "http", protocol: "HTTP", port: 80 }],
                        },
                    },
                    { provider },
                );
                new k8s.apiextensions.CustomResource(
                    "route-config",
                    {
                        apiVersion: "serving.kserve.io/v1alpha2",
                        kind: "LLMInferenceServiceConfig",
                        metadata: { name: "kserve-config-llm-router-route" },
                        spec: {
                            router: {
                                route: {
                                    http: {
                                        spec: {
                                            rules: [
                                                {
                                                    backendRefs: [
                                                        {
                                                            group: "inference.networking.k8s.io",
                                                            kind: "InferencePool",
                                                            name: "qwen-inference-pool",
                                                        },
                                                    ],
                                                },
                                            ],
                                        },
                                    },
                                },
                            },
                        },
                    },
                    { provider },
                );
                new k8s.apiextensions.CustomResource(
                    "qwen",
                    {
                        apiVersion: "serving.kserve.io/v1alpha2",
                        kind: "LLMInferenceService",
                        metadata: { name: "qwen" },
                        spec: {
                            model: { uri: "hf://Qwen/Qwen2.5-3B-Instruct" },
                            template: tpuPod([vllm()]),
                            router: { route: {}, gateway: { refs: [{ name: "inference" }] }, scheduler: {} },
                        },
                    },
                    { provider },
                );
            });
            expect(findings.filter((finding) => finding.policy === "disallow-httproute-timeouts-on-gke")).toEqual([]);
        });
    });
});
