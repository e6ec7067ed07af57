import { errorOf, parse, problemsOf } from "./parse";

describe("settings defaults", () => {
    test("model services: defaults fill in the field reports' model, image and context length", () => {
        const settings = parse({
            models: JSON.stringify([
                { name: "qwen", pattern: "pattern1" },
                { name: "qwen-cache", pattern: "pattern3", replicas: 2, maxModelLen: 4096, extraArgs: ["--gpu-memory-utilization=0.9"] },
            ]),
        });
        expect(settings.models).toEqual([
            {
                name: "qwen",
                pattern: "pattern1",
                modelUri: "hf://Qwen/Qwen2.5-3B-Instruct",
                modelName: "Qwen/Qwen2.5-3B-Instruct",
                replicas: 1,
                image: "docker.io/vllm/vllm-tpu:v0.27.0",
                maxModelLen: 2048,
                extraArgs: [],
                weightsGb: 6.2,
                layers: 36,
            },
            {
                name: "qwen-cache",
                pattern: "pattern3",
                modelUri: "hf://Qwen/Qwen2.5-3B-Instruct",
                modelName: "Qwen/Qwen2.5-3B-Instruct",
                replicas: 2,
                image: "docker.io/vllm/vllm-tpu:v0.27.0",
                maxModelLen: 4096,
                extraArgs: ["--gpu-memory-utilization=0.9"],
                weightsGb: 6.2,
                layers: 36,
            },
        ]);
        expect(
            parse({
                models: JSON.stringify([
                    { name: "llama", pattern: "pattern1", modelUri: "hf://meta-llama/Llama-3.2-1B", weightsGb: 2.5, layers: 16 },
                ]),
            }).models[0],
        ).toMatchObject({ modelName: "meta-llama/Llama-3.2-1B", weightsGb: 2.5, layers: 16 });
        // A known model is found by its Hugging Face repository when the entry names it differently.
        expect(
            parse({
                tpuTopology: "4x4",
                tpuMaxNodes: "4",
                hfToken: "hf_test",
                models: JSON.stringify([
                    { name: "llama", pattern: "pattern1", modelUri: "hf://meta-llama/Llama-3.1-70B-Instruct", modelName: "llama-70b" },
                ]),
            }).models[0],
        ).toMatchObject({ weightsGb: 141.2, layers: 80 });
    });

    test("a model the catalog does not know must give its size and layers; cold-start parts can be turned off", () => {
        expect(() =>
            parse({ models: JSON.stringify([{ name: "mine", pattern: "pattern1", modelUri: "gs://team-models/mine", weightsGb: 0 }]) }),
        ).toThrow(
            [
                "gke-tpu-inference:models[0].weightsGb = 0 is not more than 0; allowed: the size of the model's weights in GB, more than 0",
            ].join("\n"),
        );
        expect(() => parse({ models: JSON.stringify([{ name: "mine", pattern: "pattern1", modelUri: "gs://team-models/mine" }]) })).toThrow(
            [
                'gke-tpu-inference:models[0].weightsGb is not set and the catalog does not know "team-models/mine"; allowed: the size of its weights in GB (known models: Qwen/Qwen2.5-3B-Instruct, microsoft/Phi-3-mini-4k-instruct, meta-llama/Llama-3.1-8B-Instruct, meta-llama/Llama-3.1-70B-Instruct, Qwen/Qwen2.5-72B-Instruct)',
                'gke-tpu-inference:models[0].layers is not set and the catalog does not know "team-models/mine"; allowed: its number of transformer layers (known models: Qwen/Qwen2.5-3B-Instruct, microsoft/Phi-3-mini-4k-instruct, meta-llama/Llama-3.1-8B-Instruct, meta-llama/Llama-3.1-70B-Instruct, Qwen/Qwen2.5-72B-Instruct)',
            ].join("\n"),
        );
        expect(() => parse({ models: JSON.stringify([{ name: "mine", pattern: "pattern1", layers: 12.5 }]) })).toThrow(
            "gke-tpu-inference:models[0].layers = 12.5 is not a whole number; allowed: 1 to 1000 (the model's transformer layers)",
        );
        expect(parse({ stageWeights: "false", compilationCache: "false", imageStreaming: "false" }).coldStart).toEqual({
            stageWeights: false,
            compilationCache: false,
            imageStreaming: false,
        });
        expect(() => parse({ imageStreaming: "yes" })).toThrow(
            'gke-tpu-inference:imageStreaming = "yes" is not a boolean; allowed: true, false',
        );
    });

    test("autoscaling: the signal and its target default from the catalog; the minimum is where the service starts", () => {
        const models = (entries: unknown[]) => parse({ models: JSON.stringify(entries), tpuMaxNodes: "6" }).models;
        const [queue, kvCache] = models([
            { name: "q", pattern: "pattern1", autoscaling: { minReplicas: 1, maxReplicas: 3 } },
            { name: "k", pattern: "pattern3", autoscaling: { minReplicas: 2, maxReplicas: 3, signal: "kvCache", target: 0.7 } },
        ]);
        expect([queue.replicas, queue.autoscaling]).toEqual([1, { minReplicas: 1, maxReplicas: 3, signal: "queue", target: 5 }]);
        expect([kvCache.replicas, kvCache.autoscaling]).toEqual([2, { minReplicas: 2, maxReplicas: 3, signal: "kvCache", target: 0.7 }]);
        expect(models([{ name: "f", pattern: "pattern1", replicas: 2 }])[0]).not.toHaveProperty("autoscaling");
    });

    test("autoscaling that cannot work is refused, every problem at once", () => {
        const error = (entries: unknown[], tpuMaxNodes = "8") => errorOf({ models: JSON.stringify(entries), tpuMaxNodes });
        expect(
            error([
                { name: "a", pattern: "pattern1", replicas: 1, autoscaling: { minReplicas: 1, maxReplicas: 2 } },
                { name: "b", pattern: "pattern1", autoscaling: { minReplicas: 3, maxReplicas: 2 } },
                { name: "c", pattern: "pattern3", autoscaling: { minReplicas: 1, maxReplicas: 2 } },
                { name: "d", pattern: "pattern1", autoscaling: { minReplicas: 1, maxReplicas: 1, signal: "kvCache", target: 1.5 } },
            ]),
        ).toBe(
            [
                "gke-tpu-inference:models[0] sets both replicas and autoscaling; allowed: one of them (autoscaling.minReplicas is where it starts)",
                "gke-tpu-inference:models[1].autoscaling.minReplicas = 3 is greater than maxReplicas = 2; allowed: minReplicas <= maxReplicas",
                "gke-tpu-inference:models[2].autoscaling.minReplicas = 1 leaves pattern3 nothing to route between by prefix; allowed: 2 or more (or pattern1)",
                "gke-tpu-inference:models[3].autoscaling.target = 1.5 is above what kvCache can reach; allowed: more than 0, at most 1",
            ].join("\n"),
        );
        // The pool must hold every service at its maximum.
        expect(
            error(
                [
                    { name: "a", pattern: "pattern1", autoscaling: { minReplicas: 1, maxReplicas: 3 } },
                    { name: "b", pattern: "pattern1", replicas: 1 },
                ],
                "3",
            ),
        ).toBe(
            "gke-tpu-inference:models asks for up to 4 replicas (autoscaled services at their maxReplicas), one ct6e-standard-4t 2x2 VM each, but gke-tpu-inference:tpuMaxNodes = 3; allowed: at most 3 replicas in total, or a larger tpuMaxNodes",
        );
        // The pool's floor may not keep what the services at their minimum leave idle.
        expect(
            errorOf({
                models: JSON.stringify([{ name: "a", pattern: "pattern1", autoscaling: { minReplicas: 1, maxReplicas: 3 } }]),
                tpuMinNodes: "2",
            }),
        ).toBe(
            "gke-tpu-inference:tpuMinNodes = 2 keeps TPU VMs that the services at their minimum (1 replica) leave idle; allowed: at most 1",
        );
        expect(error([{ name: "a", pattern: "pattern1", autoscaling: { minReplicas: 0, maxReplicas: 2, signal: "latency" } }])).toBe(
            [
                "gke-tpu-inference:models[0].autoscaling.minReplicas = 0 is not a whole number from 1 to 1000; allowed: 1 to 1000 (TPU VMs kept serving; paused is the zero state)",
                'gke-tpu-inference:models[0].autoscaling.signal = "latency" is not an autoscaling signal; allowed: queue, kvCache',
            ].join("\n"),
        );
    });

    test("an fp8 KV cache takes a byte a value: the context that did not fit beside the weights at bf16 fits", () => {
        const entry = (extraArgs: string[]) =>
            JSON.stringify([
                { name: "llama", pattern: "pattern1", modelUri: "hf://meta-llama/Llama-3.1-8B-Instruct", maxModelLen: 131072, extraArgs },
            ]);
        const utilization = "--gpu-memory-utilization=0.25";
        expect(() => parse({ hfToken: "hf_test", models: entry([utilization]) })).toThrow("17.2 GB of KV cache for maxModelLen 131072");
        expect(parse({ hfToken: "hf_test", models: entry([utilization, "--kv-cache-dtype", "fp8"]) }).models[0].maxModelLen).toBe(131072);
    });

    test("one replica of one model fills a multi-host slice", () => {
        const settings = parse({
            tpuTopology: "4x4",
            tpuMaxNodes: "4",
            hfToken: "hf_test",
            models: '[{"name": "llama", "pattern": "pattern1", "modelUri": "hf://meta-llama/Llama-3.1-70B-Instruct"}]',
        });
        expect(settings.tpu).toEqual(expect.objectContaining({ hostsPerSlice: 4, chipsPerVm: 4 }));
        expect(settings.models).toEqual([expect.objectContaining({ name: "llama", replicas: 1, weightsGb: 141.2, layers: 80 })]);
    });
});

