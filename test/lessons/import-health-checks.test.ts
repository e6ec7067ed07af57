/**
 * Lesson import-health-checks, the whole category: a GCPInferencePoolImport that an HTTPRoute (v1 or v1beta1) sends to
 * or a GCPBackendPolicy targets, with no HealthCheckPolicy targeting it (its namespace given or defaulted), or with one
 * that probes the wrong type, path or port, is caught; a HealthCheckPolicy that reaches it and probes /health over HTTP
 * is clean; an InferencePool backend, or a HealthCheckPolicy of the upstream InferencePoolImport, is not this lesson's.
 */
import * as k8s from "@pulumi/kubernetes";
import { BackendRef, healthCheckOf, healthCheckProblem } from "../../policies/facts";
import { noImportHealthCheckMessage, requireImportHealthCheckPolicy as policy } from "../../policies/requireImportHealthCheckPolicy";
import { RecordedResource } from "../../scripts/offline/recorder";
import { UNKNOWN, check, kube, resource } from "../support/harness";
import { summaryOf, verdict as packVerdict } from "../support/pack";
import { useWorkerPack } from "../workerPack";

type Obj = Record<string, unknown>;

const IMPORT = { group: "networking.gke.io", kind: "GCPInferencePoolImport", name: "qwen-fleet" };
const BACKEND: BackendRef = { namespace: "llm-inference", ...IMPORT };
const HTTP_HEALTH = { type: "HTTP", httpHealthCheck: { portSpecification: "USE_FIXED_PORT", port: 8000, requestPath: "/health" } };

const route = (backend: Obj = IMPORT, apiVersion = "gateway.networking.k8s.io/v1", how?: string) =>
    kube(
        apiVersion,
        "HTTPRoute",
        "qwen",
        {
            metadata: { name: "qwen", namespace: "llm-inference" },
            spec: { parentRefs: [{ name: "fleet" }], rules: [{ backendRefs: [backend] }] },
        },
        { parent: how ? resource(how, "manifests", {}) : undefined },
    );
const healthCheck = (targetRef: Obj = IMPORT, config: Obj = HTTP_HEALTH, how?: string) =>
    kube(
        "networking.gke.io/v1",
        "HealthCheckPolicy",
        "qwen-health",
        { metadata: { name: "qwen-fleet", namespace: "llm-inference" }, spec: { default: { config }, targetRef } },
        { parent: how ? resource(how, "manifests", {}) : undefined },
    );
const backendPolicy = (targetRef: Obj = IMPORT) =>
    kube("networking.gke.io/v1", "GCPBackendPolicy", "qwen-backend", {
        metadata: { name: "qwen-fleet", namespace: "llm-inference" },
        spec: { default: { timeoutSec: 600 }, targetRef },
    });
const exportedPool = (spec: Obj, apiVersion = "inference.networking.k8s.io/v1") =>
    kube(apiVersion, "InferencePool", "member-pool", {
        metadata: { name: "qwen-fleet", namespace: "llm-inference", annotations: { "networking.gke.io/export": "True" } },
        spec: { selector: { matchLabels: { app: "qwen" } }, ...spec },
    });

const messages = async (resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);

