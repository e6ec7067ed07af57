/**
 * A GKE Gateway in front of vLLM as the Gateway lessons' pack tests declare it: the Gateway (HTTPS only), a route to an
 * InferencePool or a vLLM Service, GKE's health check and backend policy (with Cloud Armor) on the pool.
 */
import * as gcp from "@pulumi/gcp";
import * as k8s from "@pulumi/kubernetes";
import { LABELS, Obj, meta, template, tpuPod, vllm } from "./lessonObjects";

/** Gateway `inference` in namespace `gateway`, of class `className`, with an HTTPS listener only. */
export const gkeGateway = (className = "gke-l7-regional-external-managed") =>
    new k8s.apiextensions.CustomResource("gateway", {
        apiVersion: "gateway.networking.k8s.io/v1",
        kind: "Gateway",
        metadata: meta("inference", "gateway"),
        // HTTPS only, as lesson open-endpoint asks (test/lessons/open-endpoint.test.ts judges the rest).
        spec: {
            gatewayClassName: className,
            listeners: [{ name: "https", protocol: "HTTPS", port: 443, tls: { certificateRefs: [{ name: "inference-tls" }] } }],
        },
    });

/** HTTPRoute `completions` on the Gateway, one rule forwarding to `backend` on port 8000, with `extra` on the rule. */
export const route = (backend: Obj, extra: Obj = {}) =>
    new k8s.apiextensions.CustomResource("route", {
        apiVersion: "gateway.networking.k8s.io/v1",
        kind: "HTTPRoute",
        metadata: meta("completions"),
        spec: {
            parentRefs: [{ name: "inference", namespace: "gateway" }],
            rules: [{ backendRefs: [{ port: 8000, ...backend }], ...extra }],
        },
    });

/** InferencePool `qwen-pool` of the `qwen` pods on port 8000, its endpoint picker `qwen-epp`. */
export const pool = () =>
    new k8s.apiextensions.CustomResource("pool", {
        apiVersion: "inference.networking.k8s.io/v1",
        kind: "InferencePool",
        metadata: meta("qwen-pool"),
        spec: {
            selector: { matchLabels: LABELS },
            targetPorts: [{ number: 8000 }],
            endpointPickerRef: { name: "qwen-epp", port: { number: 9002 } },
        },
    });

/** The InferencePool as a backendRef or a policy's targetRef names it. */
export const poolBackend = { group: "inference.networking.k8s.io", kind: "InferencePool", name: "qwen-pool" };

/** GKE's HealthCheckPolicy with `config`, on `target`. */
export const healthCheck = (config: Obj, target: Obj = poolBackend) =>
    new k8s.apiextensions.CustomResource("health", {
        apiVersion: "networking.gke.io/v1",
        kind: "HealthCheckPolicy",
        metadata: meta("qwen"),
        spec: { default: { config }, targetRef: target },
    });

/** GKE's GCPBackendPolicy on `target` with `timeoutSec`, naming a Cloud Armor policy the program declares. */
export const backendPolicy = (timeoutSec: number, target: Obj = poolBackend) => {
    // The Cloud Armor policy it names: an allowlist, then a default that denies.
    new gcp.compute.RegionSecurityPolicy("armor", {
        name: "gateway-access",
        region: "europe-west4",
        type: "CLOUD_ARMOR",
        rules: [
            { priority: 1000, action: "allow", match: { versionedExpr: "SRC_IPS_V1", config: { srcIpRanges: ["203.0.113.0/24"] } } },
            { priority: 2147483647, action: "deny(403)", match: { versionedExpr: "SRC_IPS_V1", config: { srcIpRanges: ["*"] } } },
        ],
    });
    return new k8s.apiextensions.CustomResource("backend", {
        apiVersion: "networking.gke.io/v1",
        kind: "GCPBackendPolicy",
        metadata: meta("qwen"),
        // Cloud Armor on the backend, as lesson open-endpoint asks.
        spec: { default: { timeoutSec, securityPolicy: "gateway-access" }, targetRef: target },
    });
};

/** Deployment `vllm` whose pods run vLLM on TPU, plain HTTP on port 8000. */
export const vllmDeployment = () =>
    new k8s.apps.v1.Deployment("vllm", {
        metadata: meta("vllm"),
        spec: { selector: { matchLabels: LABELS }, template: template(tpuPod([vllm()])) as never },
    });

/** Service `vllm` in front of the vLLM pods, port 8000 with `port`'s fields. */
export const service = (port: Obj) =>
    new k8s.core.v1.Service("svc", {
        metadata: meta("vllm"),
        spec: { selector: LABELS, ports: [{ port: 8000, targetPort: 8000, ...port }] },
    });

/** A program: the pool behind the Gateway with its route and a backend policy of `timeout`, and a health check of `health`. */
export const servedPool =
    (health: Obj | undefined, timeout = 600) =>
    () => {
        gkeGateway();
        pool();
        route(poolBackend);
        backendPolicy(timeout);
        if (health) {
            healthCheck(health);
        }
    };
