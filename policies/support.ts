/**
 * Reading resources the way a real `pulumi preview` hands them to a policy pack, however a program
 * wrote them. GCP resources come by their `@pulumi/gcp` type tokens; Kubernetes objects by
 * `kubernetes:<apiVersion>:<kind>`, whether the program declared them or a chart or config group
 * rendered them. Components a provider constructs (Helm v4 `Chart`, `yaml/v2` ConfigGroup) reach a
 * policy without inputs, so an installation is recognised by what it renders (a CRD, a controller)
 * or by a `helm.v3.Release`, whose inputs a preview does show. Values unknown during preview are left
 * to the policy SDK: reading one throws, and the SDK reports that the policy could not run.
 */
import { PolicyResource } from "@pulumi/policy";
import {
    GKE_GATEWAY_CLASS_PREFIX,
    INFERENCE_POOL_KIND,
    KSERVE,
    KSERVE_CHILDREN,
    TPU_NODE,
    TPU_V6E_MACHINE_TYPE_PREFIX,
    TPU_V6E_MACHINE_TYPES,
    commandWords,
    imageRepository,
    startsVllmServer,
    vllmFlags,
} from "@gke-tpu-inference/facts";

/** Props as the policy SDK hands them over. */
export type Props = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** True when `type` is the Kubernetes kind `kind` of API group `group` in any version (`""` is the core group, `core/v1` in type tokens). */
export function isKubernetesKind(type: string, group: string, kind: string): boolean {
    const match = /^kubernetes:(.+)\/[^/:]+:([^:]+)$/.exec(type);
    return match !== null && match[2] === kind && match[1] === (group === "" ? "core" : group);
}

/** The kind, or its server-side-apply patch (`DeploymentPatch`), which carries the same fields. */
function isKindOrPatch(type: string, group: string, kind: string): boolean {
    return isKubernetesKind(type, group, kind) || isKubernetesKind(type, group, `${kind}Patch`);
}

const KSERVE_GROUP = KSERVE.apiVersion.split("/")[0];

/** KServe's LLMInferenceService, in any served version. */
export function isLlmInferenceService(type: string): boolean {
    return isKubernetesKind(type, KSERVE_GROUP, "LLMInferenceService");
}

/** KServe's LLMInferenceServiceConfig, in any served version. */
export function isLlmInferenceServiceConfig(type: string): boolean {
    return isKubernetesKind(type, KSERVE_GROUP, "LLMInferenceServiceConfig");
}

/** Helm charts and releases, however they are installed. */
export function isHelmChart(type: string): boolean {
    return type === "kubernetes:helm.sh/v4:Chart" || type === "kubernetes:helm.sh/v3:Chart" || type === "kubernetes:helm.sh/v3:Release";
}

/** A pod spec inside a resource, with where it sits (for messages) and the labels its pods get. */
export interface PodSpecAt {
    path: string;
    spec: Props;
    labels: Record<string, string>;
}

/** Workload kinds whose pod template sits at `spec.template`. */
const TEMPLATED_WORKLOADS: ReadonlyArray<[group: string, kind: string]> = [
    ["apps", "Deployment"],
    ["apps", "StatefulSet"],
    ["apps", "DaemonSet"],
    ["apps", "ReplicaSet"],
    ["batch", "Job"],
    ["", "ReplicationController"],
];

/**
 * Every pod spec a resource carries: Pods and PodTemplates, workloads (Deployments, StatefulSets, DaemonSets,
 * ReplicaSets, Jobs, CronJobs, ReplicationControllers and their patches), LeaderWorkerSets (leader and worker),
 * and KServe's LLMInferenceServices and LLMInferenceServiceConfigs (main, worker, prefill, scheduler).
 */
