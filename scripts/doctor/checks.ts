/**
 * Every check `npm run doctor` makes, by the name its report gives it, with the lessons of the registry
 * (policies/facts/lessons) a failure of it can name: a diagnosis names no other check, and docs/lessons.md lists each
 * lesson's checks from here (npm run docs:lessons).
 */
import { INFERENCE_POOL_KIND, LessonId, MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS } from "@gke-tpu-inference/facts";

export const DOCTOR_CHECKS = {
    "Gateway API enabled": ["gateway-api-disabled"],
    "Gateway exists": ["gateway-api-disabled"],
    "GatewayClass regional": ["global-gateway-class"],
    "Gateway programmed": ["gateway-api-disabled"],
    "Gateway address": ["gateway-api-disabled"],
    "istiod serves InferencePool": ["ext-proc-modes"],
    "ext_proc sends the EPP what it picks by": ["ext-proc-modes"],
    "CRD installed": ["inference-pool-group", "lws-missing", "platform-controllers"],
    "controllers available": ["platform-controllers"],
    "controller available": ["platform-controllers"],
    "issuer ready": ["rsa-ca"],
    "CA certificate ready": ["rsa-ca"],
    "CA key RSA": ["rsa-ca"],
    "model services": ["kserve-conditions"],
    "service exists": ["kserve-conditions"],
    "service ready": ["tpu-capacity", "lws-missing", "kserve-conditions"],
    "route exists": ["kserve-conditions"],
    [`backends on ${INFERENCE_POOL_KIND.group}` as const]: ["inference-pool-group"],
    "accepted by the Gateway": ["route-timeouts", "inference-pool-group"],
    "EPP reached over TLS": ["epp-alpn"],
    "health check /health over HTTP": ["health-checks"],
    [`backend timeout >= ${MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS} s` as const]: ["backend-timeout"],
    "no HTTPS to vLLM": ["https-app-protocol"],
    "/health through the Gateway": ["https-app-protocol"],
    "pod scheduled": ["tpu-zones", "tpu-capacity", "tpu-selector", "tpu-reservation", "tpu-quota", "tpu-flex-start"],
    "image pulled": ["pinned-images"],
    "container running": ["startup-budget", "vllm-flag"],
    "pod ready": ["startup-budget", "http-probes"],
    "groups not recreated": ["whole-slice-groups"],
    "EPP ALPN h2 under TLS": ["epp-alpn"],
    "endpoint picker ready": ["kserve-conditions"],
    "prefix-cache hits while prompts arrive": ["prefix-cache-zero"],
    "body-based router ready replicas": ["body-based-routing"],
    "routing extension on the Gateway": ["body-based-routing"],
    "router knows the service's models": ["body-based-routing"],
    "model name reaches its service": ["body-based-routing"],
    "TPU node in the capacity plan": ["tpu-capacity", "tpu-flex-start"],
    "ComputeClass healthy": ["tpu-capacity", "tpu-reservation"],
    "ComputeClass priority not backed off": ["tpu-capacity", "tpu-reservation", "tpu-quota"],
    "Gateway certificate issued": ["open-endpoint"],
    "HTTPS listener serves the certificate": ["open-endpoint"],
    "security policy attached": ["open-endpoint"],
    "rate limit present": ["open-endpoint"],
    "Model Armor extension accepted": ["open-endpoint"],
    "TPU capacity": ["tpu-capacity", "tpu-zones", "tpu-quota", "tpu-reservation", "tpu-flex-start"],
    "pool exported": ["fleet-exports"],
    "multi-cluster GatewayClass": ["gateway-api-disabled"],
    "Gateway address per region": ["gateway-api-disabled"],
    "import present": ["fleet-exports"],
    "exported by every member": ["fleet-exports"],
    "route to the import accepted": ["fleet-exports", "route-timeouts"],
    "import health check attached": ["import-health-checks"],
    "import backend policy attached": ["backend-timeout"],
} as const satisfies Record<string, readonly LessonId[]>;

/** One of the doctor's checks. */
export type DoctorCheck = keyof typeof DOCTOR_CHECKS;

/** The checks that can report lesson `id`, in the order the doctor lists them. */
export function checksOfLesson(id: LessonId): DoctorCheck[] {
    return (Object.keys(DOCTOR_CHECKS) as DoctorCheck[]).filter((check) => (DOCTOR_CHECKS[check] as readonly LessonId[]).includes(id));
}
