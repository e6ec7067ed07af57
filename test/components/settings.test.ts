import { ConfigError, Settings, loadSettings, parseSettings } from "../../components/settings";
import { PROJECT, record } from "../harness";

/** Parses `values` (keys in the project namespace) with a valid project unless given. */
function parse(values: Record<string, string>, gcpProject: string | undefined = "acme-inference"): Settings {
    return parseSettings(PROJECT, (key) => values[key], gcpProject);
}

function errorOf(values: Record<string, string>, gcpProject?: string): string {
    try {
        parse(values, gcpProject);
    } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
    }
    throw new Error(`no error for ${JSON.stringify(values)}`);
}

describe("settings defaults", () => {
    test("an empty stack gets europe-west4-a, ct6e-standard-4t 2x2, 0..3 on-demand nodes and the regional external class", () => {
        expect(parse({})).toEqual({
            project: "acme-inference",
            region: "europe-west4",
            zone: "europe-west4-a",
            tpu: {
                machineType: "ct6e-standard-4t",
                topology: "2x2",
                chipsPerVm: 4,
                hostsPerSlice: 1,
                minNodes: 0,
                maxNodes: 3,
                provisioning: "on-demand",
            },
            systemPool: { machineType: "e2-standard-4", minNodes: 1, maxNodes: 4 },
            network: {
                nodeCidr: "10.0.0.0/20",
                podCidr: "10.4.0.0/14",
                serviceCidr: "10.8.0.0/20",
                proxyOnlyCidr: "10.9.0.0/23",
                masterCidr: "172.16.0.0/28",
            },
            masterAuthorizedNetworks: [],
            releaseChannel: "REGULAR",
            gateway: {
                provider: "gke",
                className: "gke-l7-regional-external-managed",
                namespace: "inference-gateway",
                name: "inference-gateway",
                servingNamespace: "llm-inference",
            },
            deletionProtection: true,
            manageProjectApis: true,
            paused: false,
            bodyBasedRouting: false,
            coldStart: { stageWeights: true, compilationCache: true, imageStreaming: true },
            models: [],
        });
    });

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

    test("a multi-host topology takes its hosts as the pool's maximum", () => {
        const settings = parse({ tpuTopology: "4x4", tpuMaxNodes: "4" });
        expect(settings.tpu).toEqual(expect.objectContaining({ topology: "4x4", hostsPerSlice: 4, minNodes: 0, maxNodes: 4 }));
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

    test("explicit values are taken as given", () => {
        const settings = parse({
            zone: "us-east5-b",
            region: "us-east5",
            tpuMachineType: "ct6e-standard-8t",
            tpuMinNodes: "1",
            tpuMaxNodes: "2",
            tpuProvisioning: "reservation",
            tpuReservation: "trillium-8t",
            gatewayClass: "gke-l7-rilb",
            releaseChannel: "RAPID",
            deletionProtection: "false",
            masterAuthorizedNetworks: '["203.0.113.0/24"]',
            gatewayNamespace: "edge",
            gatewayName: "llm",
            gatewayTlsSecret: "llm-tls",
            servingNamespace: "models",
        });
        expect(settings).toEqual(
            expect.objectContaining({
                zone: "us-east5-b",
                region: "us-east5",
                gateway: {
                    provider: "gke",
                    className: "gke-l7-rilb",
                    namespace: "edge",
                    name: "llm",
                    tlsSecret: "llm-tls",
                    servingNamespace: "models",
                },
                releaseChannel: "RAPID",
                deletionProtection: false,
                masterAuthorizedNetworks: ["203.0.113.0/24"],
            }),
        );
        expect(settings.tpu).toEqual({
            machineType: "ct6e-standard-8t",
            topology: "2x4",
            chipsPerVm: 8,
            hostsPerSlice: 1,
            minNodes: 1,
            maxNodes: 2,
            provisioning: "reservation",
            reservation: "trillium-8t",
        });
    });

    test("loadSettings reads the stack's configuration through pulumi.Config", async () => {
        let settings: Settings | undefined;
        await record(
            () => {
                settings = loadSettings();
            },
            { "gcp:project": "acme-prod", zone: "us-south1-b", tpuProvisioning: "spot" },
        );
        expect(settings).toEqual(expect.objectContaining({ project: "acme-prod", zone: "us-south1-b", region: "us-south1" }));
        expect(settings!.tpu.provisioning).toBe("spot");
    });
});

describe("settings validation names the key, the value and what is allowed", () => {
    test.each<[string, Record<string, string>, string]>([
        [
            "zone without GKE TPU v6e",
            { zone: "us-central1-a" },
            'gke-tpu-inference:zone = "us-central1-a" is not a zone where GKE offers TPU v6e node pools (TPU VM zones differ); ' +
                "allowed: europe-west4-a, us-central1-b, us-east1-d, us-east5-a, us-east5-b, us-south1-a, us-south1-b",
        ],
        [
            "zone outside the region",
            { zone: "us-east5-a", region: "europe-west4" },
            'gke-tpu-inference:zone = "us-east5-a" is not in gke-tpu-inference:region = "europe-west4"; allowed: europe-west4-a',
        ],
        [
            "region without any TPU v6e zone",
            { region: "asia-east1" },
            'gke-tpu-inference:zone = "europe-west4-a" is not in gke-tpu-inference:region = "asia-east1"; allowed: none (no GKE TPU v6e zone is in asia-east1)',
        ],
        [
            "machine type outside the catalog",
            { tpuMachineType: "ct5lp-hightpu-4t" },
            'gke-tpu-inference:tpuMachineType = "ct5lp-hightpu-4t" is not a TPU v6e machine type; allowed: ct6e-standard-1t, ct6e-standard-4t, ct6e-standard-8t',
        ],
        [
            "topology that does not fit the machine type",
            { tpuMachineType: "ct6e-standard-8t", tpuTopology: "2x2" },
            'gke-tpu-inference:tpuTopology = "2x2" is not a topology of ct6e-standard-8t; allowed: 2x4',
        ],
        [
            "node counts that cannot hold a multi-host slice",
            { tpuTopology: "4x4", tpuMaxNodes: "3" },
            "gke-tpu-inference:tpuMaxNodes = 3 with tpuMinNodes = 0 cannot hold one 4x4 slice of ct6e-standard-4t, which is 4 hosts scaled as one unit; " +
                "allowed: tpuMaxNodes = 4 and tpuMinNodes = 0 or 4",
        ],
        [
            "a multi-host floor that is part of a slice",
            { tpuTopology: "4x8", tpuMinNodes: "2", tpuMaxNodes: "8" },
            "gke-tpu-inference:tpuMaxNodes = 8 with tpuMinNodes = 2 cannot hold one 4x8 slice of ct6e-standard-4t, which is 8 hosts scaled as one unit; " +
                "allowed: tpuMaxNodes = 8 and tpuMinNodes = 0 or 8",
        ],
        [
            "negative minimum",
            { tpuMinNodes: "-1" },
            'gke-tpu-inference:tpuMinNodes = "-1" is not a whole number from 0 to 1000; allowed: 0 to 1000 (GKE\'s nodes per node pool zone)',
        ],
        [
            "non-numeric maximum",
            { tpuMaxNodes: "three" },
            'gke-tpu-inference:tpuMaxNodes = "three" is not a whole number; allowed: 0 to 1000 (GKE\'s nodes per node pool zone)',
        ],
        [
            "fractional maximum",
            { tpuMaxNodes: "1.5" },
            'gke-tpu-inference:tpuMaxNodes = "1.5" is not a whole number; allowed: 0 to 1000 (GKE\'s nodes per node pool zone)',
        ],
        [
            "inverted TPU bounds",
            { tpuMinNodes: "4", tpuMaxNodes: "2" },
            "gke-tpu-inference:tpuMinNodes = 4 is greater than gke-tpu-inference:tpuMaxNodes = 2; allowed: tpuMinNodes <= tpuMaxNodes",
        ],
        [
            "inverted system pool bounds",
            { systemMinNodes: "5", systemMaxNodes: "2" },
            "gke-tpu-inference:systemMinNodes = 5 is greater than gke-tpu-inference:systemMaxNodes = 2; allowed: systemMinNodes <= systemMaxNodes",
        ],
        [
            "empty system pool",
            { systemMinNodes: "0" },
            'gke-tpu-inference:systemMinNodes = "0" is not a whole number from 1 to 1000; allowed: 1 to 1000 (GKE\'s nodes per node pool zone)',
        ],
        [
            "unknown provisioning model",
            { tpuProvisioning: "preemptible" },
            'gke-tpu-inference:tpuProvisioning = "preemptible" is not a TPU provisioning model; allowed: on-demand, spot, reservation',
        ],
        [
            "reservation without its name",
            { tpuProvisioning: "reservation" },
            'gke-tpu-inference:tpuReservation is not set but gke-tpu-inference:tpuProvisioning = "reservation"; allowed: the name of a specific TPU reservation in europe-west4-a',
        ],
        [
            "reservation name without the reservation model",
            { tpuReservation: "trillium" },
            'gke-tpu-inference:tpuReservation = "trillium" is set but gke-tpu-inference:tpuProvisioning = "on-demand"; allowed: tpuReservation only with tpuProvisioning = "reservation"',
        ],
        [
            "malformed reservation name",
            { tpuProvisioning: "reservation", tpuReservation: "Trillium_1" },
            'gke-tpu-inference:tpuReservation = "Trillium_1" is not a reservation name; allowed: lowercase letters, digits and hyphens, starting with a letter, at most 63 characters',
        ],
        [
            "global GatewayClass",
            { gatewayClass: "gke-l7-global-external-managed" },
            'gke-tpu-inference:gatewayClass = "gke-l7-global-external-managed" is a global GatewayClass, which never serves InferencePool backends; ' +
                "allowed: gke-l7-regional-external-managed, gke-l7-rilb or istio",
        ],
        [
            "a GatewayClass neither GKE nor Istio serves",
            { gatewayClass: "nginx" },
            'gke-tpu-inference:gatewayClass = "nginx" is neither a regional GKE GatewayClass nor Istio\'s; allowed: gke-l7-regional-external-managed, gke-l7-rilb or istio',
        ],
        [
            "Istio's class with GKE's Gateway",
            { gatewayClass: "istio" },
            'gke-tpu-inference:gatewayClass = "istio" is Istio\'s class, but gke-tpu-inference:gatewayProvider = "gke", which installs no Istio; allowed: empty, gke-l7-regional-external-managed, gke-l7-rilb (or gatewayProvider istio)',
        ],
        [
            "an Istio load balancer kind with GKE's Gateway",
            { gatewayLoadBalancer: "internal" },
            'gke-tpu-inference:gatewayLoadBalancer = "internal" is for Istio\'s Gateway Service, but gke-tpu-inference:gatewayProvider = "gke", whose class chooses the load balancer; allowed: empty, with gatewayClass gke-l7-rilb for an internal one (or gatewayProvider istio)',
        ],
        [
            "GKE's class behind Istio",
            { gatewayProvider: "istio", gatewayClass: "gke-l7-rilb" },
            'gke-tpu-inference:gatewayClass = "gke-l7-rilb" is GKE\'s own class, which Istio does not program, but gke-tpu-inference:gatewayProvider = "istio"; allowed: empty or istio (or gatewayProvider gke)',
        ],
        [
            "a proxy-only subnet behind Istio",
            { gatewayProvider: "istio", proxyOnlyCidr: "10.9.0.0/23" },
            'gke-tpu-inference:proxyOnlyCidr = "10.9.0.0/23" is for GKE\'s regional Gateway, but gke-tpu-inference:gatewayProvider = "istio", whose passthrough load balancer needs no proxy-only subnet; allowed: empty (or gatewayProvider gke)',
        ],
        [
            "an unknown gateway provider",
            { gatewayProvider: "envoy-gateway" },
            'gke-tpu-inference:gatewayProvider = "envoy-gateway" is not a gateway provider; allowed: gke, istio',
        ],
        [
            "an unknown load balancer kind",
            { gatewayProvider: "istio", gatewayLoadBalancer: "global" },
            'gke-tpu-inference:gatewayLoadBalancer = "global" is not a load balancer kind; allowed: external, internal',
        ],
        [
            "malformed CIDR",
            { podCidr: "10.4.0.0/33" },
            'gke-tpu-inference:podCidr = "10.4.0.0/33" is not an IPv4 CIDR block like 10.0.0.0/20; allowed: an IPv4 CIDR block like 10.0.0.0/20 in a private range',
        ],
        [
            "octet over 255",
            { nodeCidr: "10.0.256.0/24" },
            'gke-tpu-inference:nodeCidr = "10.0.256.0/24" is not an IPv4 CIDR block like 10.0.0.0/20; allowed: an IPv4 CIDR block like 10.0.0.0/20 in a private range',
        ],
        [
            "CIDR with host bits",
            { nodeCidr: "10.0.0.1/20" },
            'gke-tpu-inference:nodeCidr = "10.0.0.1/20" has host bits set; the network address is 10.0.0.0/20; allowed: an IPv4 CIDR block like 10.0.0.0/20 in a private range',
        ],
        [
            "overlapping CIDRs",
            { serviceCidr: "10.4.16.0/20" },
            'gke-tpu-inference:serviceCidr = "10.4.16.0/20" overlaps gke-tpu-inference:podCidr = "10.4.0.0/14"; allowed: disjoint ranges for nodeCidr, podCidr, serviceCidr, proxyOnlyCidr, masterCidr',
        ],
        [
            "proxy-only subnet overlapping the nodes",
            { proxyOnlyCidr: "10.0.8.0/23" },
            'gke-tpu-inference:proxyOnlyCidr = "10.0.8.0/23" overlaps gke-tpu-inference:nodeCidr = "10.0.0.0/20"; allowed: disjoint ranges for nodeCidr, podCidr, serviceCidr, proxyOnlyCidr, masterCidr',
        ],
        [
            "proxy-only subnet too small",
            { proxyOnlyCidr: "10.9.0.0/27" },
            'gke-tpu-inference:proxyOnlyCidr = "10.9.0.0/27" is too small for a proxy-only subnet; allowed: a prefix of /26 or larger (/23 recommended)',
        ],
        [
            "control plane range overlapping the pods",
            { masterCidr: "10.4.0.0/28" },
            'gke-tpu-inference:masterCidr = "10.4.0.0/28" overlaps gke-tpu-inference:podCidr = "10.4.0.0/14"; allowed: disjoint ranges for nodeCidr, podCidr, serviceCidr, proxyOnlyCidr, masterCidr',
        ],
        [
            "control plane range that is not a /28",
            { masterCidr: "172.16.0.0/24" },
            'gke-tpu-inference:masterCidr = "172.16.0.0/24" is not a /28 in the RFC 1918 ranges; allowed: a private /28 such as 172.16.0.0/28',
        ],
        [
            "namespace that is not a DNS label",
            { servingNamespace: "LLM_Models" },
            'gke-tpu-inference:servingNamespace = "LLM_Models" is not a DNS-1123 label; allowed: at most 63 lowercase letters, digits and hyphens, starting and ending with a letter or digit',
        ],
        [
            "TLS secret name that is not a DNS label",
            { gatewayTlsSecret: "tls.secret" },
            'gke-tpu-inference:gatewayTlsSecret = "tls.secret" is not a DNS-1123 label; allowed: at most 63 lowercase letters, digits and hyphens, starting and ending with a letter or digit',
        ],
        [
            "serving namespace shared with the Gateway",
            { servingNamespace: "inference-gateway" },
            "gke-tpu-inference:servingNamespace = \"inference-gateway\" is the Gateway's namespace; allowed: a namespace other than gke-tpu-inference:gatewayNamespace, so that model services never share the Gateway's",
        ],
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
            "body-based routing with one model name on two services",
            {
                bodyBasedRouting: "true",
                models: JSON.stringify([
                    { name: "qwen", pattern: "pattern1" },
                    { name: "phi", pattern: "pattern1", modelUri: "hf://microsoft/Phi-3-mini-4k-instruct" },
                    { name: "qwen-again", pattern: "pattern1", modelName: "Qwen/Qwen2.5-3B-Instruct" },
                ]),
            },
            'gke-tpu-inference:models[2].modelName = "Qwen/Qwen2.5-3B-Instruct" is also models[0]\'s, and gke-tpu-inference:bodyBasedRouting routes a name to one service; allowed: a modelName no other service uses',
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
            'gke-tpu-inference:models[0].image = "vllm/vllm-tpu:latest" is not pinned; allowed: an image with a tag other than latest, or a digest (@sha256: and 64 hex digits)',
        ],
        [
            "an untagged image behind a registry port",
            { models: '[{"name": "qwen", "pattern": "pattern1", "image": "registry.local:5000/vllm-tpu"}]' },
            'gke-tpu-inference:models[0].image = "registry.local:5000/vllm-tpu" is not pinned; allowed: an image with a tag other than latest, or a digest (@sha256: and 64 hex digits)',
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
        [
            "a body-based router on a system pool of one node",
            { bodyBasedRouting: "true", systemMinNodes: "1", systemMaxNodes: "1" },
            "gke-tpu-inference:systemMaxNodes = 1 leaves the body-based router's second replica nowhere to run: its two replicas spread over system nodes; allowed: 2 or more (or bodyBasedRouting false)",
        ],
        [
            "authorized networks that are not a list",
            { masterAuthorizedNetworks: "203.0.113.0/24" },
            'gke-tpu-inference:masterAuthorizedNetworks = "203.0.113.0/24" is not a list of CIDR strings; allowed: e.g. ["203.0.113.0/24"]',
        ],
        [
            "authorized network that is not a CIDR",
            { masterAuthorizedNetworks: '["office"]' },
            'gke-tpu-inference:masterAuthorizedNetworks[0] = "office" is not an IPv4 CIDR block like 10.0.0.0/20; allowed: an IPv4 CIDR block like 203.0.113.0/24',
        ],
        [
            "unknown release channel",
            { releaseChannel: "EXTENDED" },
            'gke-tpu-inference:releaseChannel = "EXTENDED" is not a GKE release channel; allowed: RAPID, REGULAR, STABLE',
        ],
        [
            "non-boolean deletion protection",
            { deletionProtection: "yes" },
            'gke-tpu-inference:deletionProtection = "yes" is not a boolean; allowed: true, false',
        ],
    ])("%s", (_case, values, message) => {
        expect(errorOf(values)).toBe(message);
    });

    test("missing gcp:project", () => {
        expect(errorOf({}, "")).toBe(
            "gcp:project is not set; run `pulumi config set gcp:project <PROJECT_ID>` (the offline preview supplies a placeholder)",
        );
        expect(() => parseSettings(PROJECT, () => undefined, undefined)).toThrow("gcp:project is not set");
    });

    test("malformed gcp:project", () => {
        expect(errorOf({}, "Acme_Project")).toBe(
            'gcp:project = "Acme_Project" is not a GCP project ID; allowed: 6 to 30 lowercase letters, digits and hyphens, starting with a letter',
        );
    });
});

/** Every problem of `values` (with the context's keys and secrets), one line each. */
function problemsOf(values: Record<string, string>, context: Parameters<typeof parseSettings>[3] = {}): string[] {
    try {
        parseSettings(PROJECT, (key) => values[key], "acme-inference", context);
    } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return [...(err as ConfigError).problems];
    }
    throw new Error(`no error for ${JSON.stringify(values)}`);
}

describe("every problem of a stack in one run", () => {
    test("four wrong settings, four lines", () => {
        const problems = problemsOf({ zone: "us-central1-a", tpuMaxNodes: "lots", gatewayClass: "istio", masterCidr: "8.8.8.0/28" });
        expect(problems).toEqual([
            'gke-tpu-inference:zone = "us-central1-a" is not a zone where GKE offers TPU v6e node pools (TPU VM zones differ); allowed: europe-west4-a, us-central1-b, us-east1-d, us-east5-a, us-east5-b, us-south1-a, us-south1-b',
            'gke-tpu-inference:tpuMaxNodes = "lots" is not a whole number; allowed: 0 to 1000 (GKE\'s nodes per node pool zone)',
            'gke-tpu-inference:masterCidr = "8.8.8.0/28" is a public range; allowed: a private range within 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, 192.0.0.0/24, 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 192.88.99.0/24, 198.18.0.0/15, 240.0.0.0/4',
            'gke-tpu-inference:gatewayClass = "istio" is Istio\'s class, but gke-tpu-inference:gatewayProvider = "gke", which installs no Istio; allowed: empty, gke-l7-regional-external-managed, gke-l7-rilb (or gatewayProvider istio)',
        ]);
        // The message is those lines, and a rule whose inputs are wrong waits until they are right.
        expect(errorOf({ zone: "us-central1-a", region: "europe-west4" }).split("\n")).toHaveLength(1);
    });

    test("problems inside model entries come with the rest", () => {
        expect(problemsOf({ models: '[{"name": "Qwen", "pattern": "pattern2", "replicas": 0, "gpus": 1}]', paused: "maybe" })).toEqual([
            'gke-tpu-inference:paused = "maybe" is not a boolean; allowed: true, false',
            'gke-tpu-inference:models[0].name = "Qwen" is not a DNS-1123 label of at most 38 characters; allowed: lowercase letters, digits and hyphens, starting and ending with a letter or digit (KServe derives longer names from it)',
            'gke-tpu-inference:models[0].pattern = "pattern2" is a stack\'s pattern (several services behind one endpoint): set bodyBasedRouting to true and give each service pattern1 or pattern3; allowed: pattern1, pattern3',
            "gke-tpu-inference:models[0].replicas = 0 is not a whole number from 1 to 1000; allowed: 1 to 1000 (one TPU VM each, within GKE's nodes per node pool zone)",
            "gke-tpu-inference:models[0].gpus is not a model service setting; allowed: name, pattern, modelUri, modelName, replicas, image, maxModelLen, extraArgs, weightsGb, layers, autoscaling",
        ]);
    });
});

describe("unknown keys are errors, with the nearest known one", () => {
    const keys = (...names: string[]) => ({ keys: ["gcp:project", ...names] });

    test.each<[string, string, string]>([
        [
            "a misspelt setting",
            "gke-tpu-inference:tpuMachinType",
            'gke-tpu-inference:tpuMachinType is not a setting of gke-tpu-inference; did you mean "tpuMachineType"?',
        ],
        [
            "a setting in the wrong case",
            "gke-tpu-inference:TPUMaxNodes",
            'gke-tpu-inference:TPUMaxNodes is not a setting of gke-tpu-inference; did you mean "tpuMaxNodes"?',
        ],
        ["a setting nothing reads", "gke-tpu-inference:gpuCount", "gke-tpu-inference:gpuCount is not a setting of gke-tpu-inference"],
        [
            "a misspelt project namespace",
            "gke-tpu-inferense:zone",
            'gke-tpu-inferense:zone is in namespace "gke-tpu-inferense", which is neither the project\'s (gke-tpu-inference) nor a provider\'s (gcp, kubernetes, random, pulumi); did you mean "gke-tpu-inference"?',
        ],
        [
            "a misspelt provider namespace",
            "gpc:region",
            'gpc:region is in namespace "gpc", which is neither the project\'s (gke-tpu-inference) nor a provider\'s (gcp, kubernetes, random, pulumi); did you mean "gcp"?',
        ],
    ])("%s", (_, configured, message) => {
        expect(problemsOf({}, keys(configured))).toEqual([message]);
    });

    test("the project's settings, the secret, and the providers' and Pulumi's own keys are known", () => {
        expect(() =>
            parseSettings(
                PROJECT,
                () => undefined,
                "acme-inference",
                keys("gke-tpu-inference:zone", "gke-tpu-inference:models", "gcp:region", "kubernetes:enableServerSideApply", "pulumi:tags"),
            ),
        ).not.toThrow();
    });

    test("the stack file's own problems are reported with the settings'", () => {
        expect(problemsOf({ zone: "mars-1a" }, { stackFileProblems: ['Pulumi.dev.yaml: "confg" is not a stack file key'] })).toEqual([
            'Pulumi.dev.yaml: "confg" is not a stack file key',
            expect.stringContaining('gke-tpu-inference:zone = "mars-1a"'),
        ]);
    });
});

describe("the Hugging Face token is a secret or nothing", () => {
    test("in plain text it is an error that says how to set it, without its value", () => {
        const problems = problemsOf({ hfToken: "hf_plaintext_value" }, { secretKeys: [] });
        expect(problems).toEqual([
            "gke-tpu-inference:hfToken is set in plain text; allowed: a secret, set with `pulumi config set --secret hfToken <VALUE>` (the value is not shown here)",
        ]);
        expect(problems.join("\n")).not.toContain("hf_plaintext_value");
    });

    test("as a secret it passes", () => {
        expect(() =>
            parseSettings(PROJECT, (key) => ({ hfToken: "hf_secret" })[key], "acme-inference", {
                secretKeys: ["gke-tpu-inference:hfToken"],
            }),
        ).not.toThrow();
    });
});

describe("values the cloud or the cluster would refuse", () => {
    test.each<[string, Record<string, string>, string]>([
        [
            "a loopback range",
            { nodeCidr: "127.0.0.0/24" },
            'gke-tpu-inference:nodeCidr = "127.0.0.0/24" overlaps 127.0.0.0/8, loopback (RFC 1122), which GCP refuses for subnets; allowed: an IPv4 CIDR block like 10.0.0.0/20 in a private range',
        ],
        [
            "a link-local range",
            { podCidr: "169.254.0.0/16" },
            'gke-tpu-inference:podCidr = "169.254.0.0/16" overlaps 169.254.0.0/16, link-local (RFC 3927), which GCP refuses for subnets; allowed: an IPv4 CIDR block like 10.0.0.0/20 in a private range',
        ],
        [
            "a multicast range",
            { serviceCidr: "224.0.0.0/20" },
            'gke-tpu-inference:serviceCidr = "224.0.0.0/20" overlaps 224.0.0.0/4, multicast (RFC 5771), which GCP refuses for subnets; allowed: an IPv4 CIDR block like 10.0.0.0/20 in a private range',
        ],
        [
            "the current network",
            { nodeCidr: "0.0.0.0/20" },
            'gke-tpu-inference:nodeCidr = "0.0.0.0/20" overlaps 0.0.0.0/8, the current network (RFC 1122), which GCP refuses for subnets; allowed: an IPv4 CIDR block like 10.0.0.0/20 in a private range',
        ],
        [
            "Private Google Access's addresses",
            { nodeCidr: "199.36.153.0/24" },
            'gke-tpu-inference:nodeCidr = "199.36.153.0/24" overlaps 199.36.153.4/30, Private Google Access\'s virtual IPs, which GCP refuses for subnets; allowed: an IPv4 CIDR block like 10.0.0.0/20 in a private range',
        ],
        [
            "Docker's bridge",
            { serviceCidr: "172.17.0.0/20" },
            'gke-tpu-inference:serviceCidr = "172.17.0.0/20" overlaps 172.17.0.0/16, Docker\'s default bridge, which GKE nodes use; allowed: an IPv4 CIDR block like 10.0.0.0/20 in a private range',
        ],
        [
            "a public range",
            { nodeCidr: "8.8.0.0/20" },
            expect.stringContaining(
                'gke-tpu-inference:nodeCidr = "8.8.0.0/20" is a public range; allowed: a private range within 10.0.0.0/8',
            ) as unknown as string,
        ],
        [
            "a subnet smaller than GCP allows",
            { nodeCidr: "10.0.0.0/30" },
            'gke-tpu-inference:nodeCidr = "10.0.0.0/30" is too small for nodes; allowed: a prefix from /8 to /29',
        ],
        [
            "a Pod range smaller than one node's",
            { podCidr: "10.4.0.0/25" },
            'gke-tpu-inference:podCidr = "10.4.0.0/25" is too small for Pods; allowed: a prefix from /9 to /24',
        ],
        [
            "a Pod range larger than GKE takes",
            { podCidr: "10.0.0.0/8", nodeCidr: "172.20.0.0/20", serviceCidr: "172.21.0.0/20", proxyOnlyCidr: "172.22.0.0/23" },
            'gke-tpu-inference:podCidr = "10.0.0.0/8" is too large for Pods; allowed: a prefix from /9 to /24',
        ],
        [
            "a Service range smaller than GKE takes",
            { serviceCidr: "10.8.0.0/29" },
            'gke-tpu-inference:serviceCidr = "10.8.0.0/29" is too small for Services; allowed: a prefix from /16 to /28',
        ],
        [
            "a control plane range outside RFC 1918",
            { masterCidr: "100.64.0.0/28" },
            'gke-tpu-inference:masterCidr = "100.64.0.0/28" is not a /28 in the RFC 1918 ranges; allowed: a private /28 such as 172.16.0.0/28',
        ],
        [
            "more nodes than GKE puts in a pool zone",
            { tpuMaxNodes: "1001" },
            'gke-tpu-inference:tpuMaxNodes = "1001" is not a whole number from 0 to 1000; allowed: 0 to 1000 (GKE\'s nodes per node pool zone)',
        ],
        [
            "a number JavaScript cannot hold",
            { systemMaxNodes: "9007199254740993" },
            'gke-tpu-inference:systemMaxNodes = "9007199254740993" is not a whole number JavaScript holds exactly; allowed: 1 to 1000 (GKE\'s nodes per node pool zone)',
        ],
        [
            "a context length JavaScript cannot hold",
            { models: '[{"name": "qwen", "pattern": "pattern1", "maxModelLen": 9007199254740993}]' },
            "gke-tpu-inference:models[0].maxModelLen = 9007199254740992 is not a whole number JavaScript holds exactly; allowed: 1 to 9007199254740991 (tokens)",
        ],
        [
            "Kubernetes' own namespace",
            { servingNamespace: "kube-system" },
            'gke-tpu-inference:servingNamespace = "kube-system" is a namespace Kubernetes or the platform owns; allowed: a namespace of this stack\'s own, not default, kube-system, kube-public, kube-node-lease, gmp-system, gmp-public, cert-manager, lws-system, kserve, keda, istio-system',
        ],
        [
            "the default namespace",
            { gatewayNamespace: "default" },
            expect.stringContaining(
                'gke-tpu-inference:gatewayNamespace = "default" is a namespace Kubernetes or the platform owns',
            ) as unknown as string,
        ],
        [
            "a kube- namespace",
            { gatewayNamespace: "kube-gateway" },
            expect.stringContaining(
                'gke-tpu-inference:gatewayNamespace = "kube-gateway" is a namespace Kubernetes or the platform owns',
            ) as unknown as string,
        ],
        [
            "the platform's namespace",
            { servingNamespace: "kserve" },
            expect.stringContaining(
                'gke-tpu-inference:servingNamespace = "kserve" is a namespace Kubernetes or the platform owns',
            ) as unknown as string,
        ],
        [
            "a machine type that is not one",
            { systemMachineType: "e2 standard 4" },
            'gke-tpu-inference:systemMachineType = "e2 standard 4" is not a Compute Engine machine type name; allowed: a type such as e2-standard-4, n2-highmem-8 or custom-4-16384',
        ],
        [
            "a TPU machine type for the system pool",
            { systemMachineType: "ct6e-standard-4t" },
            'gke-tpu-inference:systemMachineType = "ct6e-standard-4t" is a TPU machine type, whose taint keeps the platform\'s pods off it; allowed: a CPU machine type such as e2-standard-4',
        ],
        [
            "an image whose digest is malformed",
            { models: '[{"name": "qwen", "pattern": "pattern1", "image": "vllm/vllm-tpu@sha256:abc123"}]' },
            'gke-tpu-inference:models[0].image = "vllm/vllm-tpu@sha256:abc123" has a malformed digest; allowed: an image with a tag other than latest, or a digest (@sha256: and 64 hex digits)',
        ],
    ])("%s", (_, values, message) => {
        expect(problemsOf(values)).toEqual([message]);
    });

    test.each<[string, Record<string, string>]>([
        ["shared address space", { nodeCidr: "100.64.0.0/20" }],
        ["class E for Pods", { podCidr: "240.0.0.0/14" }],
        ["a custom machine type with extended memory", { systemMachineType: "n2-custom-4-32768-ext" }],
        ["an E2 shared-core custom type", { systemMachineType: "e2-custom-small-4096" }],
        ["a machine type with a suffix", { systemMachineType: "c3-standard-4-lssd" }],
        ["a shared-core type", { systemMachineType: "e2-medium" }],
        [
            "an image pinned by digest alone",
            { models: `[{"name": "qwen", "pattern": "pattern1", "image": "docker.io/vllm/vllm-tpu@sha256:${"a".repeat(64)}"}]` },
        ],
        ["an empty model list", { models: "[]" }],
    ])("valid and unusual: %s", (_, values) => {
        expect(() => parse(values)).not.toThrow();
    });
});
