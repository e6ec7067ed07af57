/**
 * The runtime contracts of the facts ({@link RUNTIME_CONTRACTS}) read against what a program emits: who each workload runs
 * as and what it touches, both read off the emitted objects (the server's service account and `gs://` URIs, the copy Job's
 * environment, the node pools' account and image), and the IAM bindings the program grants, judged as IAM judges them:
 * the role's permissions, the binding's resource, and its condition evaluated with a CEL interpreter.
 */
import { run } from "@bufbuild/cel";
import { CHARTS, KEDA_OPERATOR_ACCOUNT, MULTI_CLUSTER_INFERENCE, VLLM_TPU_LOADING } from "@gke-tpu-inference/facts";
import { GoogleApiCall, IAM_ROLE_PERMISSIONS, RUNTIME_CONTRACTS } from "./runtimeContracts";
import { multiClusterIngressAgent } from "../components/fleet/fleetRegistration";
import { parseGsUri } from "../components/lib/gcsUri";
import { RecordedResource } from "../scripts/offline/recorder";

type Workload = keyof typeof RUNTIME_CONTRACTS;

/** An IAM binding the program grants: on a bucket, the project or a repository. */
export interface Binding {
    /** The resource it is declared by, for messages. */
    name: string;
    /** The full resource the binding is on: `projects/_/buckets/B`, `projects/P`, `projects/P/locations/L/repositories/R`. */
    on: string;
    role: string;
    member: string;
    condition?: string;
}

/** What one workload instance needs: a call of its contract, on a concrete resource, as a concrete member. */
export interface Need {
    workload: Workload;
    /** Which instance, for messages: `qwen server`, `nodes`. */
    who: string;
    member: string;
    call: GoogleApiCall;
    /** The resource the binding must be on (a bucket for its objects too). */
    on: string;
    /** The resource IAM evaluates the permission against: the bucket, an object in it, the project, the repository. */
    resourceName: string;
}

/** Where the program's Workload Identity principals live. */
export interface Identity {
    project: string;
    projectNumber: string;
}

type Env = Array<{ name: string; value?: unknown }>;
type Pod = { serviceAccountName?: string; containers?: Array<{ image?: string; env?: Env }> };

/** What image streaming needs of the node account, besides what every node does. */
const STREAMING_PERMISSION = "serviceusage.services.use";

const bucketName = (bucket: string) => `projects/_/buckets/${bucket}`;
const objectName = (bucket: string, object: string) => `${bucketName(bucket)}/objects/${object}`;

/** Every IAM binding among `resources`. */
export function bindingsOf(resources: readonly RecordedResource[]): Binding[] {
    return resources.flatMap((resource): Binding[] => {
        const inputs = resource.inputs as Record<string, string> & { condition?: { expression: string } };
        const binding = { name: resource.name, role: inputs.role, member: inputs.member, condition: inputs.condition?.expression };
        switch (resource.type) {
            case "gcp:storage/bucketIAMMember:BucketIAMMember":
                return [{ ...binding, on: bucketName(inputs.bucket) }];
            case "gcp:projects/iAMMember:IAMMember":
                return [{ ...binding, on: `projects/${inputs.project}` }];
            case "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember":
                return [{ ...binding, on: `projects/${inputs.project}/locations/${inputs.location}/repositories/${inputs.repository}` }];
            default:
                return [];
        }
    });
}

/** The repository an Artifact Registry image is pulled from, as IAM names it. */
function repositoryOf(image: string): string | undefined {
    const match = /^([a-z0-9-]+)-docker\.pkg\.dev\/([^/]+)\/([^/]+)\//.exec(image);
    return match ? `projects/${match[2]}/locations/${match[1]}/repositories/${match[3]}` : undefined;
}

