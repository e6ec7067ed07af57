/**
 * The pack in its own process, spoken to over the Analyzer protocol as the Pulumi CLI speaks to it:
 * its config validated as the CLI validates it, secrets and odd objects handled as the policy SDK
 * handles them (the shipped stacks with their charts' objects: shippedCharts.test.ts).
 */
import { lessonById } from "@gke-tpu-inference/facts";
import * as k8s from "@pulumi/kubernetes";
import { secret as pulumiSecret } from "@pulumi/pulumi";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { disallowUnpinnedImages } from "../../policies/disallowUnpinnedImages";
import { PackConfigError, PolicyPackProcess, resolvePackConfig } from "../../scripts/offline/analyzer";
import { record } from "../harness";
import { vllmContainer } from "../support/fixtures";
import { preview } from "../scripts/previewCli";
import { PACK_DIR, judgeResources, summary, usePack, verdict } from "../support/pack";

const pack = usePack();

describe("the pack's config is validated as the CLI validates it", () => {
    const resolve = async (config: Parameters<typeof resolvePackConfig>[1]) => resolvePackConfig(await pack().info(), config);
    const problems = async (config: Parameters<typeof resolvePackConfig>[1]) => {
        try {
            await resolve(config);
        } catch (err) {
            expect(err).toBeInstanceOf(PackConfigError);
            return (err as Error).message
                .split("\n")
                .slice(1)
                .map((line) => line.trim());
        }
        throw new Error("the config was accepted");
    };

    test("the pack describes itself: name, the version of its package.json, every policy", async () => {
        const info = await pack().info();
        expect(info.name).toBe("gke-tpu-inference");
        expect(info.version).toBe(JSON.parse(fs.readFileSync(path.join(PACK_DIR, "package.json"), "utf8")).version);
        expect(info.policies).toHaveLength(37);
        expect(info.policies.find((policy) => policy.name === "require-long-inference-backend-timeout")).toEqual({
            name: "require-long-inference-backend-timeout",
            // Its rule, then its lesson's cause, from the lesson registry.
            description: `Every InferencePool behind a GKE Gateway must have a GCPBackendPolicy whose timeout covers a long completion. ${lessonById("backend-timeout").cause}`,
            enforcementLevel: "advisory",
            configSchema: {
                properties: {
                    minimumTimeoutSec: { type: "integer", default: 300, description: "Shortest acceptable backend timeout for inference." },
                },
                required: [],
            },
        });
    });

    test("defaults fill in, a level string and `all` set levels, and a policy's own level wins over `all`", async () => {
        const resolved = await resolve({
            all: "advisory",
            "require-private-nodes": "disabled",
            "require-long-inference-backend-timeout": { minimumTimeoutSec: 900 },
        });
        expect(resolved["require-private-nodes"]).toEqual({ enforcementLevel: "disabled", properties: {} });
        expect(resolved["require-long-inference-backend-timeout"]).toEqual({
            enforcementLevel: "advisory",
            properties: { minimumTimeoutSec: 900 },
        });
        expect(resolved["require-supported-tpu-zone"].enforcementLevel).toBe("advisory");
        expect(resolved["require-supported-tpu-zone"].properties.supportedZones).toContain("europe-west4-a");
    });

    test("every problem at once, each with the allowed values and a suggestion", async () => {
        expect(
            await problems({
                "require-privat-nodes": "mandatory",
                "require-shielded-nodes": "mandatry",
                "require-long-inference-backend-timeout": { minimumTimeoutSec: "300" },
                "enforce-tpu-startup-budget": { minimumStartupSecs: 600 },
            }),
        ).toEqual([
            'require-privat-nodes: not a policy of gke-tpu-inference; did you mean "require-private-nodes"?',
            "require-long-inference-backend-timeout: minimumTimeoutSec must be integer",
            'enforce-tpu-startup-budget: "minimumStartupSecs" is not a config property of the policy; allowed: minimumStartupSeconds; did you mean "minimumStartupSeconds"?',
            'require-shielded-nodes: enforcementLevel "mandatry" is not one of advisory, mandatory, disabled, remediate; did you mean "mandatory"?',
        ]);
    });

    test("a value that is neither a level nor an object, and a file that is not an object, as the CLI refuses them", async () => {
        expect(await problems({ "require-private-nodes": 1 as never, all: null as never })).toEqual([
            "require-private-nodes: 1 is not a valid value; must be a string (an enforcement level) or an object",
            "all: null is not a valid value; must be a string (an enforcement level) or an object",
        ]);
        await expect(resolve([] as never)).rejects.toThrow(
            "invalid policy pack config for gke-tpu-inference@v0.1.0: [] is not an object of policy names",
        );
    });

    test("npm run preview:offline exits 2 on an invalid pack config, before any verdict", async () => {
        const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "pack-config-")), "policy-config.json");
        fs.writeFileSync(file, JSON.stringify({ "require-shielded-nodes": "mandatry" }));
        const run = await preview(
            "--dir",
            path.join(__dirname, "..", "fixtures", "kubernetes-program"),
            "--bare-stack",
            "-c",
            "greeting=hi",
            "--policy-config",
            file,
        );
        expect(run.status).toBe(2);
        expect(run.stdout).toBe("");
        expect(run.stderr).toBe(
            'error: invalid policy pack config for gke-tpu-inference@v0.1.0:\n  require-shielded-nodes: enforcementLevel "mandatry" is not one of advisory, mandatory, disabled, remediate; did you mean "mandatory"?\n',
        );
    });
});

