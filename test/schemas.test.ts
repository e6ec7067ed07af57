import { parse } from "yaml";
import { routerRouteSpec } from "../components/serving/routerRoute";
import { kubernetesManifests } from "../scripts/offline/report";
import { CrdValidator } from "./crds";
import { Graph, runProgram } from "./harness";
import { renderedRoute } from "./kserveRoutes";
import { shippedRun } from "./shippedStacks";

/** API groups Kubernetes serves itself; every other group's objects are custom resources. */
const BUILT_IN_GROUPS = new Set([
    "",
    "apps",
    "batch",
    "autoscaling",
    "policy",
    "networking.k8s.io",
    "rbac.authorization.k8s.io",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "storage.k8s.io",
    "scheduling.k8s.io",
]);

function isCustomResource(object: { apiVersion?: unknown }): boolean {
    const apiVersion = String(object.apiVersion);
    return !BUILT_IN_GROUPS.has(apiVersion.includes("/") ? apiVersion.split("/")[0] : "");
}

/** KServe's well-known configs, which the pinned runtime-configs chart installs verbatim, registered as its children. */
const KSERVE_CONFIG_FILES = [
    "decode-template",
    "decode-worker-data-parallel",
    "prefill-template",
    "prefill-worker-data-parallel",
    "router-route",
    "scheduler-latency-predictor",
    "scheduler",
    "template",
    "tracing",
    "worker-data-parallel",
].map((config) => `llminferenceserviceconfig-kserve-kserve-config-llm-${config}.yaml`);

/** The custom resources the offline preview of a shipped stack writes with --out (`kubernetesManifests`), by file. */
async function previewedCustomResources(stack: string) {
    return kubernetesManifests(await shippedRun(stack))
        .map(({ fileName, yaml }) => ({ file: fileName, object: parse(yaml) }))
        .filter(({ object }) => isCustomResource(object));
}

