import * as path from "path";
import { PolicyViolation } from "../../scripts/offline/analyzer";
import { readBaseReport } from "../../scripts/offline/baseReport";
import { diffReports, diffValues, nameOf } from "../../scripts/offline/diff";
import { renderChanges, renderMarkdown } from "../../scripts/offline/renderDiff";
import { UNKNOWN_VALUE } from "../../scripts/offline/recorder";
import { PreviewReport, buildReport } from "../../scripts/offline/report";
import { OfflineRun, runOffline } from "../../scripts/offline/run";
import { shippedRun } from "../shippedStacks";
import { PulumiPreview, PulumiStep, firstPulumiPreview } from "./pulumiPreview";

const ROOT = path.resolve(__dirname, "..", "..");

/** The offline report of `stack` with `config` overrides, without a policy verdict. */
async function offlineReport(stack: string, ...config: string[]): Promise<PreviewReport> {
    return buildReport(await runOffline(ROOT, stack, { overrides: config }), []);
}

/** The dev stack with its control plane on another range (which replaces the cluster), previewed once for the file. */
let controlPlaneRange: Promise<PreviewReport> | undefined;
const newControlPlaneRange = () => (controlPlaneRange ??= offlineReport("dev", "masterCidr=172.16.0.16/28"));

/** A copy of `preview` whose step for the resource named `name` is changed by `edit`. */
function editStep(preview: PulumiPreview, name: string, edit: (step: PulumiStep) => void): PulumiPreview {
    const copy = structuredClone(preview);
    const step = copy.steps.find((candidate) => candidate.urn.endsWith(`::${name}`));
    if (!step) {
        throw new Error(`no step named ${name}`);
    }
    edit(step);
    return copy;
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

    test("a value the base held as unknown is whatever the head has (kept to be shown), or nothing; one the head does not know yet is a change", () => {
        expect(
            diffValues({ a: UNKNOWN_VALUE, b: UNKNOWN_VALUE, c: "x", d: [1, UNKNOWN_VALUE] }, { a: { x: 1 }, c: UNKNOWN_VALUE, d: [1, 2] }),
        ).toEqual([
            { path: "a", before: UNKNOWN_VALUE, after: { x: 1 } },
            { path: "c", before: "x", after: UNKNOWN_VALUE },
            { path: "d[1]", before: UNKNOWN_VALUE, after: 2 },
        ]);
    });

    test("a list held as a set is compared element by element whatever the order: what one side has alone is a change", () => {
        const sets = new Set(["dependencies"]);
        expect(diffValues({ dependencies: ["a", "b", "c"] }, { dependencies: ["c", "a", "b"] }, sets)).toEqual([]);
        expect(diffValues({ dependencies: ["a", "b", "c"] }, { dependencies: ["b", "d"] }, sets)).toEqual([
            { path: "dependencies", before: "a" },
            { path: "dependencies", before: "c" },
            { path: "dependencies", after: "d" },
        ]);
        // Any other list, position by position.
        expect(diffValues({ list: ["a", "b"] }, { list: ["b", "a"] }, sets)).toEqual([
            { path: "list[0]", before: "a", after: "b" },
            { path: "list[1]", before: "b", after: "a" },
        ]);
    });
});

