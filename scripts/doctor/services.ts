/**
 * A model service's checks outside its pods: KServe says it is Ready; its HTTPRoute is on the v1 InferencePool group and
 * accepted by the Gateway (not refused for timeouts); GKE's health checks probe /health over HTTP on every backend the
 * route uses and are attached, as is the backend policy; no Service in front of vLLM says `appProtocol: https`.
 */
import {
    INFERENCE_POOL_KIND,
    KSERVE,
    KSERVE_STOP_ANNOTATION,
    KSERVE_CHILDREN,
    MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS,
    TPU_MULTI_HOST,
    VLLM_PORT,
} from "@gke-tpu-inference/facts";
import {
    acceptedByGateway,
    describeCondition,
    eppTlsRule,
    findCondition,
    gatewayProviderOf,
    gkePolicyAttached,
    inferencePoolMigration,
} from "../cluster/checks";
import type { KubeObject, ObjectReader } from "../cluster/kube";
import type { LessonId } from "./lessons";
import type { GatewayRef } from "./platform";
import { type KubeEvent, POD_SCHEDULED } from "./pods";
import { Diagnosis, objectName } from "./report";

/** Known causes in a message anywhere a controller reports one, and the lesson each matches. */
export const KNOWN_MESSAGES: ReadonlyArray<{ pattern: RegExp; lesson: LessonId }> = [
    { pattern: /GWCER104|Timeouts are not supported/, lesson: "routeTimeouts" },
    { pattern: /no matches for kind "?LeaderWorkerSet"?/, lesson: "lwsMissing" },
    { pattern: /InvalidKind|inference\.networking\.x-k8s\.io/, lesson: "inferencePoolGroup" },
    { pattern: /WRONG_VERSION_NUMBER/, lesson: "httpsAppProtocol" },
];

/** The lesson a message matches, if any. */
export function lessonForMessage(message: string): LessonId | undefined {
    return KNOWN_MESSAGES.find((known) => known.pattern.test(message))?.lesson;
}

type BackendRef = { group?: string; kind?: string; name?: string; port?: number };
type TargetRef = { group?: string; kind?: string; name?: string };

/** The distinct backends a route sends to. */
function routeBackends(route: KubeObject): BackendRef[] {
    const refs = ((route.spec as { rules?: Array<{ backendRefs?: BackendRef[] }> } | undefined)?.rules ?? []).flatMap(
        (rule) => rule.backendRefs ?? [],
    );
    const seen = new Map(refs.map((ref) => [`${ref.kind ?? "Service"}/${ref.name}`, ref]));
    return [...seen.values()];
}

/** Whether a policy's targetRef names a backend (by kind and name: the InferencePool may still be on the alpha group). */
function targets(policy: KubeObject, backend: BackendRef): boolean {
    const target = (policy.spec as { targetRef?: TargetRef } | undefined)?.targetRef;
    return (target?.kind ?? "") === (backend.kind ?? "Service") && target?.name === backend.name;
}

/** KServe's own verdict on the service: its Ready condition, and the first part that is not ready (a roll-up when none is). */
export function serviceReady(service: KubeObject, workload: readonly Diagnosis[] = []): Diagnosis {
    const object = objectName("LLMInferenceService", service.metadata!.name!, service.metadata?.namespace);
    const status = (service.status ?? {}) as {
        conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
        workloads?: { primary?: { readyReplicas?: number } };
    };
    const conditions = status.conditions ?? [];
    const ready = findCondition(conditions, "Ready");
    if (ready?.status === "True") {
        return { status: "OK", check: "service ready", object, evidence: describeCondition(ready) };
    }
    const rollUps: readonly string[] = KSERVE.rollUpConditions;
    const notReady = conditions.filter((condition) => condition.type !== "Ready" && condition.status === "False");
    const cause = notReady.find((condition) => !rollUps.includes(condition.type)) ?? notReady[0] ?? ready;
    const evidence = cause ? describeCondition(cause) : "no Ready condition yet";
    // KServe's Ready follows the Deployment's Available, False through a scale-out of two or three replicas: the service
    // still serves while its router is ready, a replica is, and only the workload waits.
    const serving = status.workloads?.primary?.readyReplicas ?? 0;
    const workloadOnly = notReady.filter((condition) => !rollUps.includes(condition.type));
    const workloadConditions: readonly string[] = KSERVE.workloadConditions;
    if (
        serving > 0 &&
        findCondition(conditions, KSERVE.routerReadyCondition)?.status === "True" &&
        workloadOnly.length > 0 &&
        workloadOnly.every((condition) => workloadConditions.includes(condition.type))
    ) {
        const serves = `serving on ${serving} ready replica${serving === 1 ? "" : "s"}`;
        const unplaced = workload.find((diagnosis) => diagnosis.check === POD_SCHEDULED && diagnosis.status === "FAIL");
        return unplaced
            ? {
                  status: "FAIL",
                  check: "service ready",
                  object,
                  evidence: `scale-out stuck, ${serves}: a new replica cannot be placed (${unplaced.evidence})`,
                  ...(unplaced.lesson ? { lesson: unplaced.lesson } : { fix: unplaced.fix }),
              }
            : {
                  status: "WARN",
                  check: "service ready",
                  object,
                  evidence: `scaling out, ${serves}; ${evidence}`,
                  fix: "a new replica waits for a TPU node and its start (the pod checks below); KServe reports Ready once it serves",
              };
    }
    const lesson = lessonForMessage(evidence);
    return {
        status: "FAIL",
        check: "service ready",
        object,
        evidence,
        ...(lesson ? { lesson } : { fix: "the checks below name the part that is not ready" }),
    };
}

