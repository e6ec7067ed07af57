import { disallowHttpRouteTimeoutsOnGke as policy } from "../../policies/disallowHttpRouteTimeoutsOnGke";
import { routerRouteSpec } from "../../components/routerRoute";
import { gateway, llmService } from "./fixtures";
import { UNKNOWN, check, kube } from "./harness";

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
        expect(await check(policy, [gateway(), routeConfig(routerRouteSpec()), llmService()])).toEqual([]);
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

    test("fails a route template with timeouts, and an HTTPRoute with timeouts on a GKE Gateway", async () => {
        const timeouts = { request: "0s", backendRequest: "0s" };
        expect((await check(policy, [gateway(), routeConfig({ rules: [{ name: "v1-completions-path", timeouts }] })])).map((violation) => violation.message)).toEqual([
            "LLMInferenceServiceConfig models/kserve-config-llm-router-route writes timeouts on route rules v1-completions-path; GKE rejects every HTTPRoute made from it.",
        ]);
        expect((await check(policy, [gateway(), httpRoute({ timeouts })])).map((violation) => violation.message)).toEqual([
            "HTTPRoute route sets timeouts on rules completions but attaches to a GKE Gateway, which rejects it.",
        ]);
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