describe("between two offline previews of the dev stack", () => {
    let run: OfflineRun;
    let base: PreviewReport;
    beforeAll(async () => {
        run = await shippedRun("dev");
        base = buildReport(run, []);
    });

    test("ignoreChanges is a set: reordered, no change; a path more or less, that path", () => {
        const ignoring = (...paths: string[]) => {
            const report = structuredClone(base);
            const service = report.steps.find((step) => step.urn.endsWith("::qwen2-3b-llmisvc"))!.newState;
            service.options = { ...service.options, ignoreChanges: paths };
            return report;
        };
        const before = ignoring("spec.replicas", "metadata.annotations");
        expect(diffReports(readBaseReport(before), ignoring("metadata.annotations", "spec.replicas")).resources).toEqual([]);
        expect(
            diffReports(readBaseReport(before), ignoring("metadata.labels", "spec.replicas")).resources.map((change) => [
                change.name,
                change.properties,
            ]),
        ).toEqual([
            [
                "qwen2-3b-llmisvc",
                [
                    { path: "options.ignoreChanges", before: "metadata.annotations" },
                    { path: "options.ignoreChanges", after: "metadata.labels" },
                ],
            ],
        ]);
    });

    test("inputs as the provider and the engine read them: ignoreChanges kept, Terraform sets in any order, scopes canonical, defaults written or left out; a component's provider is no replacement", () => {
        const edited = (name: string, edit: (state: PreviewReport["steps"][number]["newState"]) => void) => {
            const report = structuredClone(base);
            edit(report.steps.find((step) => step.urn.endsWith(`::${name}`))!.newState);
            return report;
        };
        const pool = (inputs: Record<string, unknown>) => inputs as { initialNodeCount: number; nodeConfig: Record<string, unknown> };
        // The TPU pool ignores initialNodeCount: a new floor changes it in the program, not in the plan.
        const floor = edited("tpu-inference-tpu-pool", (state) => {
            pool(state.inputs).initialNodeCount += 1;
        });
        expect(diffReports(readBaseReport(base), floor).resources).toEqual([]);
        // A base recorded without the name the provider gave the pool: it keeps that name, so no change.
        const unnamed = edited("tpu-inference-tpu-pool", (state) => {
            delete (state.inputs as Record<string, unknown>).name;
        });
        expect(diffReports(readBaseReport(unnamed), base).resources).toEqual([]);
        const scopes = edited("tpu-inference-tpu-pool", (state) => {
            const config = pool(state.inputs).nodeConfig;
            config.oauthScopes = [...(config.oauthScopes as string[])]
                .reverse()
                .map((scope) => scope.replace("https://www.googleapis.com/auth/", ""));
            config.spot = config.spot ?? false;
        });
        expect(diffReports(readBaseReport(base), scopes).resources).toEqual([]);
        const spot = edited("tpu-inference-tpu-pool", (state) => {
            pool(state.inputs).nodeConfig.spot = true;
        });
        expect(diffReports(readBaseReport(base), spot).resources.map((change) => [change.op, change.replaceReasons])).toEqual([
            ["replace", ["inputs.nodeConfig.spot"]],
        ]);
        // A chart's provider changes with its cluster; the chart, a component, is never replaced for it.
        const chart = base.steps.find((step) => step.newState.type === "kubernetes:helm.sh/v4:Chart")!;
        const moved = edited(nameOf(chart.urn), (state) => {
            state.provider = `${state.provider}-other`;
        });
        expect(diffReports(readBaseReport(base), moved).resources).toEqual([]);
    });

    test("a replaced cluster's new ID is unknown in the plan: the pools built on it, its Kubernetes provider and every object of that provider are replaced too", async () => {
        const diff = diffReports(readBaseReport(base), structuredClone(await newControlPlaneRange()));
        const reasons = new Map(
            diff.resources.filter((change) => change.op === "replace").map((change) => [change.name, change.replaceReasons]),
        );
        expect(reasons.get("tpu-inference-cluster")).toEqual(["inputs.privateClusterConfig.masterIpv4CidrBlock"]);
        expect(reasons.get("tpu-inference-tpu-pool")).toEqual(["inputs.cluster"]);
        expect(reasons.get("tpu-inference-system")).toEqual(["inputs.cluster"]);
        expect(reasons.get("tpu-inference-k8s")).toEqual(["inputs.clusterIdentifier"]);
        const onProvider = base.steps.filter((step) => step.newState.custom && step.newState.provider?.includes("::tpu-inference-k8s::"));
        expect(onProvider.length).toBeGreaterThan(20);
        expect(onProvider.filter((step) => reasons.get(nameOf(step.urn))?.[0] !== "provider").map((step) => step.urn)).toEqual([]);
        // Its name is an input the plan knows: what is built from the name alone is not replaced for it.
        expect(reasons.has("tpu-inference-webhooks")).toBe(false);
    });

    test("the program's own replacement options: replaceOnChanges on a changed path, replaceWith on a resource being replaced", async () => {
        const withOptions = (
            report: PreviewReport,
            name: string,
            options: Record<string, unknown>,
            edit: (inputs: { metadata: { annotations?: Record<string, string> } }) => void = () => undefined,
        ) => {
            const copy = structuredClone(report);
            const state = copy.steps.find((step) => step.urn.endsWith(`::${name}`))!.newState;
            state.options = { ...state.options, ...options };
            edit(state.inputs as { metadata: { annotations?: Record<string, string> } });
            return copy;
        };
        const annotated = withOptions(base, "qwen2-3b-llmisvc", { replaceOnChanges: ["metadata.annotations"] }, (inputs) => {
            inputs.metadata.annotations = { ...inputs.metadata.annotations, team: "ml" };
        });
        expect(
            diffReports(readBaseReport(base), annotated).resources.map((change) => [change.name, change.op, change.replaceReasons]),
        ).toEqual([["qwen2-3b-llmisvc", "replace", ["replaceOnChanges inputs.metadata.annotations"]]]);
        // Property paths as the engine parses them: an element, a key with dots, any element.
        const image = (report: PreviewReport, tag: string, options: Record<string, unknown>) =>
            withOptions(report, "qwen2-3b-llmisvc", options, (inputs) => {
                inputs.metadata.annotations = { ...inputs.metadata.annotations, "example.com/image": tag };
            });
        const ignoring = { ignoreChanges: ['metadata.annotations["example.com/image"]'] };
        expect(diffReports(readBaseReport(image(base, "a", ignoring)), image(base, "b", ignoring)).resources).toEqual([]);
        const replacing = { replaceOnChanges: ["metadata.annotations[*]"] };
        expect(
            diffReports(readBaseReport(image(base, "a", replacing)), image(base, "b", replacing)).resources.map(
                (change) => change.replaceReasons,
            ),
        ).toEqual([["replaceOnChanges inputs.metadata.annotations[*]"]]);
        const cluster = base.steps.find((step) => step.urn.endsWith("::tpu-inference-cluster"))!.urn;
        const head = withOptions(await newControlPlaneRange(), "tpu-inference-ca-issuer", {
            replaceWith: [cluster],
        });
        const change = diffReports(readBaseReport(base), head).resources.find((candidate) => candidate.name === "tpu-inference-ca-issuer");
        expect(change?.replaceReasons).toEqual(["provider", "replaceWith tpu-inference-cluster"]);
    });

    test("switching the gateway provider: an unchanged service shows the dependencies it loses, the Gateway its class among its inputs first", async () => {
        const diff = diffReports(readBaseReport(base), await offlineReport("dev", "gatewayProvider=istio"));
        const urn = (path: string) => `urn:pulumi:dev::gke-tpu-inference::${path}`;
        expect(diff.resources.find((change) => change.name === "qwen2-3b-llmisvc")!.properties).toEqual([
            {
                path: "dependencies",
                before: urn("gke-tpu-inference:project:ProjectApis$gcp:projects/service:Service::tpu-inference-networkservices"),
            },
            {
                path: "dependencies",
                before: urn(
                    "gke-tpu-inference:workloads:ModelService$kubernetes:networking.gke.io/v1:GCPBackendPolicy::qwen2-3b-http-backend",
                ),
            },
            {
                path: "dependencies",
                before: urn(
                    "gke-tpu-inference:workloads:ModelService$kubernetes:networking.gke.io/v1:GCPBackendPolicy::qwen2-3b-pool-backend",
                ),
            },
        ]);
        expect(renderChanges(diff).split("\n").slice(1, 5)).toEqual([
            "    ~ update  gcp:compute:Firewall  tpu-inference-webhooks  inputs.allows[0].ports[2]",
            "    ~ update  kubernetes:gateway.networking.k8s.io/v1:Gateway  inference-gateway  inputs.spec.addresses[0].type, inputs.spec.addresses[0].value, inputs.spec.gatewayClassName (+2 more)",
            "    ~ update  kubernetes:core/v1:Namespace  serving-ns  inputs.metadata.labels.istio-injection",
            "    ~ update  kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService  qwen2-3b-llmisvc  dependencies",
        ]);
    });

    test("putting a reservation first in tpuCapacity replaces the TPU pool, naming its reservation affinity, in the terminal, the Markdown and the JSON", async () => {
        const head = await offlineReport("dev", 'tpuCapacity=[{"type":"reservation","name":"trillium"},{"type":"on-demand"}]');
        const diff = diffReports(readBaseReport(base), head);
        const pool =
            "urn:pulumi:dev::gke-tpu-inference::gke-tpu-inference:platform:TpuCapacity$gke-tpu-inference:tpu:TpuNodePool$gcp:container/nodePool:NodePool::tpu-inference-tpu-pool";
        expect(JSON.parse(JSON.stringify(diff.resources[0]))).toEqual({
            op: "replace",
            urn: pool,
            type: "gcp:container/nodePool:NodePool",
            name: "tpu-inference-tpu-pool",
            properties: [
                { path: "inputs.nodeConfig.labels.cloud.google.com/compute-class", after: "tpu-inference-tpu" },
                { path: "inputs.nodeConfig.labels.gke-tpu-inference/capacity", after: "reservation" },
                {
                    path: "inputs.nodeConfig.reservationAffinity",
                    after: {
                        consumeReservationType: "SPECIFIC_RESERVATION",
                        key: "compute.googleapis.com/reservation-name",
                        values: ["trillium"],
                    },
                },
                {
                    path: "inputs.nodeConfig.taints",
                    after: [{ effect: "NO_SCHEDULE", key: "cloud.google.com/compute-class", value: "tpu-inference-tpu" }],
                },
            ],
            replaceReasons: ["inputs.nodeConfig.reservationAffinity"],
        });
        // Nothing else is replaced: the on-demand option gets a pool of its own.
        expect(diff.resources.filter((change) => change.op === "replace")).toHaveLength(1);
        const terminal = renderChanges(diff).split("\n");
        expect(terminal[1]).toBe("    +- replace  gcp:container:NodePool  tpu-inference-tpu-pool  inputs.nodeConfig.reservationAffinity");
        expect(terminal).toContain("    + create  gcp:container:NodePool  tpu-inference-ondemand-pool");
        expect(terminal).toContain("    ~ 1 to update, + 10 to create, - 0 to delete, +-1 to replace, 105 unchanged");
        const markdown = renderMarkdown(head, diff);
        expect(markdown).toContain(
            [
                "**~ 1 to update, + 10 to create, - 0 to delete, +-1 to replace, 105 unchanged**",
                "",
                "| | type | name | changes |",
                "|---|---|---|---|",
                "| +- replace | `gcp:container:NodePool` | tpu-inference-tpu-pool | `inputs.nodeConfig.reservationAffinity` |",
            ].join("\n"),
        );
        expect(markdown).toContain(
            "<details><summary>+- gcp:container:NodePool <code>tpu-inference-tpu-pool</code> (4 properties; replaced for <code>inputs.nodeConfig.reservationAffinity</code>)</summary>",
        );
        // Against the stack's first real preview, which did not know the pool's service account yet, the same.
        const real = diffReports(readBaseReport(firstPulumiPreview(run)), head).resources[0];
        expect([real.op, real.name, real.replaceReasons]).toEqual([
            "replace",
            "tpu-inference-tpu-pool",
            ["inputs.nodeConfig.reservationAffinity"],
        ]);
    });
});