/**
 * A multi-host service's groups: LeaderWorkerSet recreates a whole group when one of its pods restarts or goes away, so a
 * group that cannot start (a host that never joins Ray in time, a probe shorter than the start) loops without a restart
 * count on any pod. Its events on the LeaderWorkerSet say so.
 */
export function groupRestarts(service: string, namespace: string, events: readonly KubeEvent[]): Diagnosis {
    const name = KSERVE_CHILDREN.workloadLeaderWorkerSet(service);
    const object = objectName("LeaderWorkerSet", name, namespace);
    const recreated = events.filter(
        (event) =>
            event.reason === TPU_MULTI_HOST.recreateGroupEvent &&
            event.involvedObject?.kind === "LeaderWorkerSet" &&
            event.involvedObject.name === name,
    );
    if (recreated.length === 0) {
        return { status: "OK", check: "groups not recreated", object, evidence: `no ${TPU_MULTI_HOST.recreateGroupEvent} events` };
    }
    const times = recreated.reduce((sum, event) => sum + (event.count ?? 1), 0);
    const time = (event: KubeEvent) => event.lastTimestamp ?? event.eventTime ?? "";
    const newest = [...recreated].sort((a, b) => time(a).localeCompare(time(b))).pop()?.message;
    return {
        status: "FAIL",
        check: "groups not recreated",
        object,
        evidence: `recreated ${times} time${times === 1 ? "" : "s"}, last: ${newest}`,
        fix: "a pod of the group restarted and LeaderWorkerSet started the whole group again: the group's pods' previous logs say why (Ray not formed within the preset's wait, the startup probe, a worker crash)",
    };
}

/**
 * The route's checks: v1 InferencePool group, accepted by the Gateway; behind GKE's Gateway, health checks and backend
 * policy on its backends; behind Istio's, TLS to the EPP.
 */
