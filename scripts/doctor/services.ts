/**
 * A model service's checks outside its pods: KServe says it is Ready; its HTTPRoute is on the v1 InferencePool group and
 * accepted by the Gateway (not refused for timeouts); GKE's health checks probe /health over HTTP on every backend the
 * route uses and are attached, as is the backend policy; no Service in front of vLLM says `appProtocol: https`.
 */
import {
    BackendRef,
    INFERENCE_POOL_KIND,
    KSERVE,
    KSERVE_STOP_ANNOTATION,
    KSERVE_CHILDREN,
    MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS,
    TPU_MULTI_HOST,
    VllmPod,
    backendTimeoutProblem,
    backendTimeoutSeconds,
    describeHealthCheck,
    healthCheckOf,
    healthCheckProblem,
    httpsDeclaration,
    inferencePoolTargetPorts,
    isInferencePoolBackend,
    kindOf,
    plainHttpVllmPods,
    portsToPlainHttpVllm,
    routeBackendRefs,
    serviceTargetPorts,
    targetsBackend,
} from "@gke-tpu-inference/facts";
import {
    acceptedByGateway,
    describeCondition,
    eppTlsRule,
    findCondition,
    GatewayProvider,
    gatewayProvider,
    gkePolicyAttached,
    inferencePoolMigration,
} from "../cluster/checks";
import { KSERVE_UNROUTED } from "../cluster/fleet";
import { GatewayClient, TRUST_THE_STACK_CA, gatewayRequest, isTlsVerificationError } from "../cluster/gatewayRequest";
import type { KubeObject, ObjectReader } from "../cluster/kube";
import type { LessonId } from "@gke-tpu-inference/facts";
import type { GatewayRef } from "./platform";
import { type KubeEvent, POD_SCHEDULED } from "./pods";
import { Diagnosis, objectName } from "./report";

/** Known causes in a message anywhere a controller reports one, and the lesson each matches. */
export const KNOWN_MESSAGES: ReadonlyArray<{ pattern: RegExp; lesson: LessonId }> = [
    { pattern: /GWCER104|Timeouts are not supported/, lesson: "route-timeouts" },
    { pattern: /no matches for kind "?LeaderWorkerSet"?/, lesson: "lws-missing" },
    { pattern: /InvalidKind|inference\.networking\.x-k8s\.io/, lesson: "inference-pool-group" },
    { pattern: /WRONG_VERSION_NUMBER/, lesson: "https-app-protocol" },
];

/** The lesson a message matches, if any. */
export function lessonForMessage(message: string): LessonId | undefined {
    return KNOWN_MESSAGES.find((known) => known.pattern.test(message))?.lesson;
}

