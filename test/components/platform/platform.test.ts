import * as k8s from "@pulumi/kubernetes";
import { CertManager } from "../../../components/platform/certManager";
import { KServe } from "../../../components/platform/kserve";
import { LeaderWorkerSet } from "../../../components/platform/leaderWorkerSet";
import { GATEWAY_ACCESS_LABEL, ServingNamespace } from "../../../components/platform/servingNamespace";
import { routerRouteSpec } from "../../../components/serving/routerRoute";
import { GATEWAY_PROVIDERS } from "../../../components/settings/gatewayProviders";
import { Graph, record, testProvider } from "../../harness";

describe("CertManager", () => {
    let graph: Graph;
    let caIssuerName: string | undefined;
    beforeAll(async () => {
        graph = await record(() => {
            const certManager = new CertManager("pki", { provider: testProvider() });
            certManager.caIssuerName.apply((name) => (caIssuerName = name));
        });
    });

    test("installs the pinned chart with its CRDs and GKE-fit webhook settings", () => {
        expect(graph.get("kubernetes:helm.sh/v4:Chart", "pki-chart").inputs).toEqual({
            chart: "oci://quay.io/jetstack/charts/cert-manager",
            version: "v1.21.1",
            namespace: "cert-manager",
            values: { crds: { enabled: true }, webhook: { timeoutSeconds: 30, securePort: 10250 } },
        });
        expect(graph.get("kubernetes:core/v1:Namespace", "pki-ns").inputs).toEqual({
            apiVersion: "v1",
            kind: "Namespace",
            metadata: { name: "cert-manager" },
        });
    });

    test("chains a self-signed ClusterIssuer to an RSA 2048 CA certificate to a CA ClusterIssuer", () => {
        expect(graph.get("kubernetes:cert-manager.io/v1:ClusterIssuer", "pki-selfsigned-issuer").inputs).toEqual({
            apiVersion: "cert-manager.io/v1",
            kind: "ClusterIssuer",
            metadata: { name: "pki-selfsigned", annotations: { "pulumi.com/waitFor": "condition=Ready" } },
            spec: { selfSigned: {} },
        });
        expect(graph.get("kubernetes:cert-manager.io/v1:Certificate", "pki-ca").inputs).toEqual({
            apiVersion: "cert-manager.io/v1",
            kind: "Certificate",
            metadata: { name: "pki-ca", namespace: "cert-manager", annotations: { "pulumi.com/waitFor": "condition=Ready" } },
            spec: {
                isCA: true,
                commonName: "pki-ca",
                secretName: "pki-ca",
                duration: "87600h",
                renewBefore: "2160h",
                privateKey: { algorithm: "RSA", size: 2048, rotationPolicy: "Never" },
                issuerRef: { group: "cert-manager.io", kind: "ClusterIssuer", name: "pki-selfsigned" },
            },
        });
        expect(graph.get("kubernetes:cert-manager.io/v1:ClusterIssuer", "pki-ca-issuer").inputs).toEqual({
            apiVersion: "cert-manager.io/v1",
            kind: "ClusterIssuer",
            metadata: { name: "pki-ca-issuer", annotations: { "pulumi.com/waitFor": "condition=Ready" } },
            spec: { ca: { secretName: "pki-ca" } },
        });
        expect(caIssuerName).toBe("pki-ca-issuer");
    });

    test("every cert-manager object waits for its webhook to answer; the CA issuer also for its certificate; the certificate for its issuer", () => {
        expect(graph.dependencyNames(graph.get("kubernetes:cert-manager.io/v1:ClusterIssuer", "pki-selfsigned-issuer"))).toEqual([
            "kubernetes:batch/v1:Job pki-webhooks-probe",
        ]);
        expect(graph.dependencyNames(graph.get("kubernetes:cert-manager.io/v1:Certificate", "pki-ca"))).toEqual([
            "kubernetes:batch/v1:Job pki-webhooks-probe",
            "kubernetes:cert-manager.io/v1:ClusterIssuer pki-selfsigned-issuer",
            "kubernetes:core/v1:Namespace pki-ns",
        ]);
        expect(graph.dependencyNames(graph.get("kubernetes:cert-manager.io/v1:ClusterIssuer", "pki-ca-issuer"))).toEqual([
            "kubernetes:batch/v1:Job pki-webhooks-probe",
            "kubernetes:cert-manager.io/v1:Certificate pki-ca",
        ]);
        expect(graph.dependencyNames(graph.get("kubernetes:batch/v1:Job", "pki-webhooks-probe"))).toEqual([
            "kubernetes:core/v1:ConfigMap pki-webhooks-probes",
            "kubernetes:core/v1:Namespace pki-ns",
            "kubernetes:core/v1:ServiceAccount pki-webhooks-probe",
            "kubernetes:helm.sh/v4:Chart pki-chart",
            "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding pki-webhooks-probe",
        ]);
        expect(graph.dependencyNames(graph.get("kubernetes:helm.sh/v4:Chart", "pki-chart"))).toEqual([
            "kubernetes:core/v1:Namespace pki-ns",
        ]);
    });
});

