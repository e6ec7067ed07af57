import { disallowHttpsAppProtocolToVllm as policy } from "../../policies/disallowHttpsAppProtocolToVllm";
import { UNKNOWN, check, kube } from "./harness";

function service(port: Record<string, unknown>, partOf = "llminferenceservice") {
    return kube("v1", "Service", "svc", {
        metadata: { name: "qwen-kserve-workload-svc", namespace: "models" },
        spec: { selector: { "app.kubernetes.io/part-of": partOf }, ports: [{ port: 8000, targetPort: 8000, ...port }] },
    });
}

describe("disallow-https-app-protocol-to-vllm", () => {
    test("passes an HTTP Service in front of vLLM", async () => {
        expect(await check(policy, [service({ name: "http", appProtocol: "http" })])).toEqual([]);
    });

    test("fails appProtocol https, and a port named https without appProtocol", async () => {
        expect(await check(policy, [service({ name: "https", appProtocol: "https" })])).toEqual([
            {
                level: "mandatory",
                resource: "svc",
                message:
                    "Service qwen-kserve-workload-svc port 8000 declares appProtocol https in front of vLLM, which serves plain HTTP; GKE's Gateway would speak TLS to it.",
            },
        ]);
        expect((await check(policy, [service({ name: "https" })])).map((violation) => violation.message)).toEqual([
            'Service qwen-kserve-workload-svc port 8000 declares name "https" in front of vLLM, which serves plain HTTP; GKE\'s Gateway would speak TLS to it.',
        ]);
    });

    test("not applicable: Services of other workloads", async () => {
        expect(await check(policy, [service({ appProtocol: "https" }, "webapp")])).toEqual([]);
    });

    test("any Service whose pods run vLLM over HTTP counts, whatever the case of appProtocol; one whose vLLM serves TLS does not", async () => {
        const deployment = (args: string[]) =>
            kube("apps/v1", "Deployment", "vllm", {
                metadata: { name: "vllm", namespace: "models" },
                spec: {
                    template: {
                        metadata: { labels: { app: "vllm" } },
                        spec: { containers: [{ name: "server", image: "vllm/vllm-tpu:v0.27.0", command: ["vllm", "serve"], args }] },
                    },
                },
            });
        const plain = kube("v1", "Service", "plain", {
            metadata: { name: "vllm", namespace: "models" },
            spec: { selector: { app: "vllm" }, ports: [{ port: 8000, appProtocol: "HTTPS" }] },
        });
        expect((await check(policy, [deployment(["/mnt/models"]), plain])).map((violation) => violation.message)).toEqual([
            "Service vllm port 8000 declares appProtocol HTTPS in front of vLLM, which serves plain HTTP; GKE's Gateway would speak TLS to it.",
        ]);
        expect(
            await check(policy, [deployment(["/mnt/models", "--ssl-certfile=/tls/tls.crt", "--ssl-keyfile=/tls/tls.key"]), plain]),
        ).toEqual([]);
    });

    test("preview: an unknown port list is not a violation", async () => {
        const unknownPorts = kube("v1", "Service", "svc", {
            metadata: { name: "s" },
            spec: { selector: { "app.kubernetes.io/part-of": "llminferenceservice" }, ports: UNKNOWN },
        });
        expect((await check(policy, [unknownPorts]))[0].level).toBe("advisory");
    });
});
