import * as fs from "fs";
import { LESSON_SETS, lessonById, lessonSetConfigFile } from "@gke-tpu-inference/facts";
import * as path from "path";
import { parse } from "yaml";
import { PreviewReport, renderTree } from "../../scripts/offline/report";
import { SECURE_PLACEHOLDER } from "../../scripts/offline/project";
import { SETTINGS } from "../../components/settings/stack";
import { policies } from "../../policies/pack";
import { CliRun } from "../cli";
import { shippedRun } from "../shippedStacks";
import { ROOT, preview, previewProcess, tempDir } from "./previewCli";

const FIXTURE = path.join(ROOT, "test", "fixtures", "kubernetes-program");
const WRONG_PROGRAM = path.join(ROOT, "test", "fixtures", "wrong-program");

function step(report: PreviewReport, type: string, name: string) {
    const found = report.steps.find((candidate) => candidate.newState.type === type && candidate.urn.endsWith(`::${name}`));
    if (!found) {
        throw new Error(`no step ${type} ${name}`);
    }
    return found;
}

describe("npm run preview:offline (dev stack)", () => {
    const dir = tempDir();
    const first = path.join(dir, "first.json");
    const second = path.join(dir, "second.json");
    let run: CliRun;
    let report: PreviewReport;

    beforeAll(async () => {
        // The command as a user runs it, once; the second run in this process: the two reports must be one.
        run = previewProcess("--json", first);
        await preview("--json", second);
        report = JSON.parse(fs.readFileSync(first, "utf8"));
    });

    test("exits 0, says it used a placeholder project, and prints the tree with a create summary", () => {
        // The one warning: the shipped stack lets no range in until its owner names one.
        expect(run.stderr).toBe(
            "warning: [runtime] the inference Gateway is closed: nobody: allowedSourceRanges is empty, so the Gateway refuses every request; set it to your network (pulumi config set --path 'allowedSourceRanges[0]' <CIDR>)\n",
        );
        expect(run.status).toBe(0);
        expect(run.stdout).toContain('note: gcp:project is not set: using the placeholder "offline-preview-project"');
        expect(run.stdout).toContain("Previewing update (dev) offline");
        expect(run.stdout).toMatch(/ \+ {3}pulumi:pulumi:Stack +gke-tpu-inference-dev +create/);
        expect(run.stdout).toMatch(/ \+ {3}│ {2}├─ gcp:container:NodePool +tpu-inference-system +create/);
        expect(run.stdout).toMatch(
            / \+ {3}│ {2}└─ kubernetes:serving.kserve.io\/v1alpha2:LLMInferenceServiceConfig +serving-router-route +create/,
        );
        expect(run.stdout).toMatch(/ \+ {3}│ {5}└─ gcp:container:NodePool +tpu-inference-tpu-pool +create/);
        expect(run.stdout).toContain("    + 107 to create");
        // The outputs as pulumi preview lists them: keys aligned, nested values four spaces in, lines within 80 columns.
        expect(run.stdout).toContain(
            [
                "    gateway             : {",
                '        name     : "inference-gateway"',
                '        namespace: "inference-gateway"',
                "    }",
                '    gatewayAddress      : "198.51.100.20"',
            ].join("\n"),
        );
        expect(run.stdout).toContain(
            [
                '    kubeconfigCommand   : "gcloud container clusters get-credentials',
                "                          tpu-inference-dev --region europe-west4 --project",
                '                          offline-preview-project"',
            ].join("\n"),
        );
        // The runtime-configs chart's verbatim objects are its children; the charts nothing can render offline are marked.
        expect(run.stdout).toMatch(
            / \+ {3}│ {2}│ {2}├─ kubernetes:serving.kserve.io\/v1alpha2:LLMInferenceServiceConfig +kserve-configs:kserve\/kserve-config-llm-router-route +create/,
        );
        expect(run.stdout).toMatch(/ \+ {3}│ {2}├─ kubernetes:helm.sh\/v4:Chart +kserve-crd {2}\[objects not rendered offline\] +create/);
        expect(run.stdout).toContain(
            [
                "Not checked offline: the objects of 4 components, each with why (most a real preview renders, and the pack then judges):",
                "    kubernetes:helm.sh/v4:Chart tpu-inference-chart (oci://quay.io/jetstack/charts/cert-manager): Helm charts are rendered by the Kubernetes provider, which the offline preview does not run",
                "    kubernetes:helm.sh/v4:Chart kserve-controller (oci://ghcr.io/kserve/charts/kserve-llmisvc-resources): Helm charts are rendered by the Kubernetes provider, which the offline preview does not run",
                "    kubernetes:helm.sh/v4:Chart kserve-crd (oci://ghcr.io/kserve/charts/kserve-llmisvc-crd): Helm charts are rendered by the Kubernetes provider, which the offline preview does not run",
                "    kubernetes:helm.sh/v4:Chart lws-chart (oci://registry.k8s.io/lws/charts/lws): Helm charts are rendered by the Kubernetes provider, which the offline preview does not run",
            ].join("\n"),
        );
    });

    test("the JSON report is modeled on pulumi preview --json", () => {
        expect(report.project).toBe("gke-tpu-inference");
        expect(report.stack).toBe("dev");
        expect(report.summary).toEqual({ create: 107 });
        expect(report.unrenderedCharts.map((chart) => [chart.name, chart.chart])).toEqual([
            ["tpu-inference-chart", "oci://quay.io/jetstack/charts/cert-manager"],
            ["kserve-controller", "oci://ghcr.io/kserve/charts/kserve-llmisvc-resources"],
            ["kserve-crd", "oci://ghcr.io/kserve/charts/kserve-llmisvc-crd"],
            ["lws-chart", "oci://registry.k8s.io/lws/charts/lws"],
        ]);
        // The stack's values over Pulumi.yaml's declared defaults, as the CLI hands them to the program.
        expect(report.config).toEqual(
            expect.objectContaining({
                "gcp:project": "offline-preview-project",
                "gke-tpu-inference:deletionProtection": "false",
                "gke-tpu-inference:models": JSON.stringify([
                    {
                        name: "qwen2-3b",
                        pattern: "pattern1",
                        modelUri: "hf://Qwen/Qwen2.5-3B-Instruct",
                        modelName: "Qwen/Qwen2.5-3B-Instruct",
                        replicas: 1,
                    },
                ]),
                "gke-tpu-inference:zone": "europe-west4-a",
                "gke-tpu-inference:masterAuthorizedNetworks": "[]",
            }),
        );
        expect(Object.keys(report.config)).toHaveLength(Object.keys(SETTINGS).length + 1);
        const cluster = step(report, "gcp:container/cluster:Cluster", "tpu-inference-cluster");
        expect(cluster.op).toBe("create");
        expect(cluster.newState).toEqual(
            expect.objectContaining({
                type: "gcp:container/cluster:Cluster",
                urn: "urn:pulumi:dev::gke-tpu-inference::gke-tpu-inference:cluster:GkeCluster$gcp:container/cluster:Cluster::tpu-inference-cluster",
                custom: true,
                parent: "urn:pulumi:dev::gke-tpu-inference::gke-tpu-inference:cluster:GkeCluster::tpu-inference",
            }),
        );
        expect(cluster.newState.inputs).toEqual(
            expect.objectContaining({
                gatewayApiConfig: { channel: "CHANNEL_STANDARD" },
                deletionProtection: false,
                location: "europe-west4",
            }),
        );
        const tpuPool = step(report, "gcp:container/nodePool:NodePool", "tpu-inference-tpu-pool");
        expect(tpuPool.newState.inputs).toEqual(
            expect.objectContaining({ nodeLocations: ["europe-west4-a"], autoscaling: { minNodeCount: 0, maxNodeCount: 3 } }),
        );
        const provider = step(report, "pulumi:providers:kubernetes", "tpu-inference-k8s");
        expect(provider.newState.dependencies).toEqual([
            "urn:pulumi:dev::gke-tpu-inference::gke-tpu-inference:cluster:GkeCluster$gcp:container/cluster:Cluster::tpu-inference-cluster",
            "urn:pulumi:dev::gke-tpu-inference::gke-tpu-inference:cluster:GkeCluster$gcp:container/nodePool:NodePool::tpu-inference-system",
        ]);
        expect(report.outputs.kubeconfigCommand).toBe(
            "gcloud container clusters get-credentials tpu-inference-dev --region europe-west4 --project offline-preview-project",
        );
        expect(report.invokes.map((invoke) => invoke.token)).toEqual([
            "gcp:compute/getMachineTypes:getMachineTypes",
            "gcp:compute/getMachineTypes:getMachineTypes",
            "gcp:container/getEngineVersions:getEngineVersions",
            "gcp:organizations/getProject:getProject",
            ...Array(9).fill("gcp:projects/getProjectService:getProjectService"),
        ]);
        expect(report.invokes[2]).toEqual({
            token: "gcp:container/getEngineVersions:getEngineVersions",
            args: { location: "europe-west4", project: "offline-preview-project" },
        });
    });

    test("the policy pack passes the shipped stack", () => {
        expect(run.stdout).toContain(
            "Policies:\n    ✅ gke-tpu-inference@v0.1.0  (over what was previewed; the objects of 4 components not checked offline, listed above)\n",
        );
        expect(report.policyViolations).toEqual([]);
    });

    test("two runs write byte-identical JSON", () => {
        expect(fs.readFileSync(second, "utf8")).toBe(fs.readFileSync(first, "utf8"));
    });
});

