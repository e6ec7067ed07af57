import { requireLwsAndKServeBeforeModelServices as policy } from "../../policies/requireLwsAndKServeBeforeModelServices";
import { llmService, vllmContainer } from "./fixtures";
import { check, resource } from "./harness";

const lws = resource("kubernetes:helm.sh/v4:Chart", "lws", { chart: "oci://registry.k8s.io/lws/charts/lws", version: "0.10.0" });
const kserve = resource("kubernetes:helm.sh/v4:Chart", "kserve", {
    chart: "oci://ghcr.io/kserve/charts/kserve-llmisvc-resources",
    version: "v0.20.0",
});
const configs = resource(
    "kubernetes:helm.sh/v4:Chart",
    "configs",
    { chart: "oci://ghcr.io/kserve/charts/kserve-runtime-configs", version: "v0.20.0" },
    { dependencies: [kserve] },
);

describe("require-lws-and-kserve-before-model-services", () => {
    test("passes a service that waits for both, directly or through KServe's configs", async () => {
        expect(await check(policy, [lws, kserve, configs, llmService(vllmContainer(), { dependencies: [lws, configs] })])).toEqual([]);
    });

    test("fails a service that waits for neither", async () => {
        expect(await check(policy, [lws, kserve, llmService()])).toEqual([
            {
                level: "mandatory",
                resource: "qwen",
                message:
                    "LLMInferenceService qwen does not depend on the LeaderWorkerSet and KServe installations of this stack, so it can be created before their CRDs and controllers exist.",
            },
        ]);
    });

    test("fails a service that waits for KServe only", async () => {
        expect(
            (await check(policy, [lws, kserve, llmService(vllmContainer(), { dependencies: [kserve] })])).map(
                (violation) => violation.message,
            ),
        ).toEqual([
            "LLMInferenceService qwen does not depend on the LeaderWorkerSet installation of this stack, so it can be created before their CRDs and controllers exist.",
        ]);
    });

    test("not applicable: KServe and LWS installed outside the stack", async () => {
        expect(await check(policy, [llmService()])).toEqual([]);
    });
});