export function podSpecsOf(type: string, props: Props): PodSpecAt[] {
    const specs: PodSpecAt[] = [];
    const add = (path: string, spec: Props | undefined, labels: Record<string, string> | undefined) => {
        if (spec && typeof spec === "object") {
            specs.push({ path, spec, labels: labels ?? {} });
        }
    };
    const template = (at: string, value: Props | undefined) => add(`${at}.spec`, value?.spec, value?.metadata?.labels);
    if (isKindOrPatch(type, "", "Pod")) {
        add("spec", props.spec, props.metadata?.labels);
    } else if (isKubernetesKind(type, "", "PodTemplate")) {
        template("template", props.template);
    } else if (TEMPLATED_WORKLOADS.some(([group, kind]) => isKindOrPatch(type, group, kind))) {
        template("spec.template", props.spec?.template);
    } else if (isKindOrPatch(type, "batch", "CronJob")) {
        template("spec.jobTemplate.spec.template", props.spec?.jobTemplate?.spec?.template);
    } else if (isKubernetesKind(type, "leaderworkerset.x-k8s.io", "LeaderWorkerSet")) {
        template("spec.leaderWorkerTemplate.leaderTemplate", props.spec?.leaderWorkerTemplate?.leaderTemplate);
        template("spec.leaderWorkerTemplate.workerTemplate", props.spec?.leaderWorkerTemplate?.workerTemplate);
    } else if (isLlmInferenceService(type) || isLlmInferenceServiceConfig(type)) {
        // KServe labels every workload pod of a service with its name; a config's templates have no name yet.
        const workload = isLlmInferenceService(type) && props.metadata?.name ? KSERVE_CHILDREN.workloadLabels(props.metadata.name) : undefined;
        add("spec.template", props.spec?.template, workload);
        add("spec.worker", props.spec?.worker, workload);
        add("spec.prefill.template", props.spec?.prefill?.template, workload);
        add("spec.prefill.worker", props.spec?.prefill?.worker, workload);
        add("spec.router.scheduler.template", props.spec?.router?.scheduler?.template, undefined);
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
                path: `${pod.path}.${field}[${index}]${container?.name ? ` (${container.name})` : ""}`,
                container: container ?? {},
                pod,
            })),
        ),
    );
}

/** The `google.com/tpu` count a container requests and limits, if any; Kubernetes copies a limit to the request of an extended resource. */
export function tpuResources(container: Props): { requests?: number; limits?: number } {
    const read = (value: unknown) => (value === undefined ? undefined : Number(value));
    const limits = read(container.resources?.limits?.[TPU_NODE.resourceName]);
    return { requests: read(container.resources?.requests?.[TPU_NODE.resourceName]) ?? limits, limits };
}

/** True when a container asks for TPU chips. */
export function usesTpu(container: Props): boolean {
    const { requests, limits } = tpuResources(container);
    return requests !== undefined || limits !== undefined;
}

/** The words of a container's command line (command, then args), split as the shell would split script strings. */
export function commandLine(container: Props): string[] {
    return commandWords(container.command, container.args);
}

/**
 * The vLLM server containers: a command line that starts vLLM's server, an image of vLLM's that starts it by its
 * entrypoint, or KServe's `main` container of an LLMInferenceService or LLMInferenceServiceConfig workload.
 */
export function isVllmContainer(at: ContainerAt, type: string): boolean {
    const words = commandLine(at.container);
    if (startsVllmServer(words)) {
        return true;
    }
    const image = typeof at.container.image === "string" ? imageRepository(at.container.image).split("/").pop()! : "";
    if (words.length === 0 && /^vllm(-|$)/.test(image)) {
        return true;
    }
    return (isLlmInferenceService(type) || isLlmInferenceServiceConfig(type)) && !at.pod.path.startsWith("spec.router") && at.container.name === "main";
}

/** Values a pod accepts for a node label: from its nodeSelector and its required node affinity (`In`); undefined when it does not constrain the label. */
export function selectedValues(pod: Props, label: string): string[] | undefined {
    const values = new Set<string>();
    let constrained = false;
    const fromSelector = pod.nodeSelector?.[label];
    if (fromSelector !== undefined) {
        constrained = true;
        values.add(String(fromSelector));
    }
    const terms: Props[] = pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
    for (const term of terms) {
        for (const expression of (term.matchExpressions ?? []) as Props[]) {
            if (expression.key === label && expression.operator === "In") {
                constrained = true;
                ((expression.values ?? []) as unknown[]).forEach((value) => values.add(String(value)));
            }
        }
    }
    return constrained ? [...values] : undefined;
}

/** A TPU v6e node pool the stack declares: a NodePool resource, or a pool inline in a Cluster. */
export interface TpuPool {
    resource: PolicyResource;
    /** Where it sits in the resource, for messages. */
    path: string;
    machineType: string;
    /** The slice topology its nodes carry. */
    topology: string | undefined;
    /** Zones it places nodes in; empty when it names none (a regional pool). */
    zones: string[];
}

/** True when `machineType` is a TPU v6e machine type. */
function isTpuV6e(machineType: unknown): machineType is string {
    return typeof machineType === "string" && machineType.startsWith(TPU_V6E_MACHINE_TYPE_PREFIX);
}

