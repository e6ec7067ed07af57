/**
 * Lesson global-gateway-class, the whole category: a Gateway of any of GKE's classes other than the regional ones
 * (global, classic, cross-regional, multi-cluster) that an LLMInferenceService attaches to or an HTTPRoute (v1 or
 * v1beta1) sends to an InferencePool (v1 or alpha group) is caught, however the objects are declared; a regional class,
 * another implementation's class, and a Gateway that serves no InferencePool are left alone.
 */
import { GATEWAY_CLASSES, MULTI_CLUSTER_INFERENCE } from "../../policies/facts";
import {
    gatewayClassMessage,
    requireRegionalGatewayClassForInference as policy,
} from "../../policies/requireRegionalGatewayClassForInference";
import { RecordedResource } from "../../scripts/offline/recorder";
import { gateway, llmService, vllmContainer } from "../support/fixtures";
import { UNKNOWN, check, kube, resource } from "../support/harness";

describe("the rule", () => {
    function route(gatewayName: string) {
        return kube("gateway.networking.k8s.io/v1", "HTTPRoute", "route", {
            metadata: { name: "route", namespace: "models" },
            spec: {
                parentRefs: [{ name: gatewayName, namespace: "gateway" }],
                rules: [{ backendRefs: [{ group: "inference.networking.k8s.io", kind: "InferencePool", name: "pool" }] }],
            },
        });
    }

    describe("require-regional-gateway-class-for-inference", () => {
        test("passes a regional Gateway serving an LLMInferenceService", async () => {
            expect(await check(policy, [gateway(), llmService()])).toEqual([]);
        });

        test("fails a global Gateway behind an LLMInferenceService or an HTTPRoute to an InferencePool", async () => {
            const expected = {
                level: "mandatory",
                resource: "global",
                message:
                    'Gateway gateway/global uses GatewayClass "gke-l7-global-external-managed" but routes to an InferencePool; only gke-l7-regional-external-managed, gke-l7-rilb serve InferencePool backends.',
            };
            expect(
                await check(policy, [
                    gateway("gke-l7-global-external-managed", "global"),
                    llmService(undefined, { gatewayName: "global" }),
                ]),
            ).toEqual([expected]);
            expect(await check(policy, [gateway("gke-l7-global-external-managed", "global"), route("global")])).toEqual([expected]);
        });

        test("honours the allowed classes from pack config", async () => {
            const config = { [policy.name]: { allowedGatewayClasses: ["gke-l7-rilb"] } };
            expect((await check(policy, [gateway(), llmService()], config)).map((violation) => violation.message)).toEqual([
                'Gateway gateway/inference-gateway uses GatewayClass "gke-l7-regional-external-managed" but routes to an InferencePool; only gke-l7-rilb serve InferencePool backends.',
            ]);
        });

        test("not applicable: a global Gateway with no inference traffic", async () => {
            expect(await check(policy, [gateway("gke-l7-global-external-managed")])).toEqual([]);
        });

        test("preview: an unknown class is not reported as a violation", async () => {
            const unknownClass = kube("gateway.networking.k8s.io/v1", "Gateway", "inference-gateway", {
                metadata: { name: "inference-gateway", namespace: "gateway" },
                spec: { gatewayClassName: UNKNOWN },
            });
            expect(await check(policy, [unknownClass, llmService()])).toEqual([
                {
                    level: "advisory",
                    resource: "",
                    message:
                        "can't run policy 'require-regional-gateway-class-for-inference' from policy pack 'test-pack@v0.0.1' during preview: string value at .spec.gatewayClassName can't be known during preview",
                },
            ]);
        });
    });
});

