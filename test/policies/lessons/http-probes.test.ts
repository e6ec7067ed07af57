/**
 * Lesson http-probes, the whole category: in every kind that carries a pod template and every form that declares it, a
 * vLLM server that serves plain HTTP probed over HTTPS (by its startup, liveness or readiness probe, in any case) is
 * caught; HTTP probes (the scheme named or left to its default), probes of other handlers (exec, tcpSocket, grpc), a
 * scheme KServe fills in at reconcile time and a server that serves TLS itself are left alone.
 */
import { HTTP_PROBE_MESSAGES as say, requireHttpProbesForVllm as policy } from "../../../policies/requireHttpProbesForVllm";
import { vllmContainer } from "../fixtures";
import { check } from "../harness";
import { DECLARING_FORMS, POD_KINDS, podObject } from "./podKinds";

type Obj = Record<string, unknown>;

const PROBES = ["startupProbe", "livenessProbe", "readinessProbe"] as const;
const http = (scheme?: string) => ({
    httpGet: { path: "/health", port: 8000, ...(scheme !== undefined ? { scheme } : {}) },
    periodSeconds: 5,
});
const SAFE_PROBES: Array<[label: string, probe: Obj]> = [
    ["HTTP", http("HTTP")],
    ["no scheme (HTTP)", http()],
    ["exec", { exec: { command: ["curl", "-sf", "https://localhost:8000/health"] } }],
    ["tcpSocket", { tcpSocket: { port: 8000 } }],
    ["grpc", { grpc: { port: 9000 } }],
    ["a KServe template", http("{{ if .Spec.Router }}HTTPS{{ else }}HTTP{{ end }}")],
];

describe("lesson http-probes: every way a probe speaks TLS to vLLM's plain HTTP", () => {
    describe.each(POD_KINDS)("%s %s at %s", (apiVersion, kind, body, podPath) => {
        const verdict = async (container: Obj) =>
            (await check(policy, [podObject(apiVersion, kind, body, { containers: [vllmContainer(container)] })])).map(
                (finding) => finding.message,
            );
        const main = `${podPath}.containers[0] (main)`;

        test.each(PROBES)("caught: %s over HTTPS, in either case; all three at once", async (probe) => {
            for (const scheme of ["HTTPS", "https"]) {
                expect(await verdict({ [probe]: http(scheme) })).toEqual([say.wrongScheme("vllm", main, probe, scheme)]);
            }
        });

        test("caught: every probe over HTTPS, each reported", async () => {
            expect(await verdict(Object.fromEntries(PROBES.map((probe) => [probe, http("HTTPS")])))).toEqual(
                PROBES.map((probe) => say.wrongScheme("vllm", main, probe, "HTTPS")),
            );
        });

        test("clean: HTTP or no scheme, other handlers, KServe's templates, a server serving TLS itself", async () => {
            for (const [, probe] of SAFE_PROBES) {
                expect(await verdict(Object.fromEntries(PROBES.map((name) => [name, probe])))).toEqual([]);
            }
            const tls = { args: ["/mnt/models", "--ssl-certfile=/certs/tls.crt", "--ssl-keyfile=/certs/tls.key"] };
            expect(await verdict({ ...tls, readinessProbe: http("HTTPS") })).toEqual([]);
            // A container that is not a vLLM server is not this lesson's.
            expect(
                (
                    await check(policy, [
                        podObject(apiVersion, kind, body, {
                            containers: [{ name: "proxy", image: "envoyproxy/envoy:v1.33.0", readinessProbe: http("HTTPS") }],
                        }),
                    ])
                ).map((finding) => finding.message),
            ).toEqual([]);
        });
    });

    test.each(DECLARING_FORMS)("declared as %s: caught and clean alike", async (_, declare) => {
        const [apiVersion, kind, body, podPath] = POD_KINDS[3];
        const findings = async (container: Obj) =>
            (await check(policy, declare(podObject(apiVersion, kind, body, { containers: [vllmContainer(container)] })))).map(
                (finding) => finding.message,
            );
        expect(await findings({ livenessProbe: http("HTTPS") })).toEqual([
            say.wrongScheme("vllm", `${podPath}.containers[0] (main)`, "livenessProbe", "HTTPS"),
        ]);
        expect(await findings({ livenessProbe: http() })).toEqual([]);
    });
});
