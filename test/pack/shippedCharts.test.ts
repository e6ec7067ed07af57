/**
 * The pack in its own process, spoken to over the Analyzer protocol as the Pulumi CLI speaks to it: the shipped stacks
 * judged with the objects a real preview registers for their charts.
 */
import { children } from "../../scripts/offline/expand";
import { RecordedResource } from "../../scripts/offline/recorder";
import { OfflineRun } from "../../scripts/offline/run";
import { shippedRun } from "../shippedStacks";
import { useWorkerPack } from "../workerPack";
import { asFindings } from "../support/pack";
import { evaluatePack } from "../support/wholePack";
import { judgeResources, summary } from "./harness";

const pack = useWorkerPack();

/**
 * Stand-ins for what the pinned charts render, as a real preview registers them under each chart: the objects the
 * pack reads, shaped as upstream ships them (kserve v0.20.0 charts/kserve-llmisvc-resources files/llmisvc/resources.yaml
 * and files/common/configmap.yaml with its patch; lws v0.10.0 charts/lws), including what could trip a policy: KServe's
 * settings ConfigMap with its `credentials` key, and its Services that speak HTTPS to the controller.
 */
function renderedChartObjects(run: OfflineRun, gateway: string): RecordedResource[] {
    const controller = (name: string, image: string, ports: Array<{ name: string; containerPort: number }>) => ({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name },
        spec: {
            selector: { matchLabels: { "control-plane": name } },
            template: {
                metadata: { labels: { "control-plane": name } },
                spec: {
                    containers: [
                        {
                            name: "manager",
                            image,
                            ports,
                            env: [{ name: "POD_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } }],
                        },
                    ],
                },
            },
        },
    });
    const httpsService = (name: string, port: number, targetPort: string) => ({
        apiVersion: "v1",
        kind: "Service",
        metadata: { name },
        spec: { ports: [{ name: "https", port, targetPort }], selector: { "control-plane": "llmisvc-controller-manager" } },
    });
    const rendered: Record<string, Array<Record<string, unknown>>> = {
        "oci://registry.k8s.io/lws/charts/lws": [
            {
                apiVersion: "apiextensions.k8s.io/v1",
                kind: "CustomResourceDefinition",
                metadata: { name: "leaderworkersets.leaderworkerset.x-k8s.io" },
            },
            controller("lws-controller-manager", "registry.k8s.io/lws/lws:v0.10.0", [{ name: "webhook-server", containerPort: 9443 }]),
        ],
        "oci://ghcr.io/kserve/charts/kserve-llmisvc-crd": [
            {
                apiVersion: "apiextensions.k8s.io/v1",
                kind: "CustomResourceDefinition",
                metadata: { name: "llminferenceservices.serving.kserve.io" },
            },
            {
                apiVersion: "apiextensions.k8s.io/v1",
                kind: "CustomResourceDefinition",
                metadata: { name: "llminferenceserviceconfigs.serving.kserve.io" },
            },
        ],
        "oci://ghcr.io/kserve/charts/kserve-llmisvc-resources": [
            controller("llmisvc-controller-manager", "docker.io/kserve/llmisvc-controller:v0.20.0", [
                { name: "webhook-server", containerPort: 9443 },
                { name: "metrics", containerPort: 8443 },
            ]),
            httpsService("llmisvc-controller-manager-service", 8443, "metrics"),
            httpsService("llmisvc-webhook-server-service", 443, "webhook-server"),
            {
                apiVersion: "v1",
                kind: "ConfigMap",
                metadata: { name: "inferenceservice-config" },
                data: {
                    credentials: JSON.stringify({
                        storageSpecSecretName: "storage-config",
                        gcs: { gcsCredentialFileName: "gcloud-application-credentials.json" },
                    }),
                    ingress: JSON.stringify({ enableGatewayApi: true, kserveIngressGateway: gateway }),
                },
            },
        ],
        "oci://quay.io/jetstack/charts/cert-manager": [
            controller("cert-manager", "quay.io/jetstack/cert-manager-controller:v1.21.1", [{ name: "http-metrics", containerPort: 9402 }]),
        ],
        // kedacore/charts keda 2.20.2: the images default to the chart's appVersion (values.yaml image.*.tag "").
        "https://kedacore.github.io/charts/keda": [
            { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name: "scaledobjects.keda.sh" } },
            {
                apiVersion: "apiextensions.k8s.io/v1",
                kind: "CustomResourceDefinition",
                metadata: { name: "clustertriggerauthentications.keda.sh" },
            },
            controller("keda-operator", "ghcr.io/kedacore/keda:2.20.2", [{ name: "http", containerPort: 8080 }]),
            controller("keda-operator-metrics-apiserver", "ghcr.io/kedacore/keda-metrics-apiserver:2.20.2", [
                { name: "https", containerPort: 6443 },
            ]),
            controller("keda-admission-webhooks", "ghcr.io/kedacore/keda-admission-webhooks:2.20.2", [
                { name: "http", containerPort: 9443 },
            ]),
        ],
        // istio 1.29.6 manifests/charts/base (its CRDs) and istio-control/istio-discovery (istiod: global.hub docker.io/istio, tag the release).
        "https://istio-release.storage.googleapis.com/charts/base": [
            {
                apiVersion: "apiextensions.k8s.io/v1",
                kind: "CustomResourceDefinition",
                metadata: { name: "destinationrules.networking.istio.io" },
            },
            {
                apiVersion: "apiextensions.k8s.io/v1",
                kind: "CustomResourceDefinition",
                metadata: { name: "envoyfilters.networking.istio.io" },
            },
        ],
        "https://istio-release.storage.googleapis.com/charts/istiod": [
            controller("istiod", "docker.io/istio/pilot:1.29.6", [
                { name: "grpc-xds", containerPort: 15010 },
                { name: "https-webhooks", containerPort: 15017 },
            ]),
        ],
        // gateway-api-inference-extension v1.5.0 config/charts/body-based-routing templates/bbr.yaml and rbac.yaml, single namespace.
        "oci://registry.k8s.io/gateway-api-inference-extension/charts/body-based-routing": [
            {
                apiVersion: "apps/v1",
                kind: "Deployment",
                metadata: { name: "body-based-router" },
                spec: {
                    replicas: 1,
                    selector: { matchLabels: { app: "body-based-router" } },
                    template: {
                        metadata: { labels: { app: "body-based-router" } },
                        spec: {
                            serviceAccountName: "body-based-router-body-based-router-chart",
                            containers: [
                                {
                                    name: "bbr",
                                    image: "registry.k8s.io/gateway-api-inference-extension/bbr:v1.5.0",
                                    imagePullPolicy: "IfNotPresent",
                                    args: [
                                        "--streaming",
                                        "--v",
                                        "3",
                                        "--plugin",
                                        'body-field-to-header:model-extractor:{"fieldName":"model","headerName":"X-Gateway-Model-Name"}',
                                        "--plugin",
                                        "base-model-to-header:base-model-mapper",
                                        "--tracing=false",
                                    ],
                                    env: [{ name: "NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } }],
                                    ports: [{ containerPort: 9004 }, { containerPort: 9005 }],
                                },
                            ],
                        },
                    },
                },
            },
            {
                apiVersion: "v1",
                kind: "Service",
                metadata: { name: "body-based-router" },
                spec: {
                    selector: { app: "body-based-router" },
                    ports: [{ protocol: "TCP", port: 9004, targetPort: 9004, appProtocol: "HTTP2" }],
                    type: "ClusterIP",
                },
            },
            { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "body-based-router-body-based-router-chart" } },
            {
                apiVersion: "rbac.authorization.k8s.io/v1",
                kind: "Role",
                metadata: { name: "body-based-router-body-based-router-chart-configmap-reader" },
                rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "watch"] }],
            },
        ],
    };
    return run.unrendered.flatMap((chart) => {
        const component = run.resources.find((resource) => resource.urn === chart.urn)!;
        return children(component, rendered[chart.chart!], component.name, component.inputs.namespace as string);
    });
}

