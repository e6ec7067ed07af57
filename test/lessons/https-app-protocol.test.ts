/**
 * Lesson https-app-protocol, the whole category: a Service (typed `k8s.core.v1.Service`, or rendered by a component)
 * in front of plain-HTTP vLLM (a workload's pods, or KServe's workload pods) whose port says TLS, by appProtocol
 * (`https`, `HTTPS`, `HTTP2`: HTTP/2 over TLS) or, without an appProtocol, by the name `https`, is caught; `http`,
 * `kubernetes.io/h2c` (cleartext), an appProtocol overriding the name, a sidecar's port, and vLLM serving TLS itself are
 * left alone.
 */
import * as k8s from "@pulumi/kubernetes";
import { disallowHttpsAppProtocolToVllm as policy, httpsToVllmMessage } from "../../policies/disallowHttpsAppProtocolToVllm";
import { KSERVE_CHILDREN } from "../../policies/facts";
import { RecordedResource } from "../../scripts/offline/recorder";
import { vllmContainer } from "../support/fixtures";
import { service, vllmDeployment } from "../support/gatewayObjects";
import { UNKNOWN, check, kube, resource } from "../support/harness";
import { LABELS, Obj, meta, template, tpuPod, vllm } from "../support/lessonObjects";
import { summary, verdict } from "../support/pack";
import { useWorkerPack } from "../workerPack";

describe("the rule", () => {
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
});

