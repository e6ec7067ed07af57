/**
 * Lesson backend-timeout, the whole category: every InferencePool a GKE Gateway routes to (KServe's, one of either group
 * an HTTPRoute v1 or v1beta1 names) without a GCPBackendPolicy, or with one whose timeoutSec is unset (GCP's 30 s) or
 * short, is caught; a long timeout by any targetRef spelling that reaches the pool is clean.
 */
import { BackendRef, MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS, backendTimeoutProblem } from "../../policies/facts";
import { requireLongInferenceBackendTimeout as policy } from "../../policies/requireLongInferenceBackendTimeout";
import { RecordedResource } from "../../scripts/offline/recorder";
import { gateway, llmService, poolPolicy } from "../support/fixtures";
import { gkeGateway, healthCheck, poolBackend, servedPool } from "../support/gatewayObjects";
import { UNKNOWN, check, kube, resource } from "../support/harness";
import { llmInferenceService, tpuPod, vllm } from "../support/lessonObjects";
import { summary, verdict } from "../support/pack";
import { useWorkerPack } from "../workerPack";

describe("the rule", () => {
    describe("require-long-inference-backend-timeout", () => {
        test("passes a 600 s backend timeout", async () => {
            expect(
                await check(policy, [gateway(), llmService(), poolPolicy("GCPBackendPolicy", { default: { timeoutSec: 600 } })]),
            ).toEqual([]);
        });

        test("warns about a missing policy and a short timeout", async () => {
            expect(await check(policy, [gateway(), llmService()])).toEqual([
                {
                    level: "advisory",
                    resource: "qwen",
                    message:
                        "InferencePool models/qwen-inference-pool has no GCPBackendPolicy, so GCP cuts requests off after 30 s; set timeoutSec to at least 300.",
                },
            ]);
            expect(
                (await check(policy, [gateway(), llmService(), poolPolicy("GCPBackendPolicy", { default: { timeoutSec: 60 } })])).map(
                    (violation) => violation.message,
                ),
            ).toEqual([
                "GCPBackendPolicy qwen-inference-pool gives InferencePool models/qwen-inference-pool a timeout of 60 s; inference needs at least 300.",
            ]);
        });

        test("the minimum comes from pack config, and the level can be raised", async () => {
            const config = { [policy.name]: { minimumTimeoutSec: 900, enforcementLevel: "mandatory" as const } };
            expect(
                await check(policy, [gateway(), llmService(), poolPolicy("GCPBackendPolicy", { default: { timeoutSec: 600 } })], config),
            ).toEqual([
                {
                    level: "mandatory",
                    resource: "qwen-GCPBackendPolicy",
                    message:
                        "GCPBackendPolicy qwen-inference-pool gives InferencePool models/qwen-inference-pool a timeout of 600 s; inference needs at least 900.",
                },
            ]);
        });

        test("not applicable: no InferencePool behind a GKE Gateway", async () => {
            expect(await check(policy, [gateway("istio"), llmService()])).toEqual([]);
        });

        test("preview: an unknown timeout is not a violation", async () => {
            expect(
                (await check(policy, [gateway(), llmService(), poolPolicy("GCPBackendPolicy", { default: { timeoutSec: UNKNOWN } })]))[0]
                    .message,
            ).toContain("can't be known during preview");
        });
    });
});

