/**
 * Lesson startup-budget, the whole category: in every kind that carries a pod template and every form that declares it,
 * a TPU container whose liveness probe may restart it before the model loads and compiles is caught: no startupProbe
 * and a short liveness window, a short startupProbe of any handler (httpGet, exec, tcpSocket, grpc), Kubernetes'
 * defaults (10 s × 3) where a field is unset, initialDelaySeconds counted in. Every budget long enough, and a container
 * liveness never restarts, is left alone.
 */
import { STARTUP_BUDGET_MESSAGES as say, enforceTpuStartupBudget as policy } from "../../../policies/enforceTpuStartupBudget";
import { MINIMUM_TPU_STARTUP_SECONDS as REQUIRED } from "../../../policies/facts";
import { vllmContainer } from "../fixtures";
import { check } from "../harness";
import { DECLARING_FORMS, POD_KINDS, podObject } from "./podKinds";

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
                expect(await verdict(pod({ ...liveness, startupProbe: { ...handler, periodSeconds: 5, failureThreshold: 60 } }))).toEqual([
                    short(300),
                ]);
                expect(await verdict(pod({ ...liveness, startupProbe: handler }))).toEqual([short(30)]);
                expect(
                    await verdict(pod({ ...liveness, startupProbe: { ...handler, initialDelaySeconds: 60, failureThreshold: 50 } })),
                ).toEqual([short(560)]);
            }
        });

        test("clean: a startupProbe of every handler long enough, initialDelaySeconds making up the rest, a long liveness window, no liveness", async () => {
            for (const [, handler] of HANDLERS) {
                expect(
                    await verdict(pod({ ...liveness, startupProbe: { ...handler, periodSeconds: 10, failureThreshold: REQUIRED / 10 } })),
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
        expect(await findings(pod({ ...liveness, startupProbe: { tcpSocket: { port: 8000 }, failureThreshold: REQUIRED / 10 } }))).toEqual(
            [],
        );
    });
});
