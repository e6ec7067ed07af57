/**
 * Reading resources the way they appear in a preview: GCP resources by their `@pulumi/gcp`
 * type tokens, Kubernetes objects by `kubernetes:<apiVersion>:<kind>` (custom resources have
 * no class to match), Helm v4 Charts by `kubernetes:helm.sh/v4:Chart`. Values that are
 * unknown during preview are left to the policy SDK: reading one throws, and the SDK
 * reports that the policy could not run instead of a false violation.
 */
import { PolicyResource } from "@pulumi/policy";
import { GKE_GATEWAY_CLASS_PREFIX, INFERENCE_POOL_KIND, KSERVE, KSERVE_CHILDREN, TPU_NODE, TPU_V6E_MACHINE_TYPE_PREFIX } from "../components/catalog";

/** Props as the policy SDK hands them over. */
export type Props = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** True when `type` is the Kubernetes kind `kind` of API group `group` in any version (`""` is the core group, `core/v1` in type tokens). */
export function isKubernetesKind(type: string, group: string, kind: string): boolean {
    const match = /^kubernetes:(.+)\/[^/:]+:([^:]+)$/.exec(type);
    return match !== null && match[2] === kind && match[1] === (group === "" ? "core" : group);
}

/** KServe's LLMInferenceService, in any served version. */
export function isLlmInferenceService(type: string): boolean {
    return isKubernetesKind(type, KSERVE.apiVersion.split("/")[0], "LLMInferenceService");
}

/** Helm charts, however they are installed. */
export function isHelmChart(type: string): boolean {
    return type === "kubernetes:helm.sh/v4:Chart" || type === "kubernetes:helm.sh/v3:Chart" || type === "kubernetes:helm.sh/v3:Release";
}

/** GKE node pools of TPU v6e machine types. */
export function isTpuV6eNodePool(type: string, props: Props): boolean {
    return type === "gcp:container/nodePool:NodePool" && typeof props.nodeConfig?.machineType === "string" && props.nodeConfig.machineType.startsWith(TPU_V6E_MACHINE_TYPE_PREFIX);
}

/** A pod spec inside a resource, with where it sits (for messages). */
export interface PodSpecAt {
    path: string;
    spec: Props;
}

/** Kinds whose pod template sits at `spec.template.spec`. */
const TEMPLATED_WORKLOADS = ["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"];

/** Every pod spec a resource carries: workloads, LeaderWorkerSets and LLMInferenceServices (main, worker, prefill, scheduler). */
export function podSpecsOf(type: string, props: Props): PodSpecAt[] {
    const specs: PodSpecAt[] = [];
    const add = (path: string, spec: Props | undefined) => {
        if (spec && typeof spec === "object") {
            specs.push({ path, spec });
        }
    };
    if (isKubernetesKind(type, "", "Pod")) {
        add("spec", props.spec);
    } else if (TEMPLATED_WORKLOADS.some((kind) => isKubernetesKind(type, "apps", kind) || isKubernetesKind(type, "batch", kind))) {
        add("spec.template.spec", props.spec?.template?.spec);
    } else if (isKubernetesKind(type, "leaderworkerset.x-k8s.io", "LeaderWorkerSet")) {
        add("spec.leaderWorkerTemplate.leaderTemplate.spec", props.spec?.leaderWorkerTemplate?.leaderTemplate?.spec);
        add("spec.leaderWorkerTemplate.workerTemplate.spec", props.spec?.leaderWorkerTemplate?.workerTemplate?.spec);
    } else if (isLlmInferenceService(type)) {
        add("spec.template", props.spec?.template);
        add("spec.worker", props.spec?.worker);
        add("spec.prefill.template", props.spec?.prefill?.template);
        add("spec.prefill.worker", props.spec?.prefill?.worker);
        add("spec.router.scheduler.template", props.spec?.router?.scheduler?.template);
    }
    return specs;
}

/** A container with where it sits. */
export interface ContainerAt {
    path: string;
    container: Props;
    /** The pod spec it belongs to. */
    pod: PodSpecAt;
}

/** Every container and init container of every pod spec of a resource. */
export function containersOf(type: string, props: Props): ContainerAt[] {
    return podSpecsOf(type, props).flatMap((pod) =>
        (["containers", "initContainers"] as const).flatMap((field) =>
            (Array.isArray(pod.spec[field]) ? (pod.spec[field] as Props[]) : []).map((container, index) => ({
                path: `${pod.path}.${field}[${index}]${container.name ? ` (${container.name})` : ""}`,
                container,
                pod,
            })),
        ),
    );
}

/** The `google.com/tpu` count a container requests or limits, if any. */
export function tpuResources(container: Props): { requests?: number; limits?: number } {
    const read = (value: unknown) => (value === undefined ? undefined : Number(value));
    return {
        requests: read(container.resources?.requests?.[TPU_NODE.resourceName]),
        limits: read(container.resources?.limits?.[TPU_NODE.resourceName]),
    };
}

/** True when a container asks for TPU chips. */
export function usesTpu(container: Props): boolean {
    const { requests, limits } = tpuResources(container);
    return requests !== undefined || limits !== undefined;
}

/** The command line of a container as one list, with `a b` strings split (KServe and the seeds pass shell lines). */
export function commandLine(container: Props): string[] {
    const parts = [...(Array.isArray(container.command) ? container.command : []), ...(Array.isArray(container.args) ? container.args : [])];
    return parts.flatMap((part: unknown) => (typeof part === "string" ? part.split(/\s+/).filter(Boolean) : []));
}

