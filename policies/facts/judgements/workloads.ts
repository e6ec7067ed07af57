/**
 * Pods and containers inside any object that carries them, as the kubelet will run them: every workload kind's pod
 * templates, each container's command line (with the vLLM images' entrypoints), its TPU chips, whether it is a vLLM
 * server, whether that server speaks TLS or requires an API key (and which paths the key guards), and how long its
 * probes wait.
 */
import { KSERVE_CHILDREN, TPU_MULTI_HOST, TPU_NODE, VLLM_API_KEY, VLLM_IMAGE_ENTRYPOINTS } from "../catalog";
import { imageRepository } from "../images";
import { VLLM_SERVER_COMMAND, commandWords, shellWords, startsVllmServer, vllmFlags } from "../vllmFlags";
import {
    KindRef,
    KubeProps,
    LLM_INFERENCE_SERVICE,
    LLM_INFERENCE_SERVICE_CONFIG,
    isKind,
    isKindOrPatch,
    knownWords,
    labelsOf,
    readKnown,
} from "./objects";

/** A pod spec inside an object, with where it sits (for messages) and the labels its pods get. */
export interface PodSpecAt {
    path: string;
    spec: KubeProps;
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

/** The pod specs of an object of a kind this module knows, or undefined for any other kind. */
function knownPodSpecs(kind: KindRef, object: KubeProps): PodSpecAt[] | undefined {
    const specs: PodSpecAt[] = [];
    const add = (path: string, spec: KubeProps | undefined, labels: Record<string, string> | undefined) => {
        if (spec && typeof spec === "object") {
            specs.push({ path, spec, labels: labels ?? {} });
        }
    };
    const template = (at: string, value: KubeProps | undefined) => add(`${at}.spec`, value?.spec, value?.metadata?.labels);
    if (isKindOrPatch(kind, "", "Pod")) {
        add("spec", object.spec, object.metadata?.labels);
    } else if (isKind(kind, { group: "", kind: "PodTemplate" })) {
        template("template", object.template);
    } else if (isKindOrPatch(kind, "apps", "StatefulSet")) {
        // The controller labels each pod with its name (<set>-<ordinal>); the first is always there
        // (https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/#pod-name-label).
        const first: Record<string, string> = object.metadata?.name
            ? { "statefulset.kubernetes.io/pod-name": `${object.metadata.name}-0` }
            : {};
        add("spec.template.spec", object.spec?.template?.spec, { ...labelsOf(object.spec?.template?.metadata?.labels), ...first });
    } else if (TEMPLATED_WORKLOADS.some(([group, name]) => isKindOrPatch(kind, group, name))) {
        template("spec.template", object.spec?.template);
    } else if (isKindOrPatch(kind, "batch", "CronJob")) {
        template("spec.jobTemplate.spec.template", object.spec?.jobTemplate?.spec?.template);
    } else if (isKind(kind, { group: "jobset.x-k8s.io", kind: "JobSet" })) {
        const replicated: unknown = object.spec?.replicatedJobs;
        (Array.isArray(replicated) ? (replicated as KubeProps[]) : []).forEach((job, index) =>
            template(`spec.replicatedJobs[${index}].template.spec.template`, job?.template?.spec?.template),
        );
    } else if (isKind(kind, { group: "leaderworkerset.x-k8s.io", kind: "LeaderWorkerSet" })) {
        // The controller labels every pod of the set with its name.
        const setName: Record<string, string> = object.metadata?.name
            ? { [TPU_MULTI_HOST.setNameLabel]: String(object.metadata.name) }
            : {};
        for (const at of ["leaderTemplate", "workerTemplate"] as const) {
            const value: KubeProps | undefined = object.spec?.leaderWorkerTemplate?.[at];
            add(`spec.leaderWorkerTemplate.${at}.spec`, value?.spec, { ...labelsOf(value?.metadata?.labels), ...setName });
        }
    } else if (isKind(kind, LLM_INFERENCE_SERVICE) || isKind(kind, LLM_INFERENCE_SERVICE_CONFIG)) {
        // KServe labels every workload pod of a service with its name; a config's templates have no name yet.
        const workload =
            isKind(kind, LLM_INFERENCE_SERVICE) && object.metadata?.name ? KSERVE_CHILDREN.workloadLabels(object.metadata.name) : undefined;
        add("spec.template", object.spec?.template, workload);
        add("spec.worker", object.spec?.worker, workload);
        add("spec.prefill.template", object.spec?.prefill?.template, workload);
        add("spec.prefill.worker", object.spec?.prefill?.worker, workload);
        add("spec.router.scheduler.template", object.spec?.router?.scheduler?.template, undefined);
    } else {
        return undefined;
    }
    return specs;
}

/**
 * Every pod spec an object carries: Pods and PodTemplates, workloads (Deployments, StatefulSets, DaemonSets,
 * ReplicaSets, Jobs, CronJobs, ReplicationControllers and their patches), JobSets (each replicated Job), LeaderWorkerSets (leader and worker),
 * KServe's LLMInferenceServices and LLMInferenceServiceConfigs (main, worker, prefill, scheduler), and in any other
 * Kubernetes object, every pod spec it embeds (a custom resource's templates).
 */
export function podSpecsOf(kind: KindRef, object: KubeProps): PodSpecAt[] {
    return knownPodSpecs(kind, object) ?? (isObjectKind(kind) ? embeddedWorkloads(object).pods : []);
}

/** The Kubernetes SDK's components (charts, releases, YAML, kustomizations), whose inputs hold objects they render, each judged on its own. */
const COMPONENT_GROUPS = ["helm.sh", "yaml", "kustomize"];

/** True for a Kubernetes object's kind, not a component of the Kubernetes SDK nor another resource. */
function isObjectKind(kind: KindRef): boolean {
    return kind.kind !== "" && !COMPONENT_GROUPS.includes(kind.group);
}

/** Fields of an object that say what it is, not what it runs. */
const NOT_SPEC_FIELDS = new Set(["apiVersion", "kind", "metadata", "status"]);
/** How deep into an unknown object pod specs are looked for. */
const EMBEDDED_DEPTH = 12;

/**
 * The pod specs and lone containers inside an object of a kind this module does not know (a custom resource: a
 * ServingRuntime, a RayCluster, a ClusterStorageContainer): every object with a `containers` list is a pod spec (its
 * labels those of the template around it), and every `container` object with an image is a container.
 */
function embeddedWorkloads(object: KubeProps): { pods: PodSpecAt[]; singles: Array<{ path: string; container: KubeProps }> } {
    const pods: PodSpecAt[] = [];
    const singles: Array<{ path: string; container: KubeProps }> = [];
    const visit = (value: unknown, path: string, labels: Record<string, string> | undefined, depth: number) => {
        if (depth > EMBEDDED_DEPTH || value === null || typeof value !== "object") {
            return;
        }
        if (Array.isArray(value)) {
            value.forEach((item, index) => visit(item, `${path}[${index}]`, undefined, depth + 1));
            return;
        }
        const record = value as KubeProps;
        // A value a preview does not know yet (an ARN, a role) holds no pod spec, and reading it would stop the policy.
        if (Array.isArray(readKnown(() => record.containers).value)) {
            pods.push({ path, spec: record, labels: labels ?? {} });
            return;
        }
        for (const key of Object.keys(record)) {
            const child = readKnown(() => record[key]).value;
            if ((depth === 0 && NOT_SPEC_FIELDS.has(key)) || child === undefined) {
                continue;
            }
            const at = path === "" ? key : `${path}.${key}`;
            if (
                child !== null &&
                typeof child === "object" &&
                ((key === "container" && typeof readKnown(() => (child as KubeProps).image).value === "string") ||
                    (path === "spec.predictor" && isPredictorExtension(child as KubeProps)))
            ) {
                singles.push({ path: at, container: child as KubeProps });
            } else {
                visit(child, at, key === "spec" ? readKnown(() => record.metadata?.labels).value : undefined, depth + 1);
            }
        }
    };
    visit(object, "", undefined, 0);
    return { pods, singles };
}

/**
 * True for a KServe InferenceService predictor's model or framework spec (`spec.predictor.model`, `.huggingface`,
 * `.sklearn`, …): a PredictorExtensionSpec, which embeds a container inline (its image, env, args) that the controller
 * merges over the serving runtime's, and whose `runtimeVersion` becomes the runtime image's tag (kserve v0.20.0
 * pkg/apis/serving/v1beta1/predictor.go:132-135; pkg/controller/v1beta1/inferenceservice/components/predictor.go:432,
 * utils.go:253-262, 339-354).
 */
function isPredictorExtension(spec: KubeProps): boolean {
    return ["modelFormat", "storageUri", "runtimeVersion", "image", "env", "args"].some(
        (field) => readKnown(() => spec[field]).value !== undefined,
    );
}

/** A container with where it sits. */
export interface ContainerAt {
    path: string;
    container: KubeProps;
    /** The pod spec it belongs to. */
    pod: PodSpecAt;
}

/**
 * Every container, init container and ephemeral (debug) container of every pod spec of an object, and the lone
 * containers of a custom resource (a ClusterStorageContainer's `spec.container`).
 */
export function containersOf(kind: KindRef, object: KubeProps): ContainerAt[] {
    const singles =
        !isObjectKind(kind) || knownPodSpecs(kind, object) !== undefined
            ? []
            : embeddedWorkloads(object).singles.map(({ path, container }) => ({
                  path: `${path}${container.name ? ` (${container.name})` : ""}`,
                  container,
                  pod: { path, spec: { containers: [container] }, labels: {} },
              }));
    return [
        ...singles,
        ...podSpecsOf(kind, object).flatMap((pod) =>
            (["containers", "initContainers", "ephemeralContainers"] as const).flatMap((field) =>
                (Array.isArray(pod.spec[field]) ? (pod.spec[field] as KubeProps[]) : []).map((container, index) => ({
                    path: `${pod.path}.${field}[${index}]${container?.name ? ` (${container.name})` : ""}`,
                    container: container ?? {},
                    pod,
                })),
            ),
        ),
    ];
}

/** The `google.com/tpu` count a container requests and limits, if any; Kubernetes copies a limit to the request of an extended resource. */
export function tpuResources(container: KubeProps): { requests?: number; limits?: number } {
    const read = (value: unknown) => (value === undefined ? undefined : Number(value));
    const limits = read(container.resources?.limits?.[TPU_NODE.resourceName]);
    return { requests: read(container.resources?.requests?.[TPU_NODE.resourceName]) ?? limits, limits };
}

/** True when a container asks for TPU chips. */
export function usesTpu(container: KubeProps): boolean {
    const { requests, limits } = tpuResources(container);
    return requests !== undefined || limits !== undefined;
}

/**
 * The words a container runs, split as the shell would split script strings: its command and args, or, when it sets
 * no command, what the image's entrypoint makes of them (a vLLM image starts vLLM's server: with the args as its
 * flags, or, for vllm-tpu without args, with the flags of $VLLM_ARGS).
 */
export function commandLine(container: KubeProps): string[] {
    // What a preview does not know yet (an image built in the same update, an argument from an output) is read around.
    const command = knownWords(() => container.command);
    const words = commandWords(
        command,
        knownWords(() => container.args),
    );
    const image = readKnown(() => container.image).value;
    const entrypoint = typeof image === "string" ? VLLM_IMAGE_ENTRYPOINTS[imageRepository(image).split("/").pop()!] : undefined;
    if (command.length > 0 || entrypoint === undefined) {
        return words;
    }
    if (entrypoint.args === "serverFlags") {
        return [...VLLM_SERVER_COMMAND, ...words];
    }
    if (words.length > 0) {
        return words;
    }
    const env = readKnown(() => container.env).value;
    const flags = readKnown(
        () => (Array.isArray(env) ? (env as KubeProps[]) : []).find((variable) => variable?.name === entrypoint.flagsEnv)?.value,
    ).value;
    return [...VLLM_SERVER_COMMAND, ...(typeof flags === "string" ? shellWords(flags) : [])];
}

/**
 * A container with the `$(VAR)` references of its command and args replaced as the kubelet replaces them: by the
 * literal value of the container's variable VAR (one set with valueFrom stays unknown, so the reference stays), `$$`
 * by `$`.
 */
export function withEnvExpanded(container: KubeProps): KubeProps {
    const values = new Map<string, string>();
    const env = readKnown(() => container.env).value;
    for (let index = 0; Array.isArray(env) && index < env.length; index++) {
        // A variable a preview does not know yet stays a reference, as one set with valueFrom does.
        const variable = readKnown(() => ({ name: env[index]?.name, value: env[index]?.value, valueFrom: env[index]?.valueFrom })).value;
        if (typeof variable?.name === "string" && typeof variable.value === "string" && variable.valueFrom === undefined) {
            values.set(variable.name, variable.value);
        }
    }
    const expand = (items: unknown) =>
        Array.isArray(items)
            ? items.map((item: unknown) =>
                  typeof item === "string"
                      ? item.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (reference, name?: string) =>
                            name === undefined ? "$" : (values.get(name) ?? reference),
                        )
                      : item,
              )
            : items;
    const words = (read: () => unknown) =>
        readKnown(read).value === undefined && !readKnown(read).unknown ? undefined : expand(knownWords(read));
    return { ...container, command: words(() => container.command), args: words(() => container.args) };
}

