import { requireHttpProbesForVllm as policy } from "../../policies/requireHttpProbesForVllm";
import { llmService, vllmContainer } from "./fixtures";
import { UNKNOWN, check } from "./harness";

const httpsReadiness = { httpGet: { path: "/v1/models", port: 8000, scheme: "HTTPS" } };

describe("require-http-probes-for-vllm", () => {
    test("passes HTTP probes", async () => {
        expect(await check(policy, [llmService()])).toEqual([]);
    });

    test("fails an HTTPS probe on an HTTP vLLM", async () => {
        expect(await check(policy, [llmService(vllmContainer({ readinessProbe: httpsReadiness }))])).toEqual([
            {
                level: "mandatory",
                resource: "qwen",
                message: "qwen spec.template.containers[0] (main) readinessProbe uses scheme HTTPS, but vLLM serves plain HTTP.",
            },
        ]);
    });

    test("not applicable: vLLM serving TLS, KServe's templated schemes, and the scheduler", async () => {
        const tls = vllmContainer({
            readinessProbe: httpsReadiness,
            args: ["--ssl-certfile", "/tls/tls.crt", "--ssl-keyfile", "/tls/tls.key"],
        });
        expect(await check(policy, [llmService(tls)])).toEqual([]);
        expect(
            await check(policy, [
                llmService(
                    vllmContainer({
                        readinessProbe: { httpGet: { scheme: "{{ if .GlobalConfig.EnableTLS }}HTTPS{{else}}HTTP{{- end }}" } },
                    }),
                ),
            ]),
        ).toEqual([]);
    });

    test("preview: an unknown probe is not a violation", async () => {
        expect((await check(policy, [llmService(vllmContainer({ readinessProbe: UNKNOWN }))]))[0].level).toBe("advisory");
    });
});
