/**
 * Lesson fleet-exports, the whole category: among the stack's clusters (told apart by each object's Kubernetes
 * provider), a cluster serving the model service (the same pods' selector in the same namespace: an InferencePool v1 or
 * alpha, or KServe's pool of an LLMInferenceService) that another cluster exports, without exporting it, is caught
 * (mandatory); an HTTPRoute to a GCPInferencePoolImport no cluster of the stack exports is reported as what the preview
 * cannot know (advisory); the upstream export annotation is not GKE's.
 */
import * as gcp from "@pulumi/gcp";
import * as k8s from "@pulumi/kubernetes";
import { requireExportFromEveryMember, unexportedMemberMessage } from "../../policies/requireExportFromEveryMember";
import { requireExportedPoolForImport, unexportedImportMessage } from "../../policies/requireExportedPoolForImport";
import { RecordedResource } from "../../scripts/offline/recorder";
import { cluster as clusterFixture, llmService } from "../support/fixtures";
import { UNKNOWN, check, kube, resource } from "../support/harness";
import { summaryOf, verdict as packVerdict } from "../support/pack";
import { useWorkerPack } from "../workerPack";

type Obj = Record<string, unknown>;

const EXPORT = { "networking.gke.io/export": "True" };
const IMPORT = { group: "networking.gke.io", kind: "GCPInferencePoolImport", name: "qwen-fleet" };
const KSERVE_PODS = {
    "app.kubernetes.io/name": "qwen",
    "app.kubernetes.io/part-of": "llminferenceservice",
    "kserve.io/component": "workload",
};

const cluster = (name: string) => resource("gcp:container/cluster:Cluster", name, { ...clusterFixture().wire.inputs, name });
const providerFor = (target: RecordedResource) =>
    resource("pulumi:providers:kubernetes", `${target.name}-k8s`, { kubeconfig: "apiVersion: v1" }, { dependencies: [target] });
const on = (object: RecordedResource, provider: RecordedResource, name = object.name): RecordedResource => ({
    ...object,
    name,
    urn: `${object.urn.replace(/::[^:]+$/, "")}::${name}`,
    provider: `${provider.urn}::${provider.name}-id`,
});

const EAST = cluster("east");
const SOUTH = cluster("south");
const EAST_K8S = providerFor(EAST);
const SOUTH_K8S = providerFor(SOUTH);
const STACK = [EAST, SOUTH, EAST_K8S, SOUTH_K8S];

const pool = (annotations: Obj | undefined, apiVersion = "inference.networking.k8s.io/v1", name = "qwen-fleet") =>
    kube(apiVersion, "InferencePool", "pool", {
        metadata: { name, namespace: "llm-inference", ...(annotations ? { annotations } : {}) },
        spec: apiVersion.endsWith("/v1")
            ? { selector: { matchLabels: KSERVE_PODS }, targetPorts: [{ number: 8000 }] }
            : { selector: KSERVE_PODS, targetPortNumber: 8000 },
    });
const service = () => {
    const made = llmService(undefined, { name: "qwen" });
    (made.inputs.metadata as Obj).namespace = "llm-inference";
    return made;
};
const route = (backend: Obj = IMPORT, apiVersion = "gateway.networking.k8s.io/v1") =>
    kube(apiVersion, "HTTPRoute", "qwen-route", {
        metadata: { name: "qwen", namespace: "llm-inference" },
        spec: { parentRefs: [{ name: "fleet" }], rules: [{ backendRefs: [backend] }] },
    });

const messagesOf = async (policy: Parameters<typeof check>[0], resources: RecordedResource[]) =>
    (await check(policy, resources)).map((finding) => `${finding.level} @${finding.resource}: ${finding.message}`);