describe("LeaderWorkerSet", () => {
    // Its 1.3 MB CRD needs server-side apply: the cluster's provider turns it on (see infrastructure/cluster.test.ts).
    test("installs the pinned chart into lws-system; its webhook probe waits for the chart and the firewall rule to its port", async () => {
        const graph = await record(() => {
            const provider = testProvider();
            const firewall = new k8s.core.v1.Namespace("firewall-stand-in", { metadata: { name: "firewall" } }, { provider });
            new LeaderWorkerSet("lws", { provider, webhookPrerequisites: [firewall] });
        });
        expect(graph.get("kubernetes:helm.sh/v4:Chart", "lws-chart").inputs).toEqual({
            chart: "oci://registry.k8s.io/lws/charts/lws",
            version: "0.10.0",
            namespace: "lws-system",
        });
        expect(graph.dependencyNames(graph.get("kubernetes:batch/v1:Job", "lws-webhooks-probe"))).toEqual([
            "kubernetes:core/v1:ConfigMap lws-webhooks-probes",
            "kubernetes:core/v1:Namespace firewall-stand-in",
            "kubernetes:core/v1:Namespace lws-ns",
            "kubernetes:core/v1:ServiceAccount lws-webhooks-probe",
            "kubernetes:helm.sh/v4:Chart lws-chart",
            "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding lws-webhooks-probe",
        ]);
    });
});

describe("KServe", () => {
    let graph: Graph;
    beforeAll(async () => {
        graph = await record(() => {
            const provider = testProvider();
            const prerequisite = new k8s.core.v1.Namespace("prerequisite", { metadata: { name: "prerequisite" } }, { provider });
            new KServe("kserve", { provider, gateway: { namespace: "edge", name: "llm" }, prerequisites: [prerequisite] });
        });
    });

    test("installs the release's three charts in kserve, without KServe's InferencePool CRDs, pointing at the stack's Gateway", () => {
        expect(graph.get("kubernetes:helm.sh/v4:Chart", "kserve-crd").inputs).toEqual({
            chart: "oci://ghcr.io/kserve/charts/kserve-llmisvc-crd",
            version: "v0.20.0",
            namespace: "kserve",
        });
        expect(graph.get("kubernetes:helm.sh/v4:Chart", "kserve-controller").inputs).toEqual({
            chart: "oci://ghcr.io/kserve/charts/kserve-llmisvc-resources",
            version: "v0.20.0",
            namespace: "kserve",
            values: {
                kserve: {
                    llmisvc: { createGIECRDs: false },
                    controller: { gateway: { ingressGateway: { enableGatewayApi: true, kserveGateway: "edge/llm" } } },
                },
            },
        });
        expect(graph.get("kubernetes:helm.sh/v4:Chart", "kserve-configs").inputs).toEqual({
            chart: "oci://ghcr.io/kserve/charts/kserve-runtime-configs",
            version: "v0.20.0",
            namespace: "kserve",
            values: { kserve: { llmisvcConfigs: { enabled: true }, servingruntime: { enabled: false } } },
        });
    });

    test("the controller waits for the CRDs and every prerequisite; its webhook probe for the controller; the configs for the probe", () => {
        expect(graph.dependencyNames(graph.get("kubernetes:helm.sh/v4:Chart", "kserve-controller"))).toEqual([
            "kubernetes:core/v1:Namespace kserve-ns",
            "kubernetes:core/v1:Namespace prerequisite",
            "kubernetes:helm.sh/v4:Chart kserve-crd",
        ]);
        expect(graph.dependencyNames(graph.get("kubernetes:batch/v1:Job", "kserve-webhooks-probe"))).toContain(
            "kubernetes:helm.sh/v4:Chart kserve-controller",
        );
        expect(graph.dependencyNames(graph.get("kubernetes:helm.sh/v4:Chart", "kserve-configs"))).toEqual([
            "kubernetes:batch/v1:Job kserve-webhooks-probe",
            "kubernetes:core/v1:Namespace kserve-ns",
        ]);
    });
});

