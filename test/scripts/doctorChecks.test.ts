import { CliError, EXIT } from "../../scripts/cli";
import { plainTerminal } from "../../scripts/cli/terminal";
import { formatChecks } from "../../scripts/cli/checks";
import { ClusterAccessError } from "../../scripts/cluster/access";
import type { KubeObject } from "../../scripts/cluster/kube";
import { doctorPlan } from "../../scripts/doctor";
import { runDoctor, targetsFromOutputs } from "../../scripts/doctor/diagnose";
import { lessonById } from "@gke-tpu-inference/facts";
import { jsonCheck, reportedCheck } from "../../scripts/doctor/report";
import { clusterState } from "../fakeCluster";
import { memoryReader } from "../memoryCluster";
import { EPP, NOW, POD, notOk, overlaysOf } from "./doctorStates";

describe("npm run doctor over recorded states", () => {
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
            gatewayClient: { credentials: {} },
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
            "doctor: 3 failed, 2 warnings, 32 OK",
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
        expect(verbose.at(-1)).toBe("doctor: 3 failed, 2 warnings, 32 OK");
    });
});
