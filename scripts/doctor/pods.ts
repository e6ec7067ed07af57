/**
 * A model service's pods: why a vLLM pod is Pending (no TPU node matches, the pool is at its maximum, GKE has no capacity),
 * why it crash-loops (its last termination and log tail against known causes), whether its startup probe killed it before
 * the model was up; and whether the endpoint picker runs an image with the ALPN fix when it serves TLS, and is Ready.
 */
import {
    EPP_MINIMUM_VERSIONS,
    EndpointPickerVerdict,
    MINIMUM_TPU_STARTUP_SECONDS,
    TPU_NODE,
    endpointPickerProblem,
    eppServesTls,
    judgeEndpointPicker,
    probeWindowSeconds,
} from "@gke-tpu-inference/facts";
import { describeCondition, findCondition } from "../cluster/checks";
import type { KubeObject, ObjectReader } from "../cluster/kube";
import type { LessonId } from "@gke-tpu-inference/facts";
import { pendingCapacity } from "./capacity";
import { Diagnosis, objectName } from "./report";

/** Lines of a crashed container's previous log read for its cause. */
export const LOG_TAIL_LINES = 40;

type Probe = { initialDelaySeconds?: number; periodSeconds?: number; failureThreshold?: number };
type Container = { name: string; image?: string; args?: string[]; command?: string[]; startupProbe?: Probe };
type ContainerState = {
    waiting?: { reason?: string; message?: string };
    running?: { startedAt?: string };
    terminated?: { reason?: string; message?: string; exitCode?: number };
};
type ContainerStatus = { name: string; ready?: boolean; restartCount?: number; state?: ContainerState; lastState?: ContainerState };
type PodSpec = { containers?: Container[]; nodeSelector?: Record<string, string> };
type PodStatus = { phase?: string; conditions?: unknown; containerStatuses?: ContainerStatus[]; initContainerStatuses?: ContainerStatus[] };
/** A core/v1 Event as the doctor reads it. */
export type KubeEvent = {
    reason?: string;
    message?: string;
    involvedObject?: { kind?: string; name?: string };
    lastTimestamp?: string;
    eventTime?: string;
    /** How many times it happened, deduplicated. */
    count?: number;
};
type Event = KubeEvent;

/** The check a Pending pod's diagnosis answers; the service's readiness reads it for a stuck scale-out. */
export const POD_SCHEDULED = "pod scheduled";

/** Causes a crashed vLLM container's log shows, and what each means. */
export const LOG_CAUSES: ReadonlyArray<{
    pattern: RegExp;
    what: string;
    lesson?: LessonId;
    fix?: string | ((match: RegExpExecArray) => string);
}> = [
    {
        // Cloud Storage's 403 names the principal, the permission and the resource kind.
        pattern: /.*does not have (storage\.\w+\.\w+) access to the Google Cloud Storage (bucket|object).*/,
        what: "Cloud Storage refused the server",
        fix: (match) =>
            `its Workload Identity principal lacks ${match[1]} on the ${match[2]} it reads (its weights or its compilation cache; docs/explanation/cold-start.md#least-privilege): ` +
            "`pulumi up` grants it; a grant made minutes ago may still be applying (typically 2 minutes, sometimes 7 or more)",
    },
    { pattern: /error: unrecognized arguments: .*/, what: "vLLM rejected a flag", lesson: "vllm-flag" },
    {
        pattern: /.*(?:RESOURCE_EXHAUSTED|[Oo]ut of memory|OutOfMemory).*/,
        what: "the model does not fit the TPU's memory",
        fix: "lower maxModelLen, or use a machine type with more chips (tpuMachineType)",
    },
    {
        pattern: /.*(?:401 Client Error|GatedRepoError|Invalid user token|Repository Not Found|Cannot access gated repo).*/,
        what: "Hugging Face refused the download",
        fix: "set the token with access to the model: pulumi config set --secret hfToken <token>, then `pulumi up`",
    },
];

/** Pod waiting reasons that mean the image could not be pulled. */
const IMAGE_PULL_REASONS = ["ErrImagePull", "ImagePullBackOff", "InvalidImageName"];

/** Stockout words GKE and GCE use when a zone has no capacity for the machine type. */
const STOCKOUT = /GCE_STOCKOUT|ZONE_RESOURCE_POOL_EXHAUSTED|RESOURCE_POOL_EXHAUSTED|out of resources/i;

/** The seconds a startup probe allows before the kubelet restarts the container, if it has one. */
function startupBudgetSeconds(probe: Probe | undefined): number | undefined {
    return probe ? probeWindowSeconds(probe) : undefined;
}