/** The vLLM server containers: a `vllm` command, the OpenAI API server module, or KServe's `main` container of an LLMInferenceService workload. */
export function isVllmContainer(at: ContainerAt, type: string): boolean {
    const line = commandLine(at.container).join(" ");
    if (/\bvllm\b.*\bserve\b|vllm\.entrypoints\.openai\.api_server/.test(line)) {
        return true;
    }
    return isLlmInferenceService(type) && !at.pod.path.startsWith("spec.router") && at.container.name === "main";
}

/** `namespace/name` of a namespaced object, defaulting the namespace like kubectl. */
export function objectKey(props: Props, defaultNamespace = "default"): string {
    return `${props.metadata?.namespace ?? defaultNamespace}/${props.metadata?.name}`;
}

/** GKE's own GatewayClasses. */
export function isGkeGatewayClass(className: unknown): boolean {
    return typeof className === "string" && className.startsWith(GKE_GATEWAY_CLASS_PREFIX);
}

/** The stack's Gateways by `namespace/name`, with their class. */
export function gatewaysByKey(resources: PolicyResource[]): Map<string, { className: string; resource: PolicyResource }> {
    const gateways = new Map<string, { className: string; resource: PolicyResource }>();
    for (const resource of resources) {
        if (isKubernetesKind(resource.type, "gateway.networking.k8s.io", "Gateway")) {
            gateways.set(objectKey(resource.props), { className: resource.props.spec?.gatewayClassName, resource });
        }
    }
    return gateways;
}

/** A test of whether any of some Gateways (as `namespace/name`) is one of the stack's GKE Gateways. */
export function attachesToGkeGateway(resources: PolicyResource[]): (gatewayKeys: string[]) => boolean {
    const gateways = gatewaysByKey(resources);
    return (gatewayKeys) => gatewayKeys.some((key) => isGkeGatewayClass(gateways.get(key)?.className));
}

/** The Gateways (as `namespace/name`) an LLMInferenceService attaches to through `router.gateway.refs`. */
export function serviceGatewayRefs(props: Props): string[] {
    const refs: Props[] = props.spec?.router?.gateway?.refs ?? [];
    return refs.map((ref) => `${ref.namespace ?? props.metadata?.namespace ?? "default"}/${ref.name}`);
}

/** The Gateways (as `namespace/name`) an HTTPRoute attaches to. */
export function routeParentRefs(props: Props): string[] {
    const parents: Props[] = props.spec?.parentRefs ?? [];
    return parents
        .filter((parent) => (parent.kind ?? "Gateway") === "Gateway")
        .map((parent) => `${parent.namespace ?? props.metadata?.namespace ?? "default"}/${parent.name}`);
}

/** A backend a GKE Gateway creates a backend service (and a health check) for. */
export interface Backend {
    namespace: string;
    group: string;
    kind: string;
    name: string;
    /** The resource that makes the Gateway route to it. */
    source: PolicyResource;
}

/** The InferencePool KServe creates for an LLMInferenceService with a scheduler. */
export function inferencePoolOf(resource: PolicyResource): Backend | undefined {
    if (!isLlmInferenceService(resource.type) || resource.props.spec?.router?.scheduler === undefined) {
        return undefined;
    }
    const pool = resource.props.spec.router.scheduler.pool?.ref?.name ?? `${resource.props.metadata?.name}${KSERVE_CHILDREN.inferencePoolSuffix}`;
    return { namespace: resource.props.metadata?.namespace ?? "default", ...INFERENCE_POOL_KIND, name: pool, source: resource };
}

/** The backends an HTTPRoute sends traffic to. */
export function routeBackends(resource: PolicyResource): Backend[] {
    const namespace = resource.props.metadata?.namespace ?? "default";
    return ((resource.props.spec?.rules ?? []) as Props[]).flatMap((rule) =>
        ((rule.backendRefs ?? []) as Props[]).map((ref) => ({
            namespace: ref.namespace ?? namespace,
            group: ref.group ?? "",
            kind: ref.kind ?? "Service",
            name: ref.name,
            source: resource,
        })),
    );
}

/** Policies (HealthCheckPolicy, GCPBackendPolicy) of `kind` by the `namespace/group/kind/name` of their target. */
export function gkePoliciesByTarget(resources: PolicyResource[], kind: string): Map<string, PolicyResource> {
    const byTarget = new Map<string, PolicyResource>();
    for (const resource of resources) {
        if (isKubernetesKind(resource.type, "networking.gke.io", kind)) {
            const target = resource.props.spec?.targetRef ?? {};
            byTarget.set(`${target.namespace ?? resource.props.metadata?.namespace ?? "default"}/${target.group ?? ""}/${target.kind}/${target.name}`, resource);
        }
    }
    return byTarget;
}

/** The key {@link gkePoliciesByTarget} uses for a backend. */
export function backendKey(backend: Backend): string {
    return `${backend.namespace}/${backend.group}/${backend.kind}/${backend.name}`;
}

/** How a backend is named in messages. */
export function describeBackend(backend: Backend): string {
    return `${backend.kind} ${backend.namespace}/${backend.name}`;
}

/** Every resource `resource` waits for, directly or through its dependencies and its parents' dependencies. */
export function transitiveDependencies(resource: PolicyResource): Set<PolicyResource> {
    const seen = new Set<PolicyResource>();
    const visit = (current: PolicyResource) => {
        for (const next of [...current.dependencies, ...(current.parent ? current.parent.dependencies : [])]) {
            if (!seen.has(next)) {
                seen.add(next);
                visit(next);
            }
        }
    };
    visit(resource);
    return seen;
}

/** The stack's name, from a resource URN (`urn:pulumi:<stack>::…`). */
export function stackOf(urn: string): string {
    return urn.split("::")[0].replace(/^urn:pulumi:/, "");
}