describe("settings validation names the key, the value and what is allowed", () => {
    test.each<[string, Record<string, string>, string]>([
        [
            "model services that are not a list",
            { models: '{"name": "qwen"}' },
            'gke-tpu-inference:models = {"name":"qwen"} is not a list of model services; allowed: e.g. [{"name": "qwen", "pattern": "pattern1"}]',
        ],
        [
            "unknown model service field",
            { models: '[{"name": "qwen", "pattern": "pattern1", "gpu": 1}]' },
            "gke-tpu-inference:models[0].gpu is not a model service setting; allowed: name, pattern, modelUri, modelName, replicas, image, maxModelLen, extraArgs, weightsGb, layers, autoscaling",
        ],
        [
            "model service name that is not a DNS label",
            { models: '[{"name": "Qwen_3B", "pattern": "pattern1"}]' },
            'gke-tpu-inference:models[0].name = "Qwen_3B" is not a DNS-1123 label of at most 38 characters; allowed: lowercase letters, digits and hyphens, starting and ending with a letter or digit (KServe derives longer names from it)',
        ],
        [
            "model service name used twice",
            { models: '[{"name": "qwen", "pattern": "pattern1"}, {"name": "qwen", "pattern": "pattern1"}]' },
            'gke-tpu-inference:models[1].name = "qwen" is used twice; allowed: a name unique in the stack',
        ],
        [
            "unknown serving pattern",
            { models: '[{"name": "qwen", "pattern": "pattern4"}]' },
            'gke-tpu-inference:models[0].pattern = "pattern4" is not a serving pattern; allowed: pattern1, pattern3',
        ],
        [
            "Pattern 2 named on a service instead of the stack",
            { models: '[{"name": "qwen", "pattern": "pattern2"}]' },
            'gke-tpu-inference:models[0].pattern = "pattern2" is a stack\'s pattern (several services behind one endpoint): set bodyBasedRouting to true and give each service pattern1 or pattern3; allowed: pattern1, pattern3',
        ],
        [
            "prefix-cache routing with one replica",
            { models: '[{"name": "qwen", "pattern": "pattern3", "replicas": 1}]' },
            "gke-tpu-inference:models[0].replicas = 1 gives pattern3 nothing to route between; allowed: 2 or more (or pattern1 for one replica)",
        ],
        [
            "zero replicas",
            { models: '[{"name": "qwen", "pattern": "pattern1", "replicas": 0}]' },
            "gke-tpu-inference:models[0].replicas = 0 is not a whole number from 1 to 1000; allowed: 1 to 1000 (one TPU VM each, within GKE's nodes per node pool zone)",
        ],
        [
            "node counts that cannot hold the requested replicas",
            { models: '[{"name": "a", "pattern": "pattern3", "replicas": 3}, {"name": "b", "pattern": "pattern1"}]' },
            "gke-tpu-inference:models asks for 4 replicas, one ct6e-standard-4t 2x2 VM each, but gke-tpu-inference:tpuMaxNodes = 3; allowed: at most 3 replicas in total, or a larger tpuMaxNodes",
        ],
        [
            "two replicas on one multi-host slice",
            { tpuTopology: "4x4", tpuMaxNodes: "4", models: '[{"name": "llama", "pattern": "pattern1", "replicas": 2}]' },
            "gke-tpu-inference:models asks for 2 replicas, one 4x4 slice of 4 ct6e-standard-4t VMs each, but gke-tpu-inference:tpuMaxNodes = 4; allowed: at most 1 replica in total, or a larger tpuMaxNodes",
        ],
        [
            "prefix-cache routing (two replicas by default) on one multi-host slice",
            { tpuTopology: "4x8", tpuMaxNodes: "8", models: '[{"name": "llama", "pattern": "pattern3"}]' },
            "gke-tpu-inference:models asks for 2 replicas, one 4x8 slice of 8 ct6e-standard-4t VMs each, but gke-tpu-inference:tpuMaxNodes = 8; allowed: at most 1 replica in total, or a larger tpuMaxNodes",
        ],
        [
            "two model services sharing one multi-host slice",
            {
                tpuTopology: "4x4",
                tpuMaxNodes: "4",
                models: '[{"name": "a", "pattern": "pattern1"}, {"name": "b", "pattern": "pattern1", "modelUri": "hf://microsoft/Phi-3-mini-4k-instruct"}]',
            },
            "gke-tpu-inference:models asks for 2 replicas, one 4x4 slice of 4 ct6e-standard-4t VMs each, but gke-tpu-inference:tpuMaxNodes = 4; allowed: at most 1 replica in total, or a larger tpuMaxNodes",
        ],
        [
            "an autoscaled service on a multi-host slice",
            {
                tpuTopology: "4x4",
                tpuMaxNodes: "4",
                models: '[{"name": "llama", "pattern": "pattern1", "autoscaling": {"minReplicas": 1, "maxReplicas": 1}}]',
            },
            'gke-tpu-inference:models[0].autoscaling scales a Deployment, but on gke-tpu-inference:tpuTopology = "4x4" (4 hosts) a replica is one LeaderWorkerSet group across a slice; allowed: replicas without autoscaling, or a single-host tpuTopology (2x2)',
        ],
        [
            "the pipeline-parallel size the builder sets",
            { models: '[{"name": "qwen", "pattern": "pattern1", "extraArgs": ["-pp", "2"]}]' },
            'gke-tpu-inference:models[0].extraArgs = ["-pp","2"] contains "-pp 2": it always equals the slice\'s hosts (1 on a single-host shape); allowed: flags other than --prefix-cache-block-size, --tensor-parallel-size, --pipeline-parallel-size, --max-model-len, --port, --host, --served-model-name, --enable-prefix-caching, --shutdown-timeout, --disable-access-log-for-endpoints, --load-format',
        ],
        [
            "an image on latest",
            { models: '[{"name": "qwen", "pattern": "pattern1", "image": "vllm/vllm-tpu:latest"}]' },
            'gke-tpu-inference:models[0].image = "vllm/vllm-tpu:latest" is not pinned; allowed: an image with a release tag (a version, a date or a commit; not latest, a branch or a variant alone), or a digest (@sha256: and 64 hex digits)',
        ],
        [
            "an untagged image behind a registry port",
            { models: '[{"name": "qwen", "pattern": "pattern1", "image": "registry.local:5000/vllm-tpu"}]' },
            'gke-tpu-inference:models[0].image = "registry.local:5000/vllm-tpu" is not pinned; allowed: an image with a release tag (a version, a date or a commit; not latest, a branch or a variant alone), or a digest (@sha256: and 64 hex digits)',
        ],
        [
            "a flag vLLM rejects (copied from GPU write-ups)",
            { models: '[{"name": "qwen", "pattern": "pattern3", "extraArgs": ["--prefix-cache-block-size=16"]}]' },
            'gke-tpu-inference:models[0].extraArgs = ["--prefix-cache-block-size=16"] contains "--prefix-cache-block-size=16": not a vLLM flag on any platform (vLLM sizes prefix-cache blocks with --block-size); vLLM exits with "unrecognized arguments"; ' +
                "allowed: flags other than --prefix-cache-block-size, --tensor-parallel-size, --pipeline-parallel-size, --max-model-len, --port, --host, --served-model-name, --enable-prefix-caching, --shutdown-timeout, --disable-access-log-for-endpoints, --load-format",
        ],
        [
            "a flag the builder sets",
            { models: '[{"name": "qwen", "pattern": "pattern1", "extraArgs": ["--tensor-parallel-size=8"]}]' },
            'gke-tpu-inference:models[0].extraArgs = ["--tensor-parallel-size=8"] contains "--tensor-parallel-size=8": it always equals the chips per VM; allowed: flags other than --prefix-cache-block-size, --tensor-parallel-size, --pipeline-parallel-size, --max-model-len, --port, --host, --served-model-name, --enable-prefix-caching, --shutdown-timeout, --disable-access-log-for-endpoints, --load-format',
        ],
        [
            "a rejected flag spelled with underscores, its value in the same string",
            { models: '[{"name": "qwen", "pattern": "pattern3", "extraArgs": ["--prefix_cache_block_size 16"]}]' },
            'gke-tpu-inference:models[0].extraArgs = ["--prefix_cache_block_size 16"] contains "--prefix_cache_block_size 16": not a vLLM flag on any platform (vLLM sizes prefix-cache blocks with --block-size); vLLM exits with "unrecognized arguments"; ' +
                "allowed: flags other than --prefix-cache-block-size, --tensor-parallel-size, --pipeline-parallel-size, --max-model-len, --port, --host, --served-model-name, --enable-prefix-caching, --shutdown-timeout, --disable-access-log-for-endpoints, --load-format",
        ],
        [
            "a builder flag by its short alias",
            { models: '[{"name": "qwen", "pattern": "pattern1", "extraArgs": ["-tp", "8"]}]' },
            'gke-tpu-inference:models[0].extraArgs = ["-tp","8"] contains "-tp 8": it always equals the chips per VM; allowed: flags other than --prefix-cache-block-size, --tensor-parallel-size, --pipeline-parallel-size, --max-model-len, --port, --host, --served-model-name, --enable-prefix-caching, --shutdown-timeout, --disable-access-log-for-endpoints, --load-format',
        ],
        [
            "a model URI without a scheme",
            { models: '[{"name": "qwen", "pattern": "pattern1", "modelUri": "Qwen/Qwen2.5-3B-Instruct"}]' },
            'gke-tpu-inference:models[0].modelUri = "Qwen/Qwen2.5-3B-Instruct" is not a model URI; allowed: hf://, gs://, s3://, pvc:// or oci:// followed by a path',
        ],
        [
            "a gs:// model URI naming a whole bucket",
            { models: '[{"name": "mine", "pattern": "pattern1", "modelUri": "gs://team-models/", "weightsGb": 16, "layers": 32}]' },
            "gke-tpu-inference:models[0].modelUri = \"gs://team-models/\" names a whole bucket, and the server's read grant is scoped to the model's folder; allowed: gs://BUCKET/FOLDER, the folder holding the model's config.json and safetensors",
        ],
        [
            "a 72B model on one v6e-4 VM: its weights alone exceed the HBM vLLM uses there",
            { models: '[{"name": "qwen-72b", "pattern": "pattern1", "modelUri": "hf://Qwen/Qwen2.5-72B-Instruct", "maxModelLen": 8192}]' },
            "gke-tpu-inference:models[0] (Qwen/Qwen2.5-72B-Instruct) needs 148.1 GB: 145.4 GB of weights and 2.7 GB of KV cache for maxModelLen 8192, more than the 115.2 GB vLLM uses of one 2x2 replica (4 chips of 32 GB, at --gpu-memory-utilization 0.9); allowed: tpuMachineType ct6e-standard-8t with tpuTopology 2x4 (8 chips) or larger, or a smaller maxModelLen",
        ],
        [
            "a context whose KV cache does not fit beside the weights, with the entry's own memory utilization",
            {
                hfToken: "hf_test",
                models: '[{"name": "llama", "pattern": "pattern1", "modelUri": "hf://meta-llama/Llama-3.1-8B-Instruct", "maxModelLen": 131072, "extraArgs": ["--gpu-memory-utilization=0.25"]}]',
            },
            "gke-tpu-inference:models[0] (meta-llama/Llama-3.1-8B-Instruct) needs 33.3 GB: 16.1 GB of weights and 17.2 GB of KV cache for maxModelLen 131072, more than the 32.0 GB vLLM uses of one 2x2 replica (4 chips of 32 GB, at --gpu-memory-utilization 0.25); allowed: tpuMachineType ct6e-standard-8t with tpuTopology 2x4 (8 chips) or larger, or a smaller maxModelLen",
        ],
        [
            "a model the catalog does not know, too large for any slice",
            { models: '[{"name": "huge", "pattern": "pattern1", "modelUri": "gs://team-models/huge", "weightsGb": 9000, "layers": 120}]' },
            "gke-tpu-inference:models[0] (team-models/huge) needs 9000.0 GB of weights alone (its KV cache not counted: the catalog does not know its attention shape), more than the 115.2 GB vLLM uses of one 2x2 replica (4 chips of 32 GB, at --gpu-memory-utilization 0.9); allowed: no TPU v6e shape holds it; a smaller model",
        ],
        [
            "a known model's size a thousand times too large: the catalog's figure stands, the memory is not judged on it",
            { models: '[{"name": "qwen", "pattern": "pattern1", "weightsGb": 6200}]' },
            "gke-tpu-inference:models[0].weightsGb = 6200 contradicts the catalog's 6.2 GB for Qwen/Qwen2.5-3B-Instruct; allowed: unset (the catalog's figure), or within 10 % of it",
        ],
        [
            "a known model's layers contradicted",
            { models: '[{"name": "qwen", "pattern": "pattern1", "layers": 80}]' },
            "gke-tpu-inference:models[0].layers = 80 contradicts the catalog's 36 for Qwen/Qwen2.5-3B-Instruct; allowed: unset, or 36",
        ],
        [
            "a context longer than the model's",
            {
                models: '[{"name": "phi", "pattern": "pattern1", "modelUri": "hf://microsoft/Phi-3-mini-4k-instruct", "maxModelLen": 8192}]',
            },
            "gke-tpu-inference:models[0].maxModelLen = 8192 is longer than microsoft/Phi-3-mini-4k-instruct's context (max_position_embeddings 4096), which vLLM refuses; allowed: at most 4096",
        ],
        [
            "a model the catalog knows to be gated, fetched from Hugging Face with no token",
            { models: '[{"name": "llama", "pattern": "pattern1", "modelUri": "hf://meta-llama/Llama-3.1-8B-Instruct"}]' },
            "gke-tpu-inference:models[0] (meta-llama/Llama-3.1-8B-Instruct) is gated on Hugging Face and gke-tpu-inference:hfToken is not set; allowed: accept its license on https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct, then `pulumi config set --secret hfToken <TOKEN>` with that account's token, or a gs:// copy of the weights",
        ],
    ])("%s", (_case, values, message) => {
        expect(errorOf(values)).toBe(message);
    });
});

