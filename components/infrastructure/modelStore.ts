import { createHash } from "crypto";
import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { COLD_START_STORAGE, DOCKER_HUB, GCP_NAME_RULES, dockerHubPath } from "@gke-tpu-inference/facts";
import { StackNames } from "../lib/names";
import { FROZEN_TYPE_TOKENS } from "../lib/typeTokens";
import { stagesWeights } from "../serving/coldStart";
import { ColdStartSettings, ModelServiceSettings } from "../settings/models";

/** Arguments of {@link ModelStore}. */
export interface ModelStoreArgs {
    /** GCP project of the stack. */
    project: string;
    /** Region of the TPU pool: the bucket and the repository live there, next to the nodes that read them. */
    region: string;
    /** Per-stack names. */
    names: StackNames;
    /** Which parts are on. */
    coldStart: ColdStartSettings;
    /** The stack's model services: the bucket exists when one has its weights staged or keeps its compilation cache, the repository when one pulls from Docker Hub. */
    models: ModelServiceSettings[];
    /** The node service account, which pulls images through the repository. */
    nodeServiceAccountEmail: pulumi.Input<string>;
    /** Deletion protection: on, a bucket with objects is not deleted with the stack. */
    protect: boolean;
    /** The Cloud Storage and Artifact Registry APIs enabled. */
    dependsOn: pulumi.Input<pulumi.Resource>[];
}

/**
 * Where a model server's start reads from inside the region instead of the internet: a bucket per stack for staged
 * weights and the XLA compilation cache (uniform access, no public access, the cache expired as JAX advises), and an
 * Artifact Registry remote repository in front of Docker Hub for the vLLM image.
 */
export class ModelStore extends pulumi.ComponentResource {
    /** The bucket's name, when the stack has one; an Output, so that what uses it waits for the bucket. */
    public readonly bucketName?: pulumi.Output<string>;
    /** The same name as the program knows it before the bucket exists, to tell a `gs://` URI into it apart. */
    public readonly bucketId?: string;
    /** `REGION-docker.pkg.dev/PROJECT/REPOSITORY`, when Docker Hub images are pulled through the remote repository. */
    public readonly registryPrefix?: pulumi.Output<string>;
    /** What pulling through the repository needs: the node account's read grant on it. */
    public readonly imagePullable: pulumi.Resource[] = [];

    constructor(name: string, args: ModelStoreArgs, opts?: pulumi.ComponentResourceOptions) {
        super(FROZEN_TYPE_TOKENS.ModelStore, name, {}, opts);
        const { coldStart, models } = args;

        if (models.some((model) => stagesWeights(model, coldStart)) || (coldStart.compilationCache && models.length > 0)) {
            // Bucket names are global: a suffix from the project and the stack keeps two projects' stacks apart, and, unlike a
            // random one, is known at preview, so the policy pack and the pull request's diff see every URI the servers get.
            const suffix = createHash("sha256")
                .update(`${args.project}/${args.names.stack}`)
                .digest("hex")
                .slice(0, 2 * COLD_START_STORAGE.bucketSuffixBytes);
            this.bucketId = `${args.names.name("weights", GCP_NAME_RULES.bucket)}-${suffix}`;
            const bucket = new gcp.storage.Bucket(
                `${name}-bucket`,
                {
                    project: args.project,
                    name: this.bucketId,
                    location: args.region.toUpperCase(),
                    storageClass: "STANDARD",
                    uniformBucketLevelAccess: true,
                    publicAccessPrevention: "enforced",
                    softDeletePolicy: { retentionDurationSeconds: COLD_START_STORAGE.softDeleteSeconds },
                    // The JAX cache has no eviction: old entries (an older image or topology) age out.
                    lifecycleRules: [
                        {
                            action: { type: "Delete" },
                            condition: {
                                age: COLD_START_STORAGE.cacheLifetimeDays,
                                matchesPrefixes: [`${COLD_START_STORAGE.cachePrefix}/`],
                            },
                        },
                    ],
                    forceDestroy: !args.protect,
                },
                { parent: this, dependsOn: args.dependsOn, protect: args.protect },
            );
            this.bucketName = bucket.name;
        }

        if (coldStart.imageStreaming && models.some((model) => dockerHubPath(model.image) !== undefined)) {
            const repository = new gcp.artifactregistry.Repository(
                `${name}-images`,
                {
                    project: args.project,
                    location: args.region,
                    repositoryId: args.names.name("images", GCP_NAME_RULES.repository),
                    format: "DOCKER",
                    mode: "REMOTE_REPOSITORY",
                    description: "Docker Hub, cached in the region for the model servers' image pulls and image streaming",
                    remoteRepositoryConfig: {
                        description: "Docker Hub",
                        dockerRepository: { publicRepository: DOCKER_HUB.remoteRepository },
                    },
                },
                { parent: this, dependsOn: args.dependsOn },
            );
            this.imagePullable.push(
                new gcp.artifactregistry.RepositoryIamMember(
                    `${name}-images-reader`,
                    {
                        project: args.project,
                        location: args.region,
                        repository: repository.repositoryId,
                        role: "roles/artifactregistry.reader",
                        member: pulumi.interpolate`serviceAccount:${args.nodeServiceAccountEmail}`,
                    },
                    { parent: this },
                ),
            );
            this.registryPrefix = pulumi.interpolate`${args.region}-docker.pkg.dev/${args.project}/${repository.repositoryId}`;
        }
        this.registerOutputs({ bucketName: this.bucketName, registryPrefix: this.registryPrefix });
    }

    /** The reference to pull `image` by: Docker Hub images through the remote repository, any other as it is. */
    imageFor(image: string): pulumi.Input<string> {
        const path = dockerHubPath(image);
        return this.registryPrefix === undefined || path === undefined ? image : pulumi.interpolate`${this.registryPrefix}/${path}`;
    }
}