describe("every custom resource the program emits validates against the upstream CRD schemas", () => {
    const validator = new CrdValidator();
    let graph: Graph;
    beforeAll(async () => {
        graph = await runProgram(
            {
                gatewayTlsSecret: "llm-tls",
                hfToken: "hf_test_token",
                models: JSON.stringify([
                    { name: "qwen", pattern: "pattern1" },
                    { name: "qwen-cache", pattern: "pattern3", autoscaling: { minReplicas: 2, maxReplicas: 2 } },
                ]),
            },
            { secretKeys: ["hfToken"] },
        );
    });

    test("the dev program's custom resources", () => {
        const customResources = graph.resources.filter(
            (resource) =>
                resource.custom && resource.type.startsWith("kubernetes:") && resource.inputs.kind && isCustomResource(resource.inputs),
        );
        expect(customResources.map((resource) => `${resource.inputs.apiVersion}:${resource.inputs.kind}`).sort()).toEqual([
            "cert-manager.io/v1:Certificate",
            "cert-manager.io/v1:ClusterIssuer",
            "cert-manager.io/v1:ClusterIssuer",
            "gateway.networking.k8s.io/v1:Gateway",
            // Plain HTTP's redirect to HTTPS.
            "gateway.networking.k8s.io/v1:HTTPRoute",
            "keda.sh/v1alpha1:ClusterTriggerAuthentication",
            "keda.sh/v1alpha1:ScaledObject",
            "monitoring.googleapis.com/v1:PodMonitoring",
            "monitoring.googleapis.com/v1:PodMonitoring",
            "monitoring.googleapis.com/v1:PodMonitoring",
            "monitoring.googleapis.com/v1:PodMonitoring",
            // Each service's two backends, each naming the Cloud Armor policy.
            "networking.gke.io/v1:GCPBackendPolicy",
            "networking.gke.io/v1:GCPBackendPolicy",
            "networking.gke.io/v1:GCPBackendPolicy",
            "networking.gke.io/v1:GCPBackendPolicy",
            "networking.gke.io/v1:HealthCheckPolicy",
            "networking.gke.io/v1:HealthCheckPolicy",
            "networking.gke.io/v1:HealthCheckPolicy",
            "networking.gke.io/v1:HealthCheckPolicy",
            "serving.kserve.io/v1alpha2:LLMInferenceService",
            "serving.kserve.io/v1alpha2:LLMInferenceService",
            "serving.kserve.io/v1alpha2:LLMInferenceServiceConfig",
        ]);
        for (const resource of customResources) {
            expect({ resource: resource.name, errors: validator.errors(resource.inputs) }).toEqual({ resource: resource.name, errors: [] });
        }
    });

    test("every webhook probe (a dry-run object the readiness gates create) is a valid object of its CRD", () => {
        const probes = graph
            .ofType("kubernetes:core/v1:ConfigMap")
            .filter((configMap) => configMap.name.endsWith("-webhooks-probes"))
            .flatMap((configMap) =>
                Object.values(configMap.inputs.data as Record<string, string>).map(
                    (text) => parse(text) as { apiVersion: string; kind: string },
                ),
            );
        expect(probes.map((probe) => `${probe.apiVersion}:${probe.kind}`).sort()).toEqual([
            "cert-manager.io/v1:Certificate",
            "cert-manager.io/v1:ClusterIssuer",
            "leaderworkerset.x-k8s.io/v1:LeaderWorkerSet",
            "serving.kserve.io/v1alpha2:LLMInferenceService",
            "serving.kserve.io/v1alpha2:LLMInferenceServiceConfig",
        ]);
        for (const probe of probes) {
            expect({ probe: probe.kind, errors: validator.errors(probe) }).toEqual({ probe: probe.kind, errors: [] });
        }
    });

    test.each([
        ["dev", "qwen2-3b"],
        ["prod", "qwen2-3b-cache"],
    ])("the offline preview's --out YAML of the %s stack", async (stack, service) => {
        const custom = await previewedCustomResources(stack);
        expect(custom.map(({ file }) => file).sort()).toEqual(
            [
                "certificate-cert-manager-tpu-inference-ca.yaml",
                "clusterissuer-tpu-inference-ca-issuer.yaml",
                "clusterissuer-tpu-inference-selfsigned.yaml",
                // The Gateway's certificate from the stack's CA, and plain HTTP's redirect.
                "certificate-inference-gateway-inference-gateway-tls.yaml",
                "httproute-inference-gateway-inference-gateway-https-redirect.yaml",
                "gateway-inference-gateway-inference-gateway.yaml",
                `gcpbackendpolicy-llm-inference-${service}-http.yaml`,
                `gcpbackendpolicy-llm-inference-${service}-inference-pool.yaml`,
                `healthcheckpolicy-llm-inference-${service}-http.yaml`,
                `healthcheckpolicy-llm-inference-${service}-inference-pool.yaml`,
                `llminferenceservice-llm-inference-${service}.yaml`,
                ...KSERVE_CONFIG_FILES,
                "llminferenceserviceconfig-llm-inference-kserve-config-llm-router-route.yaml",
                `podmonitoring-llm-inference-${service}-epp.yaml`,
                `podmonitoring-llm-inference-${service}-vllm.yaml`,
                // KEDA's objects where the service autoscales (prod), and the ComputeClass of its on-demand-then-spot plan.
                ...(stack === "prod"
                    ? [
                          "clustertriggerauthentication-keda-managed-prometheus.yaml",
                          `scaledobject-llm-inference-${service}.yaml`,
                          "computeclass-tpu-inference-tpu.yaml",
                      ]
                    : []),
            ].sort(),
        );
        for (const { file, object } of custom) {
            expect({ file, errors: validator.errors(object) }).toEqual({ file, errors: [] });
        }
    });

    test("the offline preview's --out YAML of the fleet stack: each member's platform and service, the config cluster's Gateway, route and policies on the import", async () => {
        const custom = await previewedCustomResources("fleet");
        // Each cluster's objects in files of its own: the members share namespaces and names.
        const inCluster = (region: string, files: string[]) => files.map((file) => `tpu-inference-${region}-k8s-${file}`);
        const perMember = (region: string) =>
            inCluster(region, [
                ...KSERVE_CONFIG_FILES,
                "llminferenceserviceconfig-llm-inference-kserve-config-llm-router-route.yaml",
                // The pool the member exports beside KServe's, and the service, without a route.
                "inferencepool-llm-inference-qwen2-3b-fleet.yaml",
                "llminferenceservice-llm-inference-qwen2-3b.yaml",
                "podmonitoring-llm-inference-qwen2-3b-epp.yaml",
                "podmonitoring-llm-inference-qwen2-3b-vllm.yaml",
                `certificate-cert-manager-tpu-inference-${region}-ca.yaml`,
                `clusterissuer-tpu-inference-${region}-ca-issuer.yaml`,
                `clusterissuer-tpu-inference-${region}-selfsigned.yaml`,
            ]);
        expect(custom.map(({ file }) => file).sort()).toEqual(
            [
                ...perMember("us-east5"),
                ...perMember("us-south1"),
                ...inCluster("us-east5", [
                    // us-east5 orders its two zones' pools; us-south1 has one.
                    "computeclass-tpu-inference-us-east5-tpu.yaml",
                    // The config cluster's: the Gateway, its certificate and redirect, the route to the import and the import's policies.
                    "certificate-inference-gateway-inference-gateway-tls.yaml",
                    "gateway-inference-gateway-inference-gateway.yaml",
                    "httproute-inference-gateway-inference-gateway-https-redirect.yaml",
                    "httproute-llm-inference-qwen2-3b-fleet.yaml",
                    "gcpbackendpolicy-llm-inference-qwen2-3b-fleet.yaml",
                    "healthcheckpolicy-llm-inference-qwen2-3b-fleet.yaml",
                ]),
            ].sort(),
        );
        for (const { file, object } of custom) {
            expect({ file, errors: validator.errors(object) }).toEqual({ file, errors: [] });
        }
    });

    test("the offline preview's --out YAML of the multimodel stack: the router's extension and health check, both services' objects", async () => {
        const custom = await previewedCustomResources("multimodel");
        const files = custom.map(({ file }) => file);
        expect(files).toEqual(
            expect.arrayContaining([
                "gcproutingextension-inference-gateway-body-based-router.yaml",
                "healthcheckpolicy-inference-gateway-body-based-router.yaml",
                ...["qwen2-3b", "phi3-mini"].map((service) => `llminferenceservice-llm-inference-${service}.yaml`),
            ]),
        );
        for (const { file, object } of custom) {
            expect({ file, errors: validator.errors(object) }).toEqual({ file, errors: [] });
        }
    });

    test("the offline preview's --out YAML of the multihost stack: the leader-and-worker service and the namespace's pipeline-parallel preset", async () => {
        const custom = await previewedCustomResources("multihost");
        const byFile = new Map(custom.map(({ file, object }) => [file, object]));
        const service = byFile.get("llminferenceservice-llm-inference-qwen-72b.yaml");
        expect(service.spec.parallelism).toEqual({ pipeline: 4, tensor: 4 });
        expect(Object.keys(service.spec.worker)).toContain("containers");
        expect(byFile.has("llminferenceserviceconfig-llm-inference-kserve-config-llm-worker-pipeline-parallel.yaml")).toBe(true);
        for (const { file, object } of custom) {
            expect({ file, errors: validator.errors(object) }).toEqual({ file, errors: [] });
        }
    });

    test("the offline preview's --out YAML of the istio stack: a Gateway of class istio and the EPP's DestinationRule, no GKE policy", async () => {
        const custom = await previewedCustomResources("istio");
        const files = custom.map(({ file }) => file);
        expect(files).toEqual(
            expect.arrayContaining([
                "gateway-inference-gateway-inference-gateway.yaml",
                "destinationrule-llm-inference-qwen2-3b-pc-epp-service.yaml",
                "llminferenceservice-llm-inference-qwen2-3b-pc.yaml",
            ]),
        );
        expect(files.filter((file) => /^(healthcheckpolicy|gcpbackendpolicy)-/.test(file))).toEqual([]);
        for (const { file, object } of custom) {
            expect({ file, errors: validator.errors(object) }).toEqual({ file, errors: [] });
        }
    });

    test.each([false, true])(
        "the route template (body-based routing %s), rendered for a service, is a valid Gateway API HTTPRoute",
        (bodyBasedRouting) => {
            const route = renderedRoute(routerRouteSpec(bodyBasedRouting), {
                namespace: "llm-inference",
                name: "qwen",
                modelName: "Qwen/Qwen2.5-3B-Instruct",
            });
            expect(JSON.stringify(route)).not.toContain("{{");
            expect(validator.errors(route)).toEqual([]);
        },
    );

    test("the validator is strict: a wrong enum value and an unknown field fail", () => {
        const certificate = graph.get("kubernetes:cert-manager.io/v1:Certificate", "tpu-inference-ca").inputs as {
            spec: Record<string, unknown>;
        };
        const ecdsaTypo = { ...certificate, spec: { ...certificate.spec, privateKey: { algorithm: "DSA", size: 2048 } } };
        expect(validator.errors(ecdsaTypo)).toEqual([
            expect.stringContaining("/spec/privateKey/algorithm must be equal to one of the allowed values"),
        ]);
        const gateway = graph.get("kubernetes:gateway.networking.k8s.io/v1:Gateway", "inference-gateway").inputs as {
            spec: Record<string, unknown>;
        };
        expect(validator.errors({ ...gateway, spec: { ...gateway.spec, listener: [] } })).toEqual([
            '/spec must NOT have additional properties {"additionalProperty":"listener"}',
        ]);
    });
});