/** True when a vLLM container serves TLS itself (`--ssl-certfile`), so HTTPS towards it is right. */
export function vllmServesTls(container: KubeProps): boolean {
    return vllmFlags(commandLine(container)).some(({ flag }) => flag === "--ssl-certfile");
}

/**
 * True when a vLLM container requires an API key of every request under {@link VLLM_API_KEY.guardedPrefixes}: its
 * command line gives `--api-key` a value (`--api-key KEY`, `--api-key=KEY`, a `$(VAR)` the kubelet fills in), or its
 * env sets VLLM_API_KEY (the last entry of that name) to a non-empty literal or from valueFrom (a Secret's or
 * ConfigMap's key). envFrom may load VLLM_API_KEY too, but the object does not show a Secret's or ConfigMap's keys, so
 * a container that could only get the key that way is taken to require none: only a key the container visibly sets
 * counts.
 */
export function vllmRequiresApiKey(container: KubeProps): boolean {
    if (vllmFlags(commandLine(withEnvExpanded(container))).some(({ flag, value }) => flag === "--api-key" && !!value)) {
        return true;
    }
    const variable = ((Array.isArray(container.env) ? container.env : []) as KubeProps[])
        .filter((entry) => entry?.name === VLLM_API_KEY.env)
        .pop();
    return variable !== undefined && (variable.valueFrom !== undefined || (typeof variable.value === "string" && variable.value !== ""));
}

