/**
 * Reading resources the way a real `pulumi preview` hands them to a policy pack, however a program
 * wrote them. GCP resources come by their `@pulumi/gcp` type tokens; Kubernetes objects by
 * `kubernetes:<apiVersion>:<kind>`, whether the program declared them or a chart or config group
 * rendered them. Components a provider constructs (Helm v4 `Chart`, `yaml/v2` ConfigGroup) reach a
 * policy without inputs, so an installation is recognised by what it renders (a CRD, a controller)
 * or by a `helm.v3.Release`, whose inputs a preview does show. Values unknown during preview are left
 * to the policy SDK: reading one throws, and the SDK reports that the policy could not run.
 */
import { PolicyResource, ResourceValidationArgs } from "@pulumi/policy";
import {
    COLD_START_ANNOTATION,
    COLD_START_PESSIMISTIC_ANNOTATION,
    GKE_GATEWAY_CLASS_PREFIX,
    INFERENCE_POOL_GROUPS,
    INFERENCE_POOL_KIND,
    KSERVE,
    KSERVE_CHILDREN,
    TPU_NODE,
    TPU_V6E_MACHINE_TYPE_PREFIX,
    TPU_V6E_MACHINE_TYPES,
    VLLM_IMAGE_ENTRYPOINTS,
    VLLM_SERVER_COMMAND,
    commandWords,
    imageRepository,
    shellWords,
    startsVllmServer,
    vllmFlags,
} from "./facts";

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

