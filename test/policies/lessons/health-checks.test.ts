/**
 * Lesson health-checks, the whole category: every backend a GKE Gateway makes of vLLM (KServe's InferencePool, an
 * InferencePool of either group an HTTPRoute v1 or v1beta1 names, a Service in front of vLLM pods) without a
 * HealthCheckPolicy, or with one that probes the wrong type, path or port, is caught; a policy that reaches it by any
 * spelling of its targetRef (group explicit, the alpha pool group, a Service's group empty or left out) and probes
 * /health over HTTP where vLLM serves is clean.
 */
import { noHealthCheckMessage, requireHttpHealthCheckPolicy as policy } from "../../../policies/requireHttpHealthCheckPolicy";
import { BackendRef, healthCheckOf, healthCheckProblem } from "../../../policies/facts";
import { RecordedResource } from "../../../scripts/offline/recorder";
import { HTTP_HEALTH, gateway, llmService, vllmContainer } from "../fixtures";
import { check, kube, resource } from "../harness";

type Obj = Record<string, unknown>;

const POOL: BackendRef = { namespace: "models", group: "inference.networking.k8s.io", kind: "InferencePool", name: "qwen-inference-pool" };
const SERVICE: BackendRef = { namespace: "models", group: "", kind: "Service", name: "qwen-http" };

const healthCheck = (targetRef: Obj, spec: Obj = HTTP_HEALTH, how?: string) =>
    kube(
        "networking.gke.io/v1",
        "HealthCheckPolicy",
        "health",
        { metadata: { name: "health", namespace: "models" }, spec: { ...spec, targetRef } },
        { parent: how ? resource(how, "manifests", {}) : undefined },
    );

/** The targetRef spellings that reach each backend. */
const POOL_TARGETS = [
    { group: "inference.networking.k8s.io", kind: "InferencePool", name: POOL.name },
    { group: "inference.networking.x-k8s.io", kind: "InferencePool", name: POOL.name },
    { group: "inference.networking.k8s.io", kind: "InferencePool", name: POOL.name, namespace: "models" },
];
const SERVICE_TARGETS = [
    { group: "", kind: "Service", name: SERVICE.name },
    { kind: "Service", name: SERVICE.name },
];

const checkSpec = (http: Obj, type: unknown = "HTTP") => ({ default: { config: { type, httpHealthCheck: http } } });
/** Checks that probe vLLM where it answers. */
const SAFE = [
    checkSpec({ portSpecification: "USE_FIXED_PORT", port: 8000, requestPath: "/health" }),
    checkSpec({ port: 8000, requestPath: "/health" }),
    checkSpec({ portSpecification: "USE_SERVING_PORT", requestPath: "/health" }),
    checkSpec({ requestPath: "/health" }),
];
/** Checks that never see vLLM healthy. */
const BROKEN = [
    checkSpec({ port: 8000, requestPath: "/health" }, "HTTPS"),
    checkSpec({ port: 8000, requestPath: "/health" }, "HTTP2"),
    checkSpec({ port: 8000, requestPath: "/health" }, "GRPC"),
    { default: { config: { httpHealthCheck: { port: 8000, requestPath: "/health" } } } },
    checkSpec({ port: 8000 }),
    checkSpec({ port: 8000, requestPath: "/" }),
    checkSpec({ portSpecification: "USE_NAMED_PORT", portName: "http", requestPath: "/health" }),
    checkSpec({ portName: "http", requestPath: "/health" }),
    checkSpec({ portSpecification: "USE_FIXED_PORT", port: 8080, requestPath: "/health" }),
    {},
];

const inferencePool = (apiVersion: string, spec: Obj) =>
    kube(apiVersion, "InferencePool", "pool", { metadata: { name: POOL.name, namespace: "models" }, spec });
const route = (apiVersion: string, backend: Obj) =>
    kube(apiVersion, "HTTPRoute", "route", {
        metadata: { name: "route", namespace: "models" },
        spec: { parentRefs: [{ name: "inference-gateway", namespace: "gateway" }], rules: [{ backendRefs: [backend] }] },
    });
const vllmDeployment = kube("apps/v1", "Deployment", "vllm", {
    metadata: { name: "vllm", namespace: "models" },
    spec: {
        template: { metadata: { labels: { app: "vllm" } }, spec: { containers: [vllmContainer({ ports: [{ containerPort: 8000 }] })] } },
    },
});
const vllmService = kube("v1", "Service", "qwen-http", {
    metadata: { name: "qwen-http", namespace: "models" },
    spec: { selector: { app: "vllm" }, ports: [{ name: "http", port: 8000, targetPort: 8000 }] },
});