describe("every spelling", () => {
    type Obj = Record<string, unknown>;

    const DECLARED = ["k8s.core.v1.Service", "kubernetes:yaml/v2:ConfigGroup", "kubernetes:helm.sh/v4:Chart", "kubernetes:yaml:ConfigFile"];
    const service = (selector: Obj, port: Obj, how = DECLARED[0]) =>
        kube(
            "v1",
            "Service",
            "qwen",
            { metadata: { name: "qwen", namespace: "models" }, spec: { selector, ports: [{ port: 8000, targetPort: 8000, ...port }] } },
            { parent: how === DECLARED[0] ? undefined : resource(how, "manifests", {}) },
        );

    const vllmPods = (container: Obj = vllmContainer({ ports: [{ containerPort: 8000, name: "http" }] }), sidecar?: Obj) =>
        kube("apps/v1", "Deployment", "vllm", {
            metadata: { name: "vllm", namespace: "models" },
            spec: { template: { metadata: { labels: { app: "vllm" } }, spec: { containers: [container, ...(sidecar ? [sidecar] : [])] } } },
        });

    /** What a Service can select vLLM by: a workload's pod labels, or the labels KServe puts on a service's workload pods. */
    const FRONTS: Array<[string, Obj, RecordedResource[]]> = [
        ["a Deployment's vLLM pods", { app: "vllm" }, [vllmPods()]],
        ["KServe's workload pods", KSERVE_CHILDREN.workloadLabels("qwen"), []],
    ];

    const TLS_PORTS: Array<[Obj, string]> = [
        [{ appProtocol: "https" }, "appProtocol https"],
        [{ appProtocol: "HTTPS" }, "appProtocol HTTPS"],
        [{ appProtocol: "HTTP2" }, "appProtocol HTTP2"],
        [{ appProtocol: "http2" }, "appProtocol http2"],
        [{ name: "https" }, 'name "https"'],
        [{ name: "HTTPS" }, 'name "HTTPS"'],
        [{ name: "http", appProtocol: "https" }, "appProtocol https"],
    ];
    const PLAIN_PORTS: Obj[] = [
        {},
        { name: "http" },
        { appProtocol: "http" },
        { appProtocol: "HTTP" },
        { appProtocol: "kubernetes.io/h2c" },
        { name: "https", appProtocol: "http" },
        { name: "https-metrics", appProtocol: "kubernetes.io/h2c" },
    ];

    const verdict = async (resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);

    describe("lesson https-app-protocol: every way a Service in front of vLLM says TLS", () => {
        describe.each(FRONTS)("selecting %s", (_, selector, pods) => {
            test.each(DECLARED)("declared by %s: TLS spellings caught, plain ones clean", async (how) => {
                for (const [port, declared] of TLS_PORTS) {
                    expect(await verdict([...pods, service(selector, port, how)])).toEqual([httpsToVllmMessage("qwen", 8000, declared)]);
                }
                for (const port of PLAIN_PORTS) {
                    expect(await verdict([...pods, service(selector, port, how)])).toEqual([]);
                }
            });
        });

        test("a Service port that reaches a sidecar, not vLLM, is not this lesson's", async () => {
            const pods = vllmPods(vllmContainer({ ports: [{ containerPort: 8000 }] }), {
                name: "proxy",
                image: "envoy:v1",
                ports: [{ containerPort: 8443 }],
            });
            expect(await verdict([pods, service({ app: "vllm" }, { port: 443, targetPort: 8443, appProtocol: "https" })])).toEqual([]);
            expect(await verdict([pods, service({ app: "vllm" }, { appProtocol: "https" })])).toEqual([
                httpsToVllmMessage("qwen", 8000, "appProtocol https"),
            ]);
        });

        test("vLLM serving TLS itself (--ssl-certfile) makes https right", async () => {
            const tls = vllmPods(
                vllmContainer({ args: ["/mnt/models", "--port=8000", "--ssl-certfile=/certs/tls.crt", "--ssl-keyfile=/certs/tls.key"] }),
            );
            expect(await verdict([tls, service({ app: "vllm" }, { appProtocol: "https" })])).toEqual([]);
        });

        test("a Service selecting other pods, or none, is not this lesson's", async () => {
            expect(await verdict([vllmPods(), service({ app: "web" }, { appProtocol: "https" })])).toEqual([]);
            expect(await verdict([vllmPods(), service({}, { appProtocol: "https" })])).toEqual([]);
        });
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();

    describe("a Service's port in front of vLLM", () => {
        test.each<[string, Obj, string[]]>([
            ["appProtocol HTTPS", { name: "http", appProtocol: "HTTPS" }, ["mandatory disallow-https-app-protocol-to-vllm @svc"]],
            ["appProtocol https", { appProtocol: "https" }, ["mandatory disallow-https-app-protocol-to-vllm @svc"]],
            ["a port named https without appProtocol", { name: "https" }, ["mandatory disallow-https-app-protocol-to-vllm @svc"]],
            ["a port named https with appProtocol http", { name: "https", appProtocol: "http" }, []],
            ["appProtocol http", { name: "http", appProtocol: "http" }, []],
        ])("a Service in front of plain-HTTP vLLM with %s", async (_, port, expected) => {
            const findings = await verdict(pack(), () => {
                vllmDeployment();
                service(port);
            });
            expect(summary(findings)).toEqual(expected);
        });

        test("an HTTPS port to a sidecar is not an HTTPS port to vLLM", async () => {
            const pod =
                (...ports: Obj[]) =>
                () => {
                    new k8s.apps.v1.Deployment("w", {
                        metadata: meta(),
                        spec: {
                            selector: { matchLabels: LABELS },
                            template: template(
                                tpuPod([
                                    vllm(),
                                    {
                                        name: "proxy",
                                        image: "quay.io/brancz/kube-rbac-proxy:v0.18.1",
                                        ports: [{ name: "https-metrics", containerPort: 8443 }],
                                    },
                                ]),
                            ) as never,
                        },
                    });
                    new k8s.core.v1.Service("svc", { metadata: meta("vllm"), spec: { selector: LABELS, ports: ports as never } });
                };
            expect(
                summary(
                    await verdict(
                        pack(),
                        pod(
                            { name: "http", port: 8000, targetPort: "http", appProtocol: "HTTP" },
                            { name: "https-metrics", port: 8443, targetPort: "https-metrics", appProtocol: "HTTPS" },
                        ),
                    ),
                ),
            ).toEqual([]);
            expect(summary(await verdict(pack(), pod({ name: "http", port: 8000, targetPort: 8000, appProtocol: "HTTPS" })))).toEqual([
                "mandatory disallow-https-app-protocol-to-vllm @svc",
            ]);
        });
    });
});
