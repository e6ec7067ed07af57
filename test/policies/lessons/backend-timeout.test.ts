/**
 * Lesson backend-timeout, the whole category: every InferencePool a GKE Gateway routes to (KServe's, one of either group
 * an HTTPRoute v1 or v1beta1 names) without a GCPBackendPolicy, or with one whose timeoutSec is unset (GCP's 30 s) or
 * short, is caught; a long timeout by any targetRef spelling that reaches the pool is clean.
 */
import { requireLongInferenceBackendTimeout as policy } from "../../../policies/requireLongInferenceBackendTimeout";
import { BackendRef, MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS, backendTimeoutProblem } from "../../../policies/facts";
import { RecordedResource } from "../../../scripts/offline/recorder";
import { gateway, llmService } from "../fixtures";
import { check, kube, resource } from "../harness";

type Obj = Record<string, unknown>;
const POOL: BackendRef = { namespace: "models", group: "inference.networking.k8s.io", kind: "InferencePool", name: "qwen-inference-pool" };
const MIN = MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS;

const backendPolicy = (targetRef: Obj, defaults: Obj | undefined, how?: string) =>
    kube(
        "networking.gke.io/v1",
        "GCPBackendPolicy",
        "timeout",
        { metadata: { name: "timeout", namespace: "models" }, spec: { ...(defaults ? { default: defaults } : {}), targetRef } },
        { parent: how ? resource(how, "manifests", {}) : undefined },
    );

const TARGETS = [
    { group: "inference.networking.k8s.io", kind: "InferencePool", name: POOL.name },
    { group: "inference.networking.x-k8s.io", kind: "InferencePool", name: POOL.name },
    { group: "inference.networking.k8s.io", kind: "InferencePool", name: POOL.name, namespace: "models" },
];

const route = (apiVersion: string, group: string) =>
    kube(apiVersion, "HTTPRoute", "route", {
        metadata: { name: "route", namespace: "models" },
        spec: {
            parentRefs: [{ name: "inference-gateway", namespace: "gateway" }],
            rules: [{ backendRefs: [{ group, kind: "InferencePool", name: POOL.name }] }],
        },
    });

const WAYS: Array<[string, RecordedResource[]]> = [
    ["KServe's InferencePool of an LLMInferenceService", [llmService()]],
    ...["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1"].flatMap((version) =>
        ["inference.networking.k8s.io", "inference.networking.x-k8s.io"].map((group): [string, RecordedResource[]] => [
            `an InferencePool ${group} named by an HTTPRoute ${version}`,
            [route(version, group)],
        ]),
    ),
];

const verdict = async (resources: RecordedResource[]) => (await check(policy, [gateway(), ...resources])).map((finding) => finding.message);
const problem = (defaults: Obj) => backendTimeoutProblem(POOL, { metadata: { name: "timeout" }, spec: { default: defaults } }, MIN);

describe("lesson backend-timeout: every InferencePool behind a GKE Gateway and every timeout it gets", () => {
    describe.each(WAYS)("%s", (_, resources) => {
        test("without a GCPBackendPolicy: caught", async () => {
            expect(await verdict(resources)).toEqual([backendTimeoutProblem(POOL, undefined, MIN)]);
        });

        test.each(TARGETS.map((target) => [JSON.stringify(target), target]))("targeted as %s", async (_, target) => {
            for (const defaults of [undefined, {}, { timeoutSec: 30 }, { timeoutSec: MIN - 1 }, { timeoutSec: "60" }]) {
                expect(await verdict([...resources, backendPolicy(target, defaults)])).toEqual([problem(defaults ?? {})]);
            }
            for (const defaults of [{ timeoutSec: MIN }, { timeoutSec: 600 }, { timeoutSec: "3600" }]) {
                expect(await verdict([...resources, backendPolicy(target, defaults)])).toEqual([]);
            }
        });

        test.each(["kubernetes:yaml/v2:ConfigGroup", "kubernetes:helm.sh/v4:Chart"])(
            "a GCPBackendPolicy rendered by %s counts",
            async (how) => {
                expect(await verdict([...resources, backendPolicy(TARGETS[0], { timeoutSec: 600 }, how)])).toEqual([]);
            },
        );
    });

    test("a targetRef that misses the pool (no group, a Service, another name) leaves it at GCP's default", async () => {
        for (const target of [
            { kind: "InferencePool", name: POOL.name },
            { group: "", kind: "Service", name: POOL.name },
            { group: POOL.group, kind: "InferencePool", name: "other" },
        ]) {
            expect(await verdict([llmService(), backendPolicy(target, { timeoutSec: 600 })])).toEqual([
                backendTimeoutProblem(POOL, undefined, MIN),
            ]);
        }
    });

    test("a configured minimum is honoured", async () => {
        const findings = await check(policy, [gateway(), llmService(), backendPolicy(TARGETS[0], { timeoutSec: 600 })], {
            "require-long-inference-backend-timeout": { minimumTimeoutSec: 900 },
        });
        expect(findings.map((finding) => finding.message)).toEqual([
            backendTimeoutProblem(POOL, { metadata: { name: "timeout" }, spec: { default: { timeoutSec: 600 } } }, 900),
        ]);
    });

    test("not this lesson's: a pool behind another implementation's Gateway", async () => {
        expect((await check(policy, [gateway("istio"), llmService()])).map((finding) => finding.message)).toEqual([]);
    });
});