/**
 * The prefix of {@link VLLM_API_KEY.guardedPrefixes} that an HTTP probe's path starts with, if any. vLLM compares the
 * request path's text, as the kubelet sends it (a leading `/` added, the query left out), so `/v1/models` and `/v1x` are
 * guarded and `/health`, `/metrics`, `/ping` and `/healthv1` are not.
 */
export function vllmGuardedPrefix(path: string): string | undefined {
    const requestPath = (path.startsWith("/") ? path : `/${path}`).split(/[?#]/)[0];
    return VLLM_API_KEY.guardedPrefixes.find((prefix) => requestPath.startsWith(prefix));
}

/** True for a pod KServe runs as a service's workload (its serving pods, the leaders of multi-host groups). */
function isKServeWorkloadPod(labels: Record<string, string>): boolean {
    return Object.entries(KSERVE_CHILDREN.workloadLabels(labels["app.kubernetes.io/name"] ?? "")).every(
        ([key, value]) => labels[key] === value,
    );
}

/**
 * The vLLM server containers: a command line that starts vLLM's server, or KServe's `main` container of a workload (in
 * an LLMInferenceService or LLMInferenceServiceConfig, or a pod KServe made of one).
 */
export function isVllmContainer(at: ContainerAt, kind: KindRef): boolean {
    if (startsVllmServer(commandLine(at.container))) {
        return true;
    }
    const kserveWorkload =
        ((isKind(kind, LLM_INFERENCE_SERVICE) || isKind(kind, LLM_INFERENCE_SERVICE_CONFIG)) && !at.pod.path.startsWith("spec.router")) ||
        (isKindOrPatch(kind, "", "Pod") && isKServeWorkloadPod(at.pod.labels));
    return kserveWorkload && at.container.name === "main";
}

/** Seconds a probe tolerates failure before it acts: initial delay plus period times failure threshold (Kubernetes' defaults 0, 10 and 3). */
export function probeWindowSeconds(probe: KubeProps): number {
    return (probe.initialDelaySeconds ?? 0) + (probe.periodSeconds ?? 10) * (probe.failureThreshold ?? 3);
}