/** Zones named by a pool's nodeLocations, or by a zonal location. */
function zonesOf(nodeLocations: unknown, location: unknown): string[] {
    if (Array.isArray(nodeLocations) && nodeLocations.length > 0) {
        return nodeLocations.map(String);
    }
    return typeof location === "string" && /-[a-z]$/.test(location) ? [location] : [];
}

/** The topology a pool's nodes carry: its multi-host `tpuTopology`, else its machine type's single-host shape. */
function poolTopology(pool: Props, machineType: string): string | undefined {
    return pool.placementPolicy?.tpuTopology ?? TPU_V6E_MACHINE_TYPES[machineType]?.shapes[0].topology;
}

/** Every TPU v6e node pool among `resources`, standalone or inline in a Cluster. */
export function tpuV6ePools(resources: PolicyResource[]): TpuPool[] {
    return resources.flatMap((resource): TpuPool[] => {
        const props = resource.props;
        if (resource.type === "gcp:container/nodePool:NodePool" && isTpuV6e(props.nodeConfig?.machineType)) {
            const machineType = props.nodeConfig.machineType;
            return [{ resource, path: "nodeConfig.machineType", machineType, topology: poolTopology(props, machineType), zones: zonesOf(props.nodeLocations, props.location) }];
        }
        if (resource.type === "gcp:container/cluster:Cluster") {
            return ((props.nodePools ?? []) as Props[]).flatMap((pool, index) =>
                isTpuV6e(pool?.nodeConfig?.machineType)
                    ? [
                          {
                              resource,
                              path: `nodePools[${index}]`,
                              machineType: pool.nodeConfig.machineType,
                              topology: poolTopology(pool, pool.nodeConfig.machineType),
                              zones: zonesOf(pool.nodeLocations ?? props.nodeLocations, props.location),
                          },
                      ]
                    : [],
            );
        }
        return [];
    });
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

/** The HTTPRoutes among the resources. */
export function httpRoutes(resources: PolicyResource[]): PolicyResource[] {
    return resources.filter((resource) => isKubernetesKind(resource.type, "gateway.networking.k8s.io", "HTTPRoute"));
}

/** The Gateways (as `namespace/name`) an HTTPRoute attaches to. */
export function routeParentRefs(props: Props): string[] {
    const parents: Props[] = Array.isArray(props.spec?.parentRefs) ? props.spec.parentRefs : [];
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
    const rules: Props[] = Array.isArray(resource.props.spec?.rules) ? resource.props.spec.rules : [];
    return rules.flatMap((rule) =>
        (Array.isArray(rule?.backendRefs) ? (rule.backendRefs as Props[]) : []).map((ref) => ({
            namespace: ref.namespace ?? namespace,
            group: ref.group ?? "",
            kind: ref.kind ?? "Service",
            name: ref.name,
            source: resource,
        })),
    );
}

/** True for an InferencePool backend, in either of its API groups. */
export function isInferencePoolBackend(backend: Backend): boolean {
    return backend.kind === INFERENCE_POOL_KIND.kind && backend.group.startsWith("inference.networking.");
}

/** Every InferencePool a GKE Gateway routes to: KServe's for its services, and any an HTTPRoute names. */
export function gkeInferencePools(resources: PolicyResource[]): Backend[] {
    const onGke = attachesToGkeGateway(resources);
    const declaredPools = new Map<string, PolicyResource>();
    for (const resource of resources) {
        const group = /^kubernetes:(inference\.networking\.[^/]+)\/[^:]+:InferencePool$/.exec(resource.type)?.[1];
        if (group) {
            declaredPools.set(backendKey({ namespace: resource.props.metadata?.namespace ?? "default", group, kind: INFERENCE_POOL_KIND.kind, name: resource.props.metadata?.name, source: resource }), resource);
        }
    }
    const pools = new Map<string, Backend>();
    for (const resource of resources) {
        const pool = inferencePoolOf(resource);
        if (pool && onGke(serviceGatewayRefs(resource.props))) {
            pools.set(backendKey(pool), pool);
        }
    }
    for (const route of httpRoutes(resources).filter((candidate) => onGke(routeParentRefs(candidate.props)))) {
        // A pool the stack makes is reported against its maker (KServe's service, or the InferencePool object itself).
        routeBackends(route)
            .filter((backend) => isInferencePoolBackend(backend) && !pools.has(backendKey(backend)))
            .forEach((pool) => pools.set(backendKey(pool), { ...pool, source: declaredPools.get(backendKey(pool)) ?? pool.source }));
    }
    return [...pools.values()].sort((a, b) => backendKey(a).localeCompare(backendKey(b)));
}

/** Label sets of the pods that serve vLLM over plain HTTP (no TLS flags), by namespace. */
export function plainHttpVllmPods(resources: PolicyResource[]): Array<{ namespace: string; labels: Record<string, string> }> {
    return resources.flatMap((resource) => {
        const serving = containersOf(resource.type, resource.props).filter(
            (at) => isVllmContainer(at, resource.type) && !vllmFlags(commandLine(at.container)).some(({ flag }) => flag === "--ssl-certfile"),
        );
        const pods = new Map(serving.map((at) => [at.pod.path, at.pod]));
        return [...pods.values()].map((pod) => ({ namespace: resource.props.metadata?.namespace ?? "default", labels: pod.labels }));
    });
}

/** True when a Service selects KServe's LLMInferenceService workload pods, which run vLLM, wherever the service itself is declared. */
function selectsKServeWorkload(service: Props): boolean {
    const selector: Record<string, string> = service.spec?.selector ?? {};
    return selector["app.kubernetes.io/part-of"] === "llminferenceservice" && (selector["kserve.io/component"] ?? "workload") === "workload";
}

/** True when a Service fronts plain-HTTP vLLM: it selects such pods of the stack, or KServe's workload pods. */
export function frontsPlainHttpVllm(service: Props, vllmPods: ReturnType<typeof plainHttpVllmPods>): boolean {
    return selectsKServeWorkload(service) || vllmPods.some((pod) => selects(service, pod));
}

/** True when a Service's selector picks pods with `labels` in its namespace. */
export function selects(service: Props, pod: { namespace: string; labels: Record<string, string> }): boolean {
    const selector: Record<string, string> = service.spec?.selector ?? {};
    const keys = Object.keys(selector);
    return keys.length > 0 && (service.metadata?.namespace ?? "default") === pod.namespace && keys.every((key) => pod.labels[key] === selector[key]);
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
        const parents: PolicyResource[] = [];
        for (let parent = current.parent; parent; parent = parent.parent) {
            parents.push(parent);
        }
        for (const next of [...current.dependencies, ...parents.flatMap((parent) => parent.dependencies)]) {
            if (!seen.has(next)) {
                seen.add(next);
                visit(next);
            }
        }
    };
    visit(resource);
    return seen;
}

