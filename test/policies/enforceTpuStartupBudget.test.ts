import { enforceTpuStartupBudget as policy } from "../../policies/enforceTpuStartupBudget";
import { llmService, vllmContainer } from "./fixtures";
import { UNKNOWN, check } from "./harness";

describe("enforce-tpu-startup-budget", () => {
    test("passes a 15-minute startup probe", async () => {
        expect(await check(policy, [llmService()])).toEqual([]);
    });

    test("warns when liveness can act within a minute", async () => {
        const hasty = vllmContainer({
            startupProbe: undefined,
            livenessProbe: { httpGet: { path: "/health", port: 8000 }, initialDelaySeconds: 30, periodSeconds: 10, failureThreshold: 3 },
        });
        expect(await check(policy, [llmService(hasty)])).toEqual([
            {
                level: "advisory",
                resource: "qwen",
                message:
                    "qwen spec.template.containers[0] (main): liveness may restart the TPU container after 60 s, before the 600 s a TPU pod needs to load its model and compile; add a startupProbe that allows 600 s.",
            },
        ]);
    });

    test("a short startup probe counts as the budget; the minimum comes from pack config", async () => {
        const short = vllmContainer({
            startupProbe: { httpGet: { path: "/health", port: 8000 }, periodSeconds: 10, failureThreshold: 30 },
        });
        expect((await check(policy, [llmService(short)]))[0].message).toContain("after 300 s, before the 600 s");
        expect(await check(policy, [llmService(short)], { [policy.name]: { minimumStartupSeconds: 300 } })).toEqual([]);
    });

    test("not applicable: containers without TPU or without liveness", async () => {
        expect(await check(policy, [llmService(vllmContainer({ resources: {}, startupProbe: undefined }))])).toEqual([]);
        expect(await check(policy, [llmService(vllmContainer({ livenessProbe: undefined, startupProbe: undefined }))])).toEqual([]);
    });

    test("preview: an unknown probe is not a violation", async () => {
        expect((await check(policy, [llmService(vllmContainer({ startupProbe: UNKNOWN }))]))[0].level).toBe("advisory");
        expect((await check(policy, [llmService(vllmContainer({ startupProbe: UNKNOWN }))]))[0].message).toContain(
            "can't be known during preview",
        );
    });
});
