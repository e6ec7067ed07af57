import * as fs from "fs";
import { parse } from "yaml";
import { HTTP_SERVICE_SUFFIX, routerRouteSpec, servicePathRouteNames, templateRules } from "../../../components/serving/routerRoute";
import { sharedPath } from "../../shared";

const UPSTREAM = sharedPath("reference", "kserve-v0.20.0", "config-llm-router-route.yaml");

describe("routerRouteSpec", () => {
    const upstream = parse(fs.readFileSync(UPSTREAM, "utf8")) as {
        metadata: { name: string };
        spec: { router: { route: { http: { spec: { parentRefs: unknown[]; rules: Array<Record<string, unknown>> } } } } };
    };
    const upstreamSpec = upstream.spec.router.route.http.spec;

    test("is KServe v0.20.0's well-known route template, rule for rule, minus timeouts and names, with catch-alls to the owned HTTP Service", () => {
        const workloadService = "{{ ChildName .ObjectMeta.Name `-kserve-workload-svc` }}";
        const expected = upstreamSpec.rules.map((rule) => {
            const rest = Object.fromEntries(Object.entries(rule).filter(([key]) => key !== "timeouts" && key !== "name")) as {
                backendRefs: Array<{ kind?: string; name: string }>;
            };
            return {
                ...rest,
                backendRefs: rest.backendRefs.map((ref) =>
                    ref.name === workloadService ? { ...ref, name: "{{ ChildName .ObjectMeta.Name `-http` }}" } : ref,
                ),
            };
        });
        // Upstream's parent, on the HTTPS listener only: the plain-HTTP one only redirects.
        expect(routerRouteSpec(false)).toEqual({
            parentRefs: (upstreamSpec.parentRefs as object[]).map((parent) => ({ ...parent, sectionName: "https" })),
            rules: expected,
        });
        // The rules keep upstream's order, so each rule's upstream name still says what it is.
        expect(templateRules(false).map((rule) => rule.upstreamName)).toEqual(upstreamSpec.rules.map((rule) => rule.name));
        expect(
            templateRules(false)
                .filter(({ rule }) => rule.backendRefs[0].kind === "Service")
                .map((rule) => rule.upstreamName),
        ).toEqual(["v1-publisher-path-catch-all", "v1-catch-all-path", "v1-catch-all-model-routing"]);
        expect(HTTP_SERVICE_SUFFIX).toBe("-http");
    });

    test("upstream really puts timeouts on every rule, which GKE rejects", () => {
        expect(upstream.metadata.name).toBe("kserve-config-llm-router-route");
        expect(upstreamSpec.rules.every((rule) => "timeouts" in rule)).toBe(true);
        expect(routerRouteSpec(false).rules.some((rule) => "timeouts" in rule)).toBe(false);
    });

    test("with the body-based router, the model-routing rules also match its base-model header on the service's model", () => {
        const baseModel = { type: "Exact", name: "X-Gateway-Base-Model-Name", value: "{{ .Spec.Model.Name }}" };
        const kserveHeader = {
            type: "Exact",
            name: "{{ .GlobalConfig.ModelBasedRoutingHeaderName }}",
            value: "publishers/{{ .ObjectMeta.Namespace }}/models/{{ .Spec.Model.Name }}",
        };
        const plain = templateRules(false);
        const routed = templateRules(true);
        expect(routed.map((rule) => rule.upstreamName)).toEqual(plain.map((rule) => rule.upstreamName));
        const modelRouting = routed.find((rule) => rule.upstreamName === "v1-model-routing")!.rule;
        const paths = ["/v1/completions", "/v1/chat/completions", "/v1/responses", "/v1/messages"].flatMap((path) => [path, `${path}/`]);
        expect(modelRouting.matches).toEqual([
            ...paths.map((value) => ({ path: { type: "Exact", value }, headers: [kserveHeader] })),
            ...paths.map((value) => ({ path: { type: "Exact", value }, headers: [baseModel] })),
        ]);
        expect(routed.find((rule) => rule.upstreamName === "v1-catch-all-model-routing")!.rule.matches).toEqual([
            { headers: [kserveHeader] },
            { headers: [baseModel] },
        ]);
        // Every other rule is the same with and without the router.
        const others = (rules: typeof routed) => rules.filter((rule) => !rule.upstreamName.endsWith("model-routing"));
        expect(others(routed)).toEqual(others(plain));
    });

    test("no rule is named: istiod would key every service's EPP by the shared names; its own names are per namespace, route and index", () => {
        expect(routerRouteSpec(true).rules.every((rule) => !("name" in rule))).toBe(true);
        expect(servicePathRouteNames("llm", "qwen")).toEqual([
            "llm.qwen-kserve-route.0",
            "llm.qwen-kserve-route.1",
            "llm.qwen-kserve-route.2",
            "llm.qwen-kserve-route.3",
            "llm.qwen-kserve-route.5",
            "llm.qwen-kserve-route.6",
            "llm.qwen-kserve-route.7",
            "llm.qwen-kserve-route.8",
            "llm.qwen-kserve-route.9",
            "llm.qwen-kserve-route.10",
        ]);
    });
});