describe("a resource that moved under a new parent, with aliases", () => {
    const CAPACITY = "gke-tpu-inference:platform:TpuCapacity";
    /** The dev stack's report as it was before TpuCapacity held the TPU pools and the ComputeClass: their stack's children. */
    const beforeCapacity = (head: PreviewReport): PreviewReport => {
        const capacity = head.steps.find((step) => step.newState.type === CAPACITY)!;
        const former = (urn: string) => urn.replace(`${CAPACITY}$`, "");
        const formerParent = (parent: string | undefined) =>
            parent === capacity.urn ? capacity.newState.parent : parent && former(parent);
        const steps = head.steps
            .filter((step) => step !== capacity)
            .map((step) => ({
                op: step.op,
                urn: former(step.urn),
                newState: {
                    ...step.newState,
                    urn: former(step.urn),
                    parent: formerParent(step.newState.parent),
                    dependencies: step.newState.dependencies.filter((urn) => urn !== capacity.urn).map(former),
                },
            }));
        return { ...head, steps };
    };

    test("is matched by the URN it had, with its children at any depth: only the new component is created", async () => {
        const head = buildReport(await shippedRun("dev"), []);
        const diff = diffReports(readBaseReport(beforeCapacity(head)), head);
        expect(diff.resources.map((change) => [change.op, change.type, change.name])).toEqual([["create", CAPACITY, "tpu-inference"]]);
        // The pool and the ComputeClass's objects (a pool's NodePool two levels down) moved.
        expect(head.steps.filter((step) => step.aliases).map((step) => step.newState.type)).toEqual(
            expect.arrayContaining(["gke-tpu-inference:tpu:TpuNodePool", "gcp:container/nodePool:NodePool"]),
        );
    });

    test("without the aliases, the engine would replace them: each shows as deleted and created", async () => {
        const head = buildReport(await shippedRun("dev"), []);
        const unaliased = { ...head, steps: head.steps.map((step) => ({ ...step, aliases: undefined })) };
        const ops = diffReports(readBaseReport(beforeCapacity(head)), unaliased).resources.map((change) => change.op);
        expect(ops.filter((op) => op === "delete").length).toBeGreaterThan(0);
        expect(ops.filter((op) => op === "delete").length).toBe(ops.filter((op) => op === "create").length - 1);
    });
});