describe.each(["dev", "prod", "multimodel", "multihost", "istio", "fleet"])(
    "the shipped %s stack, with its charts' objects registered as a real preview registers them",
    (stack) => {
        let run: OfflineRun;
        let resources: RecordedResource[];
        beforeAll(async () => {
            run = await shippedRun(stack);
            const gateway = run.outputs.gateway as { namespace: string; name: string };
            resources = [...run.resources, ...renderedChartObjects(run, `${gateway.namespace}/${gateway.name}`)];
        });

        test("every chart this stack installs is accounted for: verbatim objects, or objects standing in for a real render", () => {
            const platform = [
                "oci://ghcr.io/kserve/charts/kserve-llmisvc-crd",
                "oci://ghcr.io/kserve/charts/kserve-llmisvc-resources",
                "oci://quay.io/jetstack/charts/cert-manager",
                "oci://registry.k8s.io/lws/charts/lws",
            ];
            expect(run.unrendered.map((chart) => chart.chart).sort()).toEqual(
                [
                    // The platform's in each cluster: a fleet's two members each install it.
                    ...(stack === "fleet" ? [...platform, ...platform] : platform),
                    // KEDA where a service autoscales (prod).
                    ...(stack === "prod" ? ["https://kedacore.github.io/charts/keda"] : []),
                    // The body-based router where the stack routes by the body's model (multimodel).
                    ...(stack === "multimodel" ? ["oci://registry.k8s.io/gateway-api-inference-extension/charts/body-based-routing"] : []),
                    // Istio's charts where it is the gateway provider.
                    ...(stack === "istio"
                        ? [
                              "https://istio-release.storage.googleapis.com/charts/base",
                              "https://istio-release.storage.googleapis.com/charts/istiod",
                          ]
                        : []),
                ].sort(),
            );
            // KServe's well-known configs, timeouts included, are there as the runtime-configs chart's children (each member's).
            const routeConfigs = resources.filter((resource) => resource.name.endsWith(":kserve/kserve-config-llm-router-route"));
            expect(routeConfigs.map((resource) => resource.name)).toEqual(
                stack === "fleet"
                    ? ["us-east5", "us-south1"].map((region) => `kserve-${region}-configs:kserve/kserve-config-llm-router-route`)
                    : ["kserve-configs:kserve/kserve-config-llm-router-route"],
            );
            for (const routeConfig of routeConfigs) {
                expect(JSON.stringify(routeConfig.inputs)).toContain('"timeouts"');
            }
        });

        test("passes with no mandatory violation", async () => {
            expect(summary(await judgeResources(pack(), resources, {}, stack))).toEqual([]);
        });

        // The two mutations below judge the same objects whatever the stack: each on one stack per provider, the route
        // override also on the stack with two services. Their policies run in this process, as the pack's server runs
        // them (test/support/evaluate.ts): the process and its protocol are the test above's.
        const inProcess = async (judged: RecordedResource[]) => asFindings(await evaluatePack(judged));
        const detachedOn = ["dev", "istio"];
        const withoutOverrideOn = ["multimodel", "istio"];

        if (detachedOn.includes(stack)) {
            test("the model service waits for what installs LeaderWorkerSet and KServe: without its dependencies it is caught", async () => {
                const service = resources.find(
                    (resource) => resource.type === "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService",
                )!;
                const detached = resources.map((resource) => (resource === service ? { ...resource, dependencies: [] } : resource));
                expect(summary(await inProcess(detached))).toEqual([
                    `mandatory require-lws-and-kserve-before-model-services @${service.name}`,
                ]);
            });
        }

        if (withoutOverrideOn.includes(stack)) {
            test("a namespace without the timeout-free route override falls back to the chart's template: caught behind GKE, fine behind Istio", async () => {
                const withoutOverride = resources.filter((resource) => resource.name !== "serving-router-route");
                const findings = await inProcess(withoutOverride);
                if (stack === "istio") {
                    // Istio programs route timeouts; KServe's are 0s, none.
                    expect(findings).toEqual([]);
                    return;
                }
                // Two findings per model service in the namespace: the template's timeouts, and its catch-all rules, which
                // send every other path to the workload Service that no GCPBackendPolicy guards.
                const services = resources.filter(
                    (resource) => resource.type === "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService",
                );
                expect(findings.map((finding) => [finding.policy, finding.message])).toEqual([
                    ...services.map(() => [
                        "disallow-httproute-timeouts-on-gke",
                        expect.stringMatching(
                            /^LLMInferenceService llm-inference\/[\w-]+ gets its HTTPRoute from kserve\/kserve-config-llm-router-route, which writes timeouts on rules .+ that its GKE Gateway rejects; add a timeout-free kserve-config-llm-router-route to namespace llm-inference\.$/,
                        ),
                    ]),
                    ...services
                        .map((service) => service.inputs.metadata as { name: string })
                        .sort((a, b) => a.name.localeCompare(b.name))
                        .map(({ name }) => [
                            "require-gateway-access-control",
                            `Gateway inference-gateway/inference-gateway is external and sends Service llm-inference/${name}-kserve-workload-svc requests from anyone: no GCPBackendPolicy targeting it sets spec.default.securityPolicy (Cloud Armor) or iap.enabled.`,
                        ]),
                ]);
            });
        }
    },
);
