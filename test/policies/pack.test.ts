import * as fs from "fs";
import * as path from "path";
import { LESSONS, lessonById, policyText } from "../../policies/facts";
import { PACK_NAME, PACK_VERSION, policies } from "../../policies/pack";
import { RecordedResource } from "../../scripts/offline/recorder";
import { evaluatePolicies } from "../support/evaluate";
import { gateway, llmService, vllmContainer } from "../support/fixtures";
import { UNKNOWN, kube } from "../support/harness";
import { evaluatePack } from "../support/wholePack";
import { PolicyViolation } from "../../scripts/offline/analyzer";

const POLICY_DIR = path.resolve(__dirname, "..", "..", "policies");
const POLICY_FILES = fs.readdirSync(POLICY_DIR).filter((file) => /^(require|disallow|enforce)[A-Z]\w*\.ts$/.test(file));

describe("the policy pack", () => {
    test("lists every policy file once, under its verb-first kebab-case name", () => {
        expect(policies).toHaveLength(POLICY_FILES.length);
        expect(new Set(policies.map((policy) => policy.name)).size).toBe(policies.length);
        for (const file of POLICY_FILES) {
            const exportName = file.replace(/\.ts$/, "");
            const exported = (require(path.join(POLICY_DIR, file)) as Record<string, { name: string }>)[exportName];
            // The pack lists each policy guarded: the same policy, its validations wrapped.
            expect(policies.find((policy) => policy.name === exported.name)).toEqual(
                expect.objectContaining({
                    ...exported,
                    ...("validateStack" in exported ? { validateStack: expect.any(Function) } : { validateResource: expect.any(Array) }),
                }),
            );
            const kebab = exportName.replace(/([A-Z])/g, "-$1").toLowerCase();
            expect(exported.name.replace(/-/g, "")).toBe(kebab.replace(/-/g, ""));
        }
    });

    test("every policy has a sentence of description, a severity, a level and remediation steps", () => {
        for (const policy of policies) {
            expect({ name: policy.name, description: /^[A-Z].+\.$/.test(policy.description) }).toEqual({
                name: policy.name,
                description: true,
            });
            expect(["low", "medium", "high", "critical"]).toContain(policy.severity);
            expect(["mandatory", "advisory"]).toContain(policy.enforcementLevel);
            expect(policy.remediationSteps?.length).toBeGreaterThan(20);
        }
    });

    test("the pack lists its policies in the registry's order of the lessons they declare, by name within a lesson", () => {
        const order = LESSONS.map((lesson) => lesson.id as string);
        const outOfOrder = policies.slice(1).filter((policy, index) => {
            const before = policies[index];
            const [at, atBefore] = [order.indexOf(policy.lesson), order.indexOf(before.lesson)];
            return at < atBefore || (at === atBefore && policy.name < before.name);
        });
        expect(policies.filter((policy) => !order.includes(policy.lesson)).map((policy) => policy.name)).toEqual([]);
        expect(outOfOrder.map((policy) => policy.name)).toEqual([]);
        // Within a lesson, by name: open-endpoint's two, before the five of GKE's hardening.
        expect(policies.slice(-7, -5).map((policy) => [policy.lesson, policy.name])).toEqual([
            ["open-endpoint", "disallow-gateway-open-to-internet"],
            ["open-endpoint", "require-gateway-access-control"],
        ]);
    });

    test("a policy's description ends with its lesson's cause, and its remediation is the lesson's fix with where it is explained", () => {
        const healthChecks = policies.find((policy) => policy.name === "require-http-health-check-policy")!;
        expect(healthChecks.description).toBe(
            `Every InferencePool, and every Service in front of vLLM, that a GKE Gateway routes to must have a HealthCheckPolicy that checks vLLM's /health over HTTP on a port where the backend serves. ${lessonById("health-checks").cause}`,
        );
        expect(healthChecks.remediationSteps).toBe(`${lessonById("health-checks").fix} See docs/lessons.md#health-checks.`);
        expect(policyText("rsa-ca", "require-a-rule", "A rule.")).toEqual({
            lesson: "rsa-ca",
            name: "require-a-rule",
            description: `A rule. ${lessonById("rsa-ca").cause}`,
            remediationSteps: `${lessonById("rsa-ca").fix} See docs/lessons.md#rsa-ca.`,
        });
    });

    test("facts that change over time are pack config with defaults", () => {
        const schemaOf = (name: string) => policies.find((policy) => policy.name === name)?.configSchema?.properties;
        expect(Object.keys(schemaOf("require-supported-tpu-zone")!)).toEqual(["supportedZones"]);
        expect(Object.keys(schemaOf("require-regional-gateway-class-for-inference")!)).toEqual(["allowedGatewayClasses"]);
        expect(schemaOf("require-fixed-endpoint-picker-image")!.minimumVersions.default).toEqual({
            "llm-d-router-endpoint-picker": "0.9.0",
            "llm-d-inference-scheduler": "0.7.0",
        });
    });

    test("name and version come from the pack's own files", () => {
        expect(PACK_NAME).toBe("gke-tpu-inference");
        expect(PACK_VERSION).toBe(JSON.parse(fs.readFileSync(path.join(POLICY_DIR, "package.json"), "utf8")).version);
        expect(fs.readFileSync(path.join(POLICY_DIR, "index.ts"), "utf8")).toContain("new PolicyPack(PACK_NAME, { policies })");
    });
});