export async function routeChecks(reader: ObjectReader, namespace: string, service: string, gateway: GatewayRef): Promise<Diagnosis[]> {
    const name = `${service}${KSERVE_CHILDREN.routeSuffix}`;
    const object = objectName("HTTPRoute", name, namespace);
    const route = await reader.get({ apiVersion: "gateway.networking.k8s.io/v1", kind: "HTTPRoute", namespace, name });
    if (!route) {
        return [
            {
                status: "FAIL",
                check: "route exists",
                object,
                evidence: "KServe has not created the route",
                fix: "the service's Ready conditions say why; KServe creates it once the service's router is reconciled",
            },
        ];
    }
    const migration = inferencePoolMigration(route);
    const accepted = acceptedByGateway(route, gateway);
    const results: Diagnosis[] = [
        {
            status: migration.ok ? "OK" : "FAIL",
            check: `backends on ${INFERENCE_POOL_KIND.group}`,
            object,
            evidence: migration.detail,
            ...(migration.ok ? {} : { lesson: "inferencePoolGroup" as const }),
        },
        {
            status: accepted.ok ? "OK" : "FAIL",
            check: `accepted by Gateway ${gateway.namespace}/${gateway.name}`,
            object,
            evidence: accepted.detail,
            ...(accepted.ok ? {} : lessonOrFix(accepted.detail, "kubectl describe httproute: the Gateway's conditions say why")),
        },
    ];
    const gatewayObject = await reader.get({ apiVersion: "gateway.networking.k8s.io/v1", kind: "Gateway", ...gateway });
    const provider = gatewayProviderOf((gatewayObject?.spec as { gatewayClassName?: unknown } | undefined)?.gatewayClassName);
    if (provider === "istio") {
        const tls = eppTlsRule(await reader.list("networking.istio.io/v1", "DestinationRule", namespace), namespace, service);
        results.push({
            status: tls.ok ? "OK" : "FAIL",
            check: "EPP reached over TLS",
            object: objectName("Service", `${service}${KSERVE_CHILDREN.eppServiceSuffix}`, namespace),
            evidence: tls.detail,
            ...(tls.ok ? {} : { fix: "a DestinationRule with trafficPolicy.tls.mode SIMPLE for the EPP Service (`pulumi up` makes it)" }),
        });
    }
    if (provider !== "gke") {
        return results;
    }
    const backends = routeBackends(route);
    const [healthPolicies, backendPolicies] = await Promise.all([
        reader.list("networking.gke.io/v1", "HealthCheckPolicy", namespace),
        reader.list("networking.gke.io/v1", "GCPBackendPolicy", namespace),
    ]);
    for (const backend of backends) {
        results.push(
            healthCheck(
                backend,
                namespace,
                healthPolicies.filter((policy) => targets(policy, backend)),
            ),
        );
        if (backend.kind === INFERENCE_POOL_KIND.kind) {
            results.push(
                backendTimeout(
                    backend,
                    namespace,
                    backendPolicies.filter((policy) => targets(policy, backend)),
                ),
            );
        }
    }
    return results;
}

/** The lesson a failure's evidence matches, or the generic fix. */
function lessonOrFix(evidence: string, fix: string): Pick<Diagnosis, "lesson" | "fix"> {
    const lesson = lessonForMessage(evidence);
    return lesson ? { lesson } : { fix };
}

/** One backend's HealthCheckPolicy: HTTP, /health, the vLLM port, attached. */
function healthCheck(backend: BackendRef, namespace: string, policies: KubeObject[]): Diagnosis {
    const backendPort = backend.port;
    const object = objectName(backend.kind ?? "Service", backend.name ?? "", namespace);
    const check = "health check /health over HTTP";
    if (policies.length === 0) {
        return {
            status: "FAIL",
            check,
            object,
            evidence: "no HealthCheckPolicy targets it: GKE probes / by default",
            lesson: "healthChecks",
        };
    }
    type Config = { type?: string; httpHealthCheck?: { requestPath?: string; port?: number; portSpecification?: string } };
    const configOf = (policy: KubeObject) => (policy.spec as { default?: { config?: Config } }).default?.config;
    // vLLM's port, fixed or (for a backend serving on it) the serving port.
    const probesHealth = (config: Config | undefined) =>
        config?.type === "HTTP" &&
        config.httpHealthCheck?.requestPath === "/health" &&
        (config.httpHealthCheck.port === VLLM_PORT ||
            (backendPort === VLLM_PORT && config.httpHealthCheck.portSpecification === "USE_SERVING_PORT"));
    const policy = policies.find((candidate) => probesHealth(configOf(candidate))) ?? policies[0];
    const config = configOf(policy);
    const probe = `HealthCheckPolicy ${policy.metadata!.name}: ${config?.type ?? "(no type)"} ${config?.httpHealthCheck?.requestPath ?? "/"} port ${config?.httpHealthCheck?.port ?? config?.httpHealthCheck?.portSpecification ?? "(serving port)"}`;
    if (!probesHealth(config)) {
        return { status: "FAIL", check, object, evidence: probe, lesson: "healthChecks" };
    }
    const attached = gkePolicyAttached(policy, `HealthCheckPolicy ${policy.metadata!.name}`);
    return attached.ok
        ? { status: "OK", check, object, evidence: `${probe}; ${attached.detail}` }
        : { status: "FAIL", check, object, evidence: attached.detail, lesson: "healthChecks" };
}

