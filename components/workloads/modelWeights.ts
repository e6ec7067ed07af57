import * as fs from "fs";
import * as path from "path";
import * as gcp from "@pulumi/gcp";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { COLD_START_STORAGE, imagePin } from "@gke-tpu-inference/facts";
import { parseGsUri } from "../lib/gcsUri";
import { workloadIdentityPrincipal } from "../lib/workloadIdentity";
import { copyTimeoutSeconds, stagesWeights, streamsWeights } from "../serving/coldStart";
import { ColdStartSettings, ModelServiceSettings } from "../settings/models";

/** Arguments of {@link ModelWeights}. */
export interface ModelWeightsArgs {
    /** Provider of the target cluster. */
    provider: k8s.Provider;
    /** GCP project of the stack. */
    project: string;
    /** The project's number: Workload Identity principals name the pool by it. */
    projectNumber: pulumi.Input<string>;
    /** The cluster's workload pool, `PROJECT.svc.id.goog`. */
    workloadPool: string;
    /** The serving namespace. */
    namespace: pulumi.Input<string>;
    /** The model service, validated. */
    model: ModelServiceSettings;
    /** Slice topology of the TPU pool: compiled programs differ per topology. */
    topology: string;
    coldStart: ColdStartSettings;
    /** The stack's bucket (present when weights are staged or the compilation cache is kept). */
    bucketName?: pulumi.Input<string>;
    /** Its name as known before it exists, to tell a `gs://` model inside it from one in a team's own bucket. */
    bucketId?: string;
    /** The vLLM image as the pods pull it; the copy Job runs it too (it carries huggingface_hub and the Cloud Storage client). */
    image: pulumi.Input<string>;
    /** What pulling `image` needs in place (the node account's read grant on the remote repository). */
    imagePullable: pulumi.Resource[];
    /** The Secret holding HF_TOKEN, for gated models. */
    hfTokenSecret?: pulumi.Input<string>;
}

/**
 * An IAM condition limiting a Cloud Storage role to the objects under `prefix` of `bucket`. It admits no bucket-level call
 * (listing, reading the bucket): those are checked on the bucket, and a condition cannot tell a listing's prefix in a role
 * binding (`SOURCES.gcsResourceNames` in the facts); {@link BUCKET_READER_ROLE} grants them.
 */
export function prefixCondition(bucket: string, prefix: string): string {
    return `resource.name.startsWith("projects/_/buckets/${bucket}/objects/${prefix}/")`;
}

/**
 * What a server needs on the bucket itself: reading it (the Run:ai streamer's `get_bucket`) and listing object names
 * (its `list_blobs`, gcsfs after a cache miss). The smallest GA role with both; it reads no object's data.
 */
export const BUCKET_READER_ROLE = "roles/storage.legacyBucketReader";

/** The Python the copy Job runs (see its docstring); it runs in the vLLM image, which carries huggingface_hub and the Cloud Storage client. */
export const COPY_SCRIPT = fs.readFileSync(path.join(__dirname, "weightsCopy.py"), "utf8");

/** How the copy Job works: files copied at once, each through scratch space that holds the largest shard of a model. */
export const COPY_JOB = {
    workers: 4,
    scratchPath: "/scratch",
    /** Four of Hugging Face's largest shards (5 GB each, transformers' default max_shard_size) and room to spare. */
    scratchGi: 24,
    /** The exit code of a failure no retry mends (a gated model without access, no safetensors): the Job fails at once. */
    refusedExitCode: 3,
    /** How long a 403 from Cloud Storage is retried: a new grant typically applies within 2 minutes, sometimes 7 or more. */
    grantWaitSeconds: 600,
    grantRetrySeconds: 10,
} as const;

/** Where a copy Job stages one model: the Hugging Face repository, and the bucket and prefix it writes. */
export interface WeightsCopy {
    /** The Job's name and namespace (the service's). */
    name: string;
    namespace: pulumi.Input<string>;
    /** `<org>/<model>` on Hugging Face. */
    hfRepository: string;
    bucket: pulumi.Input<string>;
    prefix: pulumi.Input<string>;
    /** The account whose grant may write the prefix. */
    serviceAccountName: pulumi.Input<string>;
    /** The vLLM image, which carries huggingface_hub and the Cloud Storage client. */
    image: pulumi.Input<string>;
    /** The Secret holding HF_TOKEN, for gated models. */
    hfTokenSecret?: pulumi.Input<string>;
    /** How long the copy may take, the grant's wait included: the Job stops then, and Pulumi waits as long. */
    timeoutSeconds: number;
}

