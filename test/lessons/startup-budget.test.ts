/**
 * Lesson startup-budget, the whole category: in every kind that carries a pod template and every form that declares it,
 * a TPU container whose liveness probe may restart it before the model loads and compiles is caught: no startupProbe
 * and a short liveness window, a short startupProbe of any handler (httpGet, exec, tcpSocket, grpc), Kubernetes'
 * defaults (10 s × 3) where a field is unset, initialDelaySeconds counted in. Every budget long enough, and a container
 * liveness never restarts, is left alone.
 */
import { STARTUP_BUDGET_MESSAGES as say, enforceTpuStartupBudget as policy } from "../../policies/enforceTpuStartupBudget";
import { MINIMUM_TPU_STARTUP_SECONDS as REQUIRED } from "../../policies/facts";
import { RecordedResource } from "../../scripts/offline/recorder";
import { llmService, vllmContainer } from "../support/fixtures";
import { UNKNOWN, check } from "../support/harness";
import { DECLARING_FORMS, POD_KINDS, podObject } from "../support/podKinds";

describe("the rule", () => {
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
                livenessProbe: {
                    httpGet: { path: "/health", port: 8000 },
                    initialDelaySeconds: 30,
                    periodSeconds: 10,
                    failureThreshold: 3,
                },
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
});

describe("every spelling", () => {
    type Obj = Record<string, unknown>;

    const HANDLERS: Array<[label: string, handler: Obj]> = [
        ["httpGet", { httpGet: { path: "/health", port: 8000 } }],
        ["exec", { exec: { command: ["curl", "-sf", "localhost:8000/health"] } }],
        ["tcpSocket", { tcpSocket: { port: 8000 } }],
        ["grpc", { grpc: { port: 9000 } }],
    ];
    const liveness = { livenessProbe: { httpGet: { path: "/health", port: 8000 }, periodSeconds: 10, failureThreshold: 3 } };
    /** A pod whose TPU server has `probes` in place of the fixture's. */
    const pod = (probes: Obj): Obj => ({
        containers: [vllmContainer({ startupProbe: undefined, livenessProbe: undefined, readinessProbe: undefined, ...probes })],
    });

    describe("lesson startup-budget: every way liveness can restart a TPU server before it has started", () => {
        describe.each(POD_KINDS)("%s %s at %s", (apiVersion, kind, body, podPath) => {
            const main = `${podPath}.containers[0] (main)`;
            const short = (budget: number) => say.tooShort("vllm", main, budget, say.needs(REQUIRED), REQUIRED);
            const verdict = async (spec: Obj) =>
                (await check(policy, [podObject(apiVersion, kind, body, spec)])).map((finding) => finding.message);

            test("caught: no startupProbe, a short startupProbe of every handler, defaults, initialDelaySeconds counted", async () => {
                // Without a startupProbe, liveness acts from the start: its own window is the budget.
                expect(await verdict(pod(liveness))).toEqual([short(30)]);
                expect(await verdict(pod({ livenessProbe: { tcpSocket: { port: 8000 } } }))).toEqual([short(30)]);
                expect(
                    await verdict(pod({ livenessProbe: { exec: { command: ["true"] }, initialDelaySeconds: 120, periodSeconds: 20 } })),
                ).toEqual([short(180)]);
                for (const [, handler] of HANDLERS) {
                    expect(
                        await verdict(pod({ ...liveness, startupProbe: { ...handler, periodSeconds: 5, failureThreshold: 60 } })),
                    ).toEqual([short(300)]);
                    expect(await verdict(pod({ ...liveness, startupProbe: handler }))).toEqual([short(30)]);
                    expect(
                        await verdict(pod({ ...liveness, startupProbe: { ...handler, initialDelaySeconds: 60, failureThreshold: 50 } })),
                    ).toEqual([short(560)]);
                }
            });

            test("clean: a startupProbe of every handler long enough, initialDelaySeconds making up the rest, a long liveness window, no liveness", async () => {
                for (const [, handler] of HANDLERS) {
                    expect(
                        await verdict(
                            pod({ ...liveness, startupProbe: { ...handler, periodSeconds: 10, failureThreshold: REQUIRED / 10 } }),
                        ),
                    ).toEqual([]);
                    expect(
                        await verdict(
                            pod({
                                ...liveness,
                                startupProbe: { ...handler, initialDelaySeconds: 100, failureThreshold: (REQUIRED - 100) / 10 },
                            }),
                        ),
                    ).toEqual([]);
                }
                expect(await verdict(pod({ livenessProbe: { tcpSocket: { port: 8000 }, initialDelaySeconds: REQUIRED } }))).toEqual([]);
                // Without liveness nothing restarts the server: a short startupProbe only delays readiness.
                expect(await verdict(pod({ startupProbe: HANDLERS[0][1], readinessProbe: HANDLERS[0][1] }))).toEqual([]);
                // A container off TPU is not this lesson's.
                expect(await verdict({ containers: [{ name: "proxy", image: "envoyproxy/envoy:v1.33.0", ...liveness }] })).toEqual([]);
            });
        });

        test.each(DECLARING_FORMS)("declared as %s: caught and clean alike", async (_, declare) => {
            const [apiVersion, kind, body, podPath] = POD_KINDS[3];
            const findings = async (spec: Obj) =>
                (await check(policy, declare(podObject(apiVersion, kind, body, spec)))).map((finding) => finding.message);
            expect(await findings(pod(liveness))).toEqual([
                say.tooShort("vllm", `${podPath}.containers[0] (main)`, 30, say.needs(REQUIRED), REQUIRED),
            ]);
            expect(
                await findings(pod({ ...liveness, startupProbe: { tcpSocket: { port: 8000 }, failureThreshold: REQUIRED / 10 } })),
            ).toEqual([]);
        });
    });
});