/** An InferencePool, in either API group. */
export function isInferencePool(type: string): boolean {
    return INFERENCE_POOL_GROUPS.some((group) => isKubernetesKind(type, group, INFERENCE_POOL_KIND.kind));
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
        const workload =
            isLlmInferenceService(type) && props.metadata?.name ? KSERVE_CHILDREN.workloadLabels(props.metadata.name) : undefined;
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

/** A positive number of seconds from an annotation's value, else undefined. */
function secondsOf(value: unknown): number | undefined {
    const seconds = value === undefined ? NaN : Number(value);
    return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

/**
 * The start a TPU server's resource declares in the stack's annotations: its estimated first start and, where given, its
 * pessimistic one (on a multi-host slice, with the wait for its group). Undefined without a valid first start.
 */
export function declaredStart(props: Props): { firstSeconds: number; pessimisticSeconds?: number } | undefined {
    const annotations = props.metadata?.annotations ?? {};
    const firstSeconds = secondsOf(annotations[COLD_START_ANNOTATION]);
    const pessimisticSeconds = secondsOf(annotations[COLD_START_PESSIMISTIC_ANNOTATION]);
    return firstSeconds === undefined ? undefined : { firstSeconds, ...(pessimisticSeconds !== undefined ? { pessimisticSeconds } : {}) };
}

/** True when a container asks for TPU chips. */
export function usesTpu(container: Props): boolean {
    const { requests, limits } = tpuResources(container);
    return requests !== undefined || limits !== undefined;
}

/**
 * The words a container runs, split as the shell would split script strings: its command and args, or, when it sets
 * no command, what the image's entrypoint makes of them (a vLLM image starts vLLM's server: with the args as its
 * flags, or, for vllm-tpu without args, with the flags of $VLLM_ARGS).
 */
export function commandLine(container: Props): string[] {
    const words = commandWords(container.command, container.args);
    const entrypoint =
        typeof container.image === "string" ? VLLM_IMAGE_ENTRYPOINTS[imageRepository(container.image).split("/").pop()!] : undefined;
    if ((Array.isArray(container.command) && container.command.length > 0) || entrypoint === undefined) {
        return words;
    }
    if (entrypoint.args === "serverFlags") {
        return [...VLLM_SERVER_COMMAND, ...words];
    }
    if (words.length > 0) {
        return words;
    }
    const flags = (Array.isArray(container.env) ? (container.env as Props[]) : []).find(
        (variable) => variable?.name === entrypoint.flagsEnv,
    )?.value;
    return [...VLLM_SERVER_COMMAND, ...(typeof flags === "string" ? shellWords(flags) : [])];
}

/** True when a vLLM container serves TLS itself (`--ssl-certfile`), so HTTPS towards it is right. */
export function servesTls(container: Props): boolean {
    return vllmFlags(commandLine(container)).some(({ flag }) => flag === "--ssl-certfile");
}

/** The vLLM server containers: a command line that starts vLLM's server, or KServe's `main` container of an LLMInferenceService or LLMInferenceServiceConfig workload. */
export function isVllmContainer(at: ContainerAt, type: string): boolean {
    if (startsVllmServer(commandLine(at.container))) {
        return true;
    }
    return (
        (isLlmInferenceService(type) || isLlmInferenceServiceConfig(type)) &&
        !at.pod.path.startsWith("spec.router") &&
        at.container.name === "main"
    );
}

/**
 * Where a pod may be placed, as alternatives: its nodeSelector AND one term of its required node affinity (terms are
 * ORed, a term's expressions ANDed); one alternative when it has no terms. Each maps a label to the values it allows
 * (`In`, less `NotIn`), empty when the alternative can never be met; a label it does not constrain is absent.
 */
export function placements(pod: Props): Array<Map<string, string[]>> {
    const selector = new Map<string, string[]>(
        Object.entries((pod.nodeSelector ?? {}) as Record<string, unknown>).map(([label, value]) => [label, [String(value)]]),
    );
    const terms: Props[] = pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
    return (terms.length > 0 ? terms : [{}]).map((term) => {
        const allowed = new Map(selector);
        for (const expression of (term.matchExpressions ?? []) as Props[]) {
            const values = ((expression.values ?? []) as unknown[]).map(String);
            const current = allowed.get(expression.key);
            if (expression.operator === "In") {
                allowed.set(expression.key, current === undefined ? values : current.filter((value) => values.includes(value)));
            } else if (expression.operator === "NotIn" && current !== undefined) {
                allowed.set(
                    expression.key,
                    current.filter((value) => !values.includes(value)),
                );
            }
        }
        return allowed;
    });
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
    const clusters = resources.filter((resource) => resource.type === "gcp:container/cluster:Cluster");
    return resources.flatMap((resource): TpuPool[] => {
        const props = resource.props;
        if (resource.type === "gcp:container/nodePool:NodePool" && isTpuV6e(props.nodeConfig?.machineType)) {
            const machineType = props.nodeConfig.machineType;
            // Without nodeLocations a pool takes its cluster's (the cluster input is its name or its id, projects/…/clusters/NAME).
            const cluster = clusters.find(
                (candidate) => typeof props.cluster === "string" && props.cluster.split("/").pop() === candidate.props.name,
            );
            const zones = zonesOf(props.nodeLocations, props.location);
            return [
                {
                    resource,
                    path: "nodeConfig.machineType",
                    machineType,
                    topology: poolTopology(props, machineType),
                    zones: zones.length > 0 || !cluster ? zones : zonesOf(cluster.props.nodeLocations, cluster.props.location),
                },
            ];
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

/**
 * The namespace a namespaced object lands in: its own, else its provider's default namespace, else `default` (the
 * Kubernetes provider's rule for objects without one).
 */
export function namespaceOf(resource: PolicyResource): string {
    return resource.props.metadata?.namespace ?? resource.provider?.props?.namespace ?? "default";
}

/** `namespace/name` of a namespaced object. */
export function objectKey(resource: PolicyResource): string {
    return `${namespaceOf(resource)}/${resource.props.metadata?.name}`;
}

/** GKE's own GatewayClasses. */
export function isGkeGatewayClass(className: unknown): boolean {
    return typeof className === "string" && className.startsWith(GKE_GATEWAY_CLASS_PREFIX);
}

/** The stack-wide facts the per-service lookups read, built once per stack: a policy asks once per service, and a scan per ask is quadratic. */
interface StackIndex {
    gateways: Map<string, { className: string; resource: PolicyResource }>;
    kserveNamespace: string;
    /** LLMInferenceServiceConfigs by `namespace/name`, the first of each. */
    configs: Map<string, PolicyResource>;
    defaultGateway: string;
}

const stackIndexes = new WeakMap<PolicyResource[], StackIndex>();

function stackIndex(resources: PolicyResource[]): StackIndex {
    let index = stackIndexes.get(resources);
    if (index === undefined) {
        const gateways = new Map<string, { className: string; resource: PolicyResource }>();
        const configs = new Map<string, PolicyResource>();
        let controller: PolicyResource | undefined;
        for (const resource of resources) {
            if (isKubernetesKind(resource.type, "gateway.networking.k8s.io", "Gateway")) {
                gateways.set(objectKey(resource), { className: resource.props.spec?.gatewayClassName, resource });
            } else if (isLlmInferenceServiceConfig(resource.type) && !configs.has(objectKey(resource))) {
                configs.set(objectKey(resource), resource);
            } else if (
                controller === undefined &&
                isKubernetesKind(resource.type, "apps", "Deployment") &&
                resource.props.metadata?.name === KSERVE_CONTROLLER
            ) {
                controller = resource;
            }
        }
        const namespace = controller ? namespaceOf(controller) : KSERVE.namespace;
        index = { gateways, kserveNamespace: namespace, configs, defaultGateway: defaultGatewayOf(resources, namespace) };
        stackIndexes.set(resources, index);
    }
    return index;
}

/** The stack's Gateways by `namespace/name`, with their class. */
export function gatewaysByKey(resources: PolicyResource[]): Map<string, { className: string; resource: PolicyResource }> {
    return stackIndex(resources).gateways;
}

/** A test of whether any of some Gateways (as `namespace/name`) is one of the stack's GKE Gateways. */
export function attachesToGkeGateway(resources: PolicyResource[]): (gatewayKeys: string[]) => boolean {
    const gateways = gatewaysByKey(resources);
    return (gatewayKeys) => gatewayKeys.some((key) => isGkeGatewayClass(gateways.get(key)?.className));
}

/** The namespace KServe's controller runs in: that of its controller Deployment if the stack shows it, else KServe's own. */
export function kserveNamespace(resources: PolicyResource[]): string {
    return stackIndex(resources).kserveNamespace;
}

/** KServe's LLMInferenceService controller Deployment. Source: kserve v0.20.0 charts/kserve-llmisvc-resources. */
export const KSERVE_CONTROLLER = "llmisvc-controller-manager";

/** Looks up an LLMInferenceServiceConfig by name as KServe does for a service in `namespace`: that namespace first, then the controller's. */
export function kserveConfigResolver(resources: PolicyResource[]): (name: unknown, namespace: string) => PolicyResource | undefined {
    const { configs, kserveNamespace: controllerNamespace } = stackIndex(resources);
    return (name, namespace) =>
        typeof name === "string"
            ? [namespace, controllerNamespace].map((candidate) => configs.get(`${candidate}/${name}`)).find(Boolean)
            : undefined;
}

/** Lists whose items KServe's strategic merge matches by `name` (the PodSpec's patch merge keys); every other list is replaced whole. */
const MERGED_BY_NAME = new Set(["containers", "initContainers", "ephemeralContainers", "env", "volumes", "volumeMounts"]);

/** `patch` merged over `base` as KServe merges a service over its configs. Source: kserve v0.20.0 pkg/controller/v1alpha2/llmisvc/config_merge.go mergeSpecs (a strategic merge patch). */
function mergeSpec(base: unknown, patch: unknown, key = ""): unknown {
    const isRecord = (value: unknown): value is Props => value !== null && typeof value === "object" && !Array.isArray(value);
    if (isRecord(base) && isRecord(patch)) {
        const merged: Props = { ...base };
        for (const [field, value] of Object.entries(patch)) {
            merged[field] = field in base ? mergeSpec(base[field], value, field) : value;
        }
        return merged;
    }
    if (Array.isArray(base) && Array.isArray(patch) && MERGED_BY_NAME.has(key)) {
        const merged = base.map((item: Props) => {
            const override = patch.find((candidate: Props) => candidate?.name === item?.name);
            return override === undefined ? item : mergeSpec(item, override);
        });
        return [...merged, ...patch.filter((item: Props) => !base.some((candidate: Props) => candidate?.name === item?.name))];
    }
    return patch;
}

/**
 * An LLMInferenceService's spec as KServe reconciles it: the configs its `baseRefs` name, in order, with the service's
 * own spec merged over them. `complete` is false when a base config is not in the stack, so a field the service
 * leaves out may come from it.
 */
export function effectiveServiceSpec(service: PolicyResource, resources: PolicyResource[]): { spec: Props; complete: boolean } {
    const resolve = kserveConfigResolver(resources);
    const baseRefs: Props[] = Array.isArray(service.props.spec?.baseRefs) ? service.props.spec.baseRefs : [];
    const bases = baseRefs.map((ref) => resolve(ref?.name, namespaceOf(service)));
    const spec = [...bases.flatMap((config) => (config ? [config.props.spec ?? {}] : [])), service.props.spec ?? {}].reduce(
        (merged: Props, next: Props) => mergeSpec(merged, next) as Props,
        {},
    );
    return { spec, complete: bases.every(Boolean) };
}

/**
 * The Gateway (`namespace/name`) a service's route attaches to when the service names none: what KServe's
 * inferenceservice-config ConfigMap says, else what a Helm release of KServe's controller chart sets, else the
 * chart's default. Source: {@link KSERVE.defaultGateway}.
 */
export function kserveDefaultGateway(resources: PolicyResource[]): string {
    return stackIndex(resources).defaultGateway;
}

function defaultGatewayOf(resources: PolicyResource[], namespace: string): string {
    const { configMap, chartValue, chartDefault } = KSERVE.defaultGateway;
    const fromConfigMap = resources
        .filter(
            (resource) =>
                isKubernetesKind(resource.type, "", "ConfigMap") &&
                resource.props.metadata?.name === configMap &&
                namespaceOf(resource) === namespace,
        )
        .map((resource) => {
            try {
                return JSON.parse(String(resource.props.data?.ingress)).kserveIngressGateway as unknown;
            } catch {
                return undefined;
            }
        })[0];
    const release = resources.find(
        (resource) => resource.type === "kubernetes:helm.sh/v3:Release" && chartName(resource.props.chart) === KSERVE_CONTROLLER_CHART,
    );
    const fromRelease = chartValue.reduce((value: unknown, key) => (value as Props | undefined)?.[key], release?.props.values);
    const gateway =
        [fromConfigMap, fromRelease].find((value): value is string => typeof value === "string" && value !== "") ?? chartDefault;
    return gateway.includes("/") ? gateway : `${namespace}/${gateway}`;
}

/** The name of KServe's LLMInferenceService controller chart. Source: kserve v0.20.0 charts/kserve-llmisvc-resources. */
const KSERVE_CONTROLLER_CHART = "kserve-llmisvc-resources";

/** A chart reference's name: `lws` of `lws`, `repo/lws`, `oci://registry.k8s.io/lws/charts/lws:0.7.0` or `…@sha256:…`. */
export function chartName(chart: unknown): string | undefined {
    return typeof chart === "string"
        ? chart
              .replace(/\/$/, "")
              .split("/")
              .pop()!
              .replace(/[:@].*$/, "")
        : undefined;
}

/**
 * The Gateways (as `namespace/name`) an LLMInferenceService's route attaches to: its `router.gateway.refs` (baseRefs
 * included), which KServe writes into the route's parentRefs; without refs, the parentRefs of its own route spec, or
 * KServe's default Gateway for the well-known route template. None when it has no route.
 */
export function serviceGateways(service: PolicyResource, resources: PolicyResource[]): string[] {
    const { spec } = effectiveServiceSpec(service, resources);
    const refs: Props[] = Array.isArray(spec.router?.gateway?.refs) ? spec.router.gateway.refs : [];
    if (refs.length > 0) {
        return refs.map((ref) => `${ref.namespace ?? namespaceOf(service)}/${ref.name}`);
    }
    if (spec.router?.route === undefined) {
        return [];
    }
    const ownParents: Props[] | undefined = spec.router.route.http?.spec?.parentRefs;
    return Array.isArray(ownParents) ? parentKeys(ownParents, namespaceOf(service)) : [kserveDefaultGateway(resources)];
}

/** The HTTPRoutes among the resources. */
export function httpRoutes(resources: PolicyResource[]): PolicyResource[] {
    return resources.filter((resource) => isKubernetesKind(resource.type, "gateway.networking.k8s.io", "HTTPRoute"));
}

/** Gateway parentRefs as `namespace/name`, a missing namespace being the route's. */
function parentKeys(parents: Props[], namespace: string): string[] {
    return parents
        .filter((parent) => (parent?.kind ?? "Gateway") === "Gateway")
        .map((parent) => `${parent.namespace ?? namespace}/${parent.name}`);
}

/** The Gateways (as `namespace/name`) an HTTPRoute attaches to. */
export function routeParentRefs(route: PolicyResource): string[] {
    return parentKeys(Array.isArray(route.props.spec?.parentRefs) ? route.props.spec.parentRefs : [], namespaceOf(route));
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
    const pool =
        resource.props.spec.router.scheduler.pool?.ref?.name ?? `${resource.props.metadata?.name}${KSERVE_CHILDREN.inferencePoolSuffix}`;
    return { namespace: namespaceOf(resource), ...INFERENCE_POOL_KIND, name: pool, source: resource };
}

/** The backends an HTTPRoute sends traffic to. */
export function routeBackends(resource: PolicyResource): Backend[] {
    const namespace = namespaceOf(resource);
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
    return backend.kind === INFERENCE_POOL_KIND.kind && INFERENCE_POOL_GROUPS.includes(backend.group);
}

/** Every InferencePool a GKE Gateway routes to: KServe's for its services, and any an HTTPRoute names. */
export function gkeInferencePools(resources: PolicyResource[]): Backend[] {
    const onGke = attachesToGkeGateway(resources);
    const declaredPools = new Map<string, PolicyResource>();
    for (const resource of resources) {
        for (const group of INFERENCE_POOL_GROUPS.filter((candidate) =>
            isKubernetesKind(resource.type, candidate, INFERENCE_POOL_KIND.kind),
        )) {
            declaredPools.set(
                backendKey({
                    namespace: namespaceOf(resource),
                    group,
                    kind: INFERENCE_POOL_KIND.kind,
                    name: resource.props.metadata?.name,
                    source: resource,
                }),
                resource,
            );
        }
    }
    const pools = new Map<string, Backend>();
    for (const resource of resources) {
        const pool = inferencePoolOf(resource);
        if (pool && onGke(serviceGateways(resource, resources))) {
            pools.set(backendKey(pool), pool);
        }
    }
    for (const route of httpRoutes(resources).filter((candidate) => onGke(routeParentRefs(candidate)))) {
        // A pool the stack makes is reported against its maker (KServe's service, or the InferencePool object itself).
        routeBackends(route)
            .filter((backend) => isInferencePoolBackend(backend) && !pools.has(backendKey(backend)))
            .forEach((pool) => pools.set(backendKey(pool), { ...pool, source: declaredPools.get(backendKey(pool)) ?? pool.source }));
    }
    return [...pools.values()].sort((a, b) => backendKey(a).localeCompare(backendKey(b)));
}

/** A pod that serves vLLM over plain HTTP (no TLS flags): its namespace, labels and the ports of its vLLM containers (by number and name). */
export interface VllmPod {
    namespace: string;
    labels: Record<string, string>;
    /** Ports of its vLLM containers, by number and name. */
    vllmPorts: Array<number | string>;
    /** Ports of its other containers (sidecars), by number and name. */
    otherPorts: Array<number | string>;
}

/** The pods that serve vLLM over plain HTTP. */
export function plainHttpVllmPods(resources: PolicyResource[]): VllmPod[] {
    return resources.flatMap((resource) =>
        podSpecsOf(resource.type, resource.props).flatMap((pod) => {
            const containers = containersOf(resource.type, resource.props).filter((at) => at.pod.path === pod.path);
            const serving = containers.filter((at) => isVllmContainer(at, resource.type) && !servesTls(at.container));
            const ports = (list: ContainerAt[]) =>
                list.flatMap((at) =>
                    ((at.container.ports ?? []) as Props[]).flatMap((port) =>
                        [port.containerPort, port.name].filter((value) => value !== undefined),
                    ),
                );
            return serving.length === 0
                ? []
                : [
                      {
                          namespace: namespaceOf(resource),
                          labels: pod.labels,
                          vllmPorts: ports(serving),
                          otherPorts: ports(containers.filter((at) => !serving.includes(at))),
                      },
                  ];
        }),
    );
}

/** True when a Service selects KServe's LLMInferenceService workload pods, which run vLLM, wherever the service itself is declared. */
function selectsKServeWorkload(service: PolicyResource): boolean {
    const selector: Record<string, string> = service.props.spec?.selector ?? {};
    const workload: Record<string, string> = KSERVE_CHILDREN.workloadLabels(selector["app.kubernetes.io/name"] ?? "");
    return "app.kubernetes.io/part-of" in selector && Object.entries(selector).every(([key, value]) => workload[key] === value);
}

/** True when a Service's selector picks pods with `labels` in its namespace. */
export function selects(service: PolicyResource, pod: { namespace: string; labels: Record<string, string> }): boolean {
    const selector: Record<string, string> = service.props.spec?.selector ?? {};
    const keys = Object.keys(selector);
    return keys.length > 0 && namespaceOf(service) === pod.namespace && keys.every((key) => pod.labels[key] === selector[key]);
}

/**
 * The ports of a Service that reach plain-HTTP vLLM: every port when it selects KServe's workload pods (vLLM is their
 * only server) and, when it selects vLLM pods of the stack, each port whose targetPort (a number or a name; the port
 * itself when unset) is not a sidecar's.
 */
export function portsToPlainHttpVllm(service: PolicyResource, vllmPods: VllmPod[]): Props[] {
    const ports: Props[] = Array.isArray(service.props.spec?.ports) ? service.props.spec.ports : [];
    if (selectsKServeWorkload(service)) {
        return ports;
    }
    const selected = vllmPods.filter((pod) => selects(service, pod));
    return ports.filter((port) =>
        selected.some(
            (pod) => !pod.otherPorts.includes(port.targetPort ?? port.port) || pod.vllmPorts.includes(port.targetPort ?? port.port),
        ),
    );
}

/** Policies (HealthCheckPolicy, GCPBackendPolicy) of `kind` by the `namespace/group/kind/name` of their target. */
export function gkePoliciesByTarget(resources: PolicyResource[], kind: string): Map<string, PolicyResource> {
    const byTarget = new Map<string, PolicyResource>();
    for (const resource of resources) {
        if (isKubernetesKind(resource.type, "networking.gke.io", kind)) {
            const target = resource.props.spec?.targetRef ?? {};
            byTarget.set(`${target.namespace ?? namespaceOf(resource)}/${target.group ?? ""}/${target.kind}/${target.name}`, resource);
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
    for (const resource of resources) {
        const name = resource.props?.metadata?.name;
        const brings =
            (isKubernetesKind(resource.type, "apiextensions.k8s.io", "CustomResourceDefinition") && name === what.crd) ||
            (isKubernetesKind(resource.type, "apps", "Deployment") && name === what.controller) ||
            (isHelmChart(resource.type) && chartName(resource.props?.chart) === what.chart);
        if (brings) {
            // The components above it install it too; the stack itself installs everything and says nothing.
            for (
                let current: PolicyResource | undefined = resource;
                current && current.type !== "pulumi:pulumi:Stack";
                current = current.parent
            ) {
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

/**
 * Each resource's inputs as `Analyze` saw them, by URN. `AnalyzeStack` hands a policy outputs, and a preview's
 * outputs are what a provider predicts: nothing for a Kubernetes object whose provider is not configured yet (the
 * first preview, before the cluster exists), unknowns for a GCP resource's computed fields. Inputs are what the
 * program declared, the same on every preview. The engine analyzes each resource as it registers, and the stack once
 * all have, in the same pack process. Sources: pulumi v3.248.0 sdk/go/common/resource/plugin/provider_plugin.go
 * Create (empty properties on preview when the provider's config is unknown), pkg/resource/deploy/step_generator.go
 * analyzeAll (inputs) and AnalyzeStack (Outputs).
 */
const analyzedInputs = new Map<string, Props>();

/** Keeps the inputs `Analyze` hands a policy for its resource. */
export function rememberInputs(args: ResourceValidationArgs): void {
    analyzedInputs.set(args.urn, args.props);
}

/** The stack's resources with the inputs `Analyze` saw in place of their outputs, parents and dependencies linked among them. */
export function withAnalyzedInputs(resources: PolicyResource[]): PolicyResource[] {
    const copies = new Map(
        resources.map((resource) => [resource, { ...resource, props: analyzedInputs.get(resource.urn) ?? resource.props }]),
    );
    for (const [original, copy] of copies) {
        copy.parent = original.parent && (copies.get(original.parent) ?? original.parent);
        copy.dependencies = original.dependencies.map((dependency) => copies.get(dependency) ?? dependency);
    }
    return [...copies.values()];
}