/**
 * The Job that copies what vLLM reads of a Hugging Face repository into the bucket, {@link COPY_JOB}'s workers at a time
 * through scratch space, and fails at once on a refusal no retry mends.
 */
export function weightsCopyJob(copy: WeightsCopy) {
    return {
        metadata: {
            name: copy.name,
            namespace: copy.namespace,
            // Pulumi waits for the Job as long as the copy may take; the Job itself stops then too.
            annotations: { "pulumi.com/timeoutSeconds": String(copy.timeoutSeconds) },
        },
        spec: {
            backoffLimit: 3,
            activeDeadlineSeconds: copy.timeoutSeconds,
            // A refusal (no access to a gated model, no safetensors) is not retried: the Job fails with its message.
            podFailurePolicy: {
                rules: [{ action: "FailJob", onExitCodes: { containerName: "copy", operator: "In", values: [COPY_JOB.refusedExitCode] } }],
            },
            template: {
                spec: {
                    serviceAccountName: copy.serviceAccountName,
                    restartPolicy: "Never",
                    containers: [
                        {
                            name: "copy",
                            image: copy.image,
                            command: ["python3", "-c", COPY_SCRIPT],
                            env: [
                                { name: "HF_REPOSITORY", value: copy.hfRepository },
                                { name: "BUCKET", value: copy.bucket },
                                { name: "PREFIX", value: copy.prefix },
                                { name: "MARKER", value: COLD_START_STORAGE.markerObject },
                                { name: "WORKERS", value: String(COPY_JOB.workers) },
                                { name: "SCRATCH", value: COPY_JOB.scratchPath },
                                { name: "SCRATCH_LIMIT_BYTES", value: String(COPY_JOB.scratchGi * 2 ** 30) },
                                { name: "REFUSED_EXIT_CODE", value: String(COPY_JOB.refusedExitCode) },
                                { name: "GRANT_WAIT_SECONDS", value: String(COPY_JOB.grantWaitSeconds) },
                                { name: "GRANT_RETRY_SECONDS", value: String(COPY_JOB.grantRetrySeconds) },
                                // The token stays in its Secret: the Job spec names it only.
                                ...(copy.hfTokenSecret !== undefined
                                    ? [{ name: "HF_TOKEN", valueFrom: { secretKeyRef: { name: copy.hfTokenSecret, key: "HF_TOKEN" } } }]
                                    : []),
                            ],
                            resources: { requests: { cpu: "2", memory: "4Gi", "ephemeral-storage": `${COPY_JOB.scratchGi}Gi` } },
                            volumeMounts: [{ name: "scratch", mountPath: COPY_JOB.scratchPath }],
                            // What the script says last (why it refused) shows in the pod's status and Pulumi's error.
                            terminationMessagePolicy: "FallbackToLogsOnError",
                        },
                    ],
                    volumes: [{ name: "scratch", emptyDir: { sizeLimit: `${COPY_JOB.scratchGi}Gi` } }],
                },
            },
        },
    };
}

/**
 * Where one model service reads its weights and keeps its compiled programs, with least privilege: the server's own
 * Kubernetes service account, which through Workload Identity may read its weights' prefix and read and write its
 * compilation cache's prefix (or, when KServe downloads the weights, lists the token Secret for KServe's storage
 * initializer); and, for a staged `hf://` model, a Job (with an account that may write only that model's prefix) that
 * copies what vLLM reads of the repository into the bucket once, several files at a time, skipped when a marker names
 * the same revision.
 */
export class ModelWeights extends pulumi.ComponentResource {
    /** The server's Kubernetes service account. */
    public readonly serviceAccountName: pulumi.Output<string>;
    /** `gs://…` the server streams the weights from, when it does; otherwise KServe downloads them. */
    public readonly weightsUri?: pulumi.Output<string>;
    /** `gs://…` of the compilation cache, when it is kept. */
    public readonly cacheUri?: pulumi.Output<string>;
    /** What the server waits for: the weights staged and its grants in place. */
    public readonly ready: pulumi.Resource[] = [];

