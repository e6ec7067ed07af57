import * as fs from "fs";
import { PLATFORM_CRDS, lessonById } from "@gke-tpu-inference/facts";
import type { KubeObject } from "../../scripts/cluster/kube";
import { DOCTOR_CHECKS } from "../../scripts/doctor/checks";
import { runDoctor, targetsFromOutputs } from "../../scripts/doctor/diagnose";
import { jsonCheck } from "../../scripts/doctor/report";
import { CrdValidator } from "../crds";
import { clusterState } from "../fakeCluster";
import { isKubernetesObject, memoryReader } from "../memoryCluster";
import { EPP, Finding, NOT_AVAILABLE, NOW, POD, SERVICE, STATES, finding, notOk, overlaysOf, targetsOf } from "./doctorStates";

describe("the recorded cluster states", () => {
    // The doctor's states, and the smoke test's (one folder up).
    const states = [
        ...fs.readdirSync(STATES).map((file) => file.replace(/\.yaml$/, "")),
        ...["route-not-migrated", "route-rejected-timeouts", "policy-not-attached"].map((state) => `../${state}`),
    ];
    const builtIn = ["v1", "apps/v1", "apiextensions.k8s.io/v1"];
    // One validator for every state: it compiles each kind's schema once.
    const validator = new CrdValidator();

    test.each([["healthy"], ...states.map((state) => [state])])("%s: every custom resource is valid against its CRD", (state) => {
        for (const object of clusterState(...(state === "healthy" ? [] : overlaysOf(state))).filter(isKubernetesObject)) {
            const name = `${object.apiVersion} ${object.kind} ${object.metadata?.name}`;
            expect({ name, errors: builtIn.includes(object.apiVersion!) ? [] : validator.errors(object) }).toEqual({ name, errors: [] });
        }
    });

    test("every CRD the platform needs is one upstream ships, by name and served version", () => {
        const upstream = validator.kinds;
        for (const crd of PLATFORM_CRDS) {
            const group = crd.name.slice(crd.name.indexOf(".") + 1);
            expect(upstream).toContain(`${group}/${crd.version}:${crd.kind}`);
        }
    });
});

