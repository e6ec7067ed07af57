import { disallowHttpRouteTimeoutsOnGke as policy } from "../../policies/disallowHttpRouteTimeoutsOnGke";
import { routerRouteSpec } from "../../components/serving/routerRoute";
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
        expect((await check(policy, [gateway(), routeConfig(withTimeouts), llmService()])).map((violation) => violation.resource)).toEqual([
            "qwen",
        ]);
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
            (await check(policy, [gateway(), routeConfig(routerRouteSpec(false)), custom, service])).map((violation) => violation.message),
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
