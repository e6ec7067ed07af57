/**
 * Each lesson, caught however a program writes it (services on KServe's default Gateway, the compilation cache,
 * autoscalers, credentials), and correct programs left alone, judged by the pack in its own process.
 */
import * as k8s from "@pulumi/kubernetes";
import { secret as pulumiSecret } from "@pulumi/pulumi";
import { summary, usePack, verdict } from "./harness";
import { LABELS, Obj, llmService, meta, template, tpuDeployment, tpuPod, vllm } from "./lessonObjects";

const pack = usePack();

describe("services on KServe's default Gateway, objects without a namespace, sidecar ports", () => {
    const gkeGateway = (namespace: string, name: string) =>
        new k8s.apiextensions.CustomResource("gateway", {
            apiVersion: "gateway.networking.k8s.io/v1",
            kind: "Gateway",
            metadata: { name, namespace },
            spec: { gatewayClassName: "gke-l7-regional-external-managed", listeners: [{ name: "http", protocol: "HTTP", port: 80 }] },
        });
    const routedService = () => llmService({ template: tpuPod([vllm()]), router: { route: {}, scheduler: {} } });
    const lessons = (findings: Awaited<ReturnType<typeof verdict>>) =>
        [...new Set(findings.map((finding) => `${finding.level} ${finding.policy}`))].sort();

    test("a service that names no Gateway attaches to KServe's default, as the controller's ConfigMap or the chart's default says", async () => {
        const expected = [
            "advisory require-long-inference-backend-timeout",
            "mandatory disallow-httproute-timeouts-on-gke",
            // An external Gateway, no Cloud Armor on the pool, KServe's route on its HTTP listener (lesson open-endpoint).
            "mandatory require-gateway-access-control",
            "mandatory require-http-health-check-policy",
        ];
        expect(
            lessons(
                await verdict(pack(), () => {
                    gkeGateway("kserve", "kserve-ingress-gateway");
                    routedService();
                }),
            ),
        ).toEqual(expected);
        expect(
            lessons(
                await verdict(pack(), () => {
                    gkeGateway("gateway", "inference");
                    new k8s.core.v1.ConfigMap("kserve-settings", {
                        metadata: { name: "inferenceservice-config", namespace: "kserve" },
                        data: { ingress: JSON.stringify({ kserveIngressGateway: "gateway/inference" }) },
                    });
                    routedService();
                }),
            ),
        ).toEqual(expected);
        // Another default Gateway, outside the stack: nothing here to judge against.
        expect(
            lessons(
                await verdict(pack(), () => {
                    gkeGateway("gateway", "inference");
                    routedService();
                }),
            ),
        ).toEqual([]);
    });

    test("objects without a namespace share the provider's default namespace", async () => {
        const findings = await verdict(pack(), () => {
            const provider = new k8s.Provider("k8s", { kubeconfig: "{}", namespace: "models" });
            new k8s.apiextensions.CustomResource(
                "gateway",
                {
                    apiVersion: "gateway.networking.k8s.io/v1",
                    kind: "Gateway",
                    metadata: { name: "inference" },
                    spec: {
                        gatewayClassName: "gke-l7-regional-external-managed",
                        listeners: [{ name: "http", protocol: "HTTP", port: 80 }],
                    },
                },
                { provider },
            );
            new k8s.apiextensions.CustomResource(
                "route-config",
                {
                    apiVersion: "serving.kserve.io/v1alpha2",
                    kind: "LLMInferenceServiceConfig",
                    metadata: { name: "kserve-config-llm-router-route" },
                    spec: {
                        router: {
                            route: {
                                http: {
                                    spec: {
                                        rules: [
                                            {
                                                backendRefs: [
                                                    {
                                                        group: "inference.networking.k8s.io",
                                                        kind: "InferencePool",
                                                        name: "qwen-inference-pool",
                                                    },
                                                ],
                                            },
                                        ],
                                    },
                                },
                            },
                        },
                    },
                },
                { provider },
            );
            new k8s.apiextensions.CustomResource(
                "qwen",
                {
                    apiVersion: "serving.kserve.io/v1alpha2",
                    kind: "LLMInferenceService",
                    metadata: { name: "qwen" },
                    spec: {
                        model: { uri: "hf://Qwen/Qwen2.5-3B-Instruct" },
                        template: tpuPod([vllm()]),
                        router: { route: {}, gateway: { refs: [{ name: "inference" }] }, scheduler: {} },
                    },
                },
                { provider },
            );
        });
        expect(findings.filter((finding) => finding.policy === "disallow-httproute-timeouts-on-gke")).toEqual([]);
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

describe("the XLA compilation cache outlives the pod", () => {
    /** A Deployment whose vLLM container keeps its cache at `cachePath`, /cache mounted from `volume`. */
    const cachedAt = (cachePath: string | undefined, volume: Obj) => () =>
        new k8s.apps.v1.Deployment("w", {
            metadata: meta(),
            spec: {
                selector: { matchLabels: LABELS },
                template: template({
                    ...tpuPod([
                        {
                            ...vllm({ env: [] }),
                            env: cachePath === undefined ? [] : [{ name: "VLLM_XLA_CACHE_PATH", value: cachePath }],
                            volumeMounts: [{ name: "cache", mountPath: "/cache" }],
                        },
                    ]),
                    volumes: [{ name: "cache", ...volume }],
                }) as never,
            },
        });

    test.each<[string, () => unknown, string[]]>([
        ["unset: vLLM's default in the container", cachedAt(undefined, { emptyDir: {} }), ["advisory require-persistent-xla-cache @w"]],
        ["on an emptyDir", cachedAt("/cache/xla", { emptyDir: {} }), ["advisory require-persistent-xla-cache @w"]],
        ["on a persistent volume", cachedAt("/cache/xla", { persistentVolumeClaim: { claimName: "xla" } }), []],
        ["in Cloud Storage", cachedAt("gs://acme-models/xla-cache", { emptyDir: {} }), []],
    ])("%s", async (_, program, expected) => {
        expect(summary(await verdict(pack(), program))).toEqual(expected);
    });
});

describe("autoscalers on TPU servers wait out a start", () => {
    /**
     * A TPU Deployment `w` and a ScaledObject on it holding scale-down for `window` seconds (none: Kubernetes' 300 s), from
     * one replica (or `minReplicaCount`: none is KEDA's 0, a scale to zero after its 300 s cooldownPeriod).
     */
    const scaled =
        (window?: number, minReplicaCount: number | null = 1) =>
        () => {
            tpuDeployment(vllm());
            new k8s.apiextensions.CustomResource("w-scaler", {
                apiVersion: "keda.sh/v1alpha1",
                kind: "ScaledObject",
                metadata: meta("w-scaler"),
                spec: {
                    scaleTargetRef: { name: "w" },
                    ...(minReplicaCount === null ? {} : { minReplicaCount }),
                    maxReplicaCount: 2,
                    triggers: [
                        { type: "prometheus", metadata: { serverAddress: "http://prometheus:9090", query: "sum(x)", threshold: "5" } },
                    ],
                    ...(window === undefined
                        ? {}
                        : {
                              advanced: {
                                  horizontalPodAutoscalerConfig: { behavior: { scaleDown: { stabilizationWindowSeconds: window } } },
                              },
                          }),
                },
            });
        };

    test.each<[string, () => unknown, string[]]>([
        ["Kubernetes' default scale-down window", scaled(), ["advisory require-tpu-aware-autoscaling @w-scaler"]],
        ["a window shorter than the startup budget", scaled(120), ["advisory require-tpu-aware-autoscaling @w-scaler"]],
        ["a window of the whole budget", scaled(600), []],
        [
            "a window of the whole budget, but a scale to zero after KEDA's default cooldown",
            scaled(600, null),
            ["advisory require-tpu-aware-autoscaling @w-scaler"],
        ],
    ])("%s", async (_, program, expected) => {
        expect(summary(await verdict(pack(), program))).toEqual(expected);
    });
});

describe("credentials in plain text", () => {
    const workload = (container: Obj) => () => tpuDeployment(container);

    test.each<[string, () => unknown, string[]]>([
        [
            "a literal env value",
            workload(vllm({ env: [{ name: "HF_TOKEN", value: "hf_abc" }] })),
            ["mandatory disallow-plain-text-secret-env @w"],
        ],
        [
            "a Pulumi secret written into an env value, which lands in the spec in plain text",
            workload(vllm({ env: [{ name: "HUGGING_FACE_HUB_TOKEN", value: pulumiSecret("hf_abc") }] })),
            ["mandatory disallow-plain-text-secret-env @w"],
        ],
        [
            "a ConfigMap that envFrom loads",
            () => {
                new k8s.core.v1.ConfigMap("env", { metadata: meta("env"), data: { HF_TOKEN: "hf_abc", MODEL: "qwen" } });
                workload(vllm({ env: [], envFrom: [{ configMapRef: { name: "env" } }] }))();
            },
            ["mandatory disallow-plain-text-secret-env @env"],
        ],
        [
            "a flag on the command line",
            workload(vllm({ args: ["m", "--api-key", "sk-123"] })),
            ["mandatory disallow-plain-text-secret-env @w"],
        ],
        [
            "an assignment in a shell script",
            workload(vllm({ command: ["sh", "-c", "HF_TOKEN=hf_abc vllm serve m"], args: [] })),
            ["mandatory disallow-plain-text-secret-env @w"],
        ],
        [
            "a variable read from a ConfigMap outside the stack",
            workload(vllm({ env: [{ name: "HF_TOKEN", valueFrom: { configMapKeyRef: { name: "settings", key: "token" } } }] })),
            ["mandatory disallow-plain-text-secret-env @w"],
        ],
        ["a variable from a Secret", workload(vllm()), []],
        [
            "the path of a key file mounted from a Secret",
            workload(vllm({ env: [{ name: "GOOGLE_APPLICATION_CREDENTIALS", value: "/var/secrets/google/key.json" }] })),
            [],
        ],
        [
            "a ConfigMap of settings nobody loads into an environment",
            () => new k8s.core.v1.ConfigMap("settings", { metadata: meta("settings"), data: { credentials: "{}" } }),
            [],
        ],
        ["envFrom a Secret", workload(vllm({ env: [], envFrom: [{ secretRef: { name: "hf-token" } }] })), []],
        ["a flag that expands a Secret-backed variable", workload(vllm({ args: ["m", "--api-key", "$(VLLM_API_KEY)"] })), []],
    ])("%s", async (_, program, expected) => {
        expect(summary(await verdict(pack(), program))).toEqual(expected);
    });
});

describe("no false positives on correct programs", () => {
    test("an EPP image pinned by digest alone", async () => {
        const findings = await verdict(pack(), () =>
            llmService({
                template: tpuPod([vllm()]),
                router: {
                    scheduler: {
                        template: {
                            containers: [{ name: "main", image: `ghcr.io/llm-d/llm-d-router-endpoint-picker@sha256:${"a".repeat(64)}` }],
                        },
                    },
                },
            }),
        );
        expect(summary(findings)).toEqual([]);
    });

    test("vLLM on GPUs with GPU flags: the TPU policies do not apply", async () => {
        const findings = await verdict(
            pack(),
            () =>
                new k8s.apps.v1.Deployment("gpu", {
                    metadata: meta("gpu"),
                    spec: {
                        selector: { matchLabels: LABELS },
                        template: template({
                            nodeSelector: { "cloud.google.com/gke-accelerator": "nvidia-l4" },
                            containers: [
                                vllm({
                                    image: "docker.io/vllm/vllm-openai:v0.11.0",
                                    args: ["m", "--gpu-memory-utilization=0.9", "--prefix-cache-block-size=16"],
                                    resources: { limits: { "nvidia.com/gpu": "1" } },
                                }),
                            ],
                        }) as never,
                    },
                }),
        );
        expect(summary(findings)).toEqual([]);
    });
});
