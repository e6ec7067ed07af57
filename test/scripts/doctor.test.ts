import * as fs from "fs";
import * as http from "http";
import * as net from "net";
import { AddressInfo } from "net";
import * as os from "os";
import * as path from "path";
import { PLATFORM_CRDS } from "@gke-tpu-inference/facts";
import { CliError, EXIT } from "../../scripts/cli";
import { plainTerminal } from "../../scripts/cli/terminal";
import { DOCTOR_CHECKS, lessonById, lessonLink } from "@gke-tpu-inference/facts";
import { formatChecks } from "../../scripts/cli/checks";
import { ClusterAccessError } from "../../scripts/cluster/access";
import type { KubeObject } from "../../scripts/cluster/kube";
import { doctorPlan } from "../../scripts/doctor";
import { DoctorTargets, runDoctor, targetsFromOutputs } from "../../scripts/doctor/diagnose";
import { prefixCacheCheck, sumSamples } from "../../scripts/doctor/metrics";
import { routerReplicas } from "../../scripts/doctor/modelRouting";
import { Diagnosis, jsonCheck, reportedCheck } from "../../scripts/doctor/report";
import { CrdValidator } from "../crds";
import { runCli } from "../cli";
import { clusterState, closedPort, runCliAgainstCluster, writeKubeconfig, writeStackOutputs } from "../fakeCluster";
import { isKubernetesObject, memoryReader } from "../memoryCluster";

const ROOT = path.resolve(__dirname, "..", "..");
const STATES = path.join(ROOT, "test", "fixtures", "cluster", "doctor");
/** States of the vLLM pod, recorded with KServe's view of a workload that is not available. */
const POD_STATES = [
    "pending-selector",
    "pool-at-max",
    "stockout",
    "scale-up-quota",
    "scaling-up",
    "crashloop-unknown-flag",
    "bucket-forbidden",
    "tpu-out-of-memory",
    "hf-unauthorized",
    "oom-killed",
    "image-pull",
    "startup-probe-restarts",
    "pod-starting",
];
const overlaysOf = (state: string) => [...(POD_STATES.includes(state) ? ["doctor/workload-not-ready"] : []), `doctor/${state}`];
const POD = "Pod llm-inference/qwen2-3b-kserve-6c8f9d7b54-x2x4p";
const EPP = "Pod llm-inference/qwen2-3b-kserve-router-scheduler-7b5d6f8c9-q8w2n";
const SERVICE = "LLMInferenceService llm-inference/qwen2-3b";
const NOT_AVAILABLE: Finding = ["FAIL", SERVICE, "service ready", undefined];

