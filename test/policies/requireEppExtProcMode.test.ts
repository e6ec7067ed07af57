import { requireEppExtProcMode as policy } from "../../policies/requireEppExtProcMode";
import {
    EPP_CLUSTER,
    EPP_MODE,
    SEED_002_MODE,
    clusterPatch,
    envoyFilter,
    extProcFilterPatch,
    routeOverridePatch,
    seed002Filter,
} from "./extProcFixtures";
import { llmService } from "./fixtures";
import { check } from "./harness";

const NEEDED =
    "request_header_mode SEND, request_body_mode FULL_DUPLEX_STREAMED, request_trailer_mode SEND, response_header_mode SEND, response_body_mode FULL_DUPLEX_STREAMED, response_trailer_mode SEND";

describe("require-epp-ext-proc-mode", () => {
    test("passes the mode Istio writes for an InferencePool, on a filter or on a filter that skips until a route override turns it on", async () => {
        expect(await check(policy, [envoyFilter("epp", [extProcFilterPatch(EPP_CLUSTER, EPP_MODE)])])).toEqual([]);
        const perRoute = envoyFilter("epp", [
            extProcFilterPatch(EPP_CLUSTER, { request_header_mode: "SKIP", response_header_mode: "SKIP" }),
            routeOverridePatch("models.qwen-kserve-route.0", EPP_MODE),
        ]);
        expect(await check(policy, [perRoute])).toEqual([]);
    });

    test("fails seed 002's filter: everything skipped and no route override, so the EPP is never called", async () => {
        const seed = seed002Filter();
        expect(await check(policy, [seed])).toEqual([
            {
                level: "mandatory",
                resource: "epp-ext-proc-poc",
                message:
                    "EnvoyFilter gateway/epp-ext-proc-poc spec.configPatches[0] skips every request's headers and no route override turns it on, so the EPP is never called and requests reach an endpoint it did not pick.",
            },
        ]);
    });

    test("fails modes that starve or block the EPP: no body (seed 002's advice), a buffered body (the field reports' pattern 3), Envoy's defaults", async () => {
        const noBody = envoyFilter("no-body", [
            extProcFilterPatch(EPP_CLUSTER, { request_header_mode: "SEND", request_body_mode: "NONE" }),
        ]);
        expect(await check(policy, [noBody])).toEqual([
            {
                level: "mandatory",
                resource: "no-body",
                message: `EnvoyFilter gateway/no-body spec.configPatches[0] calls the EPP with request_body_mode NONE, request_trailer_mode SKIP, response_body_mode NONE, response_trailer_mode SKIP; it needs ${NEEDED}: without the body it cannot see the model or the prompt it routes by, and it supports no body mode but FULL_DUPLEX_STREAMED.`,
            },
        ]);
        // shared/reference/llm-d-xks-gke/istio-envoyfilter-route-extproc-body.yaml: overrides of Istio's own filter on KServe's routes.
        const buffered = envoyFilter("pattern3-body", [
            routeOverridePatch("llm-d-inference-scheduling.qwen-kserve-route.0", {
                request_header_mode: "SEND",
                response_header_mode: "SEND",
                request_body_mode: "BUFFERED",
                response_body_mode: "NONE",
            }),
        ]);
        expect(await check(policy, [buffered, llmService()])).toEqual([
            expect.objectContaining({
                resource: "pattern3-body",
                message: expect.stringContaining(
                    "calls the EPP with request_body_mode BUFFERED, request_trailer_mode SKIP, response_body_mode NONE",
                ),
            }),
        ]);
        const defaults = envoyFilter("defaults", [extProcFilterPatch(EPP_CLUSTER)]);
        expect(await check(policy, [defaults])).toHaveLength(1);
    });

    test("an EPP is recognised by its port, KServe's Service name, or an added cluster's endpoints", async () => {
        const byName = envoyFilter("by-name", [
            extProcFilterPatch("outbound|8443||qwen-epp-service.models.svc.cluster.local", SEED_002_MODE),
        ]);
        const byCluster = envoyFilter("by-cluster", [
            extProcFilterPatch("epp", SEED_002_MODE),
            clusterPatch("epp", "scheduler.models.svc"),
        ]);
        expect((await check(policy, [byName, byCluster])).map((finding) => finding.resource)).toEqual(["by-name", "by-cluster"]);
    });

    test("not applicable: ext_proc to other servers, route overrides with no EPP or InferencePool in the stack", async () => {
        const authz = envoyFilter("authz", [
            extProcFilterPatch("outbound|8080||authz.security.svc.cluster.local", { request_body_mode: "BUFFERED" }),
        ]);
        const orphan = envoyFilter("orphan", [routeOverridePatch("r.0", { request_body_mode: "BUFFERED" })]);
        expect(await check(policy, [authz, orphan])).toEqual([]);
    });
});
