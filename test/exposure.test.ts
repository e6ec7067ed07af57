/**
 * Only the guarded paths reach a model: every route of vLLM's server, sent at the Gateway's root and under each
 * service's prefixes, with and without the headers that route by model, to every listener, on every shipped stack and
 * behind both gateway providers, reaches vLLM only where its key guards the path or at its health check, and, where
 * the stack runs Model Armor, only screened.
 */
import * as fs from "fs";
import { parse } from "yaml";
import { KSERVE, VLLM_ROUTES } from "@gke-tpu-inference/facts";
import { Exposure, stackExposure, unguardedExposures } from "../scripts/offline/exposure";
import { RecordedResource } from "../scripts/offline/recorder";
import { sharedPath } from "./shared";
import { sharedProgram, shippedRun } from "./shippedStacks";

const SHIPPED = ["dev", "istio", "multihost", "multimodel", "prod"];

/** A probe as one line: what was sent, and what answered. */
function line(exposure: Exposure): string {
    const { probe, reach } = exposure;
    const sent = `${probe.listener} ${probe.method} ${probe.path}${probe.header ? ` [${probe.header}]` : ""}`;
    return reach.kind === "vllm" ? `${sent} → vLLM ${reach.path}` : `${sent} → ${reach.kind}`;
}

/** The resources with the serving namespace's route template replaced by `spec`. */
function withTemplate(resources: RecordedResource[], spec: unknown): RecordedResource[] {
    return resources.map((resource) => {
        const inputs = resource.inputs as { kind?: string; metadata?: { name?: string }; spec?: unknown };
        if (inputs.kind !== "LLMInferenceServiceConfig" || inputs.metadata?.name !== KSERVE.routerRouteConfigName) {
            return resource;
        }
        const replaced = { ...inputs, spec: { router: { route: { http: { spec } } } } };
        return { ...resource, inputs: replaced, wire: { inputs: replaced, outputs: replaced } };
    });
}

describe("exposure: what a client reaches through each stack's Gateway", () => {
    test.each(SHIPPED)("shipped stack %s: nothing but vLLM's key-guarded /v1 and its health check reaches a model", async (stack) => {
        const { exposures } = stackExposure((await shippedRun(stack)).resources);
        expect(unguardedExposures(exposures, false).map(line)).toEqual([]);
        // Not vacuous: every vLLM route was probed, and the inference paths do reach the model, over HTTPS only.
        expect(new Set(exposures.map((exposure) => exposure.probe.aimedAt.path)).size).toBe(VLLM_ROUTES.length);
        const reaching = exposures.filter((exposure) => exposure.reach.kind === "vllm");
        expect(
            reaching.some((exposure) => exposure.probe.path.endsWith("/v1/chat/completions") && exposure.probe.via === "service path"),
        ).toBe(true);
        expect(reaching.filter((exposure) => exposure.probe.listener !== "https").map(line)).toEqual([]);
        // The allowlist stands before every path that reaches a model (it has no range yet: it refuses everyone).
        expect(reaching.every((exposure) => exposure.guards.allowlist)).toBe(true);
    });

    test("two services behind Istio with the body-based router: the same, whatever header a client sends", async () => {
        const { provider, exposures } = stackExposure((await sharedProgram("istioRouted")).resources);
        expect(provider).toBe("istio");
        expect(unguardedExposures(exposures, false).map(line)).toEqual([]);
        const routedByHeader = exposures.filter((exposure) => exposure.probe.via === "root" && exposure.reach.kind === "vllm");
        expect(
            routedByHeader
                .map((exposure) => exposure.probe.header)
                .filter((header, index, all) => all.indexOf(header) === index)
                .sort(),
        ).toEqual(["X-Gateway-Base-Model-Name", "X-Gateway-Model-Name"]);
    });

    test("GKE with the allowlist, IAP and Model Armor: every path that reaches a model but the health check is screened", async () => {
        const { exposures } = stackExposure((await sharedProgram("gkeGuarded")).resources);
        expect(unguardedExposures(exposures, true).map(line)).toEqual([]);
        const reaching = exposures.filter((exposure) => exposure.reach.kind === "vllm");
        expect(reaching.every((exposure) => exposure.guards.allowlist && exposure.guards.identity && exposure.guards.rateLimit)).toBe(true);
        expect(
            reaching.filter((exposure) => !exposure.guards.modelArmor).map((exposure) => (exposure.reach as { path: string }).path),
        ).toEqual(expect.arrayContaining(["/health"]));
    });

    test("the check fails on KServe's own route template: its catch-alls send /invocations, /tokenize and the rest to vLLM without the key", async () => {
        const upstream = parse(fs.readFileSync(sharedPath("reference", "kserve-v0.20.0", "config-llm-router-route.yaml"), "utf8")) as {
            spec: { router: { route: { http: { spec: { rules: Array<Record<string, unknown>> } } } } };
        };
        const { resources } = await shippedRun("dev");
        const { exposures } = stackExposure(withTemplate(resources, upstream.spec.router.route.http.spec));
        const leaks = unguardedExposures(exposures, false).map(line);
        expect(leaks).toEqual(
            expect.arrayContaining([
                "https POST /llm-inference/qwen2-3b/invocations → vLLM /invocations",
                "https POST /invocations [X-Gateway-Model-Name] → vLLM /invocations",
                "https POST /llm-inference/qwen2-3b/tokenize → vLLM /tokenize",
            ]),
        );
    });
});
