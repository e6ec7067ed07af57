import { requireRegionalGatewayClassForInference as policy } from "../../policies/requireRegionalGatewayClassForInference";
import { gateway, llmService } from "./fixtures";
import { UNKNOWN, check, kube } from "./harness";

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
            await check(policy, [gateway("gke-l7-global-external-managed", "global"), llmService(undefined, { gatewayName: "global" })]),
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