/** KServe's own verdict on the service: its Ready condition, and the first part that is not ready (a roll-up when none is). */
export function serviceReady(service: KubeObject, workload: readonly Diagnosis[] = []): Diagnosis {
    const object = objectName("LLMInferenceService", service.metadata!.name!, service.metadata?.namespace);
    const status = (service.status ?? {}) as {
        conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
        workloads?: { primary?: { readyReplicas?: number } };
    };
    const all = status.conditions ?? [];
    const ready = findCondition(all, "Ready");
    if (ready?.status === "True") {
        return { status: "OK", check: "service ready", object, evidence: describeCondition(ready) };
    }
    // A service without a route (a fleet member's) is never accepted by a Gateway: KServe's WaitingForGateway is its steady state.
    const unrouted = (service.spec as { router?: { route?: unknown } } | undefined)?.router?.route === undefined;
    const waitsForGateway = (condition: { status: string; reason?: string }) =>
        unrouted && condition.status === "False" && condition.reason === KSERVE_UNROUTED.reason;
    const conditions = all.filter((condition) => !waitsForGateway(condition));
    if (ready !== undefined && waitsForGateway(ready) && !conditions.some((condition) => condition.status === "False")) {
        const waiting = findCondition(all, KSERVE_UNROUTED.condition) ?? ready;
        return {
            status: "OK",
            check: "service ready",
            object,
            evidence: `${describeCondition(waiting)}: expected without a route (a fleet member's service is routed by the config cluster's Gateway)`,
        };
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
    const router = findCondition(all, KSERVE.routerReadyCondition);
    if (
        serving > 0 &&
        router !== undefined &&
        (router.status === "True" || waitsForGateway(router)) &&
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
export async function routeChecks(
    reader: ObjectReader,
    namespace: string,
    service: string,
    gateway: GatewayRef,
    statedProvider?: GatewayProvider,
): Promise<Diagnosis[]> {
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
            ...(migration.ok ? {} : { lesson: "inference-pool-group" as const }),
        },
        {
            status: accepted.ok ? "OK" : "FAIL",
            check: "accepted by the Gateway",
            object,
            evidence: `Gateway ${gateway.namespace}/${gateway.name}: ${accepted.detail}`,
            ...(accepted.ok ? {} : lessonOrFix(accepted.detail, "kubectl describe httproute: the Gateway's conditions say why")),
        },
    ];
    // The stack's outputs say who programs its Gateway; a stack without that output is judged by the Gateway's class.
    const provider =
        statedProvider ??
        gatewayProvider(undefined, await reader.get({ apiVersion: "gateway.networking.k8s.io/v1", kind: "Gateway", ...gateway }));
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
    const backends = routeBackendRefs(route, namespace);
    const [healthPolicies, backendPolicies] = await Promise.all([
        reader.list("networking.gke.io/v1", "HealthCheckPolicy", namespace),
        reader.list("networking.gke.io/v1", "GCPBackendPolicy", namespace),
    ]);
    const targeting = (policies: KubeObject[], backend: BackendRef) =>
        policies.filter((policy) => targetsBackend(policy, namespace, backend));
    for (const backend of backends) {
        results.push(healthCheck(backend, targeting(healthPolicies, backend), await servingPorts(reader, backend)));
        if (isInferencePoolBackend(backend)) {
            results.push(backendTimeout(backend, targeting(backendPolicies, backend)));
        }
    }
    return results;
}

/** The ports a backend's endpoints serve on, as its InferencePool or Service says; undefined when it cannot be read. */
async function servingPorts(reader: ObjectReader, backend: BackendRef): Promise<number[] | undefined> {
    if (isInferencePoolBackend(backend)) {
        const version = backend.group === INFERENCE_POOL_KIND.group ? "v1" : "v1alpha2";
        const pool = await reader.get({
            apiVersion: `${backend.group}/${version}`,
            kind: backend.kind,
            namespace: backend.namespace,
            name: backend.name,
        });
        return inferencePoolTargetPorts(pool?.spec as Record<string, unknown> | undefined);
    }
    const service = await reader.get({ apiVersion: "v1", kind: "Service", namespace: backend.namespace, name: backend.name });
    return service && backend.kind === "Service" ? serviceTargetPorts(service, backend.port) : undefined;
}

/** The lesson a failure's evidence matches, or the generic fix. */
function lessonOrFix(evidence: string, fix: string): Pick<Diagnosis, "lesson" | "fix"> {
    const lesson = lessonForMessage(evidence);
    return lesson ? { lesson } : { fix };
}

/** One backend's HealthCheckPolicy: HTTP, /health, on a port where the backend serves, attached. */
function healthCheck(backend: BackendRef, policies: KubeObject[], ports: number[] | undefined): Diagnosis {
    const object = objectName(backend.kind, backend.name, backend.namespace);
    const check = "health check /health over HTTP";
    if (policies.length === 0) {
        return {
            status: "FAIL",
            check,
            object,
            evidence: "no HealthCheckPolicy targets it: GKE probes / by default",
            lesson: "health-checks",
        };
    }
    const problemOf = (policy: KubeObject) => healthCheckProblem(policy.metadata!.name!, backend, healthCheckOf(policy), ports);
    const policy = policies.find((candidate) => problemOf(candidate) === undefined) ?? policies[0];
    const problem = problemOf(policy);
    if (problem !== undefined) {
        return { status: "FAIL", check, object, evidence: problem, lesson: "health-checks" };
    }
    const probe = `HealthCheckPolicy ${policy.metadata!.name}: ${describeHealthCheck(healthCheckOf(policy))}`;
    const attached = gkePolicyAttached(policy, `HealthCheckPolicy ${policy.metadata!.name}`);
    return attached.ok
        ? { status: "OK", check, object, evidence: `${probe}; ${attached.detail}` }
        : { status: "FAIL", check, object, evidence: attached.detail, lesson: "health-checks" };
}

/** The InferencePool's GCPBackendPolicy: attached, with a timeout long enough for a generation. */
function backendTimeout(backend: BackendRef, policies: KubeObject[]): Diagnosis {
    const object = objectName(backend.kind, backend.name, backend.namespace);
    const check = `backend timeout >= ${MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS} s`;
    const policy = policies[0];
    const problem = backendTimeoutProblem(backend, policy, MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS);
    if (policy === undefined || problem !== undefined) {
        return { status: "FAIL", check, object, evidence: problem ?? "", lesson: "backend-timeout" };
    }
    const attached = gkePolicyAttached(policy, `GCPBackendPolicy ${policy.metadata!.name}`);
    const evidence = `timeoutSec ${backendTimeoutSeconds(policy)}; ${attached.detail}`;
    return { status: attached.ok ? "OK" : "FAIL", check, object, evidence, ...(attached.ok ? {} : { lesson: "backend-timeout" as const }) };
}

/**
 * No Service in front of the service's vLLM pods (those serving plain HTTP, or KServe's workload pods when none runs)
 * tells GKE to speak TLS to them: an `appProtocol: https` port, or one named https without an appProtocol.
 */
export async function appProtocolChecks(
    reader: ObjectReader,
    namespace: string,
    service: string,
    workloadPods: KubeObject[],
): Promise<Diagnosis[]> {
    const vllmPods: VllmPod[] =
        workloadPods.length > 0
            ? workloadPods.flatMap((pod) => plainHttpVllmPods(kindOf("v1", "Pod"), pod, namespace))
            : [{ namespace, labels: KSERVE_CHILDREN.workloadLabels(service), vllmPorts: [], otherPorts: [] }];
    const services = (await reader.list("v1", "Service", namespace))
        .map((candidate) => ({ candidate, ports: portsToPlainHttpVllm(candidate, namespace, vllmPods) }))
        .filter(({ ports }) => ports.length > 0);
    return services.map(({ candidate, ports }): Diagnosis => {
        const object = objectName("Service", candidate.metadata!.name!, namespace);
        const https = ports.flatMap((port) => {
            const declaration = httpsDeclaration(port);
            return declaration === undefined ? [] : [`port ${port.name ?? port.port} declares ${declaration}`];
        });
        return https.length === 0
            ? {
                  status: "OK",
                  check: "no HTTPS to vLLM",
                  object,
                  evidence: ports.map((port) => `port ${port.name ?? port.port} appProtocol ${port.appProtocol ?? "(unset)"}`).join(", "),
              }
            : { status: "FAIL", check: "no HTTPS to vLLM", object, evidence: https.join(", "), lesson: "https-app-protocol" };
    });
}

/** How long the Gateway may take to answer /health. */
const GATEWAY_REQUEST_TIMEOUT_MS = 15_000;

/**
 * `/health` through the Gateway at the service's base URL answers 200 from vLLM over plain HTTP. The request trusts
 * `client`'s CA (the stack's own signs the Gateway's certificate) and presents its credentials: the allowlist lets this
 * machine in, an identity check (IAP, Istio's Google ID tokens) also wants the token.
 */
export async function gatewayHealth(
    baseUrl: string,
    namespace: string,
    service: string,
    client: GatewayClient = { credentials: {} },
): Promise<Diagnosis> {
    const check = "/health through the Gateway";
    const object = objectName("LLMInferenceService", service, namespace);
    const url = `${baseUrl.replace(/\/+$/, "")}/health`;
    try {
        const response = await gatewayRequest(url, { method: "GET" }, client, GATEWAY_REQUEST_TIMEOUT_MS);
        const body = response.text.slice(0, 240).replace(/\s+/g, " ").trim();
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
            fix: isTlsVerificationError(err) ? TRUST_THE_STACK_CA : "check the Gateway's address and that this machine may reach it",
        };
    }
}

/** Whether KServe was told to stop the service (the stack's `paused`). */
export function isStopped(service: KubeObject): boolean {
    return service.metadata?.annotations?.[KSERVE_STOP_ANNOTATION] === "true";
}