/** What identifies an installation of some software in a stack. */
export interface Installation {
    /** The CustomResourceDefinition it installs, by name. */
    crd: string;
    /** Its controller's Deployment, by name. */
    controller: string;
    /** The chart's name, as a Helm release or chart reference ends. */
    chart: string;
}

/**
 * The resources that install `what`: the objects that bring its CRD or controller (rendered by a chart or a config
 * group, or declared) with every component above them, Helm releases of its chart, and charts whose inputs name it.
 */
export function installers(resources: PolicyResource[], what: Installation): Set<PolicyResource> {
    const found = new Set<PolicyResource>();
    // `lws`, `repo/lws`, `oci://registry.k8s.io/lws/charts/lws`, with or without a `:tag` or `@digest`.
    const chartNamed = (chart: unknown) =>
        typeof chart === "string" &&
        chart
            .replace(/\/$/, "")
            .split("/")
            .pop()!
            .replace(/[:@].*$/, "") === what.chart;
    for (const resource of resources) {
        const name = resource.props?.metadata?.name;
        const brings =
            (isKubernetesKind(resource.type, "apiextensions.k8s.io", "CustomResourceDefinition") && name === what.crd) ||
            (isKubernetesKind(resource.type, "apps", "Deployment") && name === what.controller) ||
            (isHelmChart(resource.type) && chartNamed(resource.props?.chart));
        if (brings) {
            // The components above it install it too; the stack itself installs everything and says nothing.
            for (let current: PolicyResource | undefined = resource; current && current.type !== "pulumi:pulumi:Stack"; current = current.parent) {
                found.add(current);
            }
        }
    }
    return found;
}

/** The stack's name, from a resource URN (`urn:pulumi:<stack>::…`). */
export function stackOf(urn: string): string {
    return urn.split("::")[0].replace(/^urn:pulumi:/, "");
}
