/**
 * Lesson epp-alpn, the whole category: an endpoint picker serving TLS from an image of either name
 * (llm-d-router-endpoint-picker, llm-d-inference-scheduler) below the ALPN fix or with a tag that is no version, by
 * tag, tag and digest, or through a registry mirror, in an LLMInferenceService's or LLMInferenceServiceConfig's
 * scheduler or a Deployment, is caught; fixed versions, a digest alone, and plain gRPC (--secure-serving=false) are
 * left alone.
 */
import { EPP_MINIMUM_VERSIONS, endpointPickerProblem, judgeEndpointPicker } from "../../policies/facts";
import { endpointPickerMessages, requireFixedEndpointPickerImage as policy } from "../../policies/requireFixedEndpointPickerImage";
import { RecordedResource } from "../../scripts/offline/recorder";
import { clusterPatch, envoyFilter } from "../support/extProcFixtures";
import { llmService, vllmContainer } from "../support/fixtures";
import { UNKNOWN, check, kube, resource } from "../support/harness";
import { llmInferenceService, tpuPod, vllm } from "../support/lessonObjects";
import { summary, verdict } from "../support/pack";
import { useWorkerPack } from "../workerPack";

describe("the rule", () => {
    /** A DestinationRule `name` in `models` for `host`, with `tls` as its traffic policy's. */
    function destinationRule(name: string, host: string, tls: Record<string, unknown> = { mode: "SIMPLE", insecureSkipVerify: true }) {
        return kube("networking.istio.io/v1", "DestinationRule", name, {
            metadata: { name, namespace: "models" },
            spec: { host, trafficPolicy: { tls } },
        });
    }

    /** A Deployment running the EPP `image` and the Service in front of it. */
    function standaloneEndpointPicker(image: string) {
        const labels = { app: "scheduler" };
        return [
            kube("apps/v1", "Deployment", "scheduler", {
                metadata: { name: "scheduler", namespace: "models" },
                spec: {
                    selector: { matchLabels: labels },
                    template: { metadata: { labels }, spec: { containers: [{ name: "epp", image }] } },
                },
            }),
            kube("v1", "Service", "scheduler", {
                metadata: { name: "scheduler", namespace: "models" },
                spec: { selector: labels, ports: [{ port: 9002 }] },
            }),
        ];
    }

    function withScheduler(image: unknown) {
        const service = llmService();
        (service.inputs.spec as { router: { scheduler: unknown } }).router.scheduler = {
            template: { containers: [{ name: "main", image }] },
        };
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

        test("an old EPP that serves plain gRPC (--secure-serving=false) has no TLS to offer ALPN on; the flag takes its value only after =", async () => {
            const scheduler = (args: string[]) => {
                const service = llmService();
                (service.inputs.spec as { router: { scheduler: unknown } }).router.scheduler = {
                    template: { containers: [{ name: "main", image: "ghcr.io/llm-d/llm-d-inference-scheduler:v0.4.0", args }] },
                };
                return service;
            };
            expect(await check(policy, [scheduler(["--grpc-port=9002", "--secure-serving=false"])])).toEqual([]);
            // pflag reads `--secure-serving false` as the flag on and a stray argument.
            expect(await check(policy, [scheduler(["--secure-serving", "false"])])).toHaveLength(1);
            expect(await check(policy, [scheduler(["--secure-serving=true"])])).toHaveLength(1);
        });

        test("behind Istio, the DestinationRule or EnvoyFilter cluster that speaks TLS to an unfixed EPP is reported too", async () => {
            const old = "ghcr.io/llm-d/llm-d-inference-scheduler:v0.4.0";
            const findings = await check(policy, [
                withScheduler(old),
                destinationRule("qwen-epp", "qwen-epp-service.models.svc.cluster.local"),
                ...standaloneEndpointPicker(old),
                envoyFilter("epp-tls", [clusterPatch("epp", "scheduler.models.svc.cluster.local", 9002, true)]),
            ]);
            expect(findings.map(({ resource, message }) => [resource, message.split(";")[0]])).toEqual([
                ["qwen", `qwen spec.router.scheduler.template.containers[0] (main) runs ${old}`],
                ["scheduler", `scheduler spec.template.spec.containers[0] (epp) runs ${old}`],
                [
                    "qwen-epp",
                    `DestinationRule models/qwen-epp speaks TLS to qwen-epp-service.models.svc.cluster.local, whose EPP runs ${old}`,
                ],
                [
                    "epp-tls",
                    `EnvoyFilter gateway/epp-tls spec.configPatches[0] adds cluster epp, TLS to scheduler.models.svc.cluster.local, whose EPP runs ${old}`,
                ],
            ]);
            expect(findings[2].message).toMatch(
                /; llm-d-inference-scheduler before v0\.7\.0 offers no ALPN h2, so Envoy's ext_proc over that TLS fails\.$/,
            );
        });

        test("behind Istio: TLS to a fixed EPP, plain text to an unfixed one, and TLS to other hosts are left alone", async () => {
            const fixed = await check(policy, [
                withScheduler("ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.10.0"),
                destinationRule("qwen-epp", "qwen-epp-service"),
            ]);
            expect(fixed).toEqual([]);
            const plain = await check(policy, [
                withScheduler("ghcr.io/llm-d/llm-d-inference-scheduler:v0.4.0"),
                destinationRule("qwen-epp", "qwen-epp-service", { mode: "DISABLE" }),
            ]);
            expect(plain.map((finding) => finding.resource)).toEqual(["qwen"]);
            const other = await check(policy, [
                withScheduler("ghcr.io/llm-d/llm-d-inference-scheduler:v0.4.0"),
                destinationRule("vllm", "qwen-http"),
            ]);
            expect(other.map((finding) => finding.resource)).toEqual(["qwen"]);
        });

        test("the minimum versions come from pack config", async () => {
            const config = { [policy.name]: { minimumVersions: { "llm-d-router-endpoint-picker": "0.10.0" } } };
            expect(await check(policy, [withScheduler("ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.9.0")], config)).toHaveLength(1);
        });

        test("not applicable: other images", async () => {
            expect(await check(policy, [withScheduler("docker.io/library/nginx:1.27")])).toEqual([]);
        });

        test("preview: an image not known until the update (built in it) names no picker the pack knows, and stops no other verdict", async () => {
            expect(await check(policy, [withScheduler(UNKNOWN)])).toEqual([]);
        });
    });
});

