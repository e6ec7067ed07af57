import { Settings, loadSettings, parseSettings } from "../../../components/settings/stack";
import { PROJECT, record } from "../../harness";
import { errorOf, parse, problemsOf } from "./parse";

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
                capacity: [{ type: "on-demand", zones: ["europe-west4-a"] }],
                order: "option-first",
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
                // Closed until the stack lets a range in; the key only.
                access: { allowedSourceRanges: [], rateLimitPerMinute: 600, identity: "api-key", allowedIdentities: [], modelArmor: false },
            },
            deletionProtection: true,
            manageProjectApis: true,
            paused: false,
            bodyBasedRouting: false,
            coldStart: { stageWeights: true, compilationCache: true, imageStreaming: true },
            models: [],
        });
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
            allowedSourceRanges: '["203.0.113.0/24","198.51.100.7/32"]',
            gatewayRateLimit: "120",
            gatewayHostname: "llm.example.com",
            gatewayIdentity: "iap",
            iapClientId: "123456789012-abc123.apps.googleusercontent.com",
            iapClientSecret: "s3cret",
            allowedIdentities: '["serviceAccount:caller@acme-inference.iam.gserviceaccount.com"]',
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
                    hostname: "llm.example.com",
                    access: {
                        allowedSourceRanges: ["203.0.113.0/24", "198.51.100.7/32"],
                        rateLimitPerMinute: 120,
                        identity: "iap",
                        iapClientId: "123456789012-abc123.apps.googleusercontent.com",
                        allowedIdentities: ["serviceAccount:caller@acme-inference.iam.gserviceaccount.com"],
                        modelArmor: false,
                    },
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
            capacity: [{ type: "reservation", name: "trillium-8t", zones: ["us-east5-b"] }],
            order: "option-first",
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
        expect(settings!.tpu.capacity).toEqual([{ type: "spot", zones: ["us-south1-b"] }]);
    });
});

describe("settings validation names the key, the value and what is allowed", () => {
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

describe("every problem of a stack in one run", () => {
    test("four wrong settings, four lines", () => {
        const problems = problemsOf({ zone: "us-central1-a", tpuMaxNodes: "lots", gatewayClass: "istio", masterCidr: "8.8.8.0/28" });
        expect(problems).toEqual([
            'gke-tpu-inference:zone = "us-central1-a" is not a zone where GKE offers TPU v6e node pools (TPU VM zones differ); allowed: europe-west4-a, us-central1-b, us-east1-d, us-east5-a, us-east5-b, us-south1-a, us-south1-b',
            'gke-tpu-inference:tpuMaxNodes = "lots" is not a whole number; allowed: 0 to 1000 (GKE\'s nodes per node pool zone)',
            'gke-tpu-inference:masterCidr = "8.8.8.0/28" is a public range; allowed: a private range within 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, 192.0.0.0/24, 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 192.88.99.0/24, 198.18.0.0/15, 240.0.0.0/4',
            'gke-tpu-inference:gatewayClass = "istio" is Istio\'s class, which GKE does not program, but gke-tpu-inference:gatewayProvider = "gke"; allowed: empty, gke-l7-regional-external-managed or gke-l7-rilb (or gatewayProvider istio)',
        ]);
        // The message is those lines, and a rule whose inputs are wrong waits until they are right.
        expect(errorOf({ zone: "us-central1-a", region: "europe-west4" }).split("\n")).toHaveLength(1);
    });

    test("a wrong value and a rule broken between others, in one run: a pool setting's error does not hold back the entries' own rules", () => {
        const models = JSON.stringify([
            { name: "qwen", pattern: "pattern1" },
            { name: "qwen", pattern: "pattern1", maxModelLen: 1000000 },
        ]);
        const duplicate = 'gke-tpu-inference:models[1].name = "qwen" is used twice; allowed: a name unique in the stack';
        const tooLong =
            "gke-tpu-inference:models[1].maxModelLen = 1000000 is longer than Qwen/Qwen2.5-3B-Instruct's context (max_position_embeddings 32768), which vLLM refuses; allowed: at most 32768";
        expect(problemsOf({ tpuMaxNodes: "lots", models })).toEqual([
            'gke-tpu-inference:tpuMaxNodes = "lots" is not a whole number; allowed: 0 to 1000 (GKE\'s nodes per node pool zone)',
            duplicate,
            tooLong,
        ]);
        expect(problemsOf({ tpuMachineType: "ct6e-standard-9t", models })).toEqual([
            'gke-tpu-inference:tpuMachineType = "ct6e-standard-9t" is not a TPU v6e machine type; allowed: ct6e-standard-1t, ct6e-standard-4t, ct6e-standard-8t',
            duplicate,
            tooLong,
        ]);
        // What needs the wrong value waits for it: the replicas are weighed against tpuMaxNodes once it is a number.
        expect(problemsOf({ tpuMaxNodes: "1", models })).toEqual([
            duplicate,
            "gke-tpu-inference:models asks for 2 replicas, one ct6e-standard-4t 2x2 VM each, but gke-tpu-inference:tpuMaxNodes = 1; allowed: at most 1 replica in total, or a larger tpuMaxNodes",
            tooLong,
        ]);
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
