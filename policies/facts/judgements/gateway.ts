/**
 * Which Gateways can serve an InferencePool: of GKE's own GatewayClasses only the regional ones (field report: a global
 * class's Gateway got an address and never a healthy InferencePool backend); another implementation's class (Istio's)
 * is that implementation's to judge.
 */
import { GATEWAY_CLASSES, GKE_GATEWAY_CLASS_PREFIX } from "../catalog";

/** True for GKE's own GatewayClasses. */
export function isGkeGatewayClass(className: unknown): className is string {
    return typeof className === "string" && className.startsWith(GKE_GATEWAY_CLASS_PREFIX);
}

/** Whether a Gateway of `className` serves InferencePool backends: `allowed` classes do, GKE's others never, another implementation's may. */
export function gatewayClassServesInference(
    className: unknown,
    allowed: readonly string[] = GATEWAY_CLASSES.regional,
): "serves" | "never" | "not GKE's" {
    if (typeof className === "string" && allowed.includes(className)) {
        return "serves";
    }
    return isGkeGatewayClass(className) ? "never" : "not GKE's";
}
