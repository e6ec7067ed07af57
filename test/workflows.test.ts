import { validateWorkflow } from "@action-validator/core";
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { affectedStacks, shippedStacks } from "../scripts/affected-stacks";
import { readManifest } from "../scripts/fetch-shared";
import { sharedPath } from "./shared";

const { nodeSatisfies } = require("../scripts/nodeVersion") as { nodeSatisfies: (version: string, range: string) => boolean };

const ROOT = path.resolve(__dirname, "..");
const WORKFLOWS = path.join(ROOT, ".github", "workflows");

type Workflow = {
    on: Record<string, unknown>;
    jobs: Record<
        string,
        { permissions?: Record<string, string>; if?: string; steps: Array<{ uses?: string; run?: string; with?: Record<string, unknown> }> }
    >;
};
const read = (file: string) => parse(fs.readFileSync(path.join(WORKFLOWS, file), "utf8")) as Workflow;

describe("GitHub workflows", () => {
    test.each(fs.readdirSync(WORKFLOWS))("%s is a valid workflow", (file) => {
        expect(validateWorkflow(fs.readFileSync(path.join(WORKFLOWS, file), "utf8")).errors).toEqual([]);
    });

    test("the validator does reject a broken workflow", () => {
        expect(validateWorkflow("on: pull_request\njobs:\n  a:\n    runz-on: ubuntu-latest\n    steps: []\n").errors).not.toEqual([]);
    });

    test("preview.yml: the offline diff needs no credentials and reports base against head", () => {
        const { jobs } = read("preview.yml");
        const offline = jobs["offline-diff"];
        expect(offline.permissions).toEqual({ contents: "read", "pull-requests": "write" });
        const script = offline.steps.map((step) => step.run ?? "").join("\n");
        expect(script).toContain('npm run -s preview:offline -- --dir ../base --stack "$stack" --json "../base-$stack.json"');
        expect(script).toContain(
            'npm run -s preview:offline -- --stack "$stack" --json "../head-$stack.json" --markdown "../diff-$stack.md" "${against[@]}"',
        );
        expect(script).toContain('>> "$GITHUB_STEP_SUMMARY"');
    });

    test("preview.yml: the cloud preview runs pulumi preview with the pack, WIF, the auth plugin and a GCS backend, for affected stacks only", () => {
        const { jobs } = read("preview.yml");
        const cloud = jobs["cloud-preview"];
        expect(cloud.permissions).toEqual({ contents: "read", "id-token": "write", "pull-requests": "write" });
        expect(cloud.if).toBe("needs.stacks.outputs.stacks != '[]' && github.event.pull_request.head.repo.full_name == github.repository");
        const uses = Object.fromEntries(cloud.steps.filter((step) => step.uses).map((step) => [step.uses!.split("@")[0], step.with]));
        expect(uses["google-github-actions/auth"]).toEqual({
            workload_identity_provider: "${{ vars.GCP_WORKLOAD_IDENTITY_PROVIDER }}",
            service_account: "${{ vars.GCP_SERVICE_ACCOUNT }}",
        });
        expect(uses["google-github-actions/setup-gcloud"]).toEqual({ install_components: "gke-gcloud-auth-plugin" });
        expect(uses["pulumi/actions"]).toEqual(
            expect.objectContaining({
                command: "preview",
                "stack-name": "${{ matrix.stack }}",
                "cloud-url": "gs://${{ vars.PULUMI_STATE_BUCKET }}",
                "comment-on-pr": true,
                policyPacks: "policies",
            }),
        );
        expect(jobs.stacks.steps.map((step) => step.run ?? "").join("\n")).toContain("npm run -s affected-stacks");
    });

    test("ci.yml runs .ci/run, which fetches the shared files at their pinned commits where no shared folder resolves", () => {
        const { jobs } = read("ci.yml");
        // No SHARED_DIR: the files go where a clone keeps them, .shared/.
        expect((jobs.check as { env?: unknown }).env).toBeUndefined();
        expect(jobs.check.steps).toEqual([
            { uses: "actions/checkout@v4" },
            { uses: "actions/setup-node@v4", with: { "node-version": "${{ matrix.node }}" } },
            { name: ".ci/run", run: "bash .ci/run" },
        ]);
        const commands = fs
            .readFileSync(path.join(ROOT, ".ci", "run"), "utf8")
            .split("\n")
            .filter((line) => line && !line.startsWith("#"));
        const install = commands.indexOf("npm ci --no-audit --no-fund");
        expect(commands.slice(install, install + 3)).toEqual([
            "npm ci --no-audit --no-fund",
            "npm run -s shared:fetch -- --if-missing",
            "npm run lint",
        ]);

        const manifest = readManifest(path.join(ROOT, ".github", "shared-files.tsv"));
        for (const { url } of manifest) {
            expect(url).toMatch(/^https:\/\/raw\.githubusercontent\.com\/[^/]+\/[^/]+\/[0-9a-f]{40}\//);
        }
        const listed = new Set(manifest.map(({ dest }) => dest));
        const walk = (dir: string): string[] =>
            fs
                .readdirSync(dir, { withFileTypes: true })
                .flatMap((entry) => (entry.isDirectory() ? walk(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
        // Every upstream file in the shared folder (CRDs and references) is one the tests may read.
        const shared = ["crds", "reference"]
            .flatMap((dir) => walk(sharedPath(dir)))
            .filter((file) => file.endsWith(".yaml"))
            .map((file) => path.relative(sharedPath(), file));
        expect(shared.length).toBeGreaterThan(0);
        for (const needed of shared) {
            expect({ needed, listed: listed.has(needed) }).toEqual({ needed, listed: true });
        }
    });
});

describe("Node versions", () => {
    const engines = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;

    test("CI checks every supported LTS line; the other jobs and .ci/run's fallback use .nvmrc, a release of the active one", () => {
        expect(engines).toBe("^22.13.0 || >=24");
        const check = read("ci.yml").jobs.check as unknown as { strategy: { matrix: { node: number[] } } };
        // nodejs/Release schedule.json: 22 and 24 in maintenance, 26 Active LTS since 2026-10-28.
        expect(check.strategy.matrix.node).toEqual([22, 24, 26]);
        const setupNode = fs
            .readdirSync(WORKFLOWS)
            .flatMap((file) => Object.values(read(file).jobs).flatMap((job) => job.steps))
            .filter((step) => step.uses?.startsWith("actions/setup-node@"))
            .map((step) => step.with);
        expect(setupNode.length).toBeGreaterThan(1);
        for (const options of setupNode) {
            expect([{ "node-version": "${{ matrix.node }}" }, { "node-version-file": ".nvmrc" }]).toContainEqual(options);
        }
        const pinned = fs.readFileSync(path.join(ROOT, ".nvmrc"), "utf8").trim();
        expect(nodeSatisfies(pinned, engines)).toBe(true);
        expect(Number(pinned.split(".")[0])).toBe(26);
    });
});

describe("affected stacks", () => {
    test("a program change affects every stack; a stack file only its stack; docs and tests none", () => {
        expect(affectedStacks(["components/serving/vllm.ts", "README.md"], ["prod", "dev"])).toEqual(["dev", "prod"]);
        expect(affectedStacks(["policies/requireAllTpuChips.ts"], ["dev", "prod"])).toEqual(["dev", "prod"]);
        expect(affectedStacks(["Pulumi.prod.yaml", "README.md"], ["dev", "prod"])).toEqual(["prod"]);
        expect(affectedStacks(["Pulumi.staging.yaml"], ["dev", "prod"])).toEqual([]);
        expect(affectedStacks(["README.md", "test/index.test.ts", "scripts/smoke.ts"], ["dev", "prod"])).toEqual([]);
        expect(shippedStacks(ROOT).sort()).toEqual(["dev", "fleet", "istio", "multihost", "multimodel", "prod"]);
    });
});
