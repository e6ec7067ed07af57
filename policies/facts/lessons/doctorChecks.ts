/**
 * Every check `npm run doctor` makes, by the name its report gives it. Each lesson names the checks that diagnose it,
 * and the doctor can report no other.
 */
import { INFERENCE_POOL_KIND, MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS } from "../catalog";

export const DOCTOR_CHECKS = [
    "Gateway API enabled",
    "Gateway exists",
    "GatewayClass regional",
    "Gateway programmed",
    "Gateway address",
    "istiod serves InferencePool",
    "ext_proc sends the EPP what it picks by",
    "CRD installed",
    "controllers available",
    "controller available",
    "issuer ready",
    "CA certificate ready",
    "CA key RSA",
    "model services",
    "service exists",
    "service ready",
    "route exists",
    `backends on ${INFERENCE_POOL_KIND.group}`,
    "accepted by the Gateway",
    "EPP reached over TLS",
    "health check /health over HTTP",
    `backend timeout >= ${MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS} s`,
    "no HTTPS to vLLM",
    "/health through the Gateway",
    "pod scheduled",
    "image pulled",
    "container running",
    "pod ready",
    "groups not recreated",
    "EPP ALPN h2 under TLS",
    "endpoint picker ready",
    "prefix-cache hits while prompts arrive",
    "body-based router ready replicas",
    "routing extension on the Gateway",
    "router knows the service's models",
    "model name reaches its service",
    "TPU node in the capacity plan",
    "ComputeClass healthy",
    "ComputeClass priority not backed off",
] as const;

/** One of the doctor's checks. */
export type DoctorCheck = (typeof DOCTOR_CHECKS)[number];
