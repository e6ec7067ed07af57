/**
 * Lesson ext-proc-modes, the whole category: an EnvoyFilter's ext_proc filter or route override that calls the EPP (by
 * Istio's outbound cluster, a cluster it adds by name, or a google_grpc target), in snake_case or lowerCamelCase, that
 * withholds what the EPP picks by (Envoy's defaults, BUFFERED or STREAMED bodies, skipped trailers) or skips every
 * request with no override turning it on, is caught; the modes the EPP needs, and a skipping filter turned on per route
 * in them, are left alone.
 */
import { extProcModeMessage, requireEppExtProcMode as policy } from "../../../policies/requireEppExtProcMode";
import { INFERENCE_EXT_PROC_MODE, SKIPPED_FILTER_PROBLEM, effectiveMode, wrongModesProblem } from "../../../policies/facts";
import { RecordedResource } from "../../../scripts/offline/recorder";
import {
    EPP_CLUSTER,
    EPP_MODE,
    SEED_002_MODE,
    clusterPatch,
    envoyFilter,
    extProcFilterPatch,
    routeOverridePatch,
} from "../extProcFixtures";
import { llmService } from "../fixtures";
import { check } from "../harness";

type Obj = Record<string, unknown>;
const camel = (mode: Obj) =>
    Object.fromEntries(Object.entries(mode).map(([key, value]) => [key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), value]));

/** The problem of a call in `mode`. */
const wrong = (mode: Obj | undefined) => {
    const effective = effectiveMode(mode);
    return wrongModesProblem(
        Object.entries(INFERENCE_EXT_PROC_MODE)
            .filter(([name, value]) => effective[name as keyof typeof effective] !== value)
            .map(([name]) => [name, effective[name as keyof typeof effective]]),
    );
};

/** How a filter names the EPP: patches making the call in `mode`. */
const CALLS: Array<[string, (mode: Obj | undefined, spelling: "snake" | "camel") => Obj[]]> = [
    ["Istio's outbound cluster of the EPP Service", (mode, spelling) => [extProcFilterPatch(EPP_CLUSTER, mode, spelling)]],
    [
        "a cluster it adds by the Service's name",
        (mode, spelling) => [extProcFilterPatch("epp", mode, spelling), clusterPatch("epp", "qwen-epp-service.models.svc.cluster.local")],
    ],
    [
        "a google_grpc target",
        (mode, spelling) => {
            const patch = extProcFilterPatch(EPP_CLUSTER, mode, spelling) as { patch: { value: Obj } };
            const config = patch.patch.value.typed_config as Obj;
            delete config.grpc_service;
            delete config.grpcService;
            config[spelling === "snake" ? "grpc_service" : "grpcService"] = { google_grpc: { target_uri: "qwen-epp-service.models:9002" } };
            return [patch];
        },
    ],
];

const BROKEN: Array<Obj | undefined> = [
    undefined,
    {},
    { ...EPP_MODE, request_body_mode: "BUFFERED" },
    { ...EPP_MODE, request_body_mode: "STREAMED", response_body_mode: "STREAMED" },
    { ...EPP_MODE, request_trailer_mode: "DEFAULT", response_trailer_mode: "SKIP" },
    { request_header_mode: "SEND", request_body_mode: "FULL_DUPLEX_STREAMED" },
];

const at = (index: number) => `EnvoyFilter gateway/epp spec.configPatches[${index}]`;
const verdict = async (resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);

describe("lesson ext-proc-modes: every ext_proc call to the EPP that withholds what it picks by", () => {
    describe.each(CALLS)("calling %s", (_, call) => {
        test.each(["snake", "camel"] as const)("%s_case: wrong modes caught, the EPP's clean", async (spelling) => {
            const written = (mode: Obj | undefined) => (mode && spelling === "camel" ? camel(mode) : mode);
            for (const mode of BROKEN) {
                expect(await verdict([envoyFilter("epp", call(written(mode), spelling))])).toEqual([
                    extProcModeMessage(at(0), wrong(mode)),
                ]);
            }
            expect(await verdict([envoyFilter("epp", call(written(EPP_MODE), spelling))])).toEqual([]);
        });

        test("a filter skipping every request: caught alone, clean when a route override turns it on in the EPP's modes", async () => {
            expect(await verdict([envoyFilter("epp", call(SEED_002_MODE, "snake"))])).toEqual([
                extProcModeMessage(at(0), SKIPPED_FILTER_PROBLEM),
            ]);
            const patches = call(SEED_002_MODE, "snake");
            expect(await verdict([envoyFilter("epp", [...patches, routeOverridePatch("completions", EPP_MODE)])])).toEqual([]);
            const override = { ...EPP_MODE, request_body_mode: "BUFFERED" };
            expect(await verdict([envoyFilter("epp", [...patches, routeOverridePatch("completions", override)])])).toEqual([
                extProcModeMessage(at(patches.length), wrong(override)),
            ]);
        });
    });

    test("a route override alone on Istio's own InferencePool filter is judged; without an InferencePool it is not", async () => {
        const override = { ...EPP_MODE, response_body_mode: "NONE" };
        expect(await verdict([llmService(), envoyFilter("epp", [routeOverridePatch("completions", override)])])).toEqual([
            extProcModeMessage(at(0), wrong(override)),
        ]);
        expect(await verdict([envoyFilter("epp", [routeOverridePatch("completions", override)])])).toEqual([]);
    });

    test("not this lesson's: an ext_proc filter calling another server", async () => {
        expect(await verdict([envoyFilter("epp", [extProcFilterPatch("outbound|9000||authz.security.svc.cluster.local")])])).toEqual([]);
    });
});