describe("against a real pulumi preview --json of the dev stack", () => {
    let run: OfflineRun;
    let head: PreviewReport;
    let preview: PulumiPreview;
    beforeAll(async () => {
        run = await shippedRun("dev");
        head = buildReport(run, []);
        preview = firstPulumiPreview(run);
    });

    const UNKNOWN_IN_BASE = "12 unchanged resources have values the base held as [unknown], which are not changes";
    const NOT_COMPARED =
        "Not compared: 2 default providers of the base (the engine adds them) and 10 objects of components only one of the two previews rendered";

    test("the program against its own first preview changes nothing: unknowns, options the CLI does not record, default providers and charts it registered alone are no change", () => {
        const diff = diffReports(readBaseReport(preview), head);
        expect(diff.resources).toEqual([]);
        expect(renderChanges(diff)).toBe(
            [
                "Changes against the base:",
                "    ~ 0 to update, + 0 to create, - 0 to delete, 97 unchanged",
                `    ${UNKNOWN_IN_BASE}`,
                `    ${NOT_COMPARED}`,
            ].join("\n"),
        );
        const markdown = renderMarkdown(head, diff);
        expect(markdown).toContain(
            [
                "### Offline preview of stack `dev`",
                "",
                "**~ 0 to update, + 0 to create, - 0 to delete, 97 unchanged**",
                "",
                "<details><summary>Values the base held as [unknown]</summary>",
                "",
                "```diff",
                "  gcp:compute:Firewall tpu-inference-webhooks",
                '    inputs.network: [unknown] => "projects/offline-preview-project/global/networks/tpu-inference-dev"',
                '    inputs.targetServiceAccounts[0]: [unknown] => "tpu-inference-dev-nodes@offline-preview-project.iam.gserviceaccount.com"',
            ].join("\n"),
        );
        expect(markdown).toContain(`\`\`\`\n\n</details>\n\n${UNKNOWN_IN_BASE}.\n${NOT_COMPARED}.\n\n`);
    });

    test("a real change shows, beside the values the base did not know", () => {
        const bigger = editStep(preview, "tpu-inference-tpu-pool", (step) => {
            (step.newState.inputs as { autoscaling: { maxNodeCount: number } }).autoscaling.maxNodeCount = 2;
        });
        const diff = diffReports(readBaseReport(bigger), head);
        expect(renderChanges(diff)).toBe(
            [
                "Changes against the base:",
                "    ~ update  gcp:container:NodePool  tpu-inference-tpu-pool  inputs.autoscaling.maxNodeCount",
                "",
                "    ~ 1 to update, + 0 to create, - 0 to delete, 96 unchanged",
                "    11 unchanged resources have values the base held as [unknown], which are not changes",
                `    ${NOT_COMPARED}`,
            ].join("\n"),
        );
        expect(renderMarkdown(head, diff)).toContain(
            [
                "**~ 1 to update, + 0 to create, - 0 to delete, 96 unchanged**",
                "",
                "| | type | name | changes |",
                "|---|---|---|---|",
                "| ~ update | `gcp:container:NodePool` | tpu-inference-tpu-pool | `inputs.autoscaling.maxNodeCount` |",
                "",
                "<details><summary>~ gcp:container:NodePool <code>tpu-inference-tpu-pool</code> (1 property)</summary>",
                "",
                "```diff",
                "- inputs.autoscaling.maxNodeCount: 2",
                "+ inputs.autoscaling.maxNodeCount: 3",
                '  inputs.cluster: [unknown] => "projects/offline-preview-project/locations/europe-west4/clusters/tpu-inference-dev"',
                '  inputs.nodeConfig.serviceAccount: [unknown] => "tpu-inference-dev-nodes@offline-preview-project.iam.gserviceaccount.com"',
                "```",
            ].join("\n"),
        );
    });

    test("options the CLI records are compared (custom timeouts in seconds); deleteBeforeReplace, which it does not record, is not", () => {
        const cluster = "tpu-inference-cluster";
        const step = preview.steps.find((candidate) => candidate.urn.endsWith(`::${cluster}`))!;
        expect(step.newState).not.toHaveProperty("deleteBeforeReplace");
        expect(step.newState.customTimeouts).toEqual({ create: 2700, update: 2700, delete: 2700 });
        expect(head.steps.find((candidate) => candidate.urn === step.urn)!.newState.options).toMatchObject({
            customTimeouts: { create: "45m" },
            deleteBeforeReplace: true,
        });

        const slower = editStep(preview, cluster, (edited) => {
            (edited.newState.customTimeouts as { create: number }).create = 3600;
            edited.newState.protect = true;
        });
        expect(renderChanges(diffReports(readBaseReport(slower), head)).split("\n")[1]).toBe(
            "    ~ update  gcp:container:Cluster  tpu-inference-cluster  options.customTimeouts.create, options.protect",
        );
        // Against an offline report, which records it, deleteBeforeReplace is compared.
        const replaceFirst = structuredClone(head);
        delete replaceFirst.steps.find((candidate) => candidate.urn === step.urn)!.newState.options!.deleteBeforeReplace;
        expect(diffReports(readBaseReport(replaceFirst), head).resources.map((change) => [change.name, change.properties])).toEqual([
            [cluster, [{ path: "options.deleteBeforeReplace", after: true }]],
        ]);
    });

    test("a later preview: objects of charts not rendered offline are not compared, the stack's outputs are", () => {
        const later = structuredClone(preview);
        const steps = later.steps;
        const stack = steps[0];
        const chart = head.unrenderedCharts[0].urn;
        const object = (urn: string, state: Omit<PulumiStep["newState"], "urn">): PulumiStep => ({
            op: "same",
            urn,
            newState: { urn, ...state },
            detailedDiff: null,
        });
        // Once the cluster exists the provider renders every chart: the runtime-configs chart's objects, and one of a chart not rendered here.
        steps.push(
            ...head.steps
                .filter((step) => step.newState.parent?.endsWith("::kserve-configs"))
                .map(({ urn, newState: { custom, type, inputs, parent, dependencies, provider } }) =>
                    object(urn, { custom, type, inputs, parent, dependencies, provider }),
                ),
            object(`${chart}$kubernetes:apps/v1:Deployment::cert-manager`, {
                custom: true,
                type: "kubernetes:apps/v1:Deployment",
                parent: chart,
            }),
        );
        for (const step of steps) {
            step.op = "same";
        }
        stack.newState.outputs = { ...head.outputs, gatewayClass: "gke-l7-rilb", region: UNKNOWN_VALUE };
        const diff = diffReports(readBaseReport({ ...later, changeSummary: { same: steps.length } }), head);
        expect(renderChanges(diff)).toBe(
            [
                "Changes against the base:",
                "    ~ outputs  gatewayClass",
                "",
                "    ~ 0 to update, + 0 to create, - 0 to delete, 107 unchanged",
                `    ${UNKNOWN_IN_BASE}`,
                "    Not compared: 2 default providers of the base (the engine adds them) and 1 object of components only one of the two previews rendered",
            ].join("\n"),
        );
        expect(renderMarkdown(head, diff)).toContain(
            [
                "<details><summary>Outputs</summary>",
                "",
                "```diff",
                '- gatewayClass: "gke-l7-rilb"',
                '+ gatewayClass: "gke-l7-regional-external-managed"',
                '  region: [unknown] => "europe-west4"',
                "```",
            ].join("\n"),
        );
    });

    test("a preview that leaves out unchanged resources (no --show-sames) is refused, naming the fix", () => {
        const [stack] = preview.steps;
        expect(() => readBaseReport({ ...preview, steps: [{ ...stack, op: "same" }], changeSummary: { same: 97, update: 1 } })).toThrow(
            new Error(
                "leaves out 96 unchanged resources, which pulumi preview --json lists only with --show-sames; rerun it with --show-sames",
            ),
        );
    });
});