describe("values the cloud or the cluster would refuse", () => {
    test.each<[string, Record<string, string>, string]>([
        [
            "a context length JavaScript cannot hold",
            { models: '[{"name": "qwen", "pattern": "pattern1", "maxModelLen": 9007199254740993}]' },
            "gke-tpu-inference:models[0].maxModelLen = 9007199254740992 is not a whole number JavaScript holds exactly; allowed: 1 to 9007199254740991 (tokens)",
        ],
        [
            "an image whose digest is malformed",
            { models: '[{"name": "qwen", "pattern": "pattern1", "image": "vllm/vllm-tpu@sha256:abc123"}]' },
            'gke-tpu-inference:models[0].image = "vllm/vllm-tpu@sha256:abc123" has a malformed digest; allowed: an image with a release tag (a version, a date or a commit; not latest, a branch or a variant alone), or a digest (@sha256: and 64 hex digits)',
        ],
    ])("%s", (_, values, message) => {
        expect(problemsOf(values)).toEqual([message]);
    });

    test.each<[string, Record<string, string>]>([
        [
            "an image pinned by digest alone",
            { models: `[{"name": "qwen", "pattern": "pattern1", "image": "docker.io/vllm/vllm-tpu@sha256:${"a".repeat(64)}"}]` },
        ],
        ["an empty model list", { models: "[]" }],
    ])("valid and unusual: %s", (_, values) => {
        expect(() => parse(values)).not.toThrow();
    });
});