describe("the rule", () => {
    describe("require-import-health-check-policy", () => {
        test("fails an import a route sends to without a HealthCheckPolicy, against the route", async () => {
            expect(await check(policy, [route()])).toEqual([
                {
                    level: "mandatory",
                    resource: "qwen",
                    message:
                        "GCPInferencePoolImport llm-inference/qwen-fleet is a backend of the multi-cluster Gateway but no HealthCheckPolicy targets it; the load balancer's default check probes \"/\", not vLLM's /health, so no member's endpoints become healthy. Add a HealthCheckPolicy in namespace llm-inference targeting group networking.gke.io, kind GCPInferencePoolImport, name qwen-fleet: type HTTP, requestPath /health, port 8000, portSpecification USE_FIXED_PORT.",
                },
            ]);
        });

        test("fails an import only a GCPBackendPolicy targets, against that policy", async () => {
            expect((await check(policy, [backendPolicy()])).map((finding) => finding.resource)).toEqual(["qwen-backend"]);
        });

        test("passes an HTTP check of /health on the import", async () => {
            expect(await check(policy, [route(), backendPolicy(), healthCheck()])).toEqual([]);
        });

        test("fails a check of another type or path, and a fixed port where the exported pools do not serve", async () => {
            expect(await messages([route(), healthCheck(IMPORT, { type: "TCP", tcpHealthCheck: { port: 8000 } })])).toEqual([
                'HealthCheckPolicy qwen-fleet checks GCPInferencePoolImport llm-inference/qwen-fleet with type "TCP"; vLLM serves plain HTTP, so use type HTTP.',
            ]);
            expect(await messages([route(), healthCheck(IMPORT, { type: "HTTP", httpHealthCheck: { port: 8000 } })])).toEqual([
                'HealthCheckPolicy qwen-fleet checks "/" on GCPInferencePoolImport llm-inference/qwen-fleet; vLLM answers health checks on /health.',
            ]);
            expect(await messages([route(), healthCheck(), exportedPool({ targetPorts: [{ number: 9000 }] })])).toEqual([
                "HealthCheckPolicy qwen-fleet checks port 8000 on GCPInferencePoolImport llm-inference/qwen-fleet, which serves on 9000; GKE would probe a port vLLM does not answer on, so use port 9000 or USE_SERVING_PORT.",
            ]);
        });

        test("not applicable: no import is routed to or targeted", async () => {
            expect(await check(policy, [route({ group: "inference.networking.k8s.io", kind: "InferencePool", name: "qwen" })])).toEqual([]);
        });

        test("preview: a HealthCheckPolicy's target unknown is not reported as a violation", async () => {
            expect(await check(policy, [route(), healthCheck({ ...IMPORT, name: UNKNOWN })])).toEqual([
                {
                    level: "advisory",
                    resource: "",
                    message:
                        "can't run policy 'require-import-health-check-policy' from policy pack 'test-pack@v0.0.1' during preview: string value at .spec.targetRef.name can't be known during preview",
                },
            ]);
        });
    });
});

