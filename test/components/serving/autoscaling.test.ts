import { scaledObject } from "../../../components/serving/autoscaling";
import { CrdValidator } from "../../crds";
import { runProgram } from "../../harness";

/** One Pattern 3 service autoscaled on its queue, as a stack would configure it. */
const AUTOSCALED = JSON.stringify([
    { name: "qwen-cache", pattern: "pattern3", autoscaling: { minReplicas: 2, maxReplicas: 3, signal: "queue" } },
]);

describe("an autoscaled model service", () => {
    const validator = new CrdValidator();
    let graph: Awaited<ReturnType<typeof runProgram>>;
    beforeAll(async () => {
        graph = await runProgram({ models: AUTOSCALED, deletionProtection: "false" });
    });

    test("a ScaledObject on KServe's Deployment: the entry's bounds, the queue from Managed Prometheus per replica, scale-down held for the startup budget", () => {
        const autoscaler = graph.get("kubernetes:keda.sh/v1alpha1:ScaledObject", "qwen-cache-autoscaler");
        expect(autoscaler.inputs).toEqual({
            apiVersion: "keda.sh/v1alpha1",
            kind: "ScaledObject",
            metadata: { name: "qwen-cache", namespace: "llm-inference" },
            spec: {
                scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "qwen-cache-kserve" },
                minReplicaCount: 2,
                maxReplicaCount: 3,
                pollingInterval: 15,
                advanced: {
                    horizontalPodAutoscalerConfig: {
                        behavior: {
                            scaleDown: { stabilizationWindowSeconds: 600, policies: [{ type: "Pods", value: 1, periodSeconds: 600 }] },
                        },
                    },
                },
                triggers: [
                    {
                        type: "prometheus",
                        name: "queue",
                        metadata: {
                            serverAddress: "https://monitoring.googleapis.com/v1/projects/acme-inference/location/global/prometheus",
                            query: 'sum(vllm:num_requests_waiting{namespace="llm-inference",model_service="qwen-cache"})',
                            threshold: "5",
                        },
                        authenticationRef: { name: "keda-managed-prometheus", kind: "ClusterTriggerAuthentication" },
                    },
                ],
            },
        });
        expect(validator.errors(autoscaler.inputs)).toEqual([]);
        expect(graph.dependencyNames(autoscaler)).toEqual([
            "gcp:projects/iAMMember:IAMMember keda-metrics-reader",
            "kubernetes:core/v1:Namespace serving-ns",
            "kubernetes:helm.sh/v4:Chart keda-chart",
            "kubernetes:keda.sh/v1alpha1:ClusterTriggerAuthentication keda-gmp",
            "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService qwen-cache-llmisvc",
        ]);
    });

    test("the service leaves its replica count to the autoscaler", () => {
        const spec = graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService", "qwen-cache-llmisvc").inputs.spec as Record<
            string,
            unknown
        >;
        expect(spec).not.toHaveProperty("replicas");
    });

    test("KEDA from its pinned chart reads Managed Prometheus as its operator's Workload Identity principal, no key", () => {
        expect(graph.get("kubernetes:helm.sh/v4:Chart", "keda-chart").inputs).toEqual(
            expect.objectContaining({
                chart: "keda",
                version: "2.20.2",
                namespace: "keda",
                repositoryOpts: { repo: "https://kedacore.github.io/charts" },
            }),
        );
        expect(graph.get("gcp:projects/iAMMember:IAMMember", "keda-metrics-reader").inputs).toEqual({
            project: "acme-inference",
            role: "roles/monitoring.viewer",
            member: expect.stringMatching(
                /^principal:\/\/iam\.googleapis\.com\/projects\/\d{12}\/locations\/global\/workloadIdentityPools\/acme-inference\.svc\.id\.goog\/subject\/ns\/keda\/sa\/keda-operator$/,
            ),
        });
        const authentication = graph.get("kubernetes:keda.sh/v1alpha1:ClusterTriggerAuthentication", "keda-gmp");
        expect(authentication.inputs.spec).toEqual({ podIdentity: { provider: "gcp" } });
        expect(validator.errors(authentication.inputs)).toEqual([]);
    });

    test("a budget past what the HPA API accepts is held as long as it allows: a one-hour window, 30-minute periods", () => {
        const object = scaledObject(
            "huge",
            { minReplicas: 1, maxReplicas: 2, signal: "queue", target: 5 },
            { namespace: "m", project: "p", startupBudgetSeconds: 4200, triggerAuthentication: "t", paused: false },
        );
        expect(object.spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown).toEqual({
            stabilizationWindowSeconds: 3600,
            policies: [{ type: "Pods", value: 1, periodSeconds: 1800 }],
        });
    });

    test("a stack without autoscaled services installs no KEDA", async () => {
        const fixed = await runProgram({ models: JSON.stringify([{ name: "q", pattern: "pattern1" }]), deletionProtection: "false" });
        expect(fixed.resources.filter((resource) => /keda/i.test(resource.type) || resource.name.startsWith("keda"))).toEqual([]);
    });
});