describe("the pack's cost grows with the stack, not with its square", () => {
    /** `count` model services on one Gateway, each built over a config of its own, as KServe resolves them. */
    const stackOf = (count: number): RecordedResource[] => [
        gateway(),
        ...Array.from({ length: count }, (_, index) => {
            const name = `model-${index}`;
            const service = llmService(vllmContainer(), { name });
            (service.inputs.spec as Record<string, unknown>).baseRefs = [{ name: `${name}-config` }];
            const config = kube("serving.kserve.io/v1alpha2", "LLMInferenceServiceConfig", `${name}-config`, {
                metadata: { name: `${name}-config`, namespace: "models" },
                spec: { router: { route: {} } },
            });
            return [config, service];
        }).flat(),
    ];
    /**
     * The least CPU time of three runs of every stack policy over `resources`, in milliseconds: the process's own CPU time,
     * not the clock, so that other work on a busy machine does not count.
     */
    const stackPoliciesMs = async (resources: RecordedResource[]) => {
        const stackPolicies = { name: PACK_NAME, version: PACK_VERSION, policies: policies.filter((policy) => "validateStack" in policy) };
        const runs: number[] = [];
        for (let run = 0; run < 3; run++) {
            const start = process.cpuUsage();
            await evaluatePolicies(stackPolicies, resources);
            const { user, system } = process.cpuUsage(start);
            runs.push((user + system) / 1000);
        }
        return Math.min(...runs);
    };

    test("four times the model services take well under sixteen times as long", async () => {
        await stackPoliciesMs(stackOf(10)); // warms the JIT, so that the first measure is not of compiling
        const small = await stackPoliciesMs(stackOf(40));
        const large = await stackPoliciesMs(stackOf(160));
        // Linear work is about 4x; a lookup that rescans every resource per service is about 16x.
        expect(large / small).toBeLessThan(8);
    });
});