describe("against an offline report of the prod stack", () => {
    let base: PreviewReport;
    beforeAll(async () => {
        base = buildReport(await shippedRun("prod"), []);
    });

    test("pausing touches the model service, its autoscaler and the outputs only: the pool is not replaced and the platform is undisturbed", async () => {
        const paused = await offlineReport("prod", "paused=true", "tpuMinNodes=1");
        const unpaused = await offlineReport("prod", "tpuMinNodes=1");
        const diff = diffReports(readBaseReport(unpaused), paused);
        expect(diff.resources.map((change) => [change.op, change.name, change.properties])).toEqual([
            ["update", "tpu-inference-tpu-pool", [{ path: "inputs.autoscaling.minNodeCount", before: 1, after: 0 }]],
            // KEDA stops scaling the Deployment KServe removes, until the stack resumes.
            [
                "update",
                "qwen2-3b-cache-autoscaler",
                [{ path: "inputs.metadata.annotations", after: { "autoscaling.keda.sh/paused": "true" } }],
            ],
            [
                "update",
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
            "tpuCapacityPlan.options[0].minNodes",
            "tpuCapacityPlan.options[0].usdPerHour",
            "tpuHourlyCost.atCeiling.chips",
            "tpuHourlyCost.atCeiling.nodes",
            "tpuHourlyCost.atCeiling.usdPerHour",
            "tpuHourlyCost.atMaximum.chips",
            "tpuHourlyCost.atMaximum.nodes",
            "tpuHourlyCost.atMaximum.usdPerHour.cheapest",
            "tpuHourlyCost.atMaximum.usdPerHour.dearest",
            "tpuHourlyCost.chips",
            "tpuHourlyCost.nodes",
            "tpuHourlyCost.usdPerHour.cheapest",
            "tpuHourlyCost.usdPerHour.dearest",
            "tpuPoolAutoscaling.minNodes",
            "tpuPoolAutoscaling.paused",
        ]);
    });

    test("the terminal and the pull request show the same change", async () => {
        const head = await offlineReport(
            "prod",
            "tpuMaxNodes=4",
            'models=[{"name":"qwen2-3b-cache","pattern":"pattern3","autoscaling":{"minReplicas":2,"maxReplicas":4}}]',
        );
        const diff = diffReports(readBaseReport(base), head);
        expect(renderChanges(diff)).toBe(
            [
                "Changes against the base:",
                // Both pools of the plan, the service's ScaledObject and its at-maximum alert change in place.
                "    ~ update  gcp:monitoring:AlertPolicy  tpu-inference-qwen2-3b-cache-at-maximum  inputs.conditions[0].displayName, inputs.documentation.content",
                "    ~ update  gcp:container:NodePool  tpu-inference-spot-pool  inputs.autoscaling.maxNodeCount",
                "    ~ update  gcp:container:NodePool  tpu-inference-tpu-pool  inputs.autoscaling.maxNodeCount",
                "    ~ update  kubernetes:keda.sh/v1alpha1:ScaledObject  qwen2-3b-cache-autoscaler  inputs.spec.maxReplicaCount",
                "    ~ outputs  tpuCapacityPlan.ceilingNodes, tpuCapacityPlan.options[0].maxNodes, tpuCapacityPlan.options[1].maxNodes (+8 more)",
                "",
                "    ~ 4 to update, + 0 to create, - 0 to delete, 121 unchanged",
            ].join("\n"),
        );
        const markdown = renderMarkdown(head, diff);
        expect(markdown).toContain(
            [
                "### Offline preview of stack `prod`",
                "",
                "**~ 4 to update, + 0 to create, - 0 to delete, 121 unchanged**",
                "",
                "| | type | name | changes |",
                "|---|---|---|---|",
                "| ~ update | `gcp:monitoring:AlertPolicy` | tpu-inference-qwen2-3b-cache-at-maximum | `inputs.conditions[0].displayName`, `inputs.documentation.content` |",
                "| ~ update | `gcp:container:NodePool` | tpu-inference-spot-pool | `inputs.autoscaling.maxNodeCount` |",
                "| ~ update | `gcp:container:NodePool` | tpu-inference-tpu-pool | `inputs.autoscaling.maxNodeCount` |",
                "| ~ update | `kubernetes:keda.sh/v1alpha1:ScaledObject` | qwen2-3b-cache-autoscaler | `inputs.spec.maxReplicaCount` |",
                "",
            ].join("\n"),
        );
        expect(markdown).toContain("```diff\n- inputs.autoscaling.maxNodeCount: 3\n+ inputs.autoscaling.maxNodeCount: 4\n```");
        expect(markdown).toContain(
            "- tpuHourlyCost.atMaximum.usdPerHour.dearest: 32.4\n+ tpuHourlyCost.atMaximum.usdPerHour.dearest: 43.2",
        );
        expect(markdown).toContain(
            "#### Policies\n\n✅ no violations over what was previewed (the objects of 5 components not checked offline, listed above)\n",
        );
    });

    test("without a base, the summary is the plan: what each component creates, by type", () => {
        expect(renderMarkdown(base)).toBe(
            [
                "### Offline preview of stack `prod`",
                "",
                "**+ 125 to create**",
                "",
                "| component | type | resources | by type |",
                "|---|---|---|---|",
                "| gateway-access | `gke-tpu-inference:gateway:GkeGatewayAccess` | 1 | `gcp:compute:RegionSecurityPolicy` |",
                "| inference | `gke-tpu-inference:gateway:GatewayAddress` | 1 | `gcp:compute:Address` |",
                "| inference | `gke-tpu-inference:gateway:InferenceGateway` | 4 | `kubernetes:cert-manager.io/v1:Certificate`, " +
                    "`kubernetes:core/v1:Namespace`, `kubernetes:gateway.networking.k8s.io/v1:Gateway`, " +
                    "`kubernetes:gateway.networking.k8s.io/v1:HTTPRoute` |",
                "| keda | `gke-tpu-inference:platform:Keda` | 4 | `gcp:projects:IAMMember`, `kubernetes:core/v1:Namespace`, " +
                    "`kubernetes:helm.sh/v4:Chart`, `kubernetes:keda.sh/v1alpha1:ClusterTriggerAuthentication` |",
                "| kserve | `gke-tpu-inference:platform:KServe` | 20 | 10 × `kubernetes:serving.kserve.io/v1alpha2:LLMInferenceServiceConfig`, " +
                    "3 × `kubernetes:helm.sh/v4:Chart`, `gke-tpu-inference:platform:WebhookGate`, `kubernetes:batch/v1:Job`, " +
                    "`kubernetes:core/v1:ConfigMap`, `kubernetes:core/v1:Namespace`, `kubernetes:core/v1:ServiceAccount`, " +
                    "`kubernetes:rbac.authorization.k8s.io/v1:ClusterRole`, " +
                    "`kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding` |",
                "| lws | `gke-tpu-inference:platform:LeaderWorkerSet` | 8 | `gke-tpu-inference:platform:WebhookGate`, " +
                    "`kubernetes:batch/v1:Job`, `kubernetes:core/v1:ConfigMap`, `kubernetes:core/v1:Namespace`, " +
                    "`kubernetes:core/v1:ServiceAccount`, `kubernetes:helm.sh/v4:Chart`, " +
                    "`kubernetes:rbac.authorization.k8s.io/v1:ClusterRole`, " +
                    "`kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding` |",
                "| qwen2-3b-cache | `gke-tpu-inference:workloads:ModelService` | 17 | 4 × `gcp:storage:BucketIAMMember`, " +
                    "2 × `kubernetes:core/v1:ServiceAccount`, 2 × `kubernetes:monitoring.googleapis.com/v1:PodMonitoring`, " +
                    "2 × `kubernetes:networking.gke.io/v1:GCPBackendPolicy`, " +
                    "2 × `kubernetes:networking.gke.io/v1:HealthCheckPolicy`, `gke-tpu-inference:workloads:ModelWeights`, " +
                    "`kubernetes:batch/v1:Job`, `kubernetes:core/v1:Service`, `kubernetes:keda.sh/v1alpha1:ScaledObject`, " +
                    "`kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService` |",
                "| serving | `gke-tpu-inference:platform:ServingNamespace` | 4 | `kubernetes:core/v1:Namespace`, " +
                    "`kubernetes:core/v1:Secret`, `kubernetes:serving.kserve.io/v1alpha2:LLMInferenceServiceConfig`, " +
                    "`random:index:RandomPassword` |",
                "| tpu-inference | `gke-tpu-inference:cluster:GkeCluster` | 7 | 2 × `gcp:projects:IAMMember`, " +
                    "`gcp:compute:Firewall`, `gcp:container:Cluster`, `gcp:container:NodePool`, `gcp:serviceaccount:Account`, " +
                    "`pulumi:providers:kubernetes` |",
                "| tpu-inference | `gke-tpu-inference:network:Network` | 5 | 2 × `gcp:compute:Subnetwork`, " +
                    "`gcp:compute:Network`, `gcp:compute:Router`, `gcp:compute:RouterNat` |",
                "| tpu-inference | `gke-tpu-inference:observability:InferenceObservability` | 3 | 2 × `gcp:monitoring:AlertPolicy`, " +
                    "`gcp:monitoring:Dashboard` |",
                "| tpu-inference | `gke-tpu-inference:platform:CertManager` | 11 | 2 × `kubernetes:cert-manager.io/v1:ClusterIssuer`, " +
                    "`gke-tpu-inference:platform:WebhookGate`, `kubernetes:batch/v1:Job`, " +
                    "`kubernetes:cert-manager.io/v1:Certificate`, `kubernetes:core/v1:ConfigMap`, `kubernetes:core/v1:Namespace`, " +
                    "`kubernetes:core/v1:ServiceAccount`, `kubernetes:helm.sh/v4:Chart`, " +
                    "`kubernetes:rbac.authorization.k8s.io/v1:ClusterRole`, " +
                    "`kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding` |",
                "| tpu-inference | `gke-tpu-inference:platform:TpuCapacity` | 12 | 2 × `gcp:container:NodePool`, 2 × `gke-tpu-inference:tpu:TpuNodePool`, `gke-tpu-inference:platform:TpuComputeClass`, `gke-tpu-inference:platform:WebhookGate`, `kubernetes:batch/v1:Job`, `kubernetes:cloud.google.com/v1:ComputeClass`, `kubernetes:core/v1:ConfigMap`, `kubernetes:core/v1:ServiceAccount`, `kubernetes:rbac.authorization.k8s.io/v1:ClusterRole`, `kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding` |",
                "| tpu-inference | `gke-tpu-inference:project:ProjectApis` | 9 | 9 × `gcp:projects:Service` |",
                "| tpu-inference | `gke-tpu-inference:storage:ModelStore` | 3 | `gcp:artifactregistry:Repository`, " +
                    "`gcp:artifactregistry:RepositoryIamMember`, `gcp:storage:Bucket` |",
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
        const before = { ...base, policyViolations: [violation("require-private-nodes", "urn:a::gke")] };
        const after = { ...base, policyViolations: [violation("disallow-unpinned-images", "urn:a::qwen")] };
        const diff = diffReports(readBaseReport(before), after);
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