describe("npm run preview:offline (prod stack: pattern 3)", () => {
    test("prefix-cache replicas autoscaled from two to three; a token passed as a secret never reaches the report", async () => {
        const json = path.join(tempDir(), "prod.json");
        const run = await preview("--stack", "prod", "--secret", "hfToken=hf_do_not_print", "--json", json);
        expect(run.status).toBe(0);
        expect(run.stdout).toContain("    + 126 to create");
        const text = fs.readFileSync(json, "utf8");
        expect(text).not.toContain("hf_do_not_print");
        expect(run.stdout).not.toContain("hf_do_not_print");
        const report: PreviewReport = JSON.parse(text);
        expect(report.config["gke-tpu-inference:hfToken"]).toBe("[secret]");
        const spec = step(report, "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService", "qwen2-3b-cache-llmisvc").newState.inputs
            .spec as {
            replicas?: number;
            router: { scheduler: { config?: unknown } };
            template: { containers: Array<{ args: string[] }> };
        };
        // The count is the ScaledObject's: KServe keeps what the Deployment has.
        expect(spec.replicas).toBeUndefined();
        const autoscaler = step(report, "kubernetes:keda.sh/v1alpha1:ScaledObject", "qwen2-3b-cache-autoscaler").newState.inputs.spec as {
            minReplicaCount: number;
            maxReplicaCount: number;
        };
        expect([autoscaler.minReplicaCount, autoscaler.maxReplicaCount]).toEqual([2, 3]);
        expect(spec.router.scheduler.config).toBeDefined();
        expect(spec.template.containers[0].args).toContain("--enable-prefix-caching");
        expect(report.policyViolations).toEqual([]);
    });
});