    constructor(name: string, args: ModelWeightsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("gke-tpu-inference:workloads:ModelWeights", name, {}, opts);
        const { model, coldStart } = args;
        const childOpts = { parent: this, provider: args.provider };
        const streams = streamsWeights(model, coldStart);
        const staged = stagesWeights(model, coldStart);

        const server = new k8s.core.v1.ServiceAccount(
            `${name}-server`,
            {
                metadata: { name: `${model.name}-server`, namespace: args.namespace },
                // KServe gives its storage initializer the HF_TOKEN of every Secret the pod's service account lists.
                ...(!streams && args.hfTokenSecret !== undefined ? { secrets: [{ name: args.hfTokenSecret }] } : {}),
            },
            childOpts,
        );
        this.serviceAccountName = server.metadata.name;

        const bucketName = pulumi.output(args.bucketName!);
        const principal = (account: pulumi.Input<string>) =>
            workloadIdentityPrincipal(args.projectNumber, args.workloadPool, args.namespace, account);
        const grant = (
            suffix: string,
            role: string,
            bucket: pulumi.Input<string>,
            member: pulumi.Input<string>,
            condition?: { title: string; expression: pulumi.Input<string> },
        ) =>
            new gcp.storage.BucketIAMMember(
                `${name}-${suffix}`,
                { bucket, role, member, ...(condition ? { condition } : {}) },
                { parent: this },
            );
        const serverPrincipal = principal(server.metadata.name);

        if (streams) {
            const hfRepository = model.modelUri.slice("hf://".length);
            const source = staged
                ? bucketName.apply((bucket) => ({ bucket, prefix: `${COLD_START_STORAGE.weightsPrefix}/${hfRepository}` }))
                : pulumi.output(parseGsUri(model.modelUri));
            this.weightsUri = source.apply(({ bucket, prefix }) => `gs://${bucket}/${prefix}`);
            const weightsObjects = source.apply(({ bucket, prefix }) => prefixCondition(bucket, prefix));
            this.ready.push(
                grant("read-weights", "roles/storage.objectViewer", source.bucket, serverPrincipal, {
                    title: "read the model's weights",
                    expression: weightsObjects,
                }),
            );
            // A team's own bucket; the stack's is read below, one grant whatever reads it.
            if (!staged && parseGsUri(model.modelUri).bucket !== args.bucketId) {
                this.ready.push(grant("weights-bucket", BUCKET_READER_ROLE, source.bucket, serverPrincipal));
            }
            if (staged) {
                const copier = new k8s.core.v1.ServiceAccount(
                    `${name}-copier`,
                    { metadata: { name: `${model.name}-weights-copy`, namespace: args.namespace } },
                    childOpts,
                );
                const copyGrant = grant("write-weights", "roles/storage.objectUser", source.bucket, principal(copier.metadata.name), {
                    title: "stage the model's weights",
                    expression: weightsObjects,
                });
                const job = new k8s.batch.v1.Job(
                    `${name}-copy`,
                    weightsCopyJob({
                        name: `${model.name}-weights-copy`,
                        namespace: args.namespace,
                        hfRepository,
                        bucket: source.bucket,
                        prefix: source.prefix,
                        serviceAccountName: copier.metadata.name,
                        image: args.image,
                        hfTokenSecret: args.hfTokenSecret,
                        timeoutSeconds: copyTimeoutSeconds(model, COPY_JOB.grantWaitSeconds),
                    }),
                    // The Job writes with its grant and pulls with the node account's; a changed Job (immutable) is replaced under the same name.
                    { ...childOpts, dependsOn: [copyGrant, ...args.imagePullable], deleteBeforeReplace: true },
                );
                this.ready.push(job);
            }
        }

        if (coldStart.compilationCache) {
            // Settings admit only pinned images: a digest, or a release tag.
            const pin = imagePin(model.image)!;
            const prefix = `${COLD_START_STORAGE.cachePrefix}/${model.modelName}/${args.topology}/${pin}`;
            this.cacheUri = pulumi.interpolate`gs://${bucketName}/${prefix}`;
            this.ready.push(
                grant("cache", "roles/storage.objectUser", bucketName, serverPrincipal, {
                    title: "keep the compilation cache",
                    expression: bucketName.apply((bucket) => prefixCondition(bucket, prefix)),
                }),
            );
        }
        // The stack's bucket, for staged weights, a gs:// model inside it or the cache: one grant, so that what reads it can
        // change without a second binding of the same member and role, whose removal would take the first one with it.
        const readsStackBucket =
            staged ||
            coldStart.compilationCache ||
            (streams && parseGsUri(model.modelUri).bucket === args.bucketId && args.bucketId !== undefined);
        if (readsStackBucket) {
            this.ready.push(grant("stack-bucket", BUCKET_READER_ROLE, bucketName, serverPrincipal));
        }
        this.registerOutputs({ serviceAccountName: this.serviceAccountName, weightsUri: this.weightsUri, cacheUri: this.cacheUri });
    }
}