/** The InferencePool's GCPBackendPolicy: attached, with a timeout long enough for a generation. */
function backendTimeout(backend: BackendRef, namespace: string, policies: KubeObject[]): Diagnosis {
    const object = objectName(INFERENCE_POOL_KIND.kind, backend.name ?? "", namespace);
    const check = `backend timeout >= ${MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS} s`;
    if (policies.length === 0) {
        return {
            status: "FAIL",
            check,
            object,
            evidence: "no GCPBackendPolicy targets it: GCP's default is 30 s",
            lesson: "backendTimeout",
        };
    }
    const policy = policies[0];
    const timeout = (policy.spec as { default?: { timeoutSec?: number } }).default?.timeoutSec;
    const attached = gkePolicyAttached(policy, `GCPBackendPolicy ${policy.metadata!.name}`);
    const evidence = `timeoutSec ${timeout ?? "(unset: 30)"}; ${attached.detail}`;
    const ok = attached.ok && timeout !== undefined && timeout >= MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS;
    return { status: ok ? "OK" : "FAIL", check, object, evidence, ...(ok ? {} : { lesson: "backendTimeout" as const }) };
}

/** Whether a Service's selector picks pods with `labels`. */
function selects(service: KubeObject, labels: Record<string, string>): boolean {
    const selector = (service.spec as { selector?: Record<string, string> } | undefined)?.selector ?? {};
    const entries = Object.entries(selector);
    return entries.length > 0 && entries.every(([key, value]) => labels[key] === value);
}

/** No Service that selects the service's vLLM pods names a port `appProtocol: https`. */
export async function appProtocolChecks(
    reader: ObjectReader,
    namespace: string,
    service: string,
    workloadPods: KubeObject[],
): Promise<Diagnosis[]> {
    const podLabels =
        workloadPods.length > 0
            ? workloadPods.map((pod) => (pod.metadata?.labels ?? {}) as Record<string, string>)
            : [KSERVE_CHILDREN.workloadLabels(service)];
    const services = (await reader.list("v1", "Service", namespace)).filter((candidate) =>
        podLabels.some((labels) => selects(candidate, labels)),
    );
    return services.map((candidate): Diagnosis => {
        const ports = (candidate.spec as { ports?: Array<{ name?: string; port?: number; appProtocol?: string }> }).ports ?? [];
        const https = ports.filter((port) => /^https$/i.test(port.appProtocol ?? ""));
        const object = objectName("Service", candidate.metadata!.name!, namespace);
        const described = (list: typeof ports) =>
            list.map((port) => `port ${port.name ?? port.port} appProtocol ${port.appProtocol ?? "(unset)"}`).join(", ");
        return https.length === 0
            ? { status: "OK", check: "no HTTPS to vLLM", object, evidence: described(ports) || "no ports" }
            : { status: "FAIL", check: "no HTTPS to vLLM", object, evidence: described(https), lesson: "httpsAppProtocol" };
    });
}

/** How long the Gateway may take to answer /health. */
const GATEWAY_REQUEST_TIMEOUT_MS = 15_000;

/** `/health` through the Gateway at the service's base URL answers 200 from vLLM over plain HTTP. */
export async function gatewayHealth(baseUrl: string, namespace: string, service: string): Promise<Diagnosis> {
    const check = "/health through the Gateway";
    const object = objectName("LLMInferenceService", service, namespace);
    const url = `${baseUrl.replace(/\/+$/, "")}/health`;
    try {
        const response = await fetch(url, { signal: AbortSignal.timeout(GATEWAY_REQUEST_TIMEOUT_MS) });
        const body = (await response.text()).slice(0, 240).replace(/\s+/g, " ").trim();
        const evidence = `GET ${url}: HTTP ${response.status}${body ? `: ${body}` : ""}`;
        return response.status === 200
            ? { status: "OK", check, object, evidence: `GET ${url}: HTTP 200` }
            : {
                  status: "FAIL",
                  check,
                  object,
                  evidence,
                  ...lessonOrFix(body, "the route and health-check checks above name the broken part"),
              };
    } catch (err) {
        const reason =
            (err as Error).name === "TimeoutError"
                ? `no answer within ${GATEWAY_REQUEST_TIMEOUT_MS / 1000} s`
                : String((err as Error).cause ?? (err as Error).message);
        return {
            status: "FAIL",
            check,
            object,
            evidence: `GET ${url}: ${reason}`,
            fix: "check the Gateway's address and that this machine may reach it",
        };
    }
}

/** Whether KServe was told to stop the service (the stack's `paused`). */
export function isStopped(service: KubeObject): boolean {
    return service.metadata?.annotations?.[KSERVE_STOP_ANNOTATION] === "true";
}