describe("every spelling", () => {
    /** How a route or policy names the import: namespace defaulted or given. */
    const IMPORT_REFS = [IMPORT, { ...IMPORT, namespace: "llm-inference" }];
    const ROUTES = ["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1"];
    const SAFE = [
        HTTP_HEALTH,
        { type: "http", httpHealthCheck: { portSpecification: "USE_FIXED_PORT", port: 8000, requestPath: "/health" } },
        { type: "HTTP", httpHealthCheck: { portSpecification: "USE_SERVING_PORT", requestPath: "/health" } },
    ];
    const BROKEN = [
        { type: "HTTPS", httpsHealthCheck: { port: 8000, requestPath: "/health" } },
        { type: "GRPC", grpcHealthCheck: { port: 8000 } },
        { httpHealthCheck: { port: 8000, requestPath: "/health" } },
        { type: "HTTP", httpHealthCheck: { port: 8000, requestPath: "/v1/models" } },
        // A port without a portSpecification, which the API server rejects.
        { type: "HTTP", httpHealthCheck: { port: 8000, requestPath: "/health" } },
        { type: "HTTP", httpHealthCheck: { portSpecification: "USE_NAMED_PORT", portName: "http", requestPath: "/health" } },
    ];

    describe("lesson import-health-checks: every way an import becomes a backend, and every check of it", () => {
        describe.each(ROUTES)("an HTTPRoute %s", (apiVersion) => {
            test.each(IMPORT_REFS.map((ref) => [JSON.stringify(ref), ref]))("naming %s without a check: caught", async (_, ref) => {
                expect(await messages([route(ref, apiVersion)])).toEqual([noImportHealthCheckMessage(BACKEND)]);
            });

            test.each(IMPORT_REFS.map((ref) => [JSON.stringify(ref), ref]))(
                "checked through targetRef %s: safe checks clean, broken ones caught",
                async (_, target) => {
                    for (const config of SAFE) {
                        expect(await messages([route(IMPORT, apiVersion), healthCheck(target, config)])).toEqual([]);
                    }
                    for (const config of BROKEN) {
                        const problem = healthCheckProblem(
                            "qwen-fleet",
                            BACKEND,
                            healthCheckOf({ spec: { default: { config } } }),
                            undefined,
                        );
                        expect(problem).toBeDefined();
                        expect(await messages([route(IMPORT, apiVersion), healthCheck(target, config)])).toEqual([problem]);
                    }
                },
            );
        });

        test.each(["kubernetes:yaml/v2:ConfigGroup", "kubernetes:helm.sh/v4:Chart", "kubernetes:yaml:ConfigFile"])(
            "a route and a HealthCheckPolicy rendered by %s count",
            async (how) => {
                expect(await messages([route(IMPORT, undefined, how)])).toEqual([noImportHealthCheckMessage(BACKEND)]);
                expect(await messages([route(IMPORT, undefined, how), healthCheck(IMPORT, HTTP_HEALTH, how)])).toEqual([]);
            },
        );

        test("a GCPBackendPolicy on the import makes it a backend; the route and the policy together are one report", async () => {
            expect(await messages([backendPolicy()])).toEqual([noImportHealthCheckMessage(BACKEND)]);
            expect(await messages([route(), backendPolicy()])).toEqual([noImportHealthCheckMessage(BACKEND)]);
        });

        test("a check in another namespace, of another name or without the import's group misses it", async () => {
            for (const target of [
                { ...IMPORT, namespace: "other" },
                { ...IMPORT, name: "other" },
                { kind: IMPORT.kind, name: IMPORT.name },
            ]) {
                expect(await messages([route(), healthCheck(target)])).toContainEqual(noImportHealthCheckMessage(BACKEND));
            }
        });

        test("the exported pools' target ports, of either pool group, are where the import serves", async () => {
            expect(await messages([route(), healthCheck(), exportedPool({ targetPorts: [{ number: 8000 }] })])).toEqual([]);
            expect(
                await messages([
                    route(),
                    healthCheck(),
                    exportedPool({ targetPortNumber: 9000 }, "inference.networking.x-k8s.io/v1alpha2"),
                ]),
            ).toEqual([healthCheckProblem("qwen-fleet", BACKEND, healthCheckOf({ spec: { default: { config: HTTP_HEALTH } } }), [9000])]);
        });

        test("not this lesson's: InferencePool backends and the upstream InferencePoolImport", async () => {
            expect(await messages([route({ group: "inference.networking.k8s.io", kind: "InferencePool", name: "qwen-fleet" })])).toEqual(
                [],
            );
            expect(
                await messages([route({ group: "inference.networking.x-k8s.io", kind: "InferencePoolImport", name: "qwen-fleet" })]),
            ).toEqual([]);
        });
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();
    const program = (health?: Obj) => () => {
        new k8s.apiextensions.CustomResource("route", {
            apiVersion: "gateway.networking.k8s.io/v1",
            kind: "HTTPRoute",
            metadata: { name: "qwen", namespace: "llm-inference" },
            spec: { parentRefs: [{ name: "fleet" }], rules: [{ backendRefs: [IMPORT] }] },
        });
        if (health) {
            new k8s.apiextensions.CustomResource("health", {
                apiVersion: "networking.gke.io/v1",
                kind: "HealthCheckPolicy",
                metadata: { name: "qwen-fleet", namespace: "llm-inference" },
                spec: { default: { config: health }, targetRef: IMPORT },
            });
        }
    };

    test.each<[string, Obj | undefined, string[]]>([
        ["no HealthCheckPolicy", undefined, ["mandatory require-import-health-check-policy @route"]],
        [
            "a check of GKE's default path",
            { type: "HTTP", httpHealthCheck: { port: 8000 } },
            ["mandatory require-import-health-check-policy @health"],
        ],
        ["an HTTP check of /health", HTTP_HEALTH, []],
    ])("%s", async (_, health, expected) => {
        expect(summaryOf("require-import-health-check-policy", await packVerdict(pack(), program(health)))).toEqual(expected);
    });
});
