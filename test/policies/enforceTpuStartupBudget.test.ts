import { enforceTpuStartupBudget as policy } from "../../policies/enforceTpuStartupBudget";
import { RecordedResource } from "../../scripts/offline/recorder";
import { llmService, vllmContainer } from "./fixtures";
import { UNKNOWN, check } from "./harness";

/** `service` carrying the stack's cold-start estimate annotation. */
function estimated(service: RecordedResource, value: unknown): RecordedResource {
    const metadata = service.inputs.metadata as { annotations?: Record<string, unknown> };
    metadata.annotations = { ...metadata.annotations, "gke-tpu-inference/cold-start-seconds": value };
    return service;
}

/** A startup probe polling every 5 s for `seconds`. */
const startupFor = (seconds: number) =>
    vllmContainer({ startupProbe: { httpGet: { path: "/health", port: 8000 }, periodSeconds: 5, failureThreshold: seconds / 5 } });

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

    test("a resource with its estimated first start needs twice the estimate, in whole minutes: the stack's own budgets pass", async () => {
        // The dev stack's model: 110 s estimated, 600 s budget; the 70B-class example: 356 s estimated, 720 s budget.
        expect(await check(policy, [estimated(llmService(startupFor(600)), "110")])).toEqual([]);
        expect(await check(policy, [estimated(llmService(startupFor(720)), "356")])).toEqual([]);
        expect(await check(policy, [estimated(llmService(startupFor(600)), "356")])).toEqual([
            {
                level: "advisory",
                resource: "qwen",
                message:
                    "qwen spec.template.containers[0] (main): liveness may restart the TPU container after 600 s, before the 720 s its estimated first start of 356 s calls for (gke-tpu-inference/cold-start-seconds, twice the estimate); add a startupProbe that allows 720 s.",
            },
        ]);
    });

    test("a resource with its pessimistic start needs at least that: the multi-host leader that once gave 720 s against a longer wait for its group", async () => {
        const pessimistic = (service: RecordedResource, value: string) => {
            const metadata = service.inputs.metadata as { annotations?: Record<string, unknown> };
            metadata.annotations = { ...metadata.annotations, "gke-tpu-inference/cold-start-pessimistic-seconds": value };
            return service;
        };
        // Llama-3.1-70B on a 4x4 slice: 366 s estimated, 2106 s pessimistic (the leader's Ray wait included), 2160 s budget.
        expect(await check(policy, [pessimistic(estimated(llmService(startupFor(2160)), "366"), "2106")])).toEqual([]);
        expect(await check(policy, [pessimistic(estimated(llmService(startupFor(720)), "366"), "2106")])).toEqual([
            {
                level: "advisory",
                resource: "qwen",
                message:
                    "qwen spec.template.containers[0] (main): liveness may restart the TPU container after 720 s, before the 2160 s its pessimistic start of 2106 s calls for (gke-tpu-inference/cold-start-pessimistic-seconds); add a startupProbe that allows 2160 s.",
            },
        ]);
        // A pessimistic start below twice the estimate leaves the estimate's rule in charge.
        expect((await check(policy, [pessimistic(estimated(llmService(startupFor(600)), "356"), "500")]))[0].message).toContain(
            "before the 720 s its estimated first start of 356 s calls for",
        );
    });

    test("the configured minimum still holds under a small estimate", async () => {
        const config = { [policy.name]: { minimumStartupSeconds: 900 } };
        expect((await check(policy, [estimated(llmService(startupFor(600)), "110")], config))[0].message).toContain(
            "after 600 s, before the 900 s its estimated first start of 110 s calls for",
        );
    });

    test("an estimate that is not a number of seconds is reported once", async () => {
        for (const value of ["soon", "0", "-5"]) {
            expect(await check(policy, [estimated(llmService(), value)])).toEqual([
                {
                    level: "advisory",
                    resource: "qwen",
                    message: `qwen: gke-tpu-inference/cold-start-seconds is ${JSON.stringify(value)}, not a number of seconds above 0.`,
                },
            ]);
        }
    });

    test("not applicable: containers without TPU or without liveness", async () => {
        expect(await check(policy, [estimated(llmService(vllmContainer({ resources: {} })), "soon")])).toEqual([]);
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
