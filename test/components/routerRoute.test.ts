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
        expect(routerRouteSpec()).toEqual({ parentRefs: upstreamSpec.parentRefs, rules: expected });
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
        expect(routerRouteSpec().rules.some((rule) => "timeouts" in rule)).toBe(false);
    });
});
