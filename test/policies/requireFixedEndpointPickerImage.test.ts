import { requireFixedEndpointPickerImage as policy } from "../../policies/requireFixedEndpointPickerImage";
import { llmService } from "./fixtures";
import { UNKNOWN, check } from "./harness";

function withScheduler(image: unknown) {
    const service = llmService();
    (service.inputs.spec as { router: { scheduler: unknown } }).router.scheduler = { template: { containers: [{ name: "main", image }] } };
    return service;
}

describe("require-fixed-endpoint-picker-image", () => {
    test("passes the pinned EPP and KServe's default", async () => {
        expect(await check(policy, [withScheduler("ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.10.0")])).toEqual([]);
        expect(await check(policy, [withScheduler("ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.9.0")])).toEqual([]);
        expect(await check(policy, [withScheduler("ghcr.io/llm-d/llm-d-inference-scheduler:v0.7.1")])).toEqual([]);
    });

    test("fails releases without the ALPN fix and unversioned builds", async () => {
        expect(await check(policy, [withScheduler("ghcr.io/llm-d/llm-d-inference-scheduler:v0.4.0")])).toEqual([
            {
                level: "mandatory",
                resource: "qwen",
                message:
                    "qwen spec.router.scheduler.template.containers[0] (main) runs ghcr.io/llm-d/llm-d-inference-scheduler:v0.4.0; llm-d-inference-scheduler before v0.7.0 serves TLS gRPC without ALPN h2, so the Gateway's ext_proc cannot reach it.",
            },
        ]);
        expect(await check(policy, [withScheduler("quay.io/acme/llm-d-inference-scheduler:e6b5db0")])).toHaveLength(1);
    });

    test("the minimum versions come from pack config", async () => {
        const config = { [policy.name]: { minimumVersions: { "llm-d-router-endpoint-picker": "0.10.0" } } };
        expect(await check(policy, [withScheduler("ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.9.0")], config)).toHaveLength(1);
    });

    test("not applicable: other images", async () => {
        expect(await check(policy, [withScheduler("docker.io/library/nginx:1.27")])).toEqual([]);
    });

    test("preview: an unknown image is not a violation", async () => {
        expect((await check(policy, [withScheduler(UNKNOWN)]))[0].level).toBe("advisory");
    });
});
