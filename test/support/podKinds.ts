/**
 * What the whole-category lesson tests share: every kind that carries a pod template, and every form in which a program
 * declares a Kubernetes object (a typed resource, a CustomResource, YAML of a ConfigGroup or ConfigFile, a Helm chart's
 * rendered object), each as a real preview records it.
 */
import { RecordedResource } from "../../scripts/offline/recorder";
import { kube, resource } from "./harness";

type Obj = Record<string, unknown>;

const template = (pod: Obj) => ({ metadata: { labels: { app: "vllm" } }, spec: pod });
const selector = { matchLabels: { app: "vllm" } };
const jobSpec = (pod: Obj) => ({ parallelism: 1, template: template(pod) });

/** Every kind that carries a pod template: its apiVersion, kind, body around `pod`, and where the pod's spec sits. */
export const POD_KINDS: Array<[apiVersion: string, kind: string, body: (pod: Obj) => Obj, podPath: string]> = [
    ["v1", "Pod", (pod) => ({ spec: pod }), "spec"],
    ["v1", "PodTemplate", (pod) => ({ template: template(pod) }), "template.spec"],
    ["v1", "ReplicationController", (pod) => ({ spec: { template: template(pod) } }), "spec.template.spec"],
    ["apps/v1", "Deployment", (pod) => ({ spec: { selector, template: template(pod) } }), "spec.template.spec"],
    ["apps/v1", "StatefulSet", (pod) => ({ spec: { selector, template: template(pod) } }), "spec.template.spec"],
    ["apps/v1", "ReplicaSet", (pod) => ({ spec: { selector, template: template(pod) } }), "spec.template.spec"],
    ["apps/v1", "DaemonSet", (pod) => ({ spec: { selector, template: template(pod) } }), "spec.template.spec"],
    ["batch/v1", "Job", (pod) => ({ spec: jobSpec(pod) }), "spec.template.spec"],
    [
        "batch/v1",
        "CronJob",
        (pod) => ({ spec: { schedule: "0 * * * *", jobTemplate: { spec: jobSpec(pod) } } }),
        "spec.jobTemplate.spec.template.spec",
    ],
    [
        "jobset.x-k8s.io/v1alpha2",
        "JobSet",
        (pod) => ({ spec: { replicatedJobs: [{ name: "slice", template: { spec: jobSpec(pod) } }] } }),
        "spec.replicatedJobs[0].template.spec.template.spec",
    ],
    [
        "leaderworkerset.x-k8s.io/v1",
        "LeaderWorkerSet",
        (pod) => ({ spec: { leaderWorkerTemplate: { size: 1, workerTemplate: { spec: pod } } } }),
        "spec.leaderWorkerTemplate.workerTemplate.spec",
    ],
    [
        "leaderworkerset.x-k8s.io/v1",
        "LeaderWorkerSet",
        (pod) => ({
            spec: { leaderWorkerTemplate: { size: 1, leaderTemplate: { spec: pod }, workerTemplate: { spec: { containers: [] } } } },
        }),
        "spec.leaderWorkerTemplate.leaderTemplate.spec",
    ],
    ["serving.kserve.io/v1alpha2", "LLMInferenceService", (pod) => ({ spec: { template: pod } }), "spec.template"],
    [
        "serving.kserve.io/v1alpha2",
        "LLMInferenceService",
        (pod) => ({ spec: { template: { containers: [] }, worker: pod } }),
        "spec.worker",
    ],
    ["serving.kserve.io/v1alpha2", "LLMInferenceService", (pod) => ({ spec: { prefill: { template: pod } } }), "spec.prefill.template"],
    ["serving.kserve.io/v1alpha2", "LLMInferenceServiceConfig", (pod) => ({ spec: { template: pod } }), "spec.template"],
    // Custom resources the reader does not know: a pod spec wherever one is embedded.
    ["serving.kserve.io/v1alpha1", "ServingRuntime", (pod) => ({ spec: pod }), "spec"],
    [
        "ray.io/v1",
        "RayCluster",
        (pod) => ({ spec: { headGroupSpec: { rayStartParams: {}, template: template(pod) } } }),
        "spec.headGroupSpec.template.spec",
    ],
    [
        "kubeflow.org/v1",
        "PyTorchJob",
        (pod) => ({ spec: { pytorchReplicaSpecs: { Worker: { replicas: 2, template: template(pod) } } } }),
        "spec.pytorchReplicaSpecs.Worker.template.spec",
    ],
];

/** The components whose children a preview records: YAML (v1 and v2 ConfigGroups and ConfigFiles) and Helm charts (v3 and v4). */
const PARENTS: Array<[label: string, type: string]> = [
    ["yaml/v2 ConfigGroup", "kubernetes:yaml/v2:ConfigGroup"],
    ["yaml/v2 ConfigFile", "kubernetes:yaml/v2:ConfigFile"],
    ["yaml ConfigGroup", "kubernetes:yaml:ConfigGroup"],
    ["yaml ConfigFile", "kubernetes:yaml:ConfigFile"],
    ["helm.sh/v4 Chart", "kubernetes:helm.sh/v4:Chart"],
    ["helm.sh/v3 Chart", "kubernetes:helm.sh/v3:Chart"],
];

/**
 * Every form in which a program declares a Kubernetes object: the typed resource or a CustomResource (the same type
 * token and inputs in a preview), and an object a YAML component or chart renders, recorded as that component's child.
 */
export const DECLARING_FORMS: Array<[label: string, declare: (object: RecordedResource) => RecordedResource[]]> = [
    ["typed resource or CustomResource", (object) => [object]],
    ...PARENTS.map(([label, type]): [string, (object: RecordedResource) => RecordedResource[]] => [
        label,
        (object) => {
            const parent = { ...resource(type, "bundle", {}), custom: false };
            return [parent, { ...object, parent: parent.urn }];
        },
    ]),
];

/** `kind` named `vllm` in namespace `models`, its pods running `pod`. */
export function podObject(apiVersion: string, kind: string, body: (pod: Obj) => Obj, pod: Obj): RecordedResource {
    return kube(apiVersion, kind, "vllm", { metadata: { name: "vllm", namespace: "models" }, ...body(pod) });
}
