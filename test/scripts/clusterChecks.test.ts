import { acceptedByGateway, gkePolicyAttached, inferencePoolMigration } from "../../scripts/cluster/checks";
import type { KubeObject } from "../../scripts/cluster/kube";
import { runClusterChecks } from "../../scripts/smoke";
import { clusterState } from "../fakeCluster";
import { memoryReader } from "../memoryCluster";

const GATEWAY = { namespace: "inference-gateway", name: "inference-gateway" };
const find = (objects: KubeObject[], kind: string, name: string) =>
    objects.find((object) => object.kind === kind && object.metadata?.name === name)!;
const route = (...overlays: string[]) => find(clusterState(...overlays), "HTTPRoute", "qwen2-3b-kserve-route");

describe("cluster checks over recorded objects", () => {
    test("the healthy route is on the v1 InferencePool group, migrated, accepted with its references resolved", () => {
        expect(inferencePoolMigration(route())).toEqual({
            ok: true,
            detail: "InferencePool backends on inference.networking.k8s.io; serving.kserve.io/inference-pool-migrated=v1",
        });
        expect(acceptedByGateway(route(), GATEWAY)).toEqual({
            ok: true,
            detail: "Accepted=True (Accepted), ResolvedRefs=True (ResolvedRefs)",
        });
    });

    test("KServe's first route is still on the x-k8s.io group, and the Gateway says why it must move", () => {
        expect(inferencePoolMigration(route("route-not-migrated"))).toEqual({
            ok: false,
            detail:
                "InferencePool backends on inference.networking.x-k8s.io with serving.kserve.io/inference-pool-migrated=(unset); " +
                "KServe moves them to inference.networking.k8s.io once the Gateway rejects the old group (ResolvedRefs=False, InvalidKind)",
        });
        expect(acceptedByGateway(route("route-not-migrated"), GATEWAY)).toEqual({
            ok: false,
            detail: "Accepted=True (Accepted), ResolvedRefs=False (InvalidKind: InferencePool.inference.networking.x-k8s.io is not a supported backend kind)",
        });
    });

    test("a route GKE rejects for its timeouts fails with GKE's own words", () => {
        expect(acceptedByGateway(route("route-rejected-timeouts"), GATEWAY)).toEqual({
            ok: false,
            detail: "Accepted=False (UnsupportedValue: Error GWCER104: HTTPRoute is misconfigured, err: Timeouts are not supported.), ResolvedRefs=True (ResolvedRefs)",
        });
    });

    test("a route without status from our Gateway, or status from another one, is not accepted yet", () => {
        const other = { ...route(), status: { parents: [{ parentRef: { name: "other", namespace: "elsewhere" }, conditions: [] }] } };
        expect(acceptedByGateway(other, GATEWAY)).toEqual({
            ok: false,
            detail: "no status from Gateway inference-gateway/inference-gateway yet",
        });
    });

    test("GKE policies: attached, not yet processed, refused, or missing", () => {
        const attached = find(clusterState(), "HealthCheckPolicy", "qwen2-3b-inference-pool");
        expect(gkePolicyAttached(attached, "HealthCheckPolicy x")).toEqual({
            ok: true,
            detail: "HealthCheckPolicy x: Attached=True (Attached: Policy attached)",
        });
        expect(
            gkePolicyAttached(
                find(clusterState("policy-not-attached"), "HealthCheckPolicy", "qwen2-3b-inference-pool"),
                "HealthCheckPolicy x",
            ),
        ).toEqual({
            ok: false,
            detail: "HealthCheckPolicy x: no Attached condition yet",
        });
        const refused = {
            ...attached,
            status: {
                ancestors: [
                    {
                        conditions: [
                            { type: "Attached", status: "False", reason: "TargetNotFound", message: "Service qwen2-3b-http not found" },
                        ],
                    },
                ],
            },
        };
        expect(gkePolicyAttached(refused, "HealthCheckPolicy x")).toEqual({
            ok: false,
            detail: "HealthCheckPolicy x: Attached=False (TargetNotFound: Service qwen2-3b-http not found)",
        });
        expect(gkePolicyAttached(undefined, "GCPBackendPolicy y")).toEqual({ ok: false, detail: "GCPBackendPolicy y does not exist" });
    });
});

describe("the smoke test's cluster checks over recorded states", () => {
    const options = { attempts: 1, intervalMs: 0, requestTimeoutMs: 2000 };
    const targets = { servingNamespace: "llm-inference", gateway: GATEWAY };
    const failing = async (...overlays: string[]) =>
        (await runClusterChecks(memoryReader(clusterState(...overlays)), ["qwen2-3b"], targets, options))
            .filter((result) => !result.ok)
            .map((result) => result.check);

    test("a healthy service passes all four", async () => {
        const results = await runClusterChecks(memoryReader(clusterState()), ["qwen2-3b"], targets, options);
        expect(results.map((result) => [result.check, result.ok])).toEqual([
            ["HTTPRoute on inference.networking.k8s.io", true],
            ["HTTPRoute accepted", true],
            ["health checks attached", true],
            ["backend policy attached", true],
        ]);
    });

    test("each recorded failure fails its own check and only that one", async () => {
        expect(await failing("route-not-migrated")).toEqual(["HTTPRoute on inference.networking.k8s.io", "HTTPRoute accepted"]);
        expect(await failing("route-rejected-timeouts")).toEqual(["HTTPRoute accepted"]);
        expect(await failing("policy-not-attached")).toEqual(["health checks attached"]);
    });

    test("behind Istio: TLS to the EPP instead of GKE's policies, failing without its DestinationRule", async () => {
        const istio = "doctor/istio-healthy";
        const results = await runClusterChecks(memoryReader(clusterState(istio)), ["qwen2-3b"], targets, options);
        expect(results.map((result) => [result.check, result.ok, result.detail])).toEqual([
            ["HTTPRoute on inference.networking.k8s.io", true, expect.any(String)],
            ["HTTPRoute accepted", true, expect.any(String)],
            ["EPP reached over TLS", true, "DestinationRule qwen2-3b-epp-service: TLS SIMPLE to qwen2-3b-epp-service"],
        ]);
        const missing = await runClusterChecks(memoryReader(clusterState("doctor/istio-gateway-class")), ["qwen2-3b"], targets, options);
        expect(missing.filter((result) => !result.ok).map((result) => [result.check, result.detail])).toEqual([
            [
                "EPP reached over TLS",
                "no DestinationRule for qwen2-3b-epp-service.llm-inference: Istio calls the EPP without TLS, which it does not serve",
            ],
        ]);
    });

    test("a service whose objects do not exist fails each check saying what is missing", async () => {
        const results = await runClusterChecks(memoryReader(clusterState()), ["absent"], targets, options);
        expect(results.map((result) => result.detail)).toEqual([
            "HTTPRoute llm-inference/absent-kserve-route does not exist",
            "HTTPRoute llm-inference/absent-kserve-route does not exist",
            "HealthCheckPolicy absent-inference-pool does not exist; HealthCheckPolicy absent-http does not exist",
            "GCPBackendPolicy absent-inference-pool does not exist",
        ]);
    });
});