/** Every need of every workload instance the resources run, read off the emitted objects. */
export function needsOf(resources: readonly RecordedResource[], identity: Identity): Need[] {
    const principal = (namespace: string, account: string) =>
        `principal://iam.googleapis.com/projects/${identity.projectNumber}/locations/global/workloadIdentityPools/${identity.project}.svc.id.goog/subject/ns/${namespace}/sa/${account}`;
    const needs: Need[] = [];
    const add = (
        workload: Workload,
        who: string,
        member: string,
        resolve: (call: GoogleApiCall) => { on: string; name: string } | undefined,
    ) => {
        for (const call of RUNTIME_CONTRACTS[workload].calls) {
            const target = resolve(call);
            if (target) {
                needs.push({ workload, who, member, call, on: target.on, resourceName: target.name });
            }
        }
    };
    const project = { on: `projects/${identity.project}`, name: `projects/${identity.project}` };
    const images = new Set<string>();

    for (const resource of resources) {
        const inputs = resource.inputs as {
            metadata?: { name: string; namespace: string };
            spec?: { model?: { uri: string }; template?: Pod & { spec?: Pod }; worker?: Pod };
        };
        if (resource.type === "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService") {
            const { name, namespace } = inputs.metadata!;
            const pod = inputs.spec!.template!;
            const weights = inputs.spec!.model!.uri.startsWith("gs://") ? parseGsUri(inputs.spec!.model!.uri) : undefined;
            const cacheUri = pod.containers?.[0].env?.find((env) => env.name === VLLM_TPU_LOADING.compilationCacheEnv)?.value;
            const cache = typeof cacheUri === "string" ? parseGsUri(cacheUri) : undefined;
            pod.containers?.forEach((container) => container.image && images.add(container.image));
            // A multi-host group's workers stream their own stages: they call as their own account too.
            const accounts = new Set([pod.serviceAccountName!, ...(inputs.spec!.worker ? [inputs.spec!.worker.serviceAccountName!] : [])]);
            for (const account of accounts) {
                add("modelServer", `${name} server (${account})`, principal(namespace, account), (call) => {
                    switch (call.on) {
                        case "weightsBucket":
                            return weights && { on: bucketName(weights.bucket), name: bucketName(weights.bucket) };
                        case "weightsObject":
                            return (
                                weights && {
                                    on: bucketName(weights.bucket),
                                    name: objectName(weights.bucket, `${weights.prefix}/config.json`),
                                }
                            );
                        case "cacheBucket":
                            return cache && { on: bucketName(cache.bucket), name: bucketName(cache.bucket) };
                        case "cacheObject":
                            return cache && { on: bucketName(cache.bucket), name: objectName(cache.bucket, `${cache.prefix}/jit_entry`) };
                        default:
                            return undefined;
                    }
                });
            }
        }
        if (resource.type === "kubernetes:batch/v1:Job") {
            const pod = inputs.spec!.template!.spec!;
            const env = Object.fromEntries((pod.containers?.[0].env ?? []).map((entry) => [entry.name, entry.value]));
            pod.containers?.forEach((container) => container.image && images.add(container.image));
            if (typeof env.BUCKET === "string" && typeof env.PREFIX === "string") {
                const { name, namespace } = inputs.metadata!;
                const marker = objectName(env.BUCKET, `${env.PREFIX}/${String(env.MARKER)}`);
                add("weightsCopy", `${name} Job`, principal(namespace, pod.serviceAccountName!), (call) =>
                    call.on === "weightsObject" ? { on: bucketName(env.BUCKET as string), name: marker } : undefined,
                );
            }
        }
        // The fleet's feature puts the multi-cluster Gateway controller to work, as the project's agent.
        if (
            resource.type === "gcp:gkehub/feature:Feature" &&
            (resource.inputs as { name?: string }).name === MULTI_CLUSTER_INFERENCE.fleetFeature.name
        ) {
            add("multiClusterGateway", "the multi-cluster Gateway controller", multiClusterIngressAgent(identity.projectNumber), (call) =>
                call.on === "project" ? project : undefined,
            );
        }
        if (resource.type === "kubernetes:keda.sh/v1alpha1:ScaledObject") {
            add("keda", "KEDA's operator", principal(CHARTS.keda.namespace, KEDA_OPERATOR_ACCOUNT), (call) =>
                call.on === "project" ? project : undefined,
            );
        }
    }

    for (const pool of resources.filter((resource) => resource.type === "gcp:container/nodePool:NodePool")) {
        const { nodeConfig: config, location } = pool.inputs as {
            nodeConfig: { serviceAccount: string; gcfsConfig?: { enabled?: boolean } };
            location: string;
        };
        // A pool pulls through its own region's repository: a fleet has one per member region.
        const repository = [...images]
            .map(repositoryOf)
            .find((found) => found !== undefined && (location === found.split("/")[3] || location.startsWith(`${found.split("/")[3]}-`)));
        add("nodes", `${pool.name} nodes`, `serviceAccount:${config.serviceAccount}`, (call) => {
            // The Container File System API is called only by a pool that streams images (the contract's `when`).
            if (call.permission === STREAMING_PERMISSION && !config.gcfsConfig?.enabled) {
                return undefined;
            }
            return call.on === "project"
                ? project
                : call.on === "imageRepository" && repository
                  ? { on: repository, name: repository }
                  : undefined;
        });
    }
    return needs;
}

/** Whether `condition` admits a request on `resourceName`, as IAM evaluates it (undefined: no condition). */
function admits(condition: string | undefined, resourceName: string): boolean {
    if (condition === undefined) {
        return true;
    }
    const type = resourceName.includes("/objects/") ? "storage.googleapis.com/Object" : "storage.googleapis.com/Bucket";
    return (
        run(condition, {
            resource: new Map([
                ["name", resourceName],
                ["type", type],
            ]),
        }) === true
    );
}

/** The bindings that grant `need`. */
function grants(need: Need, bindings: readonly Binding[]): Binding[] {
    return bindings.filter(
        (binding) =>
            binding.member === need.member &&
            binding.on === need.on &&
            (IAM_ROLE_PERMISSIONS[binding.role] ?? []).includes(need.call.permission) &&
            admits(binding.condition, need.resourceName),
    );
}

/** One line per need no binding grants. */
export function unmetNeeds(needs: readonly Need[], bindings: readonly Binding[]): string[] {
    return needs
        .filter((need) => grants(need, bindings).length === 0)
        .map((need) => `${need.who}: ${need.call.permission} on ${need.resourceName}, for ${need.call.request} (${need.call.source})`);
}

/** One line per binding that is of no use to any need, or that IAM would not evaluate as written. */
export function excessBindings(needs: readonly Need[], bindings: readonly Binding[]): string[] {
    return bindings.flatMap((binding) => {
        if (IAM_ROLE_PERMISSIONS[binding.role] === undefined) {
            return [`${binding.name} grants ${binding.role}, whose permissions the facts do not list`];
        }
        if (binding.condition?.includes("api.getAttribute")) {
            return [`${binding.name}'s condition reads a Cloud Storage API attribute, which role bindings do not support`];
        }
        return needs.some((need) => grants(need, [binding]).length > 0)
            ? []
            : [`${binding.name} grants ${binding.role} to ${binding.member} for nothing any workload calls`];
    });
}
