import * as fs from "fs";
import { parse } from "yaml";
import { HTTP_SERVICE_SUFFIX, routerRouteSpec } from "../../components/routerRoute";
import { sharedPath } from "../shared";

const UPSTREAM = sharedPath("reference", "kserve-v0.20.0", "config-llm-router-route.yaml");

describe("routerRouteSpec", () => {
    const upstream = parse(fs.readFileSync(UPSTREAM, "utf8")) as {
        metadata: { name: string };
        spec: { router: { route: { http: { spec: { parentRefs: unknown[]; rules: Array<Record<string, unknown>> } } } } };
    };
    const upstreamSpec = upstream.spec.router.route.http.spec;

    test("is KServe v0.20.0's well-known route template, rule for rule, minus timeouts, with catch-alls to the owned HTTP Service", () => {
        const workloadService = "{{ ChildName .ObjectMeta.Name `-kserve-workload-svc` }}";
        const expected = upstreamSpec.rules.map((rule) => {
            const rest = Object.fromEntries(Object.entries(rule).filter(([key]) => key !== "timeouts")) as {
                name: string;
                backendRefs: Array<{ kind?: string; name: string }>;
            };
            return {
                ...rest,
                backendRefs: rest.backendRefs.map((ref) =>
                    ref.name === workloadService ? { ...ref, name: "{{ ChildName .ObjectMeta.Name `-http` }}" } : ref,
                ),
            };
        });
        expect(routerRouteSpec(false)).toEqual({ parentRefs: upstreamSpec.parentRefs, rules: expected });
        expect(expected.filter((rule) => rule.backendRefs[0].kind === "Service").map((rule) => rule.name)).toEqual([
            "v1-publisher-path-catch-all",
            "v1-catch-all-path",
            "v1-catch-all-model-routing",
        ]);
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
        const plain = routerRouteSpec(false).rules;
        const routed = routerRouteSpec(true).rules;
        expect(routed.map((rule) => rule.name)).toEqual(plain.map((rule) => rule.name));
        const modelRouting = routed.find((rule) => rule.name === "v1-model-routing")!;
        const paths = ["/v1/completions", "/v1/chat/completions", "/v1/responses", "/v1/messages"].flatMap((path) => [path, `${path}/`]);
        expect(modelRouting.matches).toEqual([
            ...paths.map((value) => ({ path: { type: "Exact", value }, headers: [kserveHeader] })),
            ...paths.map((value) => ({ path: { type: "Exact", value }, headers: [baseModel] })),
        ]);
        expect(routed.find((rule) => rule.name === "v1-catch-all-model-routing")!.matches).toEqual([
            { headers: [kserveHeader] },
            { headers: [baseModel] },
        ]);
        // Every other rule is the same with and without the router.
        const others = (rules: typeof routed) => rules.filter((rule) => !rule.name.endsWith("model-routing"));
        expect(others(routed)).toEqual(others(plain));
    });
});
