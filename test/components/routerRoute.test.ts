import * as fs from "fs";
import { parse } from "yaml";
import { routerRouteSpec } from "../../components/routerRoute";
import { sharedPath } from "../shared";

const UPSTREAM = sharedPath("reference", "kserve-v0.20.0", "config-llm-router-route.yaml");

describe("routerRouteSpec", () => {
    const upstream = parse(fs.readFileSync(UPSTREAM, "utf8")) as {
        metadata: { name: string };
        spec: { router: { route: { http: { spec: { parentRefs: unknown[]; rules: Array<Record<string, unknown>> } } } } };
    };
    const upstreamSpec = upstream.spec.router.route.http.spec;

    test("is KServe v0.20.0's well-known route template, rule for rule, minus every rule's timeouts", () => {
        const withoutTimeouts = upstreamSpec.rules.map((rule) => Object.fromEntries(Object.entries(rule).filter(([key]) => key !== "timeouts")));
        expect(routerRouteSpec()).toEqual({ parentRefs: upstreamSpec.parentRefs, rules: withoutTimeouts });
    });

    test("upstream really puts timeouts on every rule, which GKE rejects", () => {
        expect(upstream.metadata.name).toBe("kserve-config-llm-router-route");
        expect(upstreamSpec.rules.every((rule) => "timeouts" in rule)).toBe(true);
        expect(routerRouteSpec().rules.some((rule) => "timeouts" in rule)).toBe(false);
    });
});
