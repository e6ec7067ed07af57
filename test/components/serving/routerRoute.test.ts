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

    test("keeps KServe v0.20.0's inference rules, minus timeouts and names; its catch-alls become vLLM's routed prefixes and health check to the owned HTTP Service", () => {
        const strip = (rule: Record<string, unknown>) =>
            Object.fromEntries(Object.entries(rule).filter(([key]) => key !== "timeouts" && key !== "name"));
        const upstreamCatchAlls = ["v1-publisher-path-catch-all", "v1-catch-all-path", "v1-catch-all-model-routing"];
        const kept = upstreamSpec.rules.filter((rule) => !upstreamCatchAlls.includes(rule.name as string));
        const ours = templateRules(false);
        expect(ours.filter((rule) => kept.some((upstreamRule) => upstreamRule.name === rule.upstreamName)).map(({ rule }) => rule)).toEqual(
            kept.map(strip),
        );
        const httpService = { kind: "Service", name: "{{ ChildName .ObjectMeta.Name `-http` }}", port: 8000, weight: 1 };
        const rewrite = (prefix: string, target: string) => ({
            backendRefs: [httpService],
            matches: [{ path: { type: "PathPrefix", value: `${prefix}${target}` } }],
            filters: [{ type: "URLRewrite", urlRewrite: { path: { type: "ReplacePrefixMatch", replacePrefixMatch: target } } }],
        });
        const publisher = "/publishers/{{ .ObjectMeta.Namespace }}/models/{{ .Spec.Model.Name }}";
        const service = "/{{ .ObjectMeta.Namespace }}/{{ .ObjectMeta.Name }}";
        const kserveHeader = {
            type: "Exact",
            name: "{{ .GlobalConfig.ModelBasedRoutingHeaderName }}",
            value: "publishers/{{ .ObjectMeta.Namespace }}/models/{{ .Spec.Model.Name }}",
        };
        expect(ours.filter((rule) => rule.rule.backendRefs[0].kind === "Service")).toEqual([
            { upstreamName: "v1-publisher-path", byServicePath: true, rule: rewrite(publisher, "/v1") },
            { upstreamName: "health-publisher-path", byServicePath: true, rule: rewrite(publisher, "/health") },
            { upstreamName: "v1-path", byServicePath: true, rule: rewrite(service, "/v1") },
            { upstreamName: "health-path", byServicePath: true, rule: rewrite(service, "/health") },
            {
                upstreamName: "server-model-routing",
                byServicePath: false,
                rule: {
                    backendRefs: [httpService],
                    matches: ["/v1", "/health"].map((value) => ({ path: { type: "PathPrefix", value }, headers: [kserveHeader] })),
                },
            },
        ]);
        // Upstream's parent, on the HTTPS listener only: the plain-HTTP one only redirects.
        expect(routerRouteSpec(false).parentRefs).toEqual(
            (upstreamSpec.parentRefs as object[]).map((parent) => ({ ...parent, sectionName: "https" })),
        );
        expect(HTTP_SERVICE_SUFFIX).toBe("-http");
    });

    test.each([false, true])(
        "holds to Gateway API's limits with bodyBasedRouting %s: 16 rules, under 128 matches, one PathPrefix match per rewrite",
        (routed) => {
            const { rules } = routerRouteSpec(routed);
            expect(rules.length).toBeLessThanOrEqual(16);
            expect(rules.reduce((total, rule) => total + rule.matches.length, 0)).toBeLessThan(128);
            for (const rule of rules.filter((candidate) => "filters" in candidate)) {
                expect(rule.matches).toEqual([{ path: { type: "PathPrefix", value: expect.any(String) } }]);
            }
        },
    );

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
        expect(routed.find((rule) => rule.upstreamName === "server-model-routing")!.rule.matches).toEqual(
            [kserveHeader, baseModel].flatMap((header) =>
                ["/v1", "/health"].map((value) => ({ path: { type: "PathPrefix", value }, headers: [header] })),
            ),
        );
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
            "llm.qwen-kserve-route.11",
            "llm.qwen-kserve-route.12",
        ]);
    });
});
