import * as pulumi from "@pulumi/pulumi";
import { ModelStore } from "../../../components/infrastructure/modelStore";
import { ColdStartSettings, ModelServiceSettings } from "../../../components/settings/models";
import { parseSettings } from "../../../components/settings/stack";
import { STORE_ARGS } from "../../coldStart";
import { PROJECT, record } from "../../harness";

const ON: ColdStartSettings = { stageWeights: true, compilationCache: true, imageStreaming: true };

function modelsFrom(models: unknown[]): ModelServiceSettings[] {
    return parseSettings(PROJECT, (key) => (key === "models" ? JSON.stringify(models) : undefined), "acme-inference").models;
}

/** Records a ModelStore for `models`; resolves the image references it gives for `images`. */
async function storeFor(models: ModelServiceSettings[], coldStart = ON, protect = false, images: string[] = []) {
    const references: string[] = [];
    const graph = await record(() => {
        const store = new ModelStore("store", { ...STORE_ARGS, coldStart, models, protect });
        pulumi.all(images.map((image) => store.imageFor(image))).apply((resolved) => references.push(...resolved));
    });
    return { graph, references };
}

const [STAGED, PUBLIC_GS] = modelsFrom([
    { name: "qwen", pattern: "pattern1" },
    {
        name: "phi",
        pattern: "pattern1",
        modelUri: "gs://acme-models/phi",
        modelName: "microsoft/Phi-3-mini-4k-instruct",
        image: "ghcr.io/acme/vllm-tpu:v0.27.0",
    },
]);

describe("ModelStore", () => {
    test("a staged model: a private regional bucket whose cache ages out, and a Docker Hub remote repository the nodes may read", async () => {
        const { graph, references } = await storeFor([STAGED], ON, false, ["docker.io/vllm/vllm-tpu:v0.27.0", "ghcr.io/acme/epp:v1"]);
        expect(graph.get("gcp:storage/bucket:Bucket", "store-bucket").inputs).toEqual({
            project: "acme-inference",
            name: "tpu-inference-dev-weights-9ceade23",
            location: "EUROPE-WEST4",
            storageClass: "STANDARD",
            uniformBucketLevelAccess: true,
            publicAccessPrevention: "enforced",
            softDeletePolicy: { retentionDurationSeconds: 604800 },
            lifecycleRules: [{ action: { type: "Delete" }, condition: { age: 30, matchesPrefixes: ["xla-cache/"] } }],
            forceDestroy: true,
        });
        expect(graph.get("gcp:artifactregistry/repository:Repository", "store-images").inputs).toEqual({
            project: "acme-inference",
            location: "europe-west4",
            repositoryId: "tpu-inference-dev-images",
            format: "DOCKER",
            mode: "REMOTE_REPOSITORY",
            description: "Docker Hub, cached in the region for the model servers' image pulls and image streaming",
            remoteRepositoryConfig: { description: "Docker Hub", dockerRepository: { publicRepository: "DOCKER_HUB" } },
        });
        expect(graph.get("gcp:artifactregistry/repositoryIamMember:RepositoryIamMember", "store-images-reader").inputs).toEqual({
            project: "acme-inference",
            location: "europe-west4",
            repository: "tpu-inference-dev-images",
            role: "roles/artifactregistry.reader",
            member: "serviceAccount:nodes@acme-inference.iam.gserviceaccount.com",
        });
        // Docker Hub images through the repository; any other registry's as written.
        expect(references).toEqual([
            "europe-west4-docker.pkg.dev/acme-inference/tpu-inference-dev-images/vllm/vllm-tpu:v0.27.0",
            "ghcr.io/acme/epp:v1",
        ]);
    });

    test("a protected stack keeps its bucket: Pulumi protection and no force-destroy", async () => {
        const { graph } = await storeFor([STAGED], ON, true);
        const bucket = graph.get("gcp:storage/bucket:Bucket", "store-bucket");
        expect(bucket.options.protect).toBe(true);
        expect(bucket.inputs.forceDestroy).toBe(false);
    });

    test("only what a model needs: a gs:// model outside Docker Hub without a cache needs neither bucket nor repository", async () => {
        const { graph, references } = await storeFor([PUBLIC_GS], { ...ON, compilationCache: false }, false, [
            "docker.io/vllm/vllm-tpu:v0.27.0",
        ]);
        expect(graph.resources.map((resource) => resource.type)).toEqual(["pulumi:pulumi:Stack", "gke-tpu-inference:storage:ModelStore"]);
        expect(references).toEqual(["docker.io/vllm/vllm-tpu:v0.27.0"]);
        // Its compilation cache alone needs the bucket.
        expect((await storeFor([PUBLIC_GS])).graph.ofType("gcp:storage/bucket:Bucket")).toHaveLength(1);
    });

    test("no model services, or every part off: nothing but the component", async () => {
        for (const [models, coldStart] of [
            [[], ON],
            [[STAGED], { stageWeights: false, compilationCache: false, imageStreaming: false }],
        ] as const) {
            const { graph } = await storeFor([...models], coldStart);
            expect(graph.resources.map((resource) => resource.type)).toEqual([
                "pulumi:pulumi:Stack",
                "gke-tpu-inference:storage:ModelStore",
            ]);
        }
    });
});