/** Status, object, check and lesson of a diagnosis. */
type Finding = [Diagnosis["status"], string, string, string | undefined];
const finding = (diagnosis: Diagnosis): Finding => [diagnosis.status, diagnosis.object, diagnosis.check, diagnosis.lesson];
/** A few minutes after the recorded pods started, within their startup budget. */
const NOW = { now: new Date("2026-11-20T10:05:00Z") };
const notOk = async (targets: DoctorTargets, ...overlays: string[]) =>
    (await runDoctor(memoryReader(clusterState(...overlays)), targets, NOW)).filter((diagnosis) => diagnosis.status !== "OK").map(finding);

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
        expect(diagnoses).toHaveLength(35);
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
        ["scale-up-quota", [NOT_AVAILABLE, ["FAIL", POD, "pod scheduled", undefined]]],
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

    test("every check the doctor reports over the recorded states is one the lesson registry names, and a failure's lesson lists it", async () => {
        const reported = new Set<string>();
        for (const [state] of cases) {
            for (const diagnosis of await runDoctor(memoryReader(clusterState(...overlaysOf(state))), {}, NOW)) {
                reported.add(diagnosis.check);
                if (diagnosis.lesson !== undefined) {
                    expect({
                        check: diagnosis.check,
                        lesson: diagnosis.lesson,
                        lists: (lessonById(diagnosis.lesson).doctorChecks as readonly string[]).includes(diagnosis.check),
                    }).toMatchObject({ lists: true });
                }
            }
        }
        expect([...reported].filter((check) => !(DOCTOR_CHECKS as readonly string[]).includes(check))).toEqual([]);
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
        expect(await notOk({}, ...overlaysOf(state))).toEqual(expected);
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
            "fix: its Workload Identity principal lacks storage.buckets.get on the bucket it reads (its weights or its compilation cache",
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

    test("a pod selecting labels no TPU node carries fails before the autoscaler says so", async () => {
        const objects = clusterState("doctor/workload-not-ready").map((object) =>
            object.kind === "Pod" && object.metadata?.name === POD.split("/")[1]
                ? ({
                      ...object,
                      spec: {
                          ...(object.spec as object),
                          nodeName: undefined,
                          nodeSelector: {
                              "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
                              "cloud.google.com/gke-tpu-topology": "4x4",
                          },
                      },
                      status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable" }] },
                  } as KubeObject)
                : object,
        );
        const [diagnosis] = (await runDoctor(memoryReader(objects), {}, NOW)).filter((candidate) => candidate.check === "pod scheduled");
        expect(diagnosis).toMatchObject({
            status: "FAIL",
            lesson: "tpu-selector",
            evidence:
                "the pod selects cloud.google.com/gke-tpu-accelerator=tpu-v6e-slice, cloud.google.com/gke-tpu-topology=4x4; TPU nodes carry tpu-v6e-slice/2x2",
        });
    });

    test("a multi-host service's Pending worker is diagnosed with the leader: the group waits for every host", async () => {
        const leader = clusterState("doctor/workload-not-ready").find(
            (object) => object.kind === "Pod" && object.metadata?.name === POD.split("/")[1],
        )!;
        const worker = {
            ...leader,
            metadata: {
                ...leader.metadata,
                name: "qwen2-3b-kserve-mn-0-1",
                labels: {
                    "app.kubernetes.io/component": "llminferenceservice-workload-worker",
                    "app.kubernetes.io/name": "qwen2-3b",
                    "app.kubernetes.io/part-of": "llminferenceservice",
                },
            },
            spec: {
                ...(leader.spec as object),
                nodeName: undefined,
                nodeSelector: { "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "4x4" },
            },
            status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable" }] },
        } as KubeObject;
        const scheduled = (await runDoctor(memoryReader([...clusterState("doctor/workload-not-ready"), worker]), {}, NOW)).filter(
            (candidate) => candidate.check === "pod scheduled" && candidate.status === "FAIL",
        );
        expect(scheduled.map((diagnosis) => [diagnosis.object, diagnosis.lesson])).toEqual([
            ["Pod llm-inference/qwen2-3b-kserve-mn-0-1", "tpu-selector"],
        ]);
    });

    test("the stack's outputs narrow the namespaces, name the CA issuer and a service that is gone", async () => {
        const targets = targetsFromOutputs({
            servingNamespace: "llm-inference",
            gateway: { namespace: "inference-gateway", name: "inference-gateway" },
            caIssuerName: "tpu-inference-ca-issuer-renamed",
            tpuPoolAutoscaling: { minNodes: 0, maxNodes: 1, paused: false },
            models: { "qwen2-3b": { pattern: "pattern1" }, "phi-3": { pattern: "pattern1" } },
        });
        expect(targets).toEqual({
            namespaces: ["llm-inference"],
            gateway: { namespace: "inference-gateway", name: "inference-gateway" },
            caIssuer: "tpu-inference-ca-issuer-renamed",
            services: { "qwen2-3b": { pattern: "pattern1" }, "phi-3": { pattern: "pattern1" } },
            tpuMaxNodes: 1,
        });
        expect(await notOk(targets)).toEqual([
            ["FAIL", "ClusterIssuer tpu-inference-ca-issuer-renamed", "issuer ready", undefined],
            ["FAIL", "LLMInferenceService llm-inference/phi-3", "service exists", undefined],
        ]);
        const atMax = await runDoctor(memoryReader(clusterState(...overlaysOf("pool-at-max"))), targets, NOW);
        expect(atMax.find((diagnosis) => diagnosis.check === "pod scheduled")?.fix).toBe(
            "the TPU pool is at its maximum of 1 nodes: raise tpuMaxNodes, or lower the replicas",
        );
    });

    test("a pod past its startup budget and still not Ready fails, with the probe's last answer", async () => {
        const objects = clusterState(...overlaysOf("pod-starting"), "doctor/startup-probe-restarts").map((object) =>
            object.kind === "Pod" && object.metadata?.name === POD.split("/")[1]
                ? ({
                      ...object,
                      status: {
                          ...(object.status as object),
                          containerStatuses: [
                              { name: "main", ready: false, restartCount: 0, state: { running: { startedAt: "2026-11-20T10:06:00Z" } } },
                          ],
                      },
                  } as KubeObject)
                : object,
        );
        const late = await runDoctor(memoryReader(objects), {}, { now: new Date("2026-11-20T10:08:30Z") });
        expect(late.find((diagnosis) => diagnosis.object === POD)).toMatchObject({
            status: "FAIL",
            check: "pod ready",
            evidence:
                'Ready=False (ContainersNotReady: containers with unready status: [main]); running 150 s of a 120 s startup budget; Unhealthy: Startup probe failed: Get "http://10.8.0.12:8000/health": dial tcp 10.8.0.12:8000: connect: connection refused',
        });
    });

    test("an EPP image whose tag is no version is a warning, not a verdict", async () => {
        const objects = clusterState().map((object) =>
            object.metadata?.name === EPP.split("/")[1]
                ? ({
                      ...object,
                      spec: { containers: [{ name: "main", image: "gcr.io/ecoeng-llmd/llm-d-inference-scheduler:alpn-fix" }] },
                  } as KubeObject)
                : object,
        );
        expect(
            (await runDoctor(memoryReader(objects), {}, NOW)).find((diagnosis) => diagnosis.check === "EPP ALPN h2 under TLS"),
        ).toMatchObject({
            status: "WARN",
            evidence: "gcr.io/ecoeng-llmd/llm-d-inference-scheduler:alpn-fix serves TLS; its version cannot be read",
        });
    });

    test("a user who may not read a kind gets a SKIPPED line for that part; the rest still runs", async () => {
        const reader = memoryReader(clusterState());
        const forbidden = new ClusterAccessError(
            "the kubeconfig's user is not allowed this read",
            EXIT.usage,
            403,
            'customresourcedefinitions.apiextensions.k8s.io is forbidden: User "dev" cannot list',
        );
        const limited = {
            ...reader,
            get: async (ref: Parameters<typeof reader.get>[0]) =>
                ref.kind === "CustomResourceDefinition" ? Promise.reject(forbidden) : reader.get(ref),
        };
        const diagnoses = await runDoctor(limited, {}, NOW);
        expect(diagnoses.filter((diagnosis) => diagnosis.status !== "OK")).toEqual([
            {
                status: "SKIPPED",
                area: "CRDs",
                check: "CRD installed",
                object: "the kubeconfig's user",
                evidence: 'forbidden: customresourcedefinitions.apiextensions.k8s.io is forbidden: User "dev" cannot list',
            },
        ]);
    });

    test("--metrics is checked before the cluster is read: one pod's /metrics needs its service, credentials stay out of URLs", () => {
        const plan = (values: { metrics?: string; "metrics-window"?: string; service?: string[] }) => () =>
            doctorPlan({ "metrics-window": "15m", ...values }, { servingNamespace: "llm-inference" }, { DOCTOR_METRICS_TOKEN: "t" });
        expect(plan({ metrics: "http://127.0.0.1:8000/metrics" })).toThrow(
            new CliError("a /metrics URL is one vLLM pod's: name its service with --service"),
        );
        expect(plan({ metrics: "https://admin:hunter2@prometheus.example/api" })).toThrow(
            new CliError("--metrics must not carry credentials; put a bearer token in DOCTOR_METRICS_TOKEN"),
        );
        expect(plan({ metrics: "http://127.0.0.1:9090", "metrics-window": "a while" })).toThrow(
            new CliError('--metrics-window "a while" is not a Prometheus duration such as 15m'),
        );
        expect(plan({ metrics: "not a url" })).toThrow(new CliError("--metrics is not a URL"));
        expect(plan({ metrics: "http://127.0.0.1:8000/metrics", service: ["qwen2-3b"] })()).toEqual({
            targets: { namespaces: ["llm-inference"], services: { "qwen2-3b": {} } },
            metrics: { url: "http://127.0.0.1:8000/metrics", token: "t", window: "15m" },
        });
    });

    test("a namespace without model services says so", async () => {
        expect(await notOk({ namespaces: ["empty"] })).toEqual([["SKIPPED", "LLMInferenceServices in empty", "model services", undefined]]);
    });

    test("--json spells the lesson out and gives the next step only where something is wrong", () => {
        expect(
            jsonCheck({ status: "FAIL", area: "a", check: "endpoint picker ready", object: "o", evidence: "e", lesson: "epp-alpn" }),
        ).toEqual({
            status: "FAIL",
            area: "a",
            object: "o",
            check: "endpoint picker ready",
            message: "e",
            lesson: { id: "epp-alpn", title: lessonById("epp-alpn").title, link: "docs/lessons.md#epp-alpn" },
            nextStep: lessonById("epp-alpn").recovery,
        });
        expect(
            jsonCheck({ status: "OK", area: "a", check: "endpoint picker ready", object: "o", evidence: "e", lesson: "epp-alpn" }),
        ).toEqual({
            status: "OK",
            area: "a",
            object: "o",
            check: "endpoint picker ready",
            message: "e",
            lesson: { id: "epp-alpn", title: lessonById("epp-alpn").title, link: "docs/lessons.md#epp-alpn" },
        });
    });

    test("the report: failures first, grouped by the part of the stack, then the counts; passing checks only with --verbose", async () => {
        const diagnoses = await runDoctor(memoryReader(clusterState("doctor/gateway-api-disabled", "doctor/scaling-out")), {}, NOW);
        const report = (verbose: boolean) =>
            formatChecks("doctor", diagnoses.map(reportedCheck), { verbose, terminal: plainTerminal(100) }).split("\n");
        // Area headings and the summary start at the margin, each check four spaces in (status, object: check: evidence).
        const outline = (lines: string[]) =>
            lines
                .filter((line) => /^( {4})?\S/.test(line))
                .map((line) => (line.startsWith(" ") ? line.split(": ").slice(0, 2).join(": ") : line));
        expect(outline(report(false))).toEqual([
            "Gateway",
            "    FAIL    GatewayClasses: Gateway API enabled",
            "    FAIL    Gateway inference-gateway/inference-gateway: Gateway programmed",
            "    FAIL    Gateway inference-gateway/inference-gateway: Gateway address",
            "model service llm-inference/qwen2-3b",
            "    WARN    LLMInferenceService llm-inference/qwen2-3b: service ready",
            "    WARN    Pod llm-inference/qwen2-3b-kserve-6c8f9d7b54-z9y8w: pod scheduled",
            "doctor: 3 failed, 2 warnings, 31 OK",
        ]);
        expect(report(false).slice(1, 5)).toEqual([
            "    FAIL    GatewayClasses: Gateway API enabled: the cluster has no GatewayClass",
            "            lesson   : GKE's Gateway API controller is off by default: no GatewayClass, the Gateway",
            "                       stays Unknown (docs/lessons.md#gateway-api-disabled)",
            "            next step: `pulumi up` turns it on (cluster gatewayApiConfig CHANNEL_STANDARD); on a",
        ]);
        // Only a word longer than a line (here a URL in an autoscaler's event) passes the width, on a line of its own.
        expect(report(false).filter((line) => line.length > 100 && line.trim().includes(" "))).toEqual([]);
        const verbose = outline(report(true));
        expect(verbose.slice(0, 9)).toEqual([...outline(report(false)).slice(0, 4), ...verbose.slice(4, 9)]);
        expect(verbose).toContain("controllers");
        expect(verbose).toContain("    OK      Deployment kserve/llmisvc-controller-manager: controller available");
        expect(verbose.at(-1)).toBe("doctor: 3 failed, 2 warnings, 31 OK");
    });
});

/** A loopback HTTP server answering every request with `respond`, and the requests it saw. */
async function loopback(respond: (url: URL) => { status: number; body: string }) {
    const seen: Array<{ url: string; authorization?: string }> = [];
    const server = http.createServer((req, res) => {
        const url = new URL(req.url ?? "/", "http://loopback");
        seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
        const { status, body } = respond(url);
        res.writeHead(status).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const close = () =>
        new Promise<void>((resolve) => {
            server.close(() => resolve());
            // fetch keeps connections alive; close them rather than wait for their idle timeout.
            server.closeAllConnections();
        });
    return { url: `http://127.0.0.1:${port}`, seen, close };
}

/** A Prometheus query API's answer to an instant query: one sample of `value`. */
const promResult = (value: string) =>
    JSON.stringify({ status: "success", data: { resultType: "vector", result: [{ metric: {}, value: [1763630000, value] }] } });

describe("prefix-cache hits from metrics (the prefix-cache lesson's symptom)", () => {
    test("a query API: hits while prompts arrive pass, zero hits fail, no prompts skip; the token goes in the header", async () => {
        const answers: Record<string, string> = {};
        const api = await loopback((url) => {
            const query = url.searchParams.get("query") ?? "";
            return { status: 200, body: promResult(query.includes("hits") ? answers.hits : answers.queries) };
        });
        try {
            const source = { url: `${api.url}/v1/projects/demo/location/global/prometheus`, token: "ya29.secret", window: "15m" };
            Object.assign(answers, { queries: "12800", hits: "0" });
            expect(await prefixCacheCheck(source, "llm-inference", "qwen2-3b")).toEqual({
                status: "FAIL",
                check: "prefix-cache hits while prompts arrive",
                object: SERVICE,
                evidence: "0 hits of 12800 prefix-cache queries over the last 15m",
                lesson: "prefix-cache-zero",
            });
            Object.assign(answers, { queries: "12800", hits: "9216" });
            expect((await prefixCacheCheck(source, "llm-inference", "qwen2-3b")).status).toBe("OK");
            Object.assign(answers, { queries: "0", hits: "0" });
            expect((await prefixCacheCheck(source, "llm-inference", "qwen2-3b")).status).toBe("SKIPPED");
            expect(decodeURIComponent(api.seen[0].url)).toBe(
                '/v1/projects/demo/location/global/prometheus/api/v1/query?query=sum(increase(vllm:prefix_cache_queries_total{namespace="llm-inference",model_service="qwen2-3b"}[15m]))',
            );
            expect(api.seen.every((request) => request.authorization === "Bearer ya29.secret")).toBe(true);
        } finally {
            await api.close();
        }
    });

    test("a vLLM pod's /metrics page: counters summed across label sets; an unreadable endpoint fails without echoing the token", async () => {
        const page = [
            "# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.",
            "# TYPE vllm:prefix_cache_queries_total counter",
            'vllm:prefix_cache_queries_total{engine="0",model_name="Qwen/Qwen2.5-3B-Instruct"} 4096.0',
            'vllm:prefix_cache_queries_total{engine="1",model_name="Qwen/Qwen2.5-3B-Instruct"} 1024.0',
            'vllm:prefix_cache_hits_total{engine="0",model_name="Qwen/Qwen2.5-3B-Instruct"} 0.0',
            "vllm:prefix_cache_hits_total_created 1763630000.0",
        ].join("\n");
        expect(sumSamples(page, "vllm:prefix_cache_queries_total")).toBe(5120);
        expect(sumSamples(page, "vllm:prefix_cache_hits_total")).toBe(0);
        const pod = await loopback((url) =>
            url.pathname === "/metrics" ? { status: 200, body: page } : { status: 401, body: "unauthorized" },
        );
        try {
            expect(await prefixCacheCheck({ url: `${pod.url}/metrics`, window: "15m" }, "llm-inference", "qwen2-3b")).toMatchObject({
                status: "FAIL",
                evidence: "0 hits of 5120 prefix-cache queries since the pod started",
                lesson: "prefix-cache-zero",
            });
            const denied = await prefixCacheCheck(
                { url: `${pod.url}/api`, token: "ya29.secret", window: "15m" },
                "llm-inference",
                "qwen2-3b",
            );
            expect(denied.status).toBe("FAIL");
            expect(denied.evidence).toBe(`metrics unreadable: HTTP 401 from ${pod.url}: unauthorized`);
        } finally {
            await pod.close();
        }
    });
});

describe("the doctor CLI against a loopback API server", () => {
    const CONTEXT = "gke_acme_europe-west4_tpu-inference-dev";
    let dir: string;
    beforeAll(() => {
        dir = fs.mkdtempSync(path.join(os.tmpdir(), "doctor-"));
    });

    /** Runs `npm run doctor` (as its script) against a fake cluster of `objects`. */
    const doctor = (objects: KubeObject[], args: string[], env: Record<string, string> = {}) =>
        runCliAgainstCluster("doctor.ts", objects, args, { dir, context: CONTEXT, env });

    /** The doctor's `--json` document. */
    type DoctorJson = { summary: Record<string, number>; checks: Array<ReturnType<typeof jsonCheck>> };

    test("a healthy stack through the real client, read-only: --json on stdout, progress on stderr, exit 0", async () => {
        const gateway = await loopback((url) =>
            url.pathname === "/llm-inference/qwen2-3b/health" ? { status: 200, body: "" } : { status: 404, body: "" },
        );
        const outputs = writeStackOutputs(path.join(dir, "outputs.json"), {
            caIssuerName: "tpu-inference-ca-issuer",
            models: {
                "qwen2-3b": {
                    pattern: "pattern1",
                    baseUrl: `${gateway.url}/llm-inference/qwen2-3b`,
                    modelName: "Qwen/Qwen2.5-3B-Instruct",
                },
            },
        });
        try {
            const run = await doctor(clusterState(), ["--outputs", outputs, "--context", CONTEXT, "--json"]);
            expect(run.status).toBe(0);
            expect(run.requests.every((request) => request.startsWith("GET "))).toBe(true);
            const report = JSON.parse(run.stdout) as DoctorJson;
            expect(report.summary).toEqual({ failed: 0, warnings: 0, skipped: 0, ok: 35 });
            expect(report.checks.find((check) => check.check === "/health through the Gateway")).toEqual({
                status: "OK",
                area: "model service llm-inference/qwen2-3b",
                object: SERVICE,
                check: "/health through the Gateway",
                message: `GET ${gateway.url}/llm-inference/qwen2-3b/health: HTTP 200`,
            });
            // Off a terminal, one line a step, each naming the API server.
            expect(run.stderr.replace(/http:\/\/127\.0\.0\.1:\d+/g, "SERVER")).toBe(
                [
                    "listing nodes and LLMInferenceServices in llm-inference (SERVER)",
                    "checking 1 model service: qwen2-3b (SERVER)",
                    "checking the platform: Gateway, CRDs, controllers, cert-manager (SERVER)",
                    "",
                ].join("\n"),
            );
        } finally {
            await gateway.close();
        }
    });

    test("a crash-looping vLLM and a TLS-speaking Gateway: the log read through the pod's log subresource, the lessons named, exit 1", async () => {
        const gateway = await loopback(() => ({
            status: 503,
            body: "upstream connect error or disconnect/reset before headers. reset reason: remote connection failure, transport failure reason: TLS_error:|268435703:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER:TLS_error_end",
        }));
        const outputs = path.join(dir, "outputs-tls.json");
        fs.writeFileSync(outputs, JSON.stringify({ models: { "qwen2-3b": { baseUrl: `${gateway.url}/llm-inference/qwen2-3b` } } }));
        try {
            const run = await doctor(clusterState(...overlaysOf("crashloop-unknown-flag")), ["--outputs", outputs, "--json"]);
            expect(run.status).toBe(1);
            const { checks } = JSON.parse(run.stdout) as DoctorJson;
            const failed = (check: string) => checks.find((candidate) => candidate.check === check && candidate.status === "FAIL");
            expect(failed("container running")).toMatchObject({
                message: expect.stringContaining("vLLM rejected a flag: error: unrecognized arguments: --prefix-cache-block-size=16"),
                lesson: { id: "vllm-flag", link: "docs/lessons.md#vllm-flag" },
            });
            expect(failed("/health through the Gateway")).toMatchObject({
                message: expect.stringMatching(/HTTP 503: upstream connect error .*WRONG_VERSION_NUMBER:TLS_error_end$/),
                lesson: { id: "https-app-protocol", link: "docs/lessons.md#https-app-protocol" },
            });
            expect(run.requests).toContain(
                "GET /api/v1/namespaces/llm-inference/pods/qwen2-3b-kserve-6c8f9d7b54-x2x4p/log?container=main&previous=true&tailLines=40",
            );
        } finally {
            await gateway.close();
        }
    });

    test("--metrics on a Pattern 3 service: zero hits while prompts arrive fail with the prefix-cache lesson; the token only in the header", async () => {
        const prometheus = await loopback((url) => ({
            status: 200,
            body: promResult((url.searchParams.get("query") ?? "").includes("hits") ? "0" : "12800"),
        }));
        const outputs = path.join(dir, "outputs-pattern3.json");
        fs.writeFileSync(outputs, JSON.stringify({ servingNamespace: "llm-inference", models: { "qwen2-3b": { pattern: "pattern3" } } }));
        const token = "ya29.doctor-metrics-secret";
        try {
            const run = await doctor(
                clusterState(),
                [
                    "--outputs",
                    outputs,
                    "--metrics",
                    `${prometheus.url}/v1/projects/acme/location/global/prometheus`,
                    "--metrics-window",
                    "30m",
                ],
                { DOCTOR_METRICS_TOKEN: token, COLUMNS: "160" },
            );
            expect(run.status).toBe(1);
            // The report as a user reads it: only the failure, its lesson and next step, then the counts.
            expect(run.stdout.split("\n")).toEqual([
                "model service llm-inference/qwen2-3b",
                `    FAIL    ${SERVICE}: prefix-cache hits while prompts arrive: 0 hits of 12800 prefix-cache queries over the last 30m`,
                `            lesson   : ${lessonById("prefix-cache-zero").title}`,
                `                       (${lessonLink("prefix-cache-zero")})`,
                expect.stringMatching(/^ {12}next step: /),
                ...run.stdout.split("\n").slice(5, -3),
                "",
                "doctor: 1 failed, 35 OK",
                "",
            ]);
            expect(
                run.stdout
                    .split("\n")
                    .slice(5, -3)
                    .every((line) => line.startsWith(" ".repeat(23))),
            ).toBe(true);
            expect(prometheus.seen.map((request) => decodeURIComponent(request.url))).toEqual([
                expect.stringContaining(
                    'sum(increase(vllm:prefix_cache_queries_total{namespace="llm-inference",model_service="qwen2-3b"}[30m]))',
                ),
                expect.stringContaining(
                    'sum(increase(vllm:prefix_cache_hits_total{namespace="llm-inference",model_service="qwen2-3b"}[30m]))',
                ),
            ]);
            expect(prometheus.seen.every((request) => request.authorization === `Bearer ${token}`)).toBe(true);
            expect(run.stdout + run.stderr).not.toContain(token);
        } finally {
            await prometheus.close();
        }
    });

    test("an unknown context is one line naming the ones there are, exit 2; FORCE_COLOR colours it even on a pipe", async () => {
        const unknown = await doctor(clusterState(), ["--context", "nope"], { FORCE_COLOR: "1" });
        expect(unknown.status).toBe(2);
        expect(unknown.stderr).toBe(`\x1b[31merror:\x1b[39m kubeconfig has no context "nope"; it has ${CONTEXT}\n`);
    });

    test("an API server that refuses connections: one line naming it, exit 2, no stack trace; NO_COLOR wins over FORCE_COLOR", async () => {
        const port = await closedPort();
        const kubeconfig = writeKubeconfig(path.join(dir, "refused.yaml"), `http://127.0.0.1:${port}`);
        const run = await runCli("doctor.ts", [], { KUBECONFIG: kubeconfig, FORCE_COLOR: "1", NO_COLOR: "1" });
        expect(run.status).toBe(EXIT.usage);
        expect(run.stderr.split("\n").filter((line) => line.startsWith("error"))).toEqual([
            `error: cannot reach the API server at http://127.0.0.1:${port}: connection refused; check that the cluster is up, or run $(pulumi stack output kubeconfigCommand) if its address changed`,
        ]);
        expect(run.stderr).not.toMatch(/^\s+at /m);
    });

    test("an API server that accepts connections and never answers: the request timeout, or else the deadline, ends it with exit 3", async () => {
        const silent = net.createServer(() => undefined);
        await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
        const server = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
        const kubeconfig = writeKubeconfig(path.join(dir, "silent.yaml"), server);
        const timed = async (args: string[]) => {
            const started = Date.now();
            const run = await runCli("doctor.ts", args, { KUBECONFIG: kubeconfig });
            return { ...run, seconds: (Date.now() - started) / 1000 };
        };
        try {
            const [request, deadline] = await Promise.all([
                timed(["--request-timeout", "1", "--deadline", "20"]),
                timed(["--request-timeout", "20", "--deadline", "2"]),
            ]);
            expect([request.status, request.stderr.split("\n").at(-2)]).toEqual([
                EXIT.timedOut,
                `error: the API server at ${server} did not answer within 1 s (--request-timeout): check that the cluster is up and reachable from here`,
            ]);
            expect([deadline.status, deadline.stderr.split("\n").at(-2)]).toEqual([
                EXIT.timedOut,
                "error: npm run doctor did not finish within its 2 s deadline; --deadline SECONDS allows longer",
            ]);
            // Node's start and the TypeScript hook take about a second on a busy machine.
            expect(request.seconds).toBeLessThan(1 + 4);
            expect(deadline.seconds).toBeLessThan(2 + 4);
        } finally {
            silent.close();
        }
    });
});

describe("Pattern 2: the body-based router, its extension, what it knows, and each name through the Gateway's root", () => {
    const GATEWAY = { namespace: "inference-gateway", name: "inference-gateway" };
    const routerObjects = (options: { labelled?: boolean; extension?: boolean } = {}): KubeObject[] => [
        {
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name: "body-based-router", namespace: GATEWAY.namespace },
            spec: { replicas: 2 },
            status: { readyReplicas: 2, conditions: [{ type: "Available", status: "True", reason: "MinimumReplicasAvailable" }] },
        },
        ...(options.extension === false
            ? []
            : [
                  {
                      apiVersion: "networking.gke.io/v1",
                      kind: "GCPRoutingExtension",
                      metadata: { name: "body-based-router", namespace: GATEWAY.namespace },
                      spec: { targetRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: GATEWAY.name }] },
                  },
              ]),
        {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: {
                name: "qwen2-3b-models",
                namespace: GATEWAY.namespace,
                labels: options.labelled === false ? {} : { "inference.networking.k8s.io/bbr-managed": "true" },
            },
            data: { baseModel: "Qwen/Qwen2.5-3B-Instruct", adapters: '- "qwen-sql"\n' },
        },
    ];

    /** A Gateway root whose router and services answer every name correctly. */
    async function routedRoot(): Promise<{ url: string; close: () => Promise<void> }> {
        const server = http.createServer((req, res) => {
            let body = "";
            req.on("data", (chunk) => (body += chunk));
            req.on("end", () => {
                const { model } = JSON.parse(body) as { model: string };
                res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ model }));
            });
        });
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        const { port } = server.address() as AddressInfo;
        return { url: `http://127.0.0.1:${port}/v1`, close: () => new Promise((resolve) => server.close(() => resolve())) };
    }

    test("the outputs' modelRouting turns the checks on; a healthy router passes each, names reached by their service", async () => {
        const root = await routedRoot();
        try {
            const targets = targetsFromOutputs({
                servingNamespace: "llm-inference",
                gateway: GATEWAY,
                models: { "qwen2-3b": { pattern: "pattern1" } },
                modelRouting: { url: root.url, models: { "Qwen/Qwen2.5-3B-Instruct": "qwen2-3b", "qwen-sql": "qwen2-3b" }, curl: "…" },
            });
            expect(targets.modelRouting).toEqual({
                url: root.url,
                models: { "Qwen/Qwen2.5-3B-Instruct": "qwen2-3b", "qwen-sql": "qwen2-3b" },
            });
            const diagnoses = await runDoctor(memoryReader([...clusterState(), ...routerObjects()]), targets, NOW);
            expect(
                diagnoses
                    .filter((diagnosis) => /router|extension|reaches/.test(diagnosis.check))
                    .map((d) => [d.status, d.object, d.check, d.evidence]),
            ).toEqual([
                ["OK", "Deployment inference-gateway/body-based-router", "body-based router ready replicas", "2 of 2 ready"],
                [
                    "OK",
                    "GCPRoutingExtension inference-gateway/body-based-router",
                    "routing extension on the Gateway",
                    "targets Gateway inference-gateway",
                ],
                [
                    "OK",
                    "ConfigMap inference-gateway/qwen2-3b-models",
                    "router knows the service's models",
                    "Qwen/Qwen2.5-3B-Instruct, qwen-sql",
                ],
                [
                    "OK",
                    "LLMInferenceService qwen2-3b",
                    "model name reaches its service",
                    `"Qwen/Qwen2.5-3B-Instruct" at /v1/chat/completions: POST ${root.url}/chat/completions: HTTP 200 from Qwen/Qwen2.5-3B-Instruct`,
                ],
                [
                    "OK",
                    "LLMInferenceService qwen2-3b",
                    "model name reaches its service",
                    `"qwen-sql" at /v1/chat/completions: POST ${root.url}/chat/completions: HTTP 200 from qwen-sql`,
                ],
            ]);
        } finally {
            await root.close();
        }
    });

    test("a router with one replica of two ready warns, with none ready fails: the root's requests all pass through it", () => {
        const router = (readyReplicas?: number): KubeObject => ({
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name: "body-based-router", namespace: GATEWAY.namespace },
            spec: { replicas: 2 },
            status: readyReplicas === undefined ? {} : { readyReplicas },
        });
        const why = "kubectl -n inference-gateway describe deployment body-based-router and its pods say why";
        expect(routerReplicas(router(1), GATEWAY.namespace)).toEqual({
            status: "WARN",
            check: "body-based router ready replicas",
            object: "Deployment inference-gateway/body-based-router",
            evidence: "1 of 2 ready: one more restart or drain and requests at the Gateway's root fail",
            fix: why,
        });
        expect(routerReplicas(router(), GATEWAY.namespace)).toMatchObject({
            status: "FAIL",
            evidence: "0 of 2 ready: every request at the Gateway's root fails",
            fix: why,
        });
        expect(routerReplicas(undefined, GATEWAY.namespace)).toMatchObject({ status: "FAIL", evidence: "not found" });
    });

    test("no extension and an unlabelled ConfigMap fail, each saying what GKE or the router then does", async () => {
        // A port that was just free: nothing listens there, so the request fails too, naming why.
        const closed = await routedRoot();
        await closed.close();
        const targets: DoctorTargets = {
            namespaces: ["llm-inference"],
            gateway: GATEWAY,
            modelRouting: { url: closed.url, models: { "Qwen/Qwen2.5-3B-Instruct": "qwen2-3b" } },
        };
        const diagnoses = await runDoctor(
            memoryReader([...clusterState(), ...routerObjects({ labelled: false, extension: false })]),
            targets,
            NOW,
        );
        expect(
            diagnoses
                .filter((diagnosis) => /router|extension|reaches/.test(diagnosis.check) && diagnosis.status !== "OK")
                .map((d) => [d.check, d.evidence, d.fix]),
        ).toEqual([
            [
                "routing extension on the Gateway",
                "not found",
                "without it GKE never calls the router and no request at the Gateway's root matches a route; run `pulumi up`",
            ],
            [
                "router knows the service's models",
                "no inference.networking.k8s.io/bbr-managed=true label: the router ignores it",
                "the router sets an empty base-model header for a name no ConfigMap lists, and the Gateway answers 404; run `pulumi up`",
            ],
            [
                "model name reaches its service",
                expect.stringMatching(/^"Qwen\/Qwen2.5-3B-Instruct" at \/v1\/chat\/completions: .*ECONNREFUSED/),
                "check the Gateway's address and that this machine may reach it",
            ],
        ]);
    });
});
