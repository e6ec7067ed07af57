/**
 * Objects the lessons' pack tests declare as a program does: vLLM on TPU written the usual way, the places pods hide in,
 * and TPU node pools and the node affinity that selects them.
 */
import * as gcp from "@pulumi/gcp";
import * as k8s from "@pulumi/kubernetes";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { IMAGES } from "@gke-tpu-inference/facts";

export type Obj = Record<string, unknown>;

export const TPU_SELECTOR = { "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "2x2" };
export const TPU_TOLERATIONS = [{ key: "google.com/tpu", operator: "Exists", effect: "NoSchedule" }];
export const HEALTH = { httpGet: { path: "/health", port: 8000 } };

/** A persistent XLA compilation cache, which every vLLM TPU server here keeps whatever other variables it sets. */
export const XLA_CACHE_ENV = { name: "VLLM_XLA_CACHE_PATH", value: "gs://acme-models/xla-cache/qwen/2x2/v0.27.0" };

/** A vLLM server container on a 2x2 TPU v6e VM that breaks no lesson; an `env` override comes after the cache's variable. */
export function vllm({
    env = [{ name: "HF_TOKEN", valueFrom: { secretKeyRef: { name: "hf-token", key: "HF_TOKEN" } } }],
    ...overrides
}: Obj = {}): Obj {
    return {
        name: "main",
        image: IMAGES.vllmTpu,
        command: ["vllm", "serve"],
        args: ["Qwen/Qwen2.5-3B-Instruct", "--port=8000", "--tensor-parallel-size=4"],
        env: [XLA_CACHE_ENV, ...(env as Obj[])],
        ports: [{ name: "http", containerPort: 8000 }],
        resources: { requests: { "google.com/tpu": "4" }, limits: { "google.com/tpu": "4" } },
        startupProbe: { ...HEALTH, periodSeconds: 5, failureThreshold: 180 },
        livenessProbe: HEALTH,
        readinessProbe: HEALTH,
        ...overrides,
    };
}

/** The container every pod-location case runs: an unpinned image and a flag vLLM rejects. */
export const BROKEN = vllm({
    image: "vllm/vllm-tpu:latest",
    args: ["Qwen/Qwen2.5-3B-Instruct", "--port=8000", "--prefix-cache-block-size=16"],
});

export function tpuPod(containers: Obj[], scheduling: Obj = { nodeSelector: TPU_SELECTOR }): Obj {
    return { ...scheduling, tolerations: TPU_TOLERATIONS, containers };
}

export const LABELS = { app: "qwen" };
export const template = (pod: Obj) => ({ metadata: { labels: LABELS }, spec: pod });
export const meta = (name = "w", namespace = "models") => ({ name, namespace });

/** A Deployment named `w` whose pods run `container` on TPU, placed by `scheduling`. */
export function tpuDeployment(container: Obj, scheduling: Obj = { nodeSelector: TPU_SELECTOR }): k8s.apps.v1.Deployment {
    return new k8s.apps.v1.Deployment("w", {
        metadata: meta(),
        spec: { selector: { matchLabels: LABELS }, template: template(tpuPod([container], scheduling)) as never },
    });
}

/** An LLMInferenceService `name` of Qwen2.5-3B-Instruct with `spec`. */
export function llmInferenceService(spec: Obj, name = "qwen"): k8s.apiextensions.CustomResource {
    return new k8s.apiextensions.CustomResource(name, {
        apiVersion: "serving.kserve.io/v1alpha2",
        kind: "LLMInferenceService",
        metadata: meta(name),
        spec: { model: { uri: "hf://Qwen/Qwen2.5-3B-Instruct", name: "Qwen/Qwen2.5-3B-Instruct" }, ...spec },
    });
}

/** A required node affinity that selects the TPU `accelerator` and `topology` values in one term. */
export function tpuAffinity(accelerator: string[], topology: string[]): Obj {
    return {
        affinity: {
            nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                    nodeSelectorTerms: [
                        {
                            matchExpressions: [
                                { key: "cloud.google.com/gke-tpu-accelerator", operator: "In", values: accelerator },
                                { key: "cloud.google.com/gke-tpu-topology", operator: "In", values: topology },
                            ],
                        },
                    ],
                },
            },
        },
    };
}

/** A program that declares Deployment `w`, its pods running `container` on TPU placed by `scheduling`. */
export const tpuWorkload =
    (scheduling: Obj, container: Obj = vllm()) =>
    () =>
        tpuDeployment(container, scheduling);

/** A program that declares NodePool `tpu` of `machineType` in `zone`. */
export const tpuNodePool =
    (machineType: string, zone = "europe-west4-a") =>
    () =>
        new gcp.container.NodePool("tpu", {
            cluster: "c",
            location: "europe-west4",
            nodeLocations: [zone],
            nodeConfig: { machineType, serviceAccount: "nodes@acme.iam.gserviceaccount.com" },
        });

/** A program that runs each of `parts`. */
export const programOf =
    (...parts: Array<() => unknown>) =>
    () =>
        parts.forEach((part) => part());

export function tempDir(): string {
    return fs.mkdtempSync(path.join(os.tmpdir(), "lessons-"));
}