describe("the rule", () => {
    describe("require-export-from-every-member", () => {
        test("fails a member serving the model service without exporting it, against its pool of that name", async () => {
            expect(
                await check(requireExportFromEveryMember, [
                    ...STACK,
                    on(pool(EXPORT), EAST_K8S, "east-pool"),
                    on(pool(undefined), SOUTH_K8S, "south-pool"),
                ]),
            ).toEqual([
                {
                    level: "mandatory",
                    resource: "south-pool",
                    message:
                        'Cluster south serves the same model service as InferencePool llm-inference/qwen-fleet but does not export it, while east does; the config cluster\'s GCPInferencePoolImport llm-inference/qwen-fleet never sends requests to south. Annotate an InferencePool llm-inference/qwen-fleet on south with networking.gke.io/export: "True".',
                },
            ]);
        });

        test("passes every member exporting it", async () => {
            expect(
                await check(requireExportFromEveryMember, [
                    ...STACK,
                    on(pool(EXPORT), EAST_K8S, "east-pool"),
                    on(pool(EXPORT), SOUTH_K8S, "south-pool"),
                ]),
            ).toEqual([]);
        });

        test("not applicable: nothing exported", async () => {
            expect(await check(requireExportFromEveryMember, [...STACK, on(pool(undefined), EAST_K8S, "east-pool")])).toEqual([]);
        });

        test("preview: an export annotation unknown is not reported as a violation", async () => {
            const findings = await check(requireExportFromEveryMember, [
                ...STACK,
                on(pool({ "networking.gke.io/export": UNKNOWN }), EAST_K8S, "east-pool"),
                on(pool(EXPORT), SOUTH_K8S, "south-pool"),
            ]);
            expect(findings.map((finding) => finding.level)).toEqual(["advisory"]);
            expect(findings[0].message).toMatch(/^can't run policy 'require-export-from-every-member' .* during preview: /);
        });
    });

    describe("require-exported-pool-for-import", () => {
        test("reports a route to an import no cluster of the stack exports, advisory, against the route", async () => {
            expect(await check(requireExportedPoolForImport, [route()])).toEqual([
                {
                    level: "advisory",
                    resource: "qwen-route",
                    message:
                        'HTTPRoute llm-inference/qwen sends to GCPInferencePoolImport llm-inference/qwen-fleet, but no cluster of this stack exports an InferencePool llm-inference/qwen-fleet (networking.gke.io/export: "True"); unless a cluster outside this stack does, the import never exists and the route has no backend. Export the pool from every member under that namespace and name, or route to the name the members export.',
                },
            ]);
        });

        test("passes a route to an import a cluster exports, whichever cluster the program shows", async () => {
            expect(await check(requireExportedPoolForImport, [route(), pool(EXPORT)])).toEqual([]);
            expect(await check(requireExportedPoolForImport, [...STACK, route(), on(pool(EXPORT), SOUTH_K8S)])).toEqual([]);
        });

        test("not applicable: no route to an import", async () => {
            expect(await check(requireExportedPoolForImport, [pool(EXPORT)])).toEqual([]);
        });
    });
});

describe("every spelling", () => {
    const POOL_VERSIONS = ["inference.networking.k8s.io/v1", "inference.networking.x-k8s.io/v1alpha2"];

    describe("lesson fleet-exports: a member that serves the model service and does not export it", () => {
        describe.each(POOL_VERSIONS)("the exported pool %s", (apiVersion) => {
            const exported = on(pool(EXPORT, apiVersion), EAST_K8S, "east-pool");
            const caught = (where: string) => [
                `mandatory @${where}: ${unexportedMemberMessage("south", "llm-inference/qwen-fleet", ["east"])}`,
            ];

            test.each(POOL_VERSIONS)("the other member's pool %s of the same name, not exported: caught", async (other) => {
                expect(
                    await messagesOf(requireExportFromEveryMember, [
                        ...STACK,
                        exported,
                        on(pool(undefined, other), SOUTH_K8S, "south-pool"),
                    ]),
                ).toEqual(caught("south-pool"));
            });

            test.each([
                ["GKE's annotation, another value", { "networking.gke.io/export": "true" }],
                ["the upstream annotation", { "inference.networking.x-k8s.io/export": "ClusterSet" }],
            ])("%s is no export: caught", async (_, annotations) => {
                expect(
                    await messagesOf(requireExportFromEveryMember, [...STACK, exported, on(pool(annotations), SOUTH_K8S, "south-pool")]),
                ).toEqual(caught("south-pool"));
            });

            test("a member serving it through KServe's own pool only: caught against its LLMInferenceService", async () => {
                expect(
                    await messagesOf(requireExportFromEveryMember, [...STACK, exported, on(service(), SOUTH_K8S, "south-qwen")]),
                ).toEqual(caught("south-qwen"));
            });

            test("a member exporting it, beside KServe's pool, is clean", async () => {
                expect(
                    await messagesOf(requireExportFromEveryMember, [
                        ...STACK,
                        exported,
                        on(service(), EAST_K8S, "east-qwen"),
                        on(service(), SOUTH_K8S, "south-qwen"),
                        on(pool(EXPORT, apiVersion), SOUTH_K8S, "south-pool"),
                    ]),
                ).toEqual([]);
            });
        });

        test("a chart's objects reach the cluster of the chart's provider", async () => {
            const chart = on(resource("kubernetes:helm.sh/v4:Chart", "south-chart", {}), SOUTH_K8S, "south-chart");
            const rendered = { ...pool(undefined), name: "south-pool", urn: "urn:pulumi:prod::project::x::south-pool", parent: chart.urn };
            expect(
                await messagesOf(requireExportFromEveryMember, [...STACK, chart, on(pool(EXPORT), EAST_K8S, "east-pool"), rendered]),
            ).toEqual([`mandatory @south-pool: ${unexportedMemberMessage("south", "llm-inference/qwen-fleet", ["east"])}`]);
        });

        test("not this lesson's: another model service, another namespace, a cluster the program does not show", async () => {
            const otherPods = kube("inference.networking.k8s.io/v1", "InferencePool", "other", {
                metadata: { name: "llama-fleet", namespace: "llm-inference" },
                spec: { selector: { matchLabels: { app: "llama" } }, targetPorts: [{ number: 8000 }] },
            });
            const otherNamespace = pool(undefined);
            (otherNamespace.inputs.metadata as Obj).namespace = "other";
            const elsewhere = resource("pulumi:providers:kubernetes", "elsewhere", { kubeconfig: "~/.kube/config" });
            for (const resources of [
                [on(otherPods, SOUTH_K8S)],
                [on(otherNamespace, SOUTH_K8S)],
                [elsewhere, on(pool(undefined), elsewhere, "unknown-pool")],
            ]) {
                expect(
                    await messagesOf(requireExportFromEveryMember, [...STACK, on(pool(EXPORT), EAST_K8S, "east-pool"), ...resources]),
                ).toEqual([]);
            }
        });
    });

    describe("lesson fleet-exports: a route to an import nothing exports", () => {
        test.each(["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1"])("an HTTPRoute %s", async (apiVersion) => {
            const named = { ...IMPORT, namespace: "llm-inference" };
            for (const backend of [IMPORT, named]) {
                expect(
                    await messagesOf(requireExportedPoolForImport, [route(backend, apiVersion), pool(EXPORT, undefined, "other")]),
                ).toEqual([
                    `advisory @qwen-route: ${unexportedImportMessage("llm-inference/qwen", { namespace: "llm-inference", ...IMPORT })}`,
                ]);
                expect(await messagesOf(requireExportedPoolForImport, [route(backend, apiVersion), pool(EXPORT)])).toEqual([]);
            }
        });

        test("a pool exported only under the upstream annotation, or in another namespace, is no export", async () => {
            const otherNamespace = pool(EXPORT);
            (otherNamespace.inputs.metadata as Obj).namespace = "other";
            for (const exported of [pool({ "inference.networking.x-k8s.io/export": "ClusterSet" }), otherNamespace]) {
                expect((await check(requireExportedPoolForImport, [route(), exported])).map((finding) => finding.level)).toEqual([
                    "advisory",
                ]);
            }
        });
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();

    test("a member whose pool is not exported is mandatory; a route to an import nothing exports is advisory", async () => {
        const findings = await packVerdict(pack(), () => {
            for (const [region, exported] of [
                ["east", true],
                ["south", false],
            ] as const) {
                const member = new gcp.container.Cluster(region, { name: region, location: `us-${region}1` });
                const provider = new k8s.Provider(`${region}-k8s`, { kubeconfig: member.endpoint });
                new k8s.apiextensions.CustomResource(
                    `${region}-pool`,
                    {
                        apiVersion: "inference.networking.k8s.io/v1",
                        kind: "InferencePool",
                        metadata: { name: "qwen-fleet", namespace: "llm-inference", ...(exported ? { annotations: EXPORT } : {}) },
                        spec: { selector: { matchLabels: KSERVE_PODS }, targetPorts: [{ number: 8000 }] },
                    },
                    { provider },
                );
            }
            new k8s.apiextensions.CustomResource("route", {
                apiVersion: "gateway.networking.k8s.io/v1",
                kind: "HTTPRoute",
                metadata: { name: "llama", namespace: "llm-inference" },
                spec: { parentRefs: [{ name: "fleet" }], rules: [{ backendRefs: [{ ...IMPORT, name: "llama-fleet" }] }] },
            });
        });
        expect(summaryOf("require-export-from-every-member", findings)).toEqual(["mandatory require-export-from-every-member @south-pool"]);
        expect(summaryOf("require-exported-pool-for-import", findings)).toEqual(["advisory require-exported-pool-for-import @route"]);
    });
});
