/**
 * Lesson multi-cluster-model-armor, the whole category: a GCPTrafficExtension or GCPRoutingExtension (any version)
 * calling Model Armor in any region, attached by its targetRefs to a Gateway of any multi-cluster class in its
 * namespace, is caught; the same extension on a regional Gateway, an extension calling another service, and a Gateway
 * of another namespace are left alone.
 */
import * as k8s from "@pulumi/kubernetes";
import { MULTI_CLUSTER_INFERENCE } from "../../policies/facts";
import {
    disallowModelArmorOnMultiClusterGateway as policy,
    modelArmorOnMultiClusterMessage,
} from "../../policies/disallowModelArmorOnMultiClusterGateway";
import { RecordedResource } from "../../scripts/offline/recorder";
import { UNKNOWN, check, kube } from "../support/harness";
import { summaryOf, verdict as packVerdict } from "../support/pack";
import { useWorkerPack } from "../workerPack";

type Obj = Record<string, unknown>;

const gateway = (className: unknown, namespace = "llm-inference") =>
    kube("gateway.networking.k8s.io/v1", "Gateway", "fleet", {
        metadata: { name: "fleet", namespace },
        spec: { gatewayClassName: className },
    });
const extensionSpec = (service: string, targetRefs: Obj[] = [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: "fleet" }]) => ({
    targetRefs,
    extensionChains: [
        {
            name: "model-armor",
            matchCondition: { celExpressions: [{ celMatcher: "true" }] },
            extensions: [{ name: "model-armor", googleAPIServiceName: service }],
        },
    ],
});
const extension = (
    kind = "GCPTrafficExtension",
    apiVersion = "networking.gke.io/v1",
    service = "modelarmor.us-east5.rep.googleapis.com",
    targetRefs?: Obj[],
) =>
    kube(apiVersion, kind, "armor", {
        metadata: { name: "fleet-model-armor", namespace: "llm-inference" },
        spec: extensionSpec(service, targetRefs),
    });

const verdict = async (resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);

describe("the rule", () => {
    describe("disallow-model-armor-on-multi-cluster-gateway", () => {
        test("fails Model Armor on the multi-cluster Gateway, against the extension", async () => {
            expect(await check(policy, [gateway("gke-l7-cross-regional-internal-managed-mc"), extension()])).toEqual([
                {
                    level: "mandatory",
                    resource: "armor",
                    message:
                        'GCPTrafficExtension llm-inference/fleet-model-armor calls Model Armor on Gateway llm-inference/fleet of class "gke-l7-cross-regional-internal-managed-mc"; GKE\'s multi-cluster Inference Gateway does not support Model Armor, so no prompt or response would be screened. Remove the extension from the multi-cluster Gateway, and screen prompts elsewhere.',
                },
            ]);
        });

        test("passes Model Armor on a regional Gateway", async () => {
            expect(await check(policy, [gateway("gke-l7-regional-external-managed"), extension()])).toEqual([]);
        });

        test("not applicable: no extension calls Model Armor", async () => {
            expect(
                await check(policy, [gateway("gke-l7-rilb-mc"), extension(undefined, undefined, "body-based-router.example.com")]),
            ).toEqual([]);
        });

        test("preview: an unknown class is not reported as a violation", async () => {
            expect(await check(policy, [gateway(UNKNOWN), extension()])).toEqual([
                {
                    level: "advisory",
                    resource: "",
                    message:
                        "can't run policy 'disallow-model-armor-on-multi-cluster-gateway' from policy pack 'test-pack@v0.0.1' during preview: string value at .spec.gatewayClassName can't be known during preview",
                },
            ]);
        });
    });
});

describe("every spelling", () => {
    const SPELLINGS = [
        ["GCPTrafficExtension", "networking.gke.io/v1"],
        ["GCPTrafficExtension", "networking.gke.io/v1alpha1"],
        ["GCPRoutingExtension", "networking.gke.io/v1"],
    ];
    const TARGETS = [[{ group: "gateway.networking.k8s.io", kind: "Gateway", name: "fleet" }], [{ kind: "Gateway", name: "fleet" }]];

    describe("lesson multi-cluster-model-armor: Model Armor on every multi-cluster class", () => {
        describe.each(SPELLINGS)("%s %s", (kind, apiVersion) => {
            test.each(MULTI_CLUSTER_INFERENCE.gatewayClasses.map((className) => [className]))("on %s: caught", async (className) => {
                for (const targetRefs of TARGETS) {
                    for (const region of ["us-east5", "europe-west4"]) {
                        expect(
                            await verdict([
                                gateway(className),
                                extension(kind, apiVersion, `modelarmor.${region}.rep.googleapis.com`, targetRefs),
                            ]),
                        ).toEqual([
                            modelArmorOnMultiClusterMessage(`${kind} llm-inference/fleet-model-armor`, "llm-inference/fleet", className),
                        ]);
                    }
                }
            });
        });

        test("not this lesson's: a regional class, another service, a Gateway of another namespace or name", async () => {
            expect(await verdict([gateway("gke-l7-rilb"), extension()])).toEqual([]);
            expect(await verdict([gateway("gke-l7-rilb-mc"), extension(undefined, undefined, "bbr.llm-inference.svc")])).toEqual([]);
            expect(await verdict([gateway("gke-l7-rilb-mc", "gateway"), extension()])).toEqual([]);
            expect(
                await verdict([
                    gateway("gke-l7-rilb-mc"),
                    extension(undefined, undefined, undefined, [{ kind: "Gateway", name: "other" }]),
                ]),
            ).toEqual([]);
        });
    });
});

describe("through the pack", () => {
    const pack = useWorkerPack();

    test.each([
        ["gke-l7-cross-regional-internal-managed-mc", ["mandatory disallow-model-armor-on-multi-cluster-gateway @armor"]],
        ["gke-l7-regional-external-managed", []],
    ])("Model Armor on a Gateway of %s", async (className, expected) => {
        const findings = await packVerdict(pack(), () => {
            new k8s.apiextensions.CustomResource("gateway", {
                apiVersion: "gateway.networking.k8s.io/v1",
                kind: "Gateway",
                metadata: { name: "fleet", namespace: "llm-inference" },
                spec: { gatewayClassName: className, listeners: [{ name: "https", protocol: "HTTPS", port: 443 }] },
            });
            new k8s.apiextensions.CustomResource("armor", {
                apiVersion: "networking.gke.io/v1",
                kind: "GCPTrafficExtension",
                metadata: { name: "fleet-model-armor", namespace: "llm-inference" },
                spec: extensionSpec("modelarmor.us-east5.rep.googleapis.com"),
            });
        });
        expect(summaryOf("disallow-model-armor-on-multi-cluster-gateway", findings)).toEqual(expected);
    });
});
