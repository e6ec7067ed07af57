import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { diffReports, diffValues, renderMarkdown } from "../../scripts/offline/diff";
import { PolicyViolation } from "../../scripts/offline/analyzer";
import { PreviewReport } from "../../scripts/offline/report";

const ROOT = path.resolve(__dirname, "..", "..");
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), "diff-"));

/** Runs the offline preview of the prod stack with `args` and returns its report (and the process). */
function prodReport(file: string, ...args: string[]) {
    const json = path.join(DIR, file);
    const run = spawnSync(
        process.execPath,
        ["-r", "./scripts/ts-hook.js", "scripts/preview-offline.ts", "--stack", "prod", "--json", json, ...args],
        { cwd: ROOT, encoding: "utf8" },
    );
    return { run, json, report: JSON.parse(fs.readFileSync(json, "utf8")) as PreviewReport };
}

describe("diffValues", () => {
    test("reports each differing leaf by path", () => {
        expect(diffValues({ a: 1, b: { c: [1, 2] }, d: "x" }, { a: 1, b: { c: [1, 3, 4] }, e: true })).toEqual([
            { path: "b.c[1]", before: 2, after: 3 },
            { path: "b.c[2]", after: 4 },
            { path: "d", before: "x" },
            { path: "e", after: true },
        ]);
    });
});

describe("the pull-request diff from real before/after reports", () => {
    let base: ReturnType<typeof prodReport>;
    beforeAll(() => {
        base = prodReport("base.json");
    });

    test("pausing touches the model service, its autoscaler and the outputs only: the pool is not replaced and the platform is undisturbed", () => {
        const paused = prodReport("paused.json", "--config", "paused=true", "--config", "tpuMinNodes=1");
        const unpaused = prodReport("min1.json", "--config", "tpuMinNodes=1");
        const diff = diffReports(unpaused.report, paused.report);
        expect(diff.added).toEqual([]);
        expect(diff.removed).toEqual([]);
        expect(diff.changed.map((change) => [change.name, change.changes])).toEqual([
            ["tpu-inference-tpu-pool", [{ path: "inputs.autoscaling.minNodeCount", before: 1, after: 0 }]],
            // KEDA stops scaling the Deployment KServe removes, until the stack resumes.
            ["qwen2-3b-cache-autoscaler", [{ path: "inputs.metadata.annotations", after: { "autoscaling.keda.sh/paused": "true" } }]],
            [
                "qwen2-3b-cache-llmisvc",
                [
                    { path: "inputs.metadata.annotations.pulumi.com/timeoutSeconds", before: "2400" },
                    {
                        path: "inputs.metadata.annotations.pulumi.com/waitFor",
                        before: '["condition=RouterReady","jsonpath={.status[?@.primary.readyReplicas > 0]}"]',
                    },
                    { path: "inputs.metadata.annotations.serving.kserve.io/stop", after: "true" },
                ],
            ],
        ]);
        expect(diff.outputs.map((output) => output.path)).toEqual([
            "tpuHourlyCost.atMaximum.chips",
            "tpuHourlyCost.atMaximum.nodes",
            "tpuHourlyCost.atMaximum.usdPerHour",
            "tpuHourlyCost.chips",
            "tpuHourlyCost.nodes",
            "tpuHourlyCost.usdPerHour",
            "tpuPoolAutoscaling.minNodes",
            "tpuPoolAutoscaling.paused",
        ]);
    });

    test("npm run preview:offline --against --markdown: the summary a pull request shows", () => {
        const head = prodReport(
            "head.json",
            "--config",
            "tpuMaxNodes=4",
            "--config",
            'models=[{"name":"qwen2-3b-cache","pattern":"pattern3","autoscaling":{"minReplicas":2,"maxReplicas":4}}]',
            "--against",
            path.join(DIR, "base.json"),
            "--markdown",
            path.join(DIR, "head.md"),
        );
        expect(head.run.status).toBe(0);
        const markdown = fs.readFileSync(path.join(DIR, "head.md"), "utf8");
        expect(markdown).toBe(renderMarkdown(head.report, diffReports(base.report, head.report)));
        expect(markdown).toContain(
            "### Offline preview of stack `prod`\n\n**+0 to create, ~3 to update, -0 to delete** (105 resources after)\n",
        );
        // The pool, the service's ScaledObject and its at-maximum alert change in place.
        expect(markdown).toContain("| ~ | `gcp:container:NodePool` | tpu-inference-tpu-pool |");
        expect(markdown).toContain("```diff\n- inputs.autoscaling.maxNodeCount: 3\n+ inputs.autoscaling.maxNodeCount: 4\n```");
        expect(markdown).toContain("```diff\n- inputs.spec.maxReplicaCount: 3\n+ inputs.spec.maxReplicaCount: 4\n```");
        expect(markdown).toContain("- tpuHourlyCost.atMaximum.usdPerHour: 32.4\n+ tpuHourlyCost.atMaximum.usdPerHour: 43.2");
        expect(markdown).toContain(
            "#### Policies\n\n✅ no violations over what was previewed (the objects of 5 components not checked offline, listed above)\n",
        );
    });

    test("without a base, the summary states the plan", () => {
        expect(renderMarkdown(base.report)).toBe(
            [
                "### Offline preview of stack `prod`",
                "",
                "**+105 to create**",
                "",
                "**Not checked offline:** the objects of `tpu-inference-chart` (oci://quay.io/jetstack/charts/cert-manager), " +
                    "`kserve-controller` (oci://ghcr.io/kserve/charts/kserve-llmisvc-resources), `kserve-crd` (oci://ghcr.io/kserve/charts/kserve-llmisvc-crd), " +
                    "`keda-chart` (https://kedacore.github.io/charts/keda), " +
                    "`lws-chart` (oci://registry.k8s.io/lws/charts/lws); a real preview renders them and the policy pack judges them.",
                "",
                "#### Policies",
                "",
                "✅ no violations over what was previewed (the objects of 5 components not checked offline, listed above)",
                "",
            ].join("\n"),
        );
    });

    test("violations a change introduces and resolves are marked", () => {
        const violation = (policyName: string, urn: string): PolicyViolation => ({
            policyPack: "gke-tpu-inference",
            policyPackVersion: "0.1.0",
            policyName,
            enforcementLevel: "mandatory",
            severity: "high",
            description: "d",
            message: `${policyName} message`,
            urn,
        });
        const before = { ...base.report, policyViolations: [violation("require-private-nodes", "urn:a::gke")] };
        const after = { ...base.report, policyViolations: [violation("disallow-unpinned-images", "urn:a::qwen")] };
        const diff = diffReports(before, after);
        expect(diff.violations.introduced.map((item) => item.policyName)).toEqual(["disallow-unpinned-images"]);
        expect(diff.violations.resolved.map((item) => item.policyName)).toEqual(["require-private-nodes"]);
        expect(renderMarkdown(after, diff)).toContain(
            [
                "❌ gke-tpu-inference@v0.1.0: 1 mandatory, 0 advisory; 1 new with this change",
                "",
                "| level | policy | resource | message |",
                "|---|---|---|---|",
                "| mandatory (new) | `disallow-unpinned-images` | qwen | disallow-unpinned-images message |",
                "",
                "Resolved by this change: `require-private-nodes` on gke.",
            ].join("\n"),
        );
    });
});