describe("values as the engine sends them", () => {
    test("a secret reaches the policies as its plain value, and the report never repeats it", async () => {
        const findings = await verdict(
            pack(),
            () =>
                new k8s.apps.v1.Deployment("w", {
                    metadata: { name: "w", namespace: "models" },
                    spec: {
                        selector: { matchLabels: { app: "w" } },
                        template: {
                            metadata: { labels: { app: "w" } },
                            spec: { containers: [{ name: "c", image: pulumiSecret("registry.example.com/private/tool:latest") }] },
                        },
                    },
                }),
        );
        expect(findings.map((finding) => finding.message)).toEqual([
            `${disallowUnpinnedImages.description}\nw spec.template.spec.containers[0] (c) runs image [secret], which is not pinned to a version tag or digest.`,
        ]);
    });

    test("an object the program leaves unnamed reaches the pack with the name the provider's Check gives it: an autoscaler on it is judged", async () => {
        const graph = await record(() => {
            const labels = { app: "vllm" };
            const server = new k8s.apps.v1.Deployment("vllm", {
                metadata: { namespace: "models" },
                spec: {
                    selector: { matchLabels: labels },
                    template: {
                        metadata: { labels },
                        spec: { containers: [vllmContainer() as unknown as k8s.types.input.core.v1.Container] },
                    },
                },
            });
            new k8s.autoscaling.v2.HorizontalPodAutoscaler("scaler", {
                metadata: { name: "scaler", namespace: "models" },
                spec: {
                    scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: server.metadata.name },
                    minReplicas: 1,
                    maxReplicas: 3,
                },
            });
        });
        const deployment = graph.resources.find((resource) => resource.type === "kubernetes:apps/v1:Deployment")!;
        expect((deployment.inputs.metadata as Record<string, unknown>).annotations).toEqual({ "pulumi.com/autonamed": "true" });
        const name = (deployment.inputs.metadata as Record<string, unknown>).name as string;
        expect(name).toMatch(/^vllm-[0-9a-f]{7}$/);
        const found = (await judgeResources(pack(), graph.resources)).filter(
            (finding) => finding.policy === "require-tpu-aware-autoscaling",
        );
        expect(found.map((finding) => finding.message.split("\n")[1])).toEqual([
            `HorizontalPodAutoscaler scaler may remove a replica of Deployment ${name} 300 s after scaling up, within the 600 s its replicas take to start; hold scale-down for at least 600 s.`,
        ]);
    });

    test("on a first preview Kubernetes objects reach AnalyzeStack with no outputs; the stack policies judge the inputs Analyze saw", async () => {
        const graph = await record(() => {
            new k8s.apiextensions.CustomResource("gateway", {
                apiVersion: "gateway.networking.k8s.io/v1",
                kind: "Gateway",
                metadata: { name: "inference", namespace: "gateway" },
                spec: { gatewayClassName: "gke-l7-regional-external-managed", listeners: [{ name: "http", protocol: "HTTP", port: 80 }] },
            });
            new k8s.apiextensions.CustomResource("route", {
                apiVersion: "gateway.networking.k8s.io/v1",
                kind: "HTTPRoute",
                metadata: { name: "completions", namespace: "models" },
                spec: {
                    parentRefs: [{ name: "inference", namespace: "gateway" }],
                    rules: [{ backendRefs: [{ name: "vllm", port: 8000 }], timeouts: { request: "300s" } }],
                },
            });
        });
        // pulumi v3.248.0 provider_plugin.go Create: a preview whose provider config is unknown returns no properties.
        const unconfigured = graph.resources.map((resource) =>
            resource.type.startsWith("kubernetes:") ? { ...resource, wire: { ...resource.wire, outputs: {} } } : resource,
        );
        expect(summary(await judgeResources(pack(), unconfigured))).toEqual(["mandatory disallow-httproute-timeouts-on-gke @route"]);
    });

    test("odd objects (rules as a map, parentRefs as a string) never stop the evaluation: every policy still runs over the rest", async () => {
        const findings = await verdict(pack(), () => {
            new k8s.apiextensions.CustomResource("gateway", {
                apiVersion: "gateway.networking.k8s.io/v1",
                kind: "Gateway",
                metadata: { name: "inference", namespace: "gateway" },
                spec: { gatewayClassName: "gke-l7-regional-external-managed", listeners: [{ name: "http", protocol: "HTTP", port: 80 }] },
            });
            new k8s.apiextensions.CustomResource("odd", {
                apiVersion: "gateway.networking.k8s.io/v1",
                kind: "HTTPRoute",
                metadata: { name: "odd", namespace: "models" },
                spec: {
                    parentRefs: [{ name: "inference", namespace: "gateway" }],
                    rules: { completions: { backendRefs: [{ name: "x", port: 80 }] } },
                },
            });
            new k8s.apiextensions.CustomResource("good", {
                apiVersion: "gateway.networking.k8s.io/v1",
                kind: "HTTPRoute",
                metadata: { name: "good", namespace: "models" },
                spec: {
                    parentRefs: [{ name: "inference", namespace: "gateway" }],
                    rules: [{ backendRefs: [{ name: "x", port: 80 }], timeouts: { request: "10s" } }],
                },
            });
            new k8s.core.v1.Pod("latest", { metadata: { name: "latest" }, spec: { containers: [{ name: "c", image: "busybox" }] } });
        });
        expect(summary(findings)).toEqual([
            "mandatory disallow-httproute-timeouts-on-gke @good",
            "mandatory disallow-unpinned-images @latest",
        ]);

        const odd = await verdict(pack(), () => {
            new k8s.apiextensions.CustomResource("odd", {
                apiVersion: "gateway.networking.k8s.io/v1",
                kind: "HTTPRoute",
                metadata: { name: "odd", namespace: "models" },
                spec: { parentRefs: "inference", rules: { completions: { backendRefs: [{ name: "x", port: 80 }] } } },
            });
            new k8s.core.v1.Pod("latest", { metadata: { name: "latest" }, spec: { containers: [{ name: "c", image: "busybox" }] } });
        });
        expect(summary(odd)).toEqual(["mandatory disallow-unpinned-images @latest"]);
    });
});