describe("every spelling", () => {
    const REGIONAL = [...GATEWAY_CLASSES.regional];
    /** GKE's classes that never serve an InferencePool backend. */
    const NEVER = [
        "gke-l7-global-external-managed",
        "gke-l7-gxlb",
        "gke-l7-cross-regional-internal-managed",
        "gke-l7-global-external-managed-mc",
        "gke-l7-gxlb-mc",
        "gke-l7-regional-external-managed-mc",
        "gke-l7-rilb-mc",
        "gke-l7-cross-regional-internal-managed-mc",
    ];

    /** How a program declares a Kubernetes object: on its own (typed or CustomResource), or rendered by a component. */
    const DECLARED = ["CustomResource", "kubernetes:yaml/v2:ConfigGroup", "kubernetes:yaml:ConfigFile", "kubernetes:helm.sh/v4:Chart"];
    const parentOf = (how: string) => (how === "CustomResource" ? undefined : resource(how, "manifests", {}));

    const gateway = (className: string, apiVersion = "gateway.networking.k8s.io/v1", how = "CustomResource") =>
        kube(
            apiVersion,
            "Gateway",
            "inference-gateway",
            {
                metadata: { name: "inference-gateway", namespace: "gateway" },
                spec: { gatewayClassName: className, listeners: [{ name: "http", protocol: "HTTP", port: 80 }] },
            },
            { parent: parentOf(how) },
        );

    const route = (backend: Record<string, unknown>, apiVersion = "gateway.networking.k8s.io/v1", how = "CustomResource") =>
        kube(
            apiVersion,
            "HTTPRoute",
            "route",
            {
                metadata: { name: "route", namespace: "models" },
                spec: {
                    parentRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: "inference-gateway", namespace: "gateway" }],
                    rules: [{ backendRefs: [backend] }],
                },
            },
            { parent: parentOf(how) },
        );

    const POOLS = [
        { group: "inference.networking.k8s.io", kind: "InferencePool", name: "qwen-inference-pool" },
        { group: "inference.networking.x-k8s.io", kind: "InferencePool", name: "qwen-inference-pool" },
    ];

    const verdict = async (resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);
    const caught = (className: string) => [gatewayClassMessage("gateway/inference-gateway", className, REGIONAL)];

    describe("lesson global-gateway-class: every GKE class but the regional ones, in front of an InferencePool", () => {
        describe.each(DECLARED)("objects declared by %s", (how) => {
            test.each(NEVER)("%s: an LLMInferenceService attached to it is caught", async (className) => {
                expect(await verdict([gateway(className, undefined, how), llmService()])).toEqual(caught(className));
            });

            test.each(["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1"])(
                "an HTTPRoute %s to an InferencePool of either group is caught on a global class, clean on a regional one",
                async (apiVersion) => {
                    for (const pool of POOLS) {
                        expect(
                            await verdict([gateway("gke-l7-global-external-managed", apiVersion, how), route(pool, apiVersion, how)]),
                        ).toEqual(caught("gke-l7-global-external-managed"));
                        for (const className of REGIONAL) {
                            expect(await verdict([gateway(className, apiVersion, how), route(pool, apiVersion, how)])).toEqual([]);
                        }
                    }
                },
            );
        });

        test.each(REGIONAL)("the regional class %s is clean", async (className) => {
            expect(await verdict([gateway(className), llmService()])).toEqual([]);
        });

        test("a service reaching the Gateway through a baseRef config's gateway refs is caught", async () => {
            const config = kube("serving.kserve.io/v1alpha2", "LLMInferenceServiceConfig", "gw", {
                metadata: { name: "gw", namespace: "models" },
                spec: { router: { gateway: { refs: [{ name: "inference-gateway", namespace: "gateway" }] } } },
            });
            const service = llmService(vllmContainer(), { name: "qwen" });
            const spec = service.inputs.spec as Record<string, Record<string, unknown>>;
            spec.router = { ...spec.router, gateway: {} };
            spec.baseRefs = [{ name: "gw" }] as unknown as Record<string, unknown>;
            expect(await verdict([gateway("gke-l7-gxlb"), config, service])).toEqual(caught("gke-l7-gxlb"));
        });

        test("a custom allowed list is honoured, in the message too", async () => {
            const allowed = ["gke-l7-rilb"];
            const findings = await check(policy, [gateway("gke-l7-regional-external-managed"), llmService()], {
                "require-regional-gateway-class-for-inference": { allowedGatewayClasses: allowed },
            });
            expect(findings.map((finding) => finding.message)).toEqual([
                gatewayClassMessage("gateway/inference-gateway", "gke-l7-regional-external-managed", allowed),
            ]);
        });

        test.each(MULTI_CLUSTER_INFERENCE.gatewayClasses.map((className) => [className]))(
            "the multi-cluster class %s routing to a GCPInferencePoolImport is clean; routing to an InferencePool is caught",
            async (className) => {
                expect(await verdict([gateway(className), route({ ...MULTI_CLUSTER_INFERENCE.importKind, name: "qwen-fleet" })])).toEqual(
                    [],
                );
                expect(await verdict([gateway(className), route(POOLS[0])])).toEqual(caught(className));
            },
        );

        test("not this lesson's: another implementation's class, a Service backend, a Gateway nothing uses", async () => {
            expect(await verdict([gateway("istio"), llmService()])).toEqual([]);
            expect(await verdict([gateway("gke-l7-global-external-managed"), route({ name: "web", port: 80 })])).toEqual([]);
            expect(await verdict([gateway("gke-l7-global-external-managed")])).toEqual([]);
            // An InferencePool backend without its group is a Service reference.
            expect(await verdict([gateway("gke-l7-global-external-managed"), route({ kind: "InferencePool", name: "qwen" })])).toEqual([]);
        });
    });
});
