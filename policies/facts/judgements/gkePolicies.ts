/**
 * GKE's policies on an inference backend, judged one way for the pack and the live tools: the HealthCheckPolicy must
 * probe vLLM's /health over plain HTTP on a port where the backend serves, and the GCPBackendPolicy must let a long
 * completion finish. Sources: {@link SOURCES.gkeHealthCheckPort}, {@link SOURCES.gkeBackendPolicy}.
 */
import { GCP_DEFAULT_BACKEND_TIMEOUT_SECONDS, VLLM_HEALTH_PATH } from "../catalog";
import { BackendRef, describeBackend } from "./backends";
import { KubeProps } from "./objects";

/** How GKE picks the port a health check probes. */
export type PortSpecification = "USE_FIXED_PORT" | "USE_NAMED_PORT" | "USE_SERVING_PORT";

/** What a HealthCheckPolicy makes GKE probe. */
export interface HealthCheck {
    type: unknown;
    requestPath: string;
    portSpecification: PortSpecification;
    /** Whether the policy names its portSpecification (without one, its CRD admits no port: see healthCheckProblem). */
    portSpecificationSet: boolean;
    port?: number;
    portName?: string;
}

/**
 * The health check a HealthCheckPolicy configures: its type, its HTTP request path (GKE's default `/`), and its port as
 * GKE reads it: the portSpecification, else a fixed port when it names a port, a named port when it names one, the
 * serving port when it names neither.
 */
export function healthCheckOf(policy: KubeProps): HealthCheck {
    const config: KubeProps = policy.spec?.default?.config ?? {};
    const http: KubeProps = config.httpHealthCheck ?? {};
    const port = typeof http.port === "number" ? http.port : undefined;
    const portName = typeof http.portName === "string" ? http.portName : undefined;
    const portSpecification: PortSpecification =
        http.portSpecification ?? (port !== undefined ? "USE_FIXED_PORT" : portName !== undefined ? "USE_NAMED_PORT" : "USE_SERVING_PORT");
    return {
        type: config.type,
        requestPath: http.requestPath ?? "/",
        portSpecification,
        portSpecificationSet: http.portSpecification !== undefined,
        ...(port !== undefined ? { port } : {}),
        ...(portName !== undefined ? { portName } : {}),
    };
}

/** A health check in a few words: `HTTP /health port 8000`, `HTTP /health serving port`. */
export function describeHealthCheck(check: HealthCheck): string {
    const port =
        check.portSpecification === "USE_FIXED_PORT"
            ? `port ${check.port ?? "(none)"}`
            : check.portSpecification === "USE_NAMED_PORT"
              ? `port ${check.portName ?? "(none)"}`
              : "serving port";
    return `${check.type ?? "(no type)"} ${check.requestPath} ${port}`;
}

/**
 * What is wrong with a HealthCheckPolicy's check of `backend`, whose endpoints serve on `servingPorts` (undefined when
 * unknown), or undefined when it probes vLLM's health where vLLM answers: type HTTP, path /health, and the serving port
 * or a fixed port among the serving ports. GKE's network endpoint groups have no named ports.
 */
export function healthCheckProblem(
    policyName: string,
    backend: BackendRef,
    check: HealthCheck,
    servingPorts: readonly number[] | undefined,
): string | undefined {
    const prefix = `HealthCheckPolicy ${policyName} checks`;
    if (String(check.type ?? "").toUpperCase() !== "HTTP") {
        return `${prefix} ${describeBackend(backend)} with type ${JSON.stringify(check.type ?? null)}; vLLM serves plain HTTP, so use type HTTP.`;
    }
    if (check.requestPath !== VLLM_HEALTH_PATH) {
        return `${prefix} ${JSON.stringify(check.requestPath)} on ${describeBackend(backend)}; vLLM answers health checks on ${VLLM_HEALTH_PATH}.`;
    }
    if (!check.portSpecificationSet && (check.port !== undefined || check.portName !== undefined)) {
        // gke-gateway-api fc40d606 networking.gke.io_healthcheckpolicies.yaml:124-128 (x-kubernetes-validations).
        return `${prefix} ${describeBackend(backend)} on ${check.port !== undefined ? `port ${check.port}` : `port ${JSON.stringify(check.portName)}`} without a portSpecification, which the API server rejects: unset, it is USE_SERVING_PORT, which takes no port; set portSpecification USE_FIXED_PORT with the port, or drop the port.`;
    }
    if (check.portSpecification === "USE_NAMED_PORT") {
        return `${prefix} ${describeBackend(backend)} on the named port ${JSON.stringify(check.portName ?? null)}; GKE's network endpoint groups have no named ports, so use USE_SERVING_PORT or a fixed port.`;
    }
    if (check.portSpecification === "USE_FIXED_PORT" && servingPorts !== undefined && !servingPorts.includes(check.port ?? NaN)) {
        return `${prefix} port ${check.port ?? "(none)"} on ${describeBackend(backend)}, which serves on ${servingPorts.join(", ")}; GKE would probe a port vLLM does not answer on, so use port ${servingPorts[0]} or USE_SERVING_PORT.`;
    }
    return undefined;
}

/** The timeout a GCPBackendPolicy gives its backend, GCP's default when it sets none. */
export function backendTimeoutSeconds(policy: KubeProps | undefined): number {
    const timeout: unknown = policy?.spec?.default?.timeoutSec;
    return timeout === undefined ? GCP_DEFAULT_BACKEND_TIMEOUT_SECONDS : Number(timeout);
}

/** What is wrong with the backend timeout of an inference backend (its GCPBackendPolicy, or none), or undefined when it is at least `minimum`. */
export function backendTimeoutProblem(backend: BackendRef, policy: KubeProps | undefined, minimum: number): string | undefined {
    if (policy === undefined) {
        return `${describeBackend(backend)} has no GCPBackendPolicy, so GCP cuts requests off after ${GCP_DEFAULT_BACKEND_TIMEOUT_SECONDS} s; set timeoutSec to at least ${minimum}.`;
    }
    const timeout = backendTimeoutSeconds(policy);
    return timeout < minimum
        ? `GCPBackendPolicy ${policy.metadata?.name} gives ${describeBackend(backend)} a timeout of ${timeout} s; inference needs at least ${minimum}.`
        : undefined;
}
