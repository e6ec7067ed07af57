import { requireLongInferenceBackendTimeout as policy } from "../../policies/requireLongInferenceBackendTimeout";
import { gateway, llmService, poolPolicy } from "./fixtures";
import { UNKNOWN, check } from "./harness";

describe("require-long-inference-backend-timeout", () => {
    test("passes a 600 s backend timeout", async () => {
        expect(await check(policy, [gateway(), llmService(), poolPolicy("GCPBackendPolicy", { default: { timeoutSec: 600 } })])).toEqual(
            [],
        );
    });

    test("warns about a missing policy and a short timeout", async () => {
        expect(await check(policy, [gateway(), llmService()])).toEqual([
            {
                level: "advisory",
                resource: "qwen",
                message:
                    "InferencePool models/qwen-inference-pool has no GCPBackendPolicy, so GCP cuts requests off after 30 s; set timeoutSec to at least 300.",
            },
        ]);
        expect(
            (await check(policy, [gateway(), llmService(), poolPolicy("GCPBackendPolicy", { default: { timeoutSec: 60 } })])).map(
                (violation) => violation.message,
            ),
        ).toEqual([
            "GCPBackendPolicy qwen-inference-pool gives InferencePool models/qwen-inference-pool a timeout of 60 s; inference needs at least 300.",
        ]);
    });

    test("the minimum comes from pack config, and the level can be raised", async () => {
        const config = { [policy.name]: { minimumTimeoutSec: 900, enforcementLevel: "mandatory" as const } };
        expect(
            await check(policy, [gateway(), llmService(), poolPolicy("GCPBackendPolicy", { default: { timeoutSec: 600 } })], config),
        ).toEqual([
            {
                level: "mandatory",
                resource: "qwen-GCPBackendPolicy",
                message:
                    "GCPBackendPolicy qwen-inference-pool gives InferencePool models/qwen-inference-pool a timeout of 600 s; inference needs at least 900.",
            },
        ]);
    });

    test("not applicable: no InferencePool behind a GKE Gateway", async () => {
        expect(await check(policy, [gateway("istio"), llmService()])).toEqual([]);
    });

    test("preview: an unknown timeout is not a violation", async () => {
        expect(
            (await check(policy, [gateway(), llmService(), poolPolicy("GCPBackendPolicy", { default: { timeoutSec: UNKNOWN } })]))[0]
                .message,
        ).toContain("can't be known during preview");
    });
});