/** The newest event of a pod with one of `reasons`. */
function newestEvent(events: Event[], reasons: string[]): Event | undefined {
    const time = (event: Event) => event.lastTimestamp ?? event.eventTime ?? "";
    return events.filter((event) => reasons.includes(event.reason ?? "")).sort((a, b) => time(b).localeCompare(time(a)))[0];
}

const eventText = (event: Event) => `${event.reason}: ${event.message}`;

/** What the cluster needs to diagnose pods beyond the pods themselves. */
export interface PodContext {
    reader: ObjectReader;
    /** Events of the pods' namespace. */
    events: Event[];
    /** Every node. */
    nodes: KubeObject[];
    /** The TPU pool's maximum node count, when the stack's outputs say. */
    tpuMaxNodes?: number;
    /** The time to judge startup budgets against. */
    now: Date;
}

/** Why a pod is Pending. */
function pendingDiagnosis(pod: KubeObject, object: string, events: Event[], context: PodContext): Diagnosis {
    const check = POD_SCHEDULED;
    // GKE's autoscaler says why it could not add a node: a stockout, quota, a reservation, flex-start (each its lesson).
    const capacity = pendingCapacity(pod, events);
    if (capacity) {
        return { ...capacity, object };
    }
    const stockout = events.find((event) => STOCKOUT.test(event.message ?? ""));
    if (stockout) {
        return { status: "FAIL", check, object, evidence: eventText(stockout), lesson: "tpu-capacity" };
    }
    const notTriggered = newestEvent(events, ["NotTriggerScaleUp"]);
    if (notTriggered && /max node group size reached/.test(notTriggered.message ?? "")) {
        return {
            status: "FAIL",
            check,
            object,
            evidence: eventText(notTriggered),
            fix: `the TPU pool is at its maximum${context.tpuMaxNodes !== undefined ? ` of ${context.tpuMaxNodes} nodes` : ""}: raise tpuMaxNodes, or lower the replicas`,
        };
    }
    const selector = ((pod.spec as PodSpec).nodeSelector ?? {}) as Record<string, string>;
    const wanted = [TPU_NODE.acceleratorLabel, TPU_NODE.topologyLabel]
        .map((label) => `${label}=${selector[label] ?? "(unset)"}`)
        .join(", ");
    // The autoscaler counts a reason per node group ("2 node(s) didn't match …, 1 in backoff …"): the selector is to blame only
    // when no node group, the TPU pool included, had any other reason.
    const reasons = (notTriggered?.message ?? "")
        .replace(/^pod didn't trigger scale-up: /, "")
        .split(", ")
        .filter(Boolean);
    if (notTriggered && reasons.length > 0 && reasons.every((reason) => /didn't match Pod's node affinity\/selector/.test(reason))) {
        return { status: "FAIL", check, object, evidence: `${eventText(notTriggered)}; the pod selects ${wanted}`, lesson: "tpu-selector" };
    }
    const scaleUp = newestEvent(events, ["TriggeredScaleUp", "FailedScaleUp"]);
    if (scaleUp?.reason === "FailedScaleUp") {
        return {
            status: "FAIL",
            check,
            object,
            evidence: eventText(scaleUp),
            fix: "GKE could not add the TPU node (its message says why: quota, addresses, capacity); kubectl describe pod has the history",
        };
    }
    const triggered = scaleUp;
    if (triggered) {
        return {
            status: "WARN",
            check,
            object,
            evidence: eventText(triggered),
            fix: "GKE is adding a TPU node; it takes minutes: run doctor again",
        };
    }
    // TPU nodes of the accelerator the pod asks for, none of which it matches (another topology, a label it should not select).
    const tpuNodes = context.nodes.filter(
        (node) => node.metadata?.labels?.[TPU_NODE.acceleratorLabel] === (selector[TPU_NODE.acceleratorLabel] ?? TPU_NODE.acceleratorValue),
    );
    const matching = tpuNodes.filter((node) => Object.entries(selector).every(([key, value]) => node.metadata?.labels?.[key] === value));
    if (tpuNodes.length > 0 && matching.length === 0) {
        const seen = [
            ...new Set(
                tpuNodes.map((node) =>
                    [TPU_NODE.acceleratorLabel, TPU_NODE.topologyLabel].map((label) => node.metadata?.labels?.[label]).join("/"),
                ),
            ),
        ];
        return {
            status: "FAIL",
            check,
            object,
            evidence: `the pod selects ${wanted}; TPU nodes carry ${seen.join(", ")}`,
            lesson: "tpu-selector",
        };
    }
    const failed = newestEvent(events, ["FailedScheduling", "FailedScaleUp"]);
    const condition = findCondition((pod.status as PodStatus).conditions, "PodScheduled");
    return {
        status: "FAIL",
        check,
        object,
        evidence: failed ? eventText(failed) : condition ? describeCondition(condition) : "Pending, no scheduling event",
        fix: "kubectl describe pod: its events say what the scheduler and the cluster autoscaler decided",
    };
}

/** Why a container keeps restarting: its last termination, its startup probe, and its previous log's tail. */
async function restartDiagnosis(
    pod: KubeObject,
    object: string,
    status: ContainerStatus,
    events: Event[],
    reader: ObjectReader,
): Promise<Diagnosis> {
    const check = "container running";
    const terminated = status.lastState?.terminated;
    const restarts = `${status.restartCount ?? 0} restarts, last ${terminated?.reason ?? "termination"}${terminated?.exitCode !== undefined ? ` (exit ${terminated.exitCode})` : ""}`;
    if (terminated?.reason === "OOMKilled") {
        return {
            status: "FAIL",
            check,
            object,
            evidence: `${status.name}: ${restarts}`,
            fix: "the container ran out of memory: lower maxModelLen or raise its memory limit",
        };
    }
    const container = ((pod.spec as PodSpec).containers ?? []).find((candidate) => candidate.name === status.name);
    const budget = startupBudgetSeconds(container?.startupProbe);
    const probeKilled = events.find((event) => event.reason === "Killing" && /failed startup probe/.test(event.message ?? ""));
    if (budget !== undefined && budget < MINIMUM_TPU_STARTUP_SECONDS) {
        return {
            status: "FAIL",
            check,
            object,
            evidence: `${status.name}: ${restarts}; ${probeKilled ? `${eventText(probeKilled)}; ` : ""}startup budget ${budget} s, below ${MINIMUM_TPU_STARTUP_SECONDS} s`,
            lesson: "startup-budget",
        };
    }
    const log = await reader.podLog({
        namespace: pod.metadata!.namespace!,
        pod: pod.metadata!.name!,
        container: status.name,
        previous: true,
        tailLines: LOG_TAIL_LINES,
    });
    const source = [terminated?.message ?? "", log ?? ""].join("\n");
    for (const cause of LOG_CAUSES) {
        const match = cause.pattern.exec(source);
        if (match) {
            return {
                status: "FAIL",
                check,
                object,
                evidence: `${status.name}: ${restarts}; ${cause.what}: ${match[0].trim()}`,
                ...(cause.lesson ? { lesson: cause.lesson } : { fix: typeof cause.fix === "function" ? cause.fix(match) : cause.fix }),
            };
        }
    }
    const lastLine = (log ?? terminated?.message ?? "").trim().split("\n").pop();
    return {
        status: "FAIL",
        check,
        object,
        evidence: `${status.name}: ${restarts}${lastLine ? `; last log line: ${lastLine}` : ""}`,
        fix: `kubectl logs --previous ${pod.metadata!.name} -c ${status.name} -n ${pod.metadata!.namespace}`,
    };
}

/** One vLLM pod: scheduled, image pulled, not crash-looping, Ready within its startup budget. */
async function workloadPod(pod: KubeObject, context: PodContext): Promise<Diagnosis> {
    const object = objectName("Pod", pod.metadata!.name!, pod.metadata?.namespace);
    const status = pod.status as PodStatus;
    const events = context.events.filter(
        (event) => event.involvedObject?.kind === "Pod" && event.involvedObject.name === pod.metadata?.name,
    );
    const statuses = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])];
    const pulling = statuses.find((candidate) => IMAGE_PULL_REASONS.includes(candidate.state?.waiting?.reason ?? ""));
    if (pulling) {
        return {
            status: "FAIL",
            check: "image pulled",
            object,
            evidence: `${pulling.name}: ${pulling.state!.waiting!.reason}: ${pulling.state!.waiting!.message ?? ""}`.trim(),
            fix: "check the image reference (the model's image setting) and that the nodes may pull from its registry",
        };
    }
    if (status.phase === "Pending" && statuses.length === 0) {
        return pendingDiagnosis(pod, object, events, context);
    }
    const restarted = statuses.find(
        (candidate) => (candidate.restartCount ?? 0) > 0 || candidate.state?.waiting?.reason === "CrashLoopBackOff",
    );
    const ready = findCondition(status.conditions, "Ready");
    if (restarted && ready?.status !== "True") {
        return restartDiagnosis(pod, object, restarted, events, context.reader);
    }
    if (ready?.status === "True") {
        const restarts = statuses.reduce((sum, candidate) => sum + (candidate.restartCount ?? 0), 0);
        return {
            status: "OK",
            check: "pod ready",
            object,
            evidence: `Ready on ${(pod.spec as { nodeName?: string }).nodeName ?? "(no node)"}${restarts > 0 ? `, ${restarts} earlier restarts` : ""}`,
        };
    }
    const budgets = ((pod.spec as PodSpec).containers ?? []).map((container) => startupBudgetSeconds(container.startupProbe));
    const budget = Math.max(0, ...budgets.map((value) => value ?? 0));
    const started = statuses.map((candidate) => candidate.state?.running?.startedAt).find(Boolean);
    const elapsed = started ? Math.round((context.now.getTime() - Date.parse(started)) / 1000) : 0;
    const evidence = `${ready ? describeCondition(ready) : "not Ready"}; running ${elapsed} s of a ${budget} s startup budget`;
    if (started && elapsed > budget) {
        const probe = newestEvent(events, ["Unhealthy"]);
        return {
            status: "FAIL",
            check: "pod ready",
            object,
            evidence: `${evidence}${probe ? `; ${eventText(probe)}` : ""}`,
            fix: "its readiness probe never passed: kubectl describe pod shows the probe's answers; the probes must be HTTP on vLLM's port, on /health (a 401 means the probe asks a path the API key guards)",
        };
    }
    return {
        status: "WARN",
        check: "pod ready",
        object,
        evidence,
        fix: "a TPU pod takes minutes to load and compile; run doctor again after the startup budget",
    };
}

