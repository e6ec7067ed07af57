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

const SHIPPED = ["dev", "fleet", "istio", "multihost", "multimodel", "prod"];

/** A probe as one line: what was sent, and what answered. */
function line(exposure: Exposure): string {
    const { probe, reach } = exposure;
    const sent = `${probe.listener} ${probe.method} ${probe.path}${probe.header ? ` [${probe.header}]` : ""}`;
    return reach.kind === "vllm" ? `${sent} → vLLM ${reach.path}` : `${sent} → ${reach.kind}`;
}

/** The resources with `change` applied to the inputs of those it returns new inputs for. */
function changed(
    resources: RecordedResource[],
    change: (resource: RecordedResource) => Record<string, unknown> | undefined,
): RecordedResource[] {
    return resources.map((resource) => {
        const inputs = change(resource);
        return inputs === undefined ? resource : { ...resource, inputs, wire: { inputs, outputs: inputs } };
    });
}

/** The resources with the serving namespace's route template replaced by `spec`. */
function withTemplate(resources: RecordedResource[], spec: unknown): RecordedResource[] {
    return changed(resources, ({ inputs }) =>
        inputs.kind === "LLMInferenceServiceConfig" && (inputs.metadata as { name?: string })?.name === KSERVE.routerRouteConfigName
            ? { ...inputs, spec: { router: { route: { http: { spec } } } } }
            : undefined,
    );
}

/** What answers the fleet's probes of the chat completions under the service's own prefix, on both listeners. */
function chatCompletions(exposures: readonly Exposure[]): string[] {
    return exposures
        .filter((exposure) => exposure.probe.path === "/llm-inference/qwen2-3b/v1/chat/completions")
        .map((exposure) => JSON.stringify(exposure.reach));
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
        // The allowlist stands before every path that reaches a model (it has no range yet: it refuses everyone); a fleet
        // has none: its load balancer is internal, and the settings refuse allowedSourceRanges (docs/explanation/fleet.md).
        expect([...new Set(reaching.map((exposure) => exposure.guards.allowlist))]).toEqual([stack !== "fleet"]);
    });

    describe("the fleet: the config cluster's routes send to an import, which stands for the pool every member exports", () => {
        test("the multi-cluster Gateway's routes reach the members' vLLM through the import, with the key and no other guard", async () => {
            const { gateway, provider, multiCluster, exposures } = stackExposure((await shippedRun("fleet")).resources);
            expect({ gateway, provider, multiCluster }).toEqual({
                gateway: "inference-gateway/inference-gateway",
                provider: "gke",
                multiCluster: true,
            });
            // One service probed, though each member runs it: 62 routes × 3 prefixes × 3 headers × 2 listeners.
            expect(exposures.length).toBe(VLLM_ROUTES.length * 18);
            const chat = {
                kind: "vllm",
                service: "llm-inference/qwen2-3b",
                path: "/v1/chat/completions",
                route: VLLM_ROUTES.find((route) => route.path === "/v1/chat/completions"),
            };
            // Under the service's prefix, whatever header it carries: the https listener's route; plain HTTP redirects.
            expect(chatCompletions(exposures)).toEqual([
                ...Array(3).fill(JSON.stringify(chat)),
                ...Array(3).fill(JSON.stringify({ kind: "redirect" })),
            ]);
            const reaching = exposures.filter((exposure) => exposure.reach.kind === "vllm");
            expect([...new Set(reaching.map((exposure) => JSON.stringify(exposure.guards)))]).toEqual(
                [false, true].map((key) => JSON.stringify({ allowlist: false, rateLimit: false, identity: false, key, modelArmor: false })),
            );
        });

        test("without the export annotation on the members' pools the import stands for nothing: no probe reaches vLLM", async () => {
            const unexported = changed((await shippedRun("fleet")).resources, ({ inputs }) => {
                const metadata = inputs.metadata as { annotations?: Record<string, string> };
                return inputs.kind === "InferencePool" && metadata.annotations !== undefined
                    ? { ...inputs, metadata: { ...metadata, annotations: {} } }
                    : undefined;
            });
            const { exposures } = stackExposure(unexported);
            expect(exposures.filter((exposure) => exposure.reach.kind === "vllm")).toEqual([]);
            expect(new Set(chatCompletions(exposures))).toEqual(
                new Set([
                    JSON.stringify({ kind: "other backend", backend: "GCPInferencePoolImport llm-inference/qwen2-3b-fleet" }),
                    JSON.stringify({ kind: "redirect" }),
                ]),
            );
        });

        test("a member whose vLLM does not require the key leaves every path of the import unguarded", async () => {
            const keyless = changed((await shippedRun("fleet")).resources, (resource) => {
                if (resource.name !== "qwen2-3b-us-south1-llmisvc") {
                    return undefined;
                }
                const spec = resource.inputs.spec as { template: { containers: Array<{ env: Array<{ name: string }> }> } };
                const containers = spec.template.containers.map((container) => ({
                    ...container,
                    env: container.env.filter((variable) => variable.name !== "VLLM_API_KEY"),
                }));
                return { ...resource.inputs, spec: { ...spec, template: { ...spec.template, containers } } };
            });
            expect(unguardedExposures(stackExposure(keyless).exposures, false).map(line)).toEqual(
                expect.arrayContaining(["https POST /llm-inference/qwen2-3b/v1/chat/completions → vLLM /v1/chat/completions"]),
            );
        });
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