/** Each way a GKE Gateway gets the backend, with the resources that make it. */
const WAYS: Array<[label: string, backend: BackendRef, targets: Obj[], resources: RecordedResource[]]> = [
    ["KServe's InferencePool of an LLMInferenceService", POOL, POOL_TARGETS, [llmService()]],
    ...["inference.networking.k8s.io", "inference.networking.x-k8s.io"].flatMap((group) =>
        ["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1"].map(
            (routeVersion): [string, BackendRef, Obj[], RecordedResource[]] => [
                `an InferencePool ${group} named by an HTTPRoute ${routeVersion}`,
                POOL,
                POOL_TARGETS,
                [
                    group === "inference.networking.k8s.io"
                        ? inferencePool(`${group}/v1`, { targetPorts: [{ number: 8000 }] })
                        : inferencePool(`${group}/v1alpha2`, { targetPortNumber: 8000 }),
                    route(routeVersion, { group, kind: "InferencePool", name: POOL.name }),
                ],
            ],
        ),
    ),
    [
        "a Service in front of vLLM named by an HTTPRoute",
        SERVICE,
        SERVICE_TARGETS,
        [vllmDeployment, vllmService, route("gateway.networking.k8s.io/v1", { name: "qwen-http", port: 8000 })],
    ],
];

const verdict = async (resources: RecordedResource[]) => (await check(policy, [gateway(), ...resources])).map((finding) => finding.message);

describe("lesson health-checks: every GKE backend of vLLM and every health check of it", () => {
    describe.each(WAYS)("%s", (_, backend, targets, resources) => {
        test("without a HealthCheckPolicy: caught", async () => {
            expect(await verdict(resources)).toEqual([noHealthCheckMessage(backend)]);
        });

        test.each(targets.map((target) => [JSON.stringify(target), target]))(
            "targeted as %s: safe checks clean, broken ones caught",
            async (_, target) => {
                for (const spec of SAFE) {
                    expect(await verdict([...resources, healthCheck(target, spec)])).toEqual([]);
                }
                for (const spec of BROKEN) {
                    const problem = healthCheckProblem("health", backend, healthCheckOf({ spec }), [8000]);
                    expect(problem).toBeDefined();
                    expect(await verdict([...resources, healthCheck(target, spec)])).toEqual([problem]);
                }
            },
        );

        test.each(["kubernetes:yaml/v2:ConfigGroup", "kubernetes:helm.sh/v4:Chart", "kubernetes:yaml:ConfigFile"])(
            "a HealthCheckPolicy rendered by %s counts",
            async (how) => {
                expect(await verdict([...resources, healthCheck(targets[0], HTTP_HEALTH, how)])).toEqual([]);
            },
        );
    });

    test("a targetRef that misses the backend (an InferencePool without its group, another name) leaves it unchecked", async () => {
        for (const target of [
            { kind: "InferencePool", name: POOL.name },
            { group: POOL.group, kind: "InferencePool", name: "other" },
        ]) {
            expect(await verdict([llmService(), healthCheck(target)])).toEqual([noHealthCheckMessage(POOL)]);
        }
    });

    test("a fixed port on a pool serving elsewhere is caught against the pool's own ports", async () => {
        const pool = inferencePool("inference.networking.k8s.io/v1", { targetPorts: [{ number: 8080 }] });
        const onPool = route("gateway.networking.k8s.io/v1", { group: POOL.group, kind: "InferencePool", name: POOL.name });
        expect(await verdict([pool, onPool, healthCheck(POOL_TARGETS[0])])).toEqual([
            healthCheckProblem("health", POOL, healthCheckOf({ spec: HTTP_HEALTH }), [8080]),
        ]);
    });

    test("not this lesson's: backends behind another implementation's Gateway, Services not in front of vLLM", async () => {
        expect((await check(policy, [gateway("istio"), llmService()])).map((finding) => finding.message)).toEqual([]);
        const web = kube("v1", "Service", "web", {
            metadata: { name: "web", namespace: "models" },
            spec: { selector: { app: "web" }, ports: [{ port: 80 }] },
        });
        expect(await verdict([web, route("gateway.networking.k8s.io/v1", { name: "web", port: 80 })])).toEqual([]);
    });
});