describe("npm run doctor over recorded states", () => {
    test("the healthy stack passes every check", async () => {
        const diagnoses = await runDoctor(memoryReader(clusterState()), {}, NOW);
        expect(diagnoses.filter((diagnosis) => diagnosis.status !== "OK")).toEqual([]);
        expect([...new Set(diagnoses.map((diagnosis) => diagnosis.check))]).toEqual([
            "Gateway API enabled",
            "GatewayClass regional",
            "Gateway programmed",
            "Gateway address",
            "CRD installed",
            "controller available",
            "issuer ready",
            "CA certificate ready",
            "CA key RSA",
            "TPU node in the capacity plan",
            "service ready",
            "backends on inference.networking.k8s.io",
            "accepted by the Gateway",
            "health check /health over HTTP",
            "backend timeout >= 300 s",
            "no HTTPS to vLLM",
            "pod ready",
            "EPP ALPN h2 under TLS",
            "endpoint picker ready",
        ]);
        expect(diagnoses).toHaveLength(36);
    });

    const cases: Array<[string, Finding[]]> = [
        [
            "gateway-api-disabled",
            [
                ["FAIL", "GatewayClasses", "Gateway API enabled", "gateway-api-disabled"],
                ["FAIL", "Gateway inference-gateway/inference-gateway", "Gateway programmed", "gateway-api-disabled"],
                ["FAIL", "Gateway inference-gateway/inference-gateway", "Gateway address", undefined],
            ],
        ],
        [
            "global-gateway-class",
            [["FAIL", "Gateway inference-gateway/inference-gateway", "GatewayClass regional", "global-gateway-class"]],
        ],
        [
            "health-check-root",
            [["FAIL", "InferencePool llm-inference/qwen2-3b-inference-pool", "health check /health over HTTP", "health-checks"]],
        ],
        ["health-check-missing", [["FAIL", "Service llm-inference/qwen2-3b-http", "health check /health over HTTP", "health-checks"]]],
        [
            "health-check-wrong-port",
            [["FAIL", "InferencePool llm-inference/qwen2-3b-inference-pool", "health check /health over HTTP", "health-checks"]],
        ],
        [
            "backend-policy-missing",
            [["FAIL", "InferencePool llm-inference/qwen2-3b-inference-pool", "backend timeout >= 300 s", "backend-timeout"]],
        ],
        ["https-app-protocol", [["FAIL", "Service llm-inference/qwen2-3b-kserve-workload-svc", "no HTTPS to vLLM", "https-app-protocol"]]],
        [
            "lws-missing",
            [
                ["FAIL", "CustomResourceDefinition leaderworkersets.leaderworkerset.x-k8s.io", "CRD installed", "lws-missing"],
                ["FAIL", "Deployments in lws-system", "controllers available", "platform-controllers"],
                ["FAIL", SERVICE, "service ready", "lws-missing"],
                ["FAIL", "Pods of LLMInferenceService llm-inference/qwen2-3b", "pod ready", undefined],
            ],
        ],
        [
            "controller-unavailable",
            [["FAIL", "Deployment kserve/llmisvc-controller-manager", "controller available", "platform-controllers"]],
        ],
        ["ca-ecdsa", [["FAIL", "Certificate cert-manager/tpu-inference-ca", "CA key RSA", "rsa-ca"]]],
        ["issuer-not-ready", [["FAIL", "ClusterIssuer tpu-inference-ca-issuer", "issuer ready", undefined]]],
        [
            "ca-not-ready",
            [
                ["FAIL", "ClusterIssuer tpu-inference-ca-issuer", "issuer ready", undefined],
                ["FAIL", "Certificate cert-manager/tpu-inference-ca", "CA certificate ready", undefined],
            ],
        ],
        [
            "gateway-absent",
            [
                ["FAIL", "Gateway inference-gateway/inference-gateway", "Gateway exists", undefined],
                ["FAIL", SERVICE, "service ready", undefined],
            ],
        ],
        [
            "istio-gateway-class",
            [
                ["FAIL", "Deployment istio-system/istiod", "istiod serves InferencePool", undefined],
                ["FAIL", "Service llm-inference/qwen2-3b-epp-service", "EPP reached over TLS", undefined],
            ],
        ],
        ["istio-healthy", []],
        ["secure", []],
        [
            "certificate-not-ready",
            [
                ["FAIL", "Certificate inference-gateway/inference-gateway-tls", "Gateway certificate issued", "open-endpoint"],
                ["FAIL", "Gateway inference-gateway/inference-gateway", "HTTPS listener serves the certificate", "open-endpoint"],
            ],
        ],
        [
            "security-policy-missing",
            [
                ["FAIL", "GCPBackendPolicy llm-inference/qwen2-3b-inference-pool", "security policy attached", "open-endpoint"],
                ["FAIL", "GCPBackendPolicy llm-inference/qwen2-3b-http", "security policy attached", "open-endpoint"],
                [
                    "FAIL",
                    "GCPTrafficExtension inference-gateway/inference-gateway-model-armor",
                    "Model Armor extension accepted",
                    "open-endpoint",
                ],
                // The pool's policy carries its timeout too: not attached, the timeout does not hold either.
                ["FAIL", "InferencePool llm-inference/qwen2-3b-inference-pool", "backend timeout >= 300 s", "backend-timeout"],
            ],
        ],
        ["istio-secure", []],
        [
            "istio-open",
            [
                ["WARN", "AuthorizationPolicy inference-gateway/inference-gateway-allowed-sources", "security policy attached", undefined],
                ["FAIL", "Gateway inference-gateway/inference-gateway", "rate limit present", "open-endpoint"],
            ],
        ],
        [
            "route-absent",
            [
                ["FAIL", SERVICE, "service ready", undefined],
                ["FAIL", "HTTPRoute llm-inference/qwen2-3b-kserve-route", "route exists", undefined],
            ],
        ],
        [
            "crd-version-not-served",
            [
                ["FAIL", "CustomResourceDefinition llminferenceservices.serving.kserve.io", "CRD installed", undefined],
                ["FAIL", "CustomResourceDefinition llminferenceserviceconfigs.serving.kserve.io", "CRD installed", undefined],
                ["SKIPPED", "LLMInferenceServices in every namespace", "model services", undefined],
            ],
        ],
        [
            "epp-absent",
            [
                ["FAIL", SERVICE, "service ready", undefined],
                ["FAIL", "Endpoint picker of LLMInferenceService llm-inference/qwen2-3b", "endpoint picker ready", undefined],
            ],
        ],
        ["pending-selector", [NOT_AVAILABLE, ["FAIL", POD, "pod scheduled", "tpu-selector"]]],
        ["pool-at-max", [NOT_AVAILABLE, ["FAIL", POD, "pod scheduled", undefined]]],
        ["stockout", [NOT_AVAILABLE, ["FAIL", POD, "pod scheduled", "tpu-capacity"]]],
        ["scale-up-quota", [NOT_AVAILABLE, ["FAIL", POD, "pod scheduled", "tpu-quota"]]],
        ["scaling-up", [NOT_AVAILABLE, ["WARN", POD, "pod scheduled", undefined]]],
        ["crashloop-unknown-flag", [NOT_AVAILABLE, ["FAIL", POD, "container running", "vllm-flag"]]],
        ["tpu-out-of-memory", [NOT_AVAILABLE, ["FAIL", POD, "container running", undefined]]],
        ["hf-unauthorized", [NOT_AVAILABLE, ["FAIL", POD, "container running", undefined]]],
        ["bucket-forbidden", [NOT_AVAILABLE, ["FAIL", POD, "container running", undefined]]],
        [
            "scaling-out",
            [
                ["WARN", SERVICE, "service ready", undefined],
                ["WARN", "Pod llm-inference/qwen2-3b-kserve-6c8f9d7b54-z9y8w", "pod scheduled", undefined],
            ],
        ],
        [
            "scale-out-stuck",
            [
                ["FAIL", SERVICE, "service ready", "tpu-capacity"],
                ["FAIL", "Pod llm-inference/qwen2-3b-kserve-6c8f9d7b54-z9y8w", "pod scheduled", "tpu-capacity"],
            ],
        ],
        ["group-recreated", [["FAIL", "LeaderWorkerSet llm-inference/qwen2-3b-kserve-mn", "groups not recreated", undefined]]],
        ["oom-killed", [NOT_AVAILABLE, ["FAIL", POD, "container running", undefined]]],
        ["image-pull", [NOT_AVAILABLE, ["FAIL", POD, "image pulled", undefined]]],
        ["startup-probe-restarts", [NOT_AVAILABLE, ["FAIL", POD, "container running", "startup-budget"]]],
        ["pod-starting", [NOT_AVAILABLE, ["WARN", POD, "pod ready", undefined]]],
        ["epp-without-alpn", [["FAIL", EPP, "EPP ALPN h2 under TLS", "epp-alpn"]]],
        ["epp-not-ready", [["FAIL", EPP, "endpoint picker ready", undefined]]],
        ["service-stopped", [["SKIPPED", "Pods of LLMInferenceService llm-inference/qwen2-3b", "pod ready", undefined]]],
        [
            "../route-rejected-timeouts",
            [["FAIL", "HTTPRoute llm-inference/qwen2-3b-kserve-route", "accepted by the Gateway", "route-timeouts"]],
        ],
        [
            "../route-not-migrated",
            [
                [
                    "FAIL",
                    "HTTPRoute llm-inference/qwen2-3b-kserve-route",
                    "backends on inference.networking.k8s.io",
                    "inference-pool-group",
                ],
                ["FAIL", "HTTPRoute llm-inference/qwen2-3b-kserve-route", "accepted by the Gateway", "inference-pool-group"],
            ],
        ],
        [
            "../policy-not-attached",
            [["FAIL", "InferencePool llm-inference/qwen2-3b-inference-pool", "health check /health over HTTP", "health-checks"]],
        ],
    ];

    test("behind Istio: istiod's InferencePool support and TLS to the EPP are checked, GKE's policies are not", async () => {
        const checks = (await runDoctor(memoryReader(clusterState(...overlaysOf("istio-healthy"))), {}, NOW)).map(
            (diagnosis) => diagnosis.check,
        );
        expect(checks).toEqual(expect.arrayContaining(["istiod serves InferencePool", "EPP reached over TLS"]));
        expect(checks.filter((check) => check === "health check /health over HTTP" || check === "backend timeout >= 300 s")).toEqual([]);
    });

    test("the stack's gatewayProvider output says who programs its Gateway; the Gateway's class only when the output is absent", async () => {
        expect(targetsFromOutputs({ gatewayProvider: "istio" }).gatewayProvider).toBe("istio");
        expect(targetsFromOutputs({ gatewayProvider: "gke" }).gatewayProvider).toBe("gke");
        expect(targetsFromOutputs({ gatewayProvider: "nginx" })).toEqual({});
        expect(targetsFromOutputs({})).toEqual({});
        // An Istio Gateway of a class of its own name: the output says Istio, so istiod and TLS to the EPP are checked,
        // and the class is not judged as GKE's.
        const istioClass = (name: string) => (object: KubeObject) =>
            object.kind === "Gateway"
                ? ({ ...object, spec: { ...(object.spec as object), gatewayClassName: name } } as KubeObject)
                : object;
        const renamed = clusterState(...overlaysOf("istio-healthy")).map(istioClass("mesh-gateways"));
        const stated = await runDoctor(memoryReader(renamed), { gatewayProvider: "istio" }, NOW);
        expect(stated.map((diagnosis) => diagnosis.check)).toEqual(
            expect.arrayContaining(["istiod serves InferencePool", "EPP reached over TLS"]),
        );
        expect(stated.filter((diagnosis) => diagnosis.status !== "OK")).toEqual([]);
        // Without the output, the same cluster falls back on the class, which names neither provider.
        const guessed = await runDoctor(memoryReader(renamed), {}, NOW);
        expect(guessed.filter((diagnosis) => diagnosis.status !== "OK").map(finding)).toEqual([
            ["WARN", "Gateway inference-gateway/inference-gateway", "GatewayClass regional", undefined],
        ]);
        // A GKE stack whose output says gke is judged as GKE's even when the Gateway cannot be read for its class.
        const gke = await runDoctor(memoryReader(clusterState()), { gatewayProvider: "gke" }, NOW);
        expect(gke.map((diagnosis) => diagnosis.check)).toEqual(
            expect.arrayContaining(["GatewayClass regional", "health check /health over HTTP"]),
        );
        expect(gke.filter((diagnosis) => diagnosis.status !== "OK")).toEqual([]);
    });

    test("every check the doctor reports over the recorded states is one of its checks, and a failure's lesson one the check names", async () => {
        const reported = new Set<string>();
        for (const [state] of cases) {
            for (const diagnosis of await runDoctor(memoryReader(clusterState(...overlaysOf(state))), {}, NOW)) {
                reported.add(diagnosis.check);
                if (diagnosis.lesson !== undefined) {
                    expect({
                        check: diagnosis.check,
                        lesson: diagnosis.lesson,
                        lists: (DOCTOR_CHECKS[diagnosis.check] as readonly string[]).includes(diagnosis.lesson),
                    }).toMatchObject({ lists: true });
                }
            }
        }
        expect([...reported].filter((check) => !Object.keys(DOCTOR_CHECKS).includes(check))).toEqual([]);
    });

    test("every recorded failure state is tested", () => {
        expect(
            cases
                .map(([state]) => state)
                .filter((state) => !state.startsWith(".."))
                .sort(),
        ).toEqual(
            fs
                .readdirSync(STATES)
                .map((file) => file.replace(/\.yaml$/, ""))
                .filter((state) => state !== "workload-not-ready")
                .sort(),
        );
    });

    test.each(cases)("%s fails exactly its checks, naming the lesson", async (state, expected) => {
        expect(await notOk(targetsOf(state), ...overlaysOf(state))).toEqual(expected);
    });

    test("the evidence quotes what the cluster said, and the check carries the lesson and the fix", async () => {
        /** Status, object, check and evidence, then the lesson and the next step as --json spells them, on one line. */
        const line = async (state: string, check: string) => {
            const diagnoses = await runDoctor(memoryReader(clusterState(...overlaysOf(state))), {}, NOW);
            const diagnosis = diagnoses.find((candidate) => candidate.check === check && candidate.status !== "OK")!;
            const { lesson, nextStep } = jsonCheck(diagnosis);
            return [
                `${diagnosis.status.padEnd(7)} ${diagnosis.object}: ${diagnosis.check}: ${diagnosis.evidence}`,
                ...(lesson ? [`lesson (${lesson.link}): ${lesson.title}`] : []),
                ...(nextStep ? [`fix: ${nextStep}`] : []),
            ].join(" | ");
        };
        expect(await line("crashloop-unknown-flag", "container running")).toBe(
            `FAIL    ${POD}: container running: main: 4 restarts, last Error (exit 2); vLLM rejected a flag: error: unrecognized arguments: --prefix-cache-block-size=16` +
                ` | lesson (docs/lessons.md#vllm-flag): ${lessonById("vllm-flag").title} | fix: ${lessonById("vllm-flag").recovery}`,
        );
        expect(await line("../route-rejected-timeouts", "accepted by the Gateway")).toContain(
            "Accepted=False (UnsupportedValue: Error GWCER104: HTTPRoute is misconfigured, err: Timeouts are not supported.)",
        );
        expect(await line("lws-missing", "service ready")).toContain(
            'WorkloadsReady=False (ReconcileError: no matches for kind "LeaderWorkerSet" in version "leaderworkerset.x-k8s.io/v1")',
        );
        expect(await line("startup-probe-restarts", "container running")).toContain(
            "main: 3 restarts, last Error (exit 137); Killing: Container main failed startup probe, will be restarted; startup budget 120 s",
        );
        expect(await line("pool-at-max", "pod scheduled")).toContain("fix: the TPU pool is at its maximum: raise tpuMaxNodes");
        // A scale-up GKE started and then gave up on is no longer in progress.
        expect(await line("scale-up-quota", "pod scheduled")).toContain(
            "FailedScaleUp: Node scale up in zones europe-west4-a associated with this pod failed: GCE quota exceeded.",
        );
        expect(await line("bucket-forbidden", "container running")).toContain(
            "Cloud Storage refused the server: google.api_core.exceptions.Forbidden: 403 GET https://storage.googleapis.com/storage/v1/b/tpu-inference-dev-weights-9ceade23",
        );
        expect(await line("bucket-forbidden", "container running")).toContain(
            "fix: its Workload Identity principal lacks storage.buckets.get on the bucket it reads (its weights or its compilation cache; docs/explanation/cold-start.md#least-privilege)",
        );
        expect(await line("scaling-out", "service ready")).toBe(
            `WARN    ${SERVICE}: service ready: scaling out, serving on 1 ready replica; MainWorkloadReady=False (MinimumReplicasUnavailable: Deployment does not have minimum availability.)` +
                " | fix: a new replica waits for a TPU node and its start (the pod checks below); KServe reports Ready once it serves",
        );
        expect(await line("scale-out-stuck", "service ready")).toContain(
            "FAIL    LLMInferenceService llm-inference/qwen2-3b: service ready: scale-out stuck, serving on 1 ready replica: a new replica cannot be placed (FailedScaleUp: Node scale up in zones europe-west4-a associated with this pod failed: GCE out of resources.",
        );
        expect(await line("group-recreated", "groups not recreated")).toBe(
            "FAIL    LeaderWorkerSet llm-inference/qwen2-3b-kserve-mn: groups not recreated: recreated 4 times, last: Worker pod qwen2-3b-kserve-mn-0-2 failed, deleted leader pod qwen2-3b-kserve-mn-0 to recreate group 0" +
                " | fix: a pod of the group restarted and LeaderWorkerSet started the whole group again: the group's pods' previous logs say why (Ray not formed within the preset's wait, the startup probe, a worker crash)",
        );
        expect(await line("tpu-out-of-memory", "container running")).toContain(
            "the model does not fit the TPU's memory: jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer",
        );
        expect(await line("crd-version-not-served", "CRD installed")).toBe(
            "FAIL    CustomResourceDefinition llminferenceservices.serving.kserve.io: CRD installed: serves v1alpha1, not v1alpha2" +
                " | fix: upgrade it: the kserve-llmisvc-crd chart",
        );
        expect(await line("epp-absent", "service ready")).toContain(
            'SchedulerWorkloadReady=False (ProgressDeadlineExceeded: ReplicaSet "qwen2-3b-kserve-router-scheduler-7b5d6f8c9" has timed out progressing.)',
        );
        expect(await line("gateway-absent", "service ready")).toContain(
            "GatewaysReady=False (RefsInvalid: Gateway inference-gateway/inference-gateway does not exist)",
        );
        expect(await line("health-check-wrong-port", "health check /health over HTTP")).toBe(
            "FAIL    InferencePool llm-inference/qwen2-3b-inference-pool: health check /health over HTTP: HealthCheckPolicy qwen2-3b-inference-pool checks port 8080 on InferencePool llm-inference/qwen2-3b-inference-pool, which serves on 8000; GKE would probe a port vLLM does not answer on, so use port 8000 or USE_SERVING_PORT." +
                ` | lesson (docs/lessons.md#health-checks): ${lessonById("health-checks").title} | fix: ${lessonById("health-checks").recovery}`,
        );
        expect(await line("pending-selector", "pod scheduled")).toContain(
            "the pod selects cloud.google.com/gke-tpu-accelerator=tpu-v6e, cloud.google.com/gke-tpu-topology=2x2",
        );
    });
});
