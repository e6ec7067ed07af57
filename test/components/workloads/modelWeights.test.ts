import { ColdStartSettings, ModelServiceSettings } from "../../../components/settings/models";
import { COPY_SCRIPT } from "../../../components/workloads/modelWeights";
import { PATTERN1, modelsFrom } from "../settings/parse";
import { CACHE_THRESHOLDS, COLD_START_ON, SERVING_WAIT, serviceFor } from "./modelServiceHarness";

describe("ModelService with a fast cold start", () => {
    const BUCKET = "tpu-inference-dev-weights-9ceade23";
    const PRINCIPAL =
        "principal://iam.googleapis.com/projects/123456789012/locations/global/workloadIdentityPools/acme-inference.svc.id.goog/subject/ns/models/sa";
    let staged: Awaited<ReturnType<typeof serviceFor>>;
    beforeAll(async () => {
        staged = await serviceFor(PATTERN1, true, COLD_START_ON);
    });

    test("the server streams the staged weights from the bucket, keeps its compiled programs there, and pulls its image through the remote repository", () => {
        const spec = staged.llmisvc.inputs.spec as Record<string, Record<string, unknown>>;
        const weights = `gs://${BUCKET}/weights/Qwen/Qwen2.5-3B-Instruct`;
        expect(spec.model).toEqual({ uri: weights, name: "Qwen/Qwen2.5-3B-Instruct" });
        expect(spec.storageInitializer).toEqual({ enabled: false });
        const [main] = spec.template.containers as Array<Record<string, unknown>>;
        expect(spec.template.serviceAccountName).toBe("qwen-server");
        expect((main.args as string[]).slice(0, 2)).toEqual([weights, "--load-format=runai_streamer"]);
        // Every compile is written to the cache, the ones under JAX's default 1 s included.
        expect(main.env).toEqual([
            { name: "VLLM_API_KEY", valueFrom: { secretKeyRef: { name: "vllm-api-key", key: "VLLM_API_KEY" } } },
            { name: "VLLM_XLA_CACHE_PATH", value: `gs://${BUCKET}/xla-cache/Qwen/Qwen2.5-3B-Instruct/2x2/v0.27.0` },
            ...CACHE_THRESHOLDS,
        ]);
        expect(main.image).toBe("europe-west4-docker.pkg.dev/acme-inference/tpu-inference-dev-images/vllm/vllm-tpu:v0.27.0");
    });

    test("least privilege: the server reads its weights' prefix and the bucket's names, writes only its cache's prefix; the copy Job writes only its model's prefix", () => {
        const grant = (name: string) => staged.graph.get("gcp:storage/bucketIAMMember:BucketIAMMember", name).inputs;
        expect(grant("qwen-weights-read-weights")).toEqual({
            bucket: BUCKET,
            role: "roles/storage.objectViewer",
            member: `${PRINCIPAL}/qwen-server`,
            condition: {
                title: "read the model's weights",
                expression: `resource.name.startsWith("projects/_/buckets/${BUCKET}/objects/weights/Qwen/Qwen2.5-3B-Instruct/")`,
            },
        });
        // The streamer reads the bucket and lists it; a condition cannot scope either in a role binding.
        expect(grant("qwen-weights-stack-bucket")).toEqual({
            bucket: BUCKET,
            role: "roles/storage.legacyBucketReader",
            member: `${PRINCIPAL}/qwen-server`,
        });
        expect(grant("qwen-weights-cache")).toEqual({
            bucket: BUCKET,
            role: "roles/storage.objectUser",
            member: `${PRINCIPAL}/qwen-server`,
            condition: {
                title: "keep the compilation cache",
                expression: `resource.name.startsWith("projects/_/buckets/${BUCKET}/objects/xla-cache/Qwen/Qwen2.5-3B-Instruct/2x2/v0.27.0/")`,
            },
        });
        expect(grant("qwen-weights-write-weights")).toEqual({
            bucket: BUCKET,
            role: "roles/storage.objectUser",
            member: `${PRINCIPAL}/qwen-weights-copy`,
            condition: {
                title: "stage the model's weights",
                expression: `resource.name.startsWith("projects/_/buckets/${BUCKET}/objects/weights/Qwen/Qwen2.5-3B-Instruct/")`,
            },
        });
        // One bucket reader grant: the staged weights and the cache share the stack's bucket.
        expect(
            staged.graph
                .ofType("gcp:storage/bucketIAMMember:BucketIAMMember")
                .map((member) => member.name)
                .sort(),
        ).toEqual(["qwen-weights-cache", "qwen-weights-read-weights", "qwen-weights-stack-bucket", "qwen-weights-write-weights"]);
    });

    test("a model in a team's own bucket: reads of its folder and the bucket there, the cache and its bucket reader in the stack's", async () => {
        const [own] = modelsFrom([{ name: "mine", pattern: "pattern1", modelUri: "gs://team-models/llama/8b", weightsGb: 16, layers: 32 }]);
        const { graph } = await serviceFor(own, false, COLD_START_ON);
        const grants = graph
            .ofType("gcp:storage/bucketIAMMember:BucketIAMMember")
            .map(({ name, inputs }) => ({
                name,
                bucket: inputs.bucket,
                role: inputs.role,
                objects: (inputs.condition as { expression?: string } | undefined)?.expression,
            }))
            .sort((a, b) => a.name.localeCompare(b.name));
        expect(grants).toEqual([
            {
                name: "mine-weights-cache",
                bucket: BUCKET,
                role: "roles/storage.objectUser",
                objects: `resource.name.startsWith("projects/_/buckets/${BUCKET}/objects/xla-cache/team-models/llama/8b/2x2/v0.27.0/")`,
            },
            {
                name: "mine-weights-read-weights",
                bucket: "team-models",
                role: "roles/storage.objectViewer",
                objects: 'resource.name.startsWith("projects/_/buckets/team-models/objects/llama/8b/")',
            },
            { name: "mine-weights-stack-bucket", bucket: BUCKET, role: "roles/storage.legacyBucketReader", objects: undefined },
            { name: "mine-weights-weights-bucket", bucket: "team-models", role: "roles/storage.legacyBucketReader", objects: undefined },
        ]);
    });

    test("one reader grant on the stack's bucket whatever reads it, so that a change of what reads it never drops the binding", async () => {
        const readers = async (model: ModelServiceSettings, coldStart: ColdStartSettings) =>
            (await serviceFor(model, false, coldStart)).graph
                .ofType("gcp:storage/bucketIAMMember:BucketIAMMember")
                .filter(({ inputs }) => inputs.role === "roles/storage.legacyBucketReader")
                .map(({ name, inputs }) => `${name} on ${inputs.bucket}`);
        // Staged weights with the cache, then KServe fetching them with the cache: the same resource stays.
        expect(await readers(PATTERN1, COLD_START_ON)).toEqual([`qwen-weights-stack-bucket on ${BUCKET}`]);
        expect(await readers(PATTERN1, { ...COLD_START_ON, stageWeights: false })).toEqual([`qwen-weights-stack-bucket on ${BUCKET}`]);
        // A gs:// model inside the stack's own bucket: still one binding of the member and the role.
        const [inside] = modelsFrom([
            {
                name: "qwen",
                pattern: "pattern1",
                modelUri: `gs://${BUCKET}/weights/Qwen/Qwen2.5-3B-Instruct`,
                modelName: "Qwen/Qwen2.5-3B-Instruct",
            },
        ]);
        expect(await readers(inside, COLD_START_ON)).toEqual([`qwen-weights-stack-bucket on ${BUCKET}`]);
    });

    test("the copy Job: the token from its Secret, never in the spec; its grant before it runs; the server after the copy and its grants", () => {
        const job = staged.graph.get("kubernetes:batch/v1:Job", "qwen-weights-copy");
        const pod = (job.inputs.spec as { template: { spec: Record<string, unknown> } }).template.spec;
        const [copy] = pod.containers as Array<{ env: Array<Record<string, unknown>>; command: string[] } & Record<string, unknown>>;
        expect(pod.serviceAccountName).toBe("qwen-weights-copy");
        expect(copy.command).toEqual(["python3", "-c", COPY_SCRIPT]);
        expect(copy.env).toEqual([
            { name: "HF_REPOSITORY", value: "Qwen/Qwen2.5-3B-Instruct" },
            { name: "BUCKET", value: BUCKET },
            { name: "PREFIX", value: "weights/Qwen/Qwen2.5-3B-Instruct" },
            { name: "MARKER", value: ".gke-tpu-inference-staged" },
            { name: "WORKERS", value: "4" },
            { name: "SCRATCH", value: "/scratch" },
            { name: "SCRATCH_LIMIT_BYTES", value: String(24 * 2 ** 30) },
            { name: "REFUSED_EXIT_CODE", value: "3" },
            { name: "GRANT_WAIT_SECONDS", value: "600" },
            { name: "GRANT_RETRY_SECONDS", value: "10" },
            { name: "HF_TOKEN", valueFrom: { secretKeyRef: { name: "hf-token", key: "HF_TOKEN" } } },
        ]);
        // Four files at once through a scratch volume of four of Hugging Face's largest shards; the refusal ends the Job.
        expect(copy.resources).toEqual({ requests: { cpu: "2", memory: "4Gi", "ephemeral-storage": "24Gi" } });
        expect(copy.volumeMounts).toEqual([{ name: "scratch", mountPath: "/scratch" }]);
        expect(copy.terminationMessagePolicy).toBe("FallbackToLogsOnError");
        expect(pod.volumes).toEqual([{ name: "scratch", emptyDir: { sizeLimit: "24Gi" } }]);
        const jobSpec = job.inputs.spec as Record<string, unknown>;
        expect(jobSpec.backoffLimit).toBe(3);
        expect(jobSpec.activeDeadlineSeconds).toBe(1200);
        expect(jobSpec.podFailurePolicy).toEqual({
            rules: [{ action: "FailJob", onExitCodes: { containerName: "copy", operator: "In", values: [3] } }],
        });
        expect((job.inputs.metadata as { annotations: unknown }).annotations).toEqual({ "pulumi.com/timeoutSeconds": "1200" });
        // Outputs carry the image (through the repository), the bucket and the account; the grants are the explicit edges.
        expect(staged.graph.dependencyNames(job)).toEqual([
            "gcp:artifactregistry/repository:Repository store-images",
            "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember store-images-reader",
            "gcp:storage/bucket:Bucket store-bucket",
            "gcp:storage/bucketIAMMember:BucketIAMMember qwen-weights-write-weights",
            "kubernetes:core/v1:ServiceAccount qwen-weights-copier",
        ]);
        expect(staged.graph.dependencyNames(staged.llmisvc)).toEqual([
            "gcp:artifactregistry/repository:Repository store-images",
            "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember store-images-reader",
            "gcp:storage/bucket:Bucket store-bucket",
            "gcp:storage/bucketIAMMember:BucketIAMMember qwen-weights-cache",
            "gcp:storage/bucketIAMMember:BucketIAMMember qwen-weights-read-weights",
            "gcp:storage/bucketIAMMember:BucketIAMMember qwen-weights-stack-bucket",
            "kubernetes:batch/v1:Job qwen-weights-copy",
            "kubernetes:core/v1:Namespace platform",
            "kubernetes:core/v1:ServiceAccount qwen-weights-server",
            "kubernetes:networking.gke.io/v1:GCPBackendPolicy qwen-http-backend",
            "kubernetes:networking.gke.io/v1:GCPBackendPolicy qwen-pool-backend",
        ]);
    });

    test("the compilation cache is keyed by the image's digest when it is pinned by one, as by its tag otherwise", async () => {
        const digest = `sha256:${"a".repeat(64)}`;
        const [pinned] = modelsFrom([{ name: "qwen", pattern: "pattern1", image: `docker.io/vllm/vllm-tpu@${digest}` }]);
        const { llmisvc } = await serviceFor(pinned, false, COLD_START_ON);
        const [main] = (llmisvc.inputs.spec as { template: { containers: Array<{ env: unknown[] }> } }).template.containers;
        expect(main.env).toEqual([
            { name: "VLLM_API_KEY", valueFrom: { secretKeyRef: { name: "vllm-api-key", key: "VLLM_API_KEY" } } },
            { name: "VLLM_XLA_CACHE_PATH", value: `gs://${BUCKET}/xla-cache/Qwen/Qwen2.5-3B-Instruct/2x2/sha256-${"a".repeat(64)}` },
            ...CACHE_THRESHOLDS,
        ]);
    });

    test("the startup budget and Ready timeout follow the estimate, which the pack reads from an annotation", () => {
        expect(staged.llmisvc.inputs.metadata).toEqual({
            name: "qwen",
            namespace: "models",
            annotations: {
                "gke-tpu-inference/cold-start-seconds": "110",
                "gke-tpu-inference/cold-start-pessimistic-seconds": "521",
                "pulumi.com/waitFor": SERVING_WAIT,
                "pulumi.com/timeoutSeconds": String(30 * 60 + 600),
            },
        });
    });
});