describe("a policy that throws on an odd object, through the policy SDK", () => {
    const oddRoute = () =>
        new k8s.apiextensions.CustomResource("odd", {
            apiVersion: "gateway.networking.k8s.io/v1",
            kind: "HTTPRoute",
            metadata: { name: "odd", namespace: "models" },
            spec: { rules: { completions: { backendRefs: [] } } },
        });
    const policySource = `{ name: "reads-rules", description: "Reads every rule.", enforcementLevel: "mandatory", validateResource: (args) => { if (args.type.endsWith(":HTTPRoute")) { args.props.spec.rules.forEach(() => undefined); } } }`;
    /**
     * A pack of its own in a temporary directory, on the node_modules this pack resolves its SDK from, with `index` as
     * its program: JavaScript, as this project's pack runs (compiled), so no start type-checks.
     */
    const packOf = (index: string) => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "throwing-pack-"));
        const nodeModules = path.resolve(require.resolve("@pulumi/policy/package.json", { paths: [PACK_DIR] }), "..", "..", "..");
        fs.symlinkSync(nodeModules, path.join(dir, "node_modules"));
        fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "throwing-pack", version: "0.0.1", main: "index.js" }));
        fs.writeFileSync(path.join(dir, "index.js"), index);
        return PolicyPackProcess.start(dir);
    };

    test("unguarded, the SDK fails the whole Analyze call; guarded as the pack guards every policy, it is one violation against that resource", async () => {
        const unguarded = await packOf(
            `const { PolicyPack } = require("@pulumi/policy");\nnew PolicyPack("throwing-pack", { policies: [${policySource}] });\n`,
        );
        try {
            await expect(verdict(unguarded, oddRoute)).rejects.toThrow(
                /^analyze: 2 UNKNOWN: Error validating resource with policy 'reads-rules' from policy pack 'throwing-pack@v0\.0\.1':\nTypeError: args\.props\.spec\.rules\.forEach is not a function/,
            );
        } finally {
            unguarded.close();
        }
        const guardedPack = await packOf(
            `const { PolicyPack } = require("@pulumi/policy");\nconst { guarded } = require(${JSON.stringify(path.join(PACK_DIR, "bin", "pack"))});\nnew PolicyPack("throwing-pack", { policies: [guarded(${policySource})] });\n`,
        );
        try {
            const findings = await verdict(guardedPack, oddRoute);
            expect(findings.map(({ level, resource, message }) => ({ level, resource, message }))).toEqual([
                {
                    level: "mandatory",
                    resource: "odd",
                    message:
                        "Reads every rule.\nreads-rules could not evaluate kubernetes:gateway.networking.k8s.io/v1:HTTPRoute odd: args.props.spec.rules.forEach is not a function; the object may be malformed (the other policies still ran)",
                },
            ]);
        } finally {
            guardedPack.close();
        }
    });
});