describe("every spelling", () => {
    type Obj = Record<string, unknown>;
    const DIGEST = `sha256:${"a".repeat(64)}`;
    const REGISTRIES = ["ghcr.io/llm-d", "europe-docker.pkg.dev/acme/mirror", "localhost:5000/llm-d"];

    /** Images of `name` that lack the fix, and that have it (or cannot move). */
    function images(name: string): { broken: string[]; safe: string[] } {
        const minimum = EPP_MINIMUM_VERSIONS[name];
        const [major, minor] = minimum.split(".").map(Number);
        const before = `v${major}.${minor - 1}.0`;
        return {
            broken: REGISTRIES.flatMap((registry) => [
                `${registry}/${name}:${before}`,
                `${registry}/${name}:${before.slice(1)}`,
                `${registry}/${name}:${before}@${DIGEST}`,
                `${registry}/${name}:main`,
                `${registry}/${name}:latest`,
            ]),
            safe: REGISTRIES.flatMap((registry) => [
                `${registry}/${name}:v${minimum}`,
                `${registry}/${name}:v${major}.${minor + 1}.0`,
                `${registry}/${name}:v${minimum}@${DIGEST}`,
                `${registry}/${name}@${DIGEST}`,
            ]),
        };
    }

    const epp = (image: string, args: string[] = []) => ({ name: "main", image, args });

    /** Where an EPP container can sit, as the resource and the path the policy reports. */
    const HOLDERS: Array<[string, (container: Obj) => RecordedResource, string]> = [
        [
            "an LLMInferenceService's scheduler",
            (container) => {
                const service = llmService(vllmContainer(), { name: "qwen" });
                ((service.inputs.spec as Obj).router as Obj).scheduler = { template: { containers: [container] } };
                return service;
            },
            "spec.router.scheduler.template.containers[0] (main)",
        ],
        [
            "an LLMInferenceServiceConfig's scheduler",
            (container) =>
                kube("serving.kserve.io/v1alpha2", "LLMInferenceServiceConfig", "qwen", {
                    metadata: { name: "kserve-config-llm-scheduler", namespace: "models" },
                    spec: { router: { scheduler: { template: { containers: [container] } } } },
                }),
            "spec.router.scheduler.template.containers[0] (main)",
        ],
        [
            "a Deployment rendered by a Helm v4 Chart",
            (container) =>
                kube(
                    "apps/v1",
                    "Deployment",
                    "qwen",
                    {
                        metadata: { name: "epp", namespace: "models" },
                        spec: { template: { metadata: { labels: { app: "epp" } }, spec: { containers: [container] } } },
                    },
                    { parent: resource("kubernetes:helm.sh/v4:Chart", "epp", {}) },
                ),
            "spec.template.spec.containers[0] (main)",
        ],
    ];

    const verdict = async (resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);
    const caught = (path: string, image: string) => [
        endpointPickerMessages.container(
            "qwen",
            path,
            image,
            endpointPickerProblem(judgeEndpointPicker({ image }, EPP_MINIMUM_VERSIONS)!)!,
        ),
    ];

    describe("lesson epp-alpn: every EPP image that serves TLS without ALPN h2", () => {
        describe.each(HOLDERS)("%s", (_, holder, path) => {
            test.each(Object.keys(EPP_MINIMUM_VERSIONS))(
                "%s: unfixed and unversioned caught, fixed and digest-pinned clean",
                async (name) => {
                    const { broken, safe } = images(name);
                    for (const image of broken) {
                        expect(await verdict([holder(epp(image))])).toEqual(caught(path, image));
                        expect(await verdict([holder(epp(image, ["--secure-serving=true"]))])).toEqual(caught(path, image));
                        // Plain gRPC needs no ALPN.
                        expect(await verdict([holder(epp(image, ["--secure-serving=false"]))])).toEqual([]);
                    }
                    for (const image of safe) {
                        expect(await verdict([holder(epp(image))])).toEqual([]);
                    }
                },
            );
        });

        test("the TLS a DestinationRule speaks to an unfixed EPP's KServe Service is reported where it is made", async () => {
            const image = "ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.8.0";
            const rule = kube("networking.istio.io/v1", "DestinationRule", "epp", {
                metadata: { name: "epp", namespace: "models" },
                spec: { host: "qwen-epp-service.models.svc.cluster.local", trafficPolicy: { tls: { mode: "SIMPLE" } } },
            });
            const picker = {
                image,
                repository: "llm-d-router-endpoint-picker",
                minimum: EPP_MINIMUM_VERSIONS["llm-d-router-endpoint-picker"],
            };
            expect(await verdict([HOLDERS[0][1](epp(image)), rule])).toEqual([
                ...caught(HOLDERS[0][2], image),
                endpointPickerMessages.destinationRule("models/epp", "qwen-epp-service.models.svc.cluster.local", picker),
            ]);
        });

        test("not this lesson's: other images named like no EPP", async () => {
            expect(await verdict([HOLDERS[2][1](epp("registry.k8s.io/gateway-api-inference-extension/bbr:v0.1.0"))])).toEqual([]);
        });
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();

    describe("the EPP's image wherever a program names it", () => {
        test("the EPP in an LLMInferenceService's scheduler template", async () => {
            const findings = await verdict(pack(), () =>
                llmInferenceService({
                    template: tpuPod([vllm()]),
                    router: {
                        scheduler: {
                            template: { containers: [{ name: "main", image: "ghcr.io/llm-d/llm-d-inference-scheduler:v0.4.0" }] },
                        },
                    },
                }),
            );
            expect(summary(findings)).toEqual(["mandatory require-fixed-endpoint-picker-image @qwen"]);
        });

        test("an EPP image pinned by digest alone", async () => {
            const findings = await verdict(pack(), () =>
                llmInferenceService({
                    template: tpuPod([vllm()]),
                    router: {
                        scheduler: {
                            template: {
                                containers: [
                                    { name: "main", image: `ghcr.io/llm-d/llm-d-router-endpoint-picker@sha256:${"a".repeat(64)}` },
                                ],
                            },
                        },
                    },
                }),
            );
            expect(summary(findings)).toEqual([]);
        });
    });
});
