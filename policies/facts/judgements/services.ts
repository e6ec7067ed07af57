/**
 * Services in front of vLLM: which pods a selector picks, which of a Service's ports reach a vLLM server that speaks
 * plain HTTP, and whether such a port tells GKE's Gateway to speak TLS. GKE takes a Service port's protocol from its
 * `appProtocol`, or from its name when `appProtocol` is unset (field report: KServe's `appProtocol: https` made GKE
 * speak TLS to vLLM).
 */
import { KSERVE_CHILDREN, MODEL_SERVER_IMAGES } from "../catalog";
import { imageRepository } from "../images";
import { KindRef, KubeProps, readKnown } from "./objects";
import { ContainerAt, containersOf, isVllmContainer, podSpecsOf, vllmServesTls } from "./workloads";

/** True when a label selector picks pods with `labels`: every key matches; a Service without a selector picks none. */
export function selectorMatches(selector: unknown, labels: Record<string, string>): boolean {
    const entries = selector !== null && typeof selector === "object" ? Object.entries(selector as Record<string, unknown>) : [];
    return entries.length > 0 && entries.every(([key, value]) => labels[key] === value);
}

/** True when a selector picks KServe's workload pods of an LLMInferenceService, which run vLLM and nothing else that serves. */
export function selectsKServeWorkload(selector: unknown): boolean {
    const keys = selector !== null && typeof selector === "object" ? (selector as Record<string, unknown>) : {};
    const name = keys["app.kubernetes.io/name"];
    return (
        "app.kubernetes.io/part-of" in keys && selectorMatches(keys, KSERVE_CHILDREN.workloadLabels(typeof name === "string" ? name : ""))
    );
}

/** Pods that serve vLLM over plain HTTP (no TLS flags): their namespace, labels, and ports by number and name. */
export interface VllmPod {
    namespace: string;
    labels: Record<string, string>;
    /** Ports of its vLLM containers. */
    vllmPorts: Array<number | string>;
    /** Ports of its other containers (sidecars). */
    otherPorts: Array<number | string>;
}

/** The pods of an object (in `namespace`) that serve vLLM over plain HTTP, or, `withTls`, over either. */
export function plainHttpVllmPods(kind: KindRef, object: KubeProps, namespace: string, withTls = false): VllmPod[] {
    const containers = containersOf(kind, object);
    return podSpecsOf(kind, object).flatMap((pod) => {
        const inPod = containers.filter((at) => at.pod.path === pod.path);
        const serving = inPod.filter((at) => isVllmContainer(at, kind) && (withTls || !vllmServesTls(at.container)));
        const ports = (list: ContainerAt[]) =>
            list.flatMap((at) =>
                ((readKnown(() => at.container.ports).value ?? []) as KubeProps[]).flatMap((port) =>
                    [readKnown(() => port.containerPort).value, readKnown(() => port.name).value].filter(
                        (value): value is number | string => value !== undefined,
                    ),
                ),
            );
        return serving.length === 0
            ? []
            : [
                  {
                      namespace,
                      labels: pod.labels,
                      vllmPorts: ports(serving),
                      otherPorts: ports(inPod.filter((at) => !serving.includes(at))),
                  },
              ];
    });
}

/**
 * The ports of a Service (in `namespace`) that reach plain-HTTP vLLM: every port when it selects KServe's workload pods
 * (vLLM is their only server) and, when it selects vLLM pods, each port whose targetPort (a number or a name; the port
 * itself when unset) is not a sidecar's.
 */
export function portsToPlainHttpVllm(service: KubeProps, namespace: string, vllmPods: readonly VllmPod[]): KubeProps[] {
    const ports: KubeProps[] = Array.isArray(service.spec?.ports) ? service.spec.ports : [];
    if (selectsKServeWorkload(service.spec?.selector)) {
        return ports;
    }
    const selected = vllmPods.filter((pod) => pod.namespace === namespace && selectorMatches(service.spec?.selector, pod.labels));
    return ports.filter((port) =>
        selected.some(
            (pod) => !pod.otherPorts.includes(port.targetPort ?? port.port) || pod.vllmPorts.includes(port.targetPort ?? port.port),
        ),
    );
}

/** The appProtocols for which a GCP backend service speaks TLS to its endpoints: HTTPS, and HTTP2 (HTTP/2 over TLS; h2c is `kubernetes.io/h2c`). */
const TLS_APP_PROTOCOLS = new Set(["https", "http2"]);

/**
 * How a Service port tells GKE's Gateway to speak TLS (`appProtocol` HTTPS or HTTP2, any case, or `name "https"` without an
 * appProtocol), if it does.
 */
export function httpsDeclaration(port: KubeProps): string | undefined {
    if (port.appProtocol !== undefined && port.appProtocol !== null) {
        return TLS_APP_PROTOCOLS.has(String(port.appProtocol).toLowerCase()) ? `appProtocol ${port.appProtocol}` : undefined;
    }
    return String(port.name ?? "").toLowerCase() === "https" ? `name "${port.name}"` : undefined;
}

/** The model server (besides vLLM) an image ships, by its repository (a repository ending `/` names a prefix), or undefined. */
export function modelServerOfImage(image: unknown): string | undefined {
    if (typeof image !== "string") {
        return undefined;
    }
    const repository = imageRepository(image);
    return MODEL_SERVER_IMAGES.find(({ repositories }) =>
        repositories.some((candidate) => (candidate.endsWith("/") ? repository.startsWith(candidate) : repository === candidate)),
    )?.server;
}

/** The pods of an object (in `namespace`) that run a model server other than vLLM: their namespace and labels. */
export function otherModelServerPods(
    kind: KindRef,
    object: KubeProps,
    namespace: string,
): Array<{ namespace: string; labels: Record<string, string> }> {
    const containers = containersOf(kind, object);
    return podSpecsOf(kind, object)
        .filter((pod) =>
            containers.some(
                (at) => at.pod.path === pod.path && modelServerOfImage(readKnown(() => at.container.image).value) !== undefined,
            ),
        )
        .map((pod) => ({ namespace, labels: pod.labels }));
}