/** Every vLLM pod of a service; a service with none is stopped on purpose, or not created yet. */
export async function workloadChecks(
    service: string,
    namespace: string,
    pods: KubeObject[],
    stopped: boolean,
    context: PodContext,
): Promise<Diagnosis[]> {
    if (pods.length === 0) {
        const object = objectName("Pods of LLMInferenceService", service, namespace);
        return [
            stopped
                ? { status: "SKIPPED", check: "pod ready", object, evidence: "the service is stopped (paused)" }
                : {
                      status: "FAIL",
                      check: "pod ready",
                      object,
                      evidence: "KServe created no vLLM pod",
                      fix: "the service's Ready conditions say why",
                  },
        ];
    }
    return Promise.all(pods.map((pod) => workloadPod(pod, context)));
}

/** The endpoint picker's pods: Ready, and on an image with ALPN h2 when they serve TLS. */
export function endpointPickerChecks(service: string, namespace: string, pods: KubeObject[]): Diagnosis[] {
    if (pods.length === 0) {
        return [
            {
                status: "FAIL",
                check: "endpoint picker ready",
                object: objectName("Endpoint picker of LLMInferenceService", service, namespace),
                evidence: "no endpoint picker pod",
                fix: "the service's Ready conditions say why (its router's scheduler)",
            },
        ];
    }
    return pods.flatMap((pod): Diagnosis[] => {
        const object = objectName("Pod", pod.metadata!.name!, namespace);
        const containers = (pod.spec as PodSpec).containers ?? [];
        const verdicts = containers.map((container) => judgeEndpointPicker(container, EPP_MINIMUM_VERSIONS));
        const verdict = verdicts.find((candidate): candidate is EndpointPickerVerdict => candidate !== undefined);
        const image = verdict?.image ?? containers[0]?.image ?? "(no image)";
        const check = "EPP ALPN h2 under TLS";
        const problem = verdict && endpointPickerProblem(verdict);
        const alpn: Diagnosis =
            verdict?.status === "plain" || (verdict === undefined && containers[0] !== undefined && !eppServesTls(containers[0]))
                ? { status: "OK", check, object, evidence: `${image} serves plain gRPC (--secure-serving=false)` }
                : verdict?.status === "fixed"
                  ? { status: "OK", check, object, evidence: `${image}: ${verdict.repository} v${verdict.minimum} or later` }
                  : verdict?.status === "unfixed" && problem !== undefined
                    ? { status: "FAIL", check, object, evidence: `${image}: ${problem}`, lesson: "epp-alpn" }
                    : { status: "WARN", check, object, evidence: `${image} serves TLS; its version cannot be read`, lesson: "epp-alpn" };
        const ready = findCondition((pod.status as PodStatus).conditions, "Ready");
        return [
            alpn,
            ready?.status === "True"
                ? { status: "OK", check: "endpoint picker ready", object, evidence: describeCondition(ready) }
                : {
                      status: "FAIL",
                      check: "endpoint picker ready",
                      object,
                      evidence: ready ? describeCondition(ready) : `phase ${(pod.status as PodStatus).phase ?? "unknown"}`,
                      fix: `kubectl logs ${pod.metadata!.name} -n ${namespace}`,
                  },
        ];
    });
}