describe("npm run preview:offline --dir on a program that repeats every field failure", () => {
    let run: CliRun;
    let report: PreviewReport;
    beforeAll(async () => {
        const json = path.join(tempDir(), "wrong.json");
        run = await preview("--dir", WRONG_PROGRAM, "--stack", "staging", "--bare-stack", "--json", json);
        report = JSON.parse(fs.readFileSync(json, "utf8"));
    });

    test("exits 1 because mandatory policies fail, and prints them like pulumi preview", () => {
        expect(run.status).toBe(1);
        expect(run.stdout).toContain(
            "Policies:\n    ❌ gke-tpu-inference@v0.1.0  (over what was previewed; the objects of 3 components not checked offline, listed above)\n",
        );
        expect(run.stdout).toContain(
            [
                "        - [mandatory]  require-regional-gateway-class-for-inference  (kubernetes:gateway.networking.k8s.io/v1:Gateway: gateway)",
                `          A GKE Gateway that routes to an InferencePool must use a regional GatewayClass. ${lessonById("global-gateway-class").cause}`,
                '          Gateway gateway/global uses GatewayClass "gke-l7-global-external-managed" but routes to an InferencePool; only gke-l7-regional-external-managed, gke-l7-rilb serve InferencePool backends.',
            ].join("\n"),
        );
    });

    test("each lesson is reported by its policy, against the resource that breaks it", () => {
        const byPolicy: Record<string, string[]> = {};
        for (const violation of report.policyViolations) {
            const name =
                report.steps
                    .find((candidate) => candidate.urn === violation.urn)
                    ?.urn.split("::")
                    .pop() ?? "stack";
            byPolicy[`${violation.enforcementLevel} ${violation.policyName}`] = [
                ...new Set([...(byPolicy[`${violation.enforcementLevel} ${violation.policyName}`] ?? []), name]),
            ].sort();
        }
        expect(byPolicy).toEqual({
            "mandatory require-regional-gateway-class-for-inference": ["gateway"],
            "mandatory require-supported-tpu-zone": ["tpu-pool"],
            "mandatory require-tpu-selector-matching-pool": ["qwen"],
            "mandatory require-gateway-api-on-cluster": ["bad-cluster"],
            "mandatory disallow-httproute-timeouts-on-gke": ["qwen", "route"],
            "mandatory require-http-health-check-policy": ["health"],
            "mandatory disallow-https-app-protocol-to-vllm": ["workload-svc"],
            "mandatory require-lws-and-kserve-before-model-services": ["qwen"],
            "advisory enforce-tpu-startup-budget": ["qwen"],
            "advisory require-persistent-xla-cache": ["qwen"],
            "mandatory disallow-gpu-only-vllm-flags": ["qwen"],
            "mandatory disallow-unpinned-images": ["qwen"],
            "mandatory require-pinned-chart-versions": ["kube-state-metrics", "lws"],
            "mandatory require-rsa-ca-certificates": ["ca"],
            "mandatory require-http-probes-for-vllm": ["qwen"],
            "mandatory require-fixed-endpoint-picker-image": ["qwen"],
            "mandatory require-all-tpu-chips": ["qwen"],
            "advisory require-long-inference-backend-timeout": ["qwen"],
            "mandatory require-workload-identity": ["bad-cluster"],
            "mandatory require-private-nodes": ["bad-cluster"],
            "mandatory require-shielded-nodes": ["bad-cluster", "tpu-pool"],
            "mandatory disallow-default-compute-service-account": ["bad-cluster", "tpu-pool"],
            "mandatory require-deletion-protection": ["bad-cluster"],
            "mandatory disallow-plain-text-secret-env": ["qwen"],
            "mandatory require-gateway-access-control": ["qwen"],
        });
        expect(report.policyViolations[0]).toEqual({
            policyPack: "gke-tpu-inference",
            policyPackVersion: "0.1.0",
            policyName: expect.any(String),
            enforcementLevel: expect.any(String),
            severity: expect.any(String),
            description: expect.any(String),
            message: expect.any(String),
            urn: expect.stringMatching(/^urn:pulumi:staging::wrong-inference::/),
        });
    });

    test("pack config turns policies off or down, as pulumi --policy-pack-config does: the inference half alone, one policy advisory", async () => {
        const config = path.join(tempDir(), "policy-config.json");
        const inferenceOnly = JSON.parse(fs.readFileSync(path.join(ROOT, lessonSetConfigFile("inference")), "utf8"));
        fs.writeFileSync(config, JSON.stringify({ ...inferenceOnly, "require-gateway-access-control": { enforcementLevel: "advisory" } }));
        const json = path.join(tempDir(), "inference-only.json");
        const relaxed = await preview(
            "--dir",
            WRONG_PROGRAM,
            "--stack",
            "staging",
            "--bare-stack",
            "--policy-config",
            config,
            "--json",
            json,
        );
        expect(relaxed.status).toBe(1);
        const levels = (violations: PreviewReport["policyViolations"]) =>
            Object.fromEntries(violations.map((violation) => [violation.policyName, violation.enforcementLevel]));
        const hardening = new Set(
            policies.filter((policy) => LESSON_SETS.hardening.some((lesson) => lesson.id === policy.lesson)).map((policy) => policy.name),
        );
        const expected = levels(report.policyViolations.filter((violation) => !hardening.has(violation.policyName)));
        expected["require-gateway-access-control"] = "advisory";
        expect(levels(JSON.parse(fs.readFileSync(json, "utf8")).policyViolations)).toEqual(expected);
    });
});