describe("every spelling", () => {
    type Obj = Record<string, unknown>;
    const POOL: BackendRef = {
        namespace: "models",
        group: "inference.networking.k8s.io",
        kind: "InferencePool",
        name: "qwen-inference-pool",
    };
    const MIN = MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS;

    const backendPolicy = (targetRef: Obj, defaults: Obj | undefined, how?: string) =>
        kube(
            "networking.gke.io/v1",
            "GCPBackendPolicy",
            "timeout",
            { metadata: { name: "timeout", namespace: "models" }, spec: { ...(defaults ? { default: defaults } : {}), targetRef } },
            { parent: how ? resource(how, "manifests", {}) : undefined },
        );

    const TARGETS = [
        { group: "inference.networking.k8s.io", kind: "InferencePool", name: POOL.name },
        { group: "inference.networking.x-k8s.io", kind: "InferencePool", name: POOL.name },
        { group: "inference.networking.k8s.io", kind: "InferencePool", name: POOL.name, namespace: "models" },
    ];

    const route = (apiVersion: string, group: string) =>
        kube(apiVersion, "HTTPRoute", "route", {
            metadata: { name: "route", namespace: "models" },
            spec: {
                parentRefs: [{ name: "inference-gateway", namespace: "gateway" }],
                rules: [{ backendRefs: [{ group, kind: "InferencePool", name: POOL.name }] }],
            },
        });

    const WAYS: Array<[string, RecordedResource[]]> = [
        ["KServe's InferencePool of an LLMInferenceService", [llmService()]],
        ...["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1"].flatMap((version) =>
            ["inference.networking.k8s.io", "inference.networking.x-k8s.io"].map((group): [string, RecordedResource[]] => [
                `an InferencePool ${group} named by an HTTPRoute ${version}`,
                [route(version, group)],
            ]),
        ),
    ];

    const verdict = async (resources: RecordedResource[]) =>
        (await check(policy, [gateway(), ...resources])).map((finding) => finding.message);
    const problem = (defaults: Obj) => backendTimeoutProblem(POOL, { metadata: { name: "timeout" }, spec: { default: defaults } }, MIN);

    describe("lesson backend-timeout: every InferencePool behind a GKE Gateway and every timeout it gets", () => {
        describe.each(WAYS)("%s", (_, resources) => {
            test("without a GCPBackendPolicy: caught", async () => {
                expect(await verdict(resources)).toEqual([backendTimeoutProblem(POOL, undefined, MIN)]);
            });

            test.each(TARGETS.map((target) => [JSON.stringify(target), target]))("targeted as %s", async (_, target) => {
                for (const defaults of [undefined, {}, { timeoutSec: 30 }, { timeoutSec: MIN - 1 }, { timeoutSec: "60" }]) {
                    expect(await verdict([...resources, backendPolicy(target, defaults)])).toEqual([problem(defaults ?? {})]);
                }
                for (const defaults of [{ timeoutSec: MIN }, { timeoutSec: 600 }, { timeoutSec: "3600" }]) {
                    expect(await verdict([...resources, backendPolicy(target, defaults)])).toEqual([]);
                }
            });

            test.each(["kubernetes:yaml/v2:ConfigGroup", "kubernetes:helm.sh/v4:Chart"])(
                "a GCPBackendPolicy rendered by %s counts",
                async (how) => {
                    expect(await verdict([...resources, backendPolicy(TARGETS[0], { timeoutSec: 600 }, how)])).toEqual([]);
                },
            );
        });

        test("a targetRef that misses the pool (no group, a Service, another name) leaves it at GCP's default", async () => {
            for (const target of [
                { kind: "InferencePool", name: POOL.name },
                { group: "", kind: "Service", name: POOL.name },
                { group: POOL.group, kind: "InferencePool", name: "other" },
            ]) {
                expect(await verdict([llmService(), backendPolicy(target, { timeoutSec: 600 })])).toEqual([
                    backendTimeoutProblem(POOL, undefined, MIN),
                ]);
            }
        });

        test("a configured minimum is honoured", async () => {
            const findings = await check(policy, [gateway(), llmService(), backendPolicy(TARGETS[0], { timeoutSec: 600 })], {
                "require-long-inference-backend-timeout": { minimumTimeoutSec: 900 },
            });
            expect(findings.map((finding) => finding.message)).toEqual([
                backendTimeoutProblem(POOL, { metadata: { name: "timeout" }, spec: { default: { timeoutSec: 600 } } }, 900),
            ]);
        });

        test("not this lesson's: a pool behind another implementation's Gateway", async () => {
            expect((await check(policy, [gateway("istio"), llmService()])).map((finding) => finding.message)).toEqual([]);
        });
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();

    describe("GKE Gateway backends: the backend timeout", () => {
        test("a short backend timeout on any InferencePool behind a GKE Gateway, KServe-made or not", async () => {
            expect(
                summary(
                    await verdict(
                        pack(),
                        servedPool(
                            { type: "HTTP", httpHealthCheck: { portSpecification: "USE_FIXED_PORT", port: 8000, requestPath: "/health" } },
                            30,
                        ),
                    ),
                ),
            ).toEqual(["advisory require-long-inference-backend-timeout @backend"]);
            const kserveMade = await verdict(pack(), () => {
                gkeGateway();
                llmInferenceService({
                    template: tpuPod([vllm()]),
                    router: {
                        route: { http: { spec: { rules: [{ backendRefs: [{ ...poolBackend, name: "qwen-inference-pool" }] }] } } },
                        gateway: { refs: [{ name: "inference", namespace: "gateway" }] },
                        scheduler: {},
                    },
                });
                healthCheck(
                    { type: "HTTP", httpHealthCheck: { portSpecification: "USE_FIXED_PORT", port: 8000, requestPath: "/health" } },
                    { ...poolBackend, name: "qwen-inference-pool" },
                );
            });
            // Without a GCPBackendPolicy, the pool has no Cloud Armor either (lesson open-endpoint).
            expect(summary(kserveMade)).toEqual([
                "advisory require-long-inference-backend-timeout @qwen",
                "mandatory require-gateway-access-control @qwen",
            ]);
        });
    });
});