describe("ServingNamespace", () => {
    /** Records a ServingNamespace "serving" for namespace `models`, after a stand-in for KServe's webhooks. */
    const servingNamespace = (multiHost: boolean) =>
        record(() => {
            const provider = testProvider();
            const controller = new k8s.core.v1.Namespace("controller", { metadata: { name: "controller" } }, { provider });
            new ServingNamespace("serving", {
                provider,
                namespace: "models",
                kserveWebhooks: controller,
                bodyBasedRouting: false,
                multiHost,
                gatewayProviderLabels: GATEWAY_PROVIDERS.gke.servingNamespaceLabels,
            });
        });

    test("labels the namespace for the Gateway and ships a router-route config without timeouts, once KServe's webhooks answer", async () => {
        const graph = await servingNamespace(false);
        expect(graph.get("kubernetes:core/v1:Namespace", "serving-ns").inputs).toEqual({
            apiVersion: "v1",
            kind: "Namespace",
            metadata: { name: "models", labels: { "gke-tpu-inference/gateway-access": "true" } },
        });
        const config = graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceServiceConfig", "serving-router-route");
        expect(config.inputs).toEqual({
            apiVersion: "serving.kserve.io/v1alpha2",
            kind: "LLMInferenceServiceConfig",
            metadata: { name: "kserve-config-llm-router-route", namespace: "models" },
            spec: { router: { route: { http: { spec: routerRouteSpec(false) } } } },
        });
        expect(JSON.stringify(config.inputs)).not.toContain("timeouts");
        expect(graph.dependencyNames(config)).toEqual([
            "kubernetes:core/v1:Namespace controller",
            "kubernetes:core/v1:Namespace serving-ns",
        ]);
        expect(GATEWAY_ACCESS_LABEL).toEqual({ "gke-tpu-inference/gateway-access": "true" });
        expect(graph.resources.map((resource) => resource.name)).not.toContain("serving-multi-host");
    });

    test("on a multi-host pool: the pipeline-parallel preset KServe looks up but does not ship, starting Ray before vLLM", async () => {
        const graph = await servingNamespace(true);
        const preset = graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceServiceConfig", "serving-multi-host");
        const script = "/workspace/vllm/examples/ray_serving/multi-node-serving.sh";
        const shared = { env: [{ name: "TPU_MULTIHOST_BACKEND", value: "ray" }], volumeMounts: [{ name: "dshm", mountPath: "/dev/shm" }] };
        const volumes = [{ name: "dshm", emptyDir: { medium: "Memory" } }];
        expect(preset.inputs).toEqual({
            apiVersion: "serving.kserve.io/v1alpha2",
            kind: "LLMInferenceServiceConfig",
            metadata: { name: "kserve-config-llm-worker-pipeline-parallel", namespace: "models" },
            spec: {
                template: {
                    containers: [
                        {
                            name: "main",
                            command: [
                                "/bin/bash",
                                "-c",
                                `bash ${script} leader --ray_cluster_size="\${LWS_GROUP_SIZE}" --ray_init_timeout=300 && exec vllm serve "$@"`,
                                "--",
                            ],
                            ...shared,
                        },
                    ],
                    volumes,
                },
                worker: {
                    containers: [
                        {
                            name: "main",
                            command: [
                                "/bin/bash",
                                "-c",
                                `exec bash ${script} worker --ray_address="\${LWS_LEADER_ADDRESS}" --ray_init_timeout=300`,
                            ],
                            ...shared,
                        },
                    ],
                    volumes,
                },
            },
        });
        expect(graph.dependencyNames(preset)).toEqual([
            "kubernetes:core/v1:Namespace controller",
            "kubernetes:core/v1:Namespace serving-ns",
        ]);
    });
});