describe("npm run preview:offline with overrides and errors", () => {
    test("--config overrides stack values like pulumi -c", async () => {
        const json = path.join(tempDir(), "report.json");
        const run = await preview("--config", "tpuMachineType=ct6e-standard-8t", "-c", "gcp:project=acme-inference", "--json", json);
        expect(run.status).toBe(0);
        expect(run.stdout).not.toContain("placeholder");
        const report: PreviewReport = JSON.parse(fs.readFileSync(json, "utf8"));
        expect(report.config["gke-tpu-inference:tpuMachineType"]).toBe("ct6e-standard-8t");
        expect(report.outputs.tpuNodeSelector).toEqual({
            "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
            "cloud.google.com/gke-tpu-topology": "2x4",
        });
        const nodeConfig = step(report, "gcp:container/nodePool:NodePool", "tpu-inference-tpu-pool").newState.inputs.nodeConfig as Record<
            string,
            unknown
        >;
        expect(nodeConfig.machineType).toBe("ct6e-standard-8t");
    });

    test("a configuration error exits 2 with the validation message and no stack trace", async () => {
        const run = await preview("--config", "zone=us-central1-a");
        expect(run.status).toBe(2);
        expect(run.stdout).not.toContain("to create");
        expect(run.stderr).toBe(
            'error: gke-tpu-inference:zone = "us-central1-a" is not a zone where GKE offers TPU v6e node pools (TPU VM zones differ); ' +
                "allowed: europe-west4-a, us-central1-b, us-east1-d, us-east5-a, us-east5-b, us-south1-a, us-south1-b\n",
        );
    });

    test.each<[string, string[], string]>([
        ["an unknown option", ["--stak", "dev"], "error: Unknown option '--stak'; npm run preview:offline -- --help lists the options\n"],
        [
            "a timeout that is not a number",
            ["--program-timeout", "soon"],
            'error: --program-timeout "soon" is not a number of seconds above 0\n',
        ],
        [
            "a stack without its file",
            ["--stack", "staging"],
            `error: stack "staging" has no Pulumi.staging.yaml in ${ROOT} (stacks there: dev, fleet, istio, multihost, multimodel, prod); preview a stack it has: npm run preview:offline -- --dir . --stack dev, or this one on the project's defaults and --config alone: npm run preview:offline -- --dir . --stack staging --bare-stack\n`,
        ],
    ])("%s: one line, exit 2", async (_, args, stderr) => {
        const run = await preview(...args);
        expect(run.status).toBe(2);
        expect(run.stdout).toBe("");
        expect(run.stderr).toBe(stderr);
    });

    test.each(["--against", "--policy-config"])("an unreadable %s file exits 2 naming the option and the file", async (option) => {
        const missing = path.join(tempDir(), "missing.json");
        const run = await preview(option, missing);
        expect(run.status).toBe(2);
        expect(run.stdout).toBe("");
        expect(run.stderr).toBe(`error: ${option} ${missing}: ENOENT: no such file or directory, open '${missing}'\n`);
    });

    test("an in-process run leaves the process's exit listeners as it found them: the SDK it loaded is let go", async () => {
        const before = process.listeners("exit");
        expect((await preview("--dir", FIXTURE, "--bare-stack")).status).toBe(0);
        expect(process.listeners("exit")).toEqual(before);
    });

    test("a directory that is not a Pulumi project exits 2", async () => {
        const run = await preview("--dir", tempDir());
        expect(run.status).toBe(2);
        expect(run.stderr).toMatch(/^error: .*: no Pulumi\.yaml \(is --dir a Pulumi project\?\)\n$/);
    });
});