describe("a value unknown until the update (an image built in the same update, an argument from another resource's output)", () => {
    /** A model server open to the internet, a credential written into its environment, and a GKE Gateway's unguarded pool. */
    const faulty: RecordedResource[] = [
        kube("apps/v1", "Deployment", "vllm", {
            metadata: { name: "vllm", namespace: "models" },
            spec: {
                selector: { matchLabels: { app: "vllm" } },
                template: {
                    metadata: { labels: { app: "vllm" } },
                    spec: {
                        containers: [
                            {
                                name: "vllm",
                                image: "vllm/vllm-openai:v0.10.1",
                                args: ["--model", "Qwen/Qwen2.5-3B-Instruct"],
                                env: [{ name: "HF_TOKEN", value: "hf_written_in_the_program" }],
                                ports: [{ containerPort: 8000 }],
                            },
                        ],
                    },
                },
            },
        }),
        kube("v1", "Service", "vllm", {
            metadata: { name: "vllm", namespace: "models" },
            spec: { type: "LoadBalancer", selector: { app: "vllm" }, ports: [{ port: 80, targetPort: 8000 }] },
        }),
    ];
    /** The same in every field a workload has, each unknown: a workload none of the pack's verdicts is about. */
    const unknownEverywhere = kube("apps/v1", "Deployment", "web", {
        metadata: { name: "web", namespace: "models", labels: { app: "web", release: UNKNOWN } },
        spec: {
            selector: { matchLabels: { app: "web" } },
            template: {
                metadata: { labels: { app: "web", version: UNKNOWN } },
                spec: {
                    containers: [
                        {
                            name: "web",
                            image: UNKNOWN,
                            command: [UNKNOWN],
                            args: ["--listen", UNKNOWN],
                            env: [
                                { name: "DB_PASSWORD", value: UNKNOWN },
                                { name: UNKNOWN, value: "x" },
                            ],
                            ports: [{ containerPort: UNKNOWN, name: UNKNOWN }],
                        },
                    ],
                },
            },
        },
    });
    const mandatory = (violations: PolicyViolation[]) =>
        violations.filter((violation) => violation.enforcementLevel === "mandatory").map((v) => `${v.policyName}: ${v.message}`);

    test("in a workload no verdict is about, sets no policy aside: every other resource is judged as without it", async () => {
        const alone = await evaluatePack(faulty);
        expect(mandatory(alone)).toHaveLength(2);
        const elsewhere = kube("v1", "ConfigMap", "settings", { metadata: { name: UNKNOWN, namespace: UNKNOWN }, data: { mode: "a" } });
        const beside = await evaluatePack([...faulty, unknownEverywhere, elsewhere]);
        expect(mandatory(beside)).toEqual(mandatory(alone));
        // Only the image policy, which judges that workload itself, cannot run on it.
        expect(beside.filter((violation) => violation.enforcementLevel === "advisory").map((v) => v.policyName)).toEqual(
            alone
                .filter((violation) => violation.enforcementLevel === "advisory")
                .map((v) => v.policyName)
                .concat("disallow-unpinned-images"),
        );
    });

    test("where a verdict may turn on it (a guard switched on by another resource's output), it is said at advisory, with what it turns on", async () => {
        const gatewayStack = (defaults: Record<string, unknown>) => [
            kube("gateway.networking.k8s.io/v1", "Gateway", "inference-gateway", {
                metadata: { name: "inference-gateway", namespace: "gateway" },
                spec: {
                    gatewayClassName: "gke-l7-regional-external-managed",
                    listeners: [{ name: "https", protocol: "HTTPS", port: 443, allowedRoutes: { namespaces: { from: "All" } } }],
                },
            }),
            kube("gateway.networking.k8s.io/v1", "HTTPRoute", "qwen", {
                metadata: { name: "qwen", namespace: "models" },
                spec: {
                    parentRefs: [{ name: "inference-gateway", namespace: "gateway", sectionName: "https" }],
                    rules: [
                        { backendRefs: [{ group: "inference.networking.k8s.io", kind: "InferencePool", name: "qwen-pool", port: 8000 }] },
                    ],
                },
            }),
            kube("networking.gke.io/v1", "GCPBackendPolicy", "qwen-pool", {
                metadata: { name: "qwen-pool", namespace: "models" },
                spec: {
                    default: { timeoutSec: 600, ...defaults },
                    targetRef: { group: "inference.networking.k8s.io", kind: "InferencePool", name: "qwen-pool" },
                },
            }),
        ];
        const access = async (defaults: Record<string, unknown>) =>
            (await evaluatePack(gatewayStack(defaults)))
                .filter((violation) => violation.policyName.includes("gateway"))
                .map((violation) => `${violation.enforcementLevel} ${violation.policyName}: ${violation.message}`);
        // IAP switched on by another resource's output: open if it is off, guarded if on.
        expect(await access({ iap: { enabled: UNKNOWN } })).toEqual([
            "advisory require-gateway-access-control: Gateway gateway/inference-gateway is external and sends InferencePool models/qwen-pool requests from anyone: no GCPBackendPolicy targeting it sets spec.default.securityPolicy (Cloud Armor) or iap.enabled. (this turns on values not known until the update, in kubernetes:networking.gke.io/v1:GCPBackendPolicy qwen-pool)",
        ]);
        // A Cloud Armor policy named by an output: a policy the program is not shown to declare, whichever it is.
        expect(await access({ securityPolicy: UNKNOWN })).toEqual([
            "advisory disallow-gateway-open-to-internet: InferencePool models/qwen-pool behind Gateway gateway/inference-gateway names Cloud Armor policy (not known until the update), which the program does not declare: whether it refuses anyone could not be judged. (this turns on values not known until the update, in kubernetes:networking.gke.io/v1:GCPBackendPolicy qwen-pool)",
        ]);
    });
});
