import * as k8s from "@pulumi/kubernetes";
import { parse } from "yaml";
import { WebhookGate } from "../../../components/platform/webhookGate";
import { Graph, record } from "../../harness";

describe("WebhookGate", () => {
    let graph: Graph;
    beforeAll(async () => {
        graph = await record(() => {
            const provider = new k8s.Provider("k8s", { kubeconfig: "{}", enableServerSideApply: true });
            const chart = new k8s.core.v1.Namespace("chart-stand-in", { metadata: { name: "chart" } }, { provider });
            new WebhookGate("widgets", {
                provider,
                namespace: "widgets-system",
                probes: [
                    {
                        apiVersion: "example.com/v1",
                        kind: "Widget",
                        metadata: { name: "probe", namespace: "widgets-system" },
                        spec: { size: 1 },
                    },
                ],
                resources: [{ apiGroup: "example.com", resources: ["widgets"] }],
                version: "v1.2.3",
                dependsOn: [chart],
            });
        });
    });

    test("the Job dry-run-creates the probes through the API server with a pinned kubectl, retried by the Job and awaited by Pulumi", () => {
        const job = graph.get("kubernetes:batch/v1:Job", "widgets-probe");
        expect(job.inputs).toEqual({
            apiVersion: "batch/v1",
            kind: "Job",
            metadata: { name: "widgets-probe", namespace: "widgets-system", annotations: { "pulumi.com/timeoutSeconds": "1200" } },
            spec: {
                backoffLimit: 8,
                template: {
                    metadata: { labels: { "app.kubernetes.io/name": "widgets-probe", "app.kubernetes.io/version": "v1.2.3" } },
                    spec: {
                        serviceAccountName: "widgets-probe",
                        restartPolicy: "Never",
                        securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: "RuntimeDefault" } },
                        containers: [
                            {
                                name: "probe",
                                image: "registry.k8s.io/kubectl:v1.34.1",
                                command: ["kubectl", "create", "--dry-run=server", "--output=name", "--filename=/probes/"],
                                env: [{ name: "HOME", value: "/tmp" }],
                                securityContext: {
                                    allowPrivilegeEscalation: false,
                                    readOnlyRootFilesystem: true,
                                    capabilities: { drop: ["ALL"] },
                                },
                                resources: { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "128Mi" } },
                                volumeMounts: [
                                    { name: "probes", mountPath: "/probes", readOnly: true },
                                    { name: "home", mountPath: "/tmp" },
                                ],
                            },
                        ],
                        volumes: [
                            { name: "probes", configMap: { name: "widgets-probes" } },
                            { name: "home", emptyDir: {} },
                        ],
                    },
                },
            },
        });
        expect(graph.dependencyNames(job)).toEqual([
            "kubernetes:core/v1:ConfigMap widgets-probes",
            "kubernetes:core/v1:Namespace chart-stand-in",
            "kubernetes:core/v1:ServiceAccount widgets-probe",
            "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding widgets-probe",
        ]);
    });

    test("the probe may only create the probed kinds, and its manifests are the probes as YAML", () => {
        expect(graph.get("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "widgets-probe").inputs.rules).toEqual([
            { apiGroups: ["example.com"], resources: ["widgets"], verbs: ["create"] },
        ]);
        expect(graph.get("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding", "widgets-probe").inputs).toEqual(
            expect.objectContaining({
                roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "widgets-probe" },
                subjects: [{ kind: "ServiceAccount", name: "widgets-probe", namespace: "widgets-system" }],
            }),
        );
        const data = graph.get("kubernetes:core/v1:ConfigMap", "widgets-probes").inputs.data as Record<string, string>;
        expect(Object.keys(data)).toEqual(["probe-0.yaml"]);
        expect(parse(data["probe-0.yaml"])).toEqual({
            apiVersion: "example.com/v1",
            kind: "Widget",
            metadata: { name: "probe", namespace: "widgets-system" },
            spec: { size: 1 },
        });
    });
});