describe("npm run preview:offline --dir (any Pulumi TypeScript program)", () => {
    test("runs a program that has only a Pulumi.yaml, with project defaults, and writes its Kubernetes objects", async () => {
        const out = tempDir();
        const run = await preview("--dir", FIXTURE, "--bare-stack", "--out", out);
        expect(run.status).toBe(0);
        expect(run.stdout).toContain(`note: no Pulumi.dev.yaml in ${FIXTURE}: running with project defaults and --config values only`);
        expect(run.stdout).toContain("    + 3 to create");
        expect(fs.readdirSync(out).sort()).toEqual([".preview-offline.json", "configmap-demo-greeting.yaml", "namespace-demo.yaml"]);
        expect(fs.readFileSync(path.join(out, "configmap-demo-greeting.yaml"), "utf8")).toBe(
            [
                "apiVersion: v1",
                "kind: ConfigMap",
                "metadata:",
                "  name: greeting",
                "  namespace: demo",
                "data:",
                "  greeting: hello",
                '  replicas: "1"',
                "",
            ].join("\n"),
        );
    });

    test("stack files: namespaced and bare keys, structured values as JSON, secure values as secrets", async () => {
        const out = tempDir();
        const json = path.join(out, "report.json");
        const run = await preview("--dir", FIXTURE, "--stack", "secrets", "--out", out, "--json", json, "--config", "greeting=hi");
        expect(run.status).toBe(0);
        const report: PreviewReport = JSON.parse(fs.readFileSync(json, "utf8"));
        expect(report.config).toEqual({
            "demo:greeting": "hi",
            "demo:labels": '{"team":"inference"}',
            "demo:replicas": "2",
            "demo:token": "[secret]",
            "gcp:project": "offline-preview-project",
        });
        expect(report.outputs).toEqual({ configMapName: "greeting", secretToken: "[secret]" });
        expect(parse(fs.readFileSync(path.join(out, "configmap-demo-greeting.yaml"), "utf8"))).toEqual({
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "greeting", namespace: "demo", labels: { team: "inference" } },
            data: { greeting: "hi", replicas: "2" },
        });
        expect(parse(fs.readFileSync(path.join(out, "secret-demo-token.yaml"), "utf8"))).toEqual({
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name: "token", namespace: "demo" },
            stringData: "[secret]",
        });
        expect(fs.readFileSync(json, "utf8")).not.toContain(SECURE_PLACEHOLDER);
    });
});

describe("the resource tree on a terminal and in a log", () => {
    test("on a terminal each row ends a column short of its width, as pulumi trims it; in a log rows are whole", async () => {
        const run = await shippedRun("dev");
        const rows = (text: string) => text.split("\n").filter((line) => line.startsWith(" +   "));
        const onTerminal = rows(renderTree(run, { width: 72, interactive: true }));
        const inLog = rows(renderTree(run, { width: 72, interactive: false }));
        expect(onTerminal).toHaveLength(run.resources.length);
        expect(Math.max(...onTerminal.map((row) => row.length))).toBe(71);
        expect(onTerminal).toEqual(inLog.map((row) => row.slice(0, 71)));
        expect(Math.max(...inLog.map((row) => row.length))).toBeGreaterThan(100);
    });
});
