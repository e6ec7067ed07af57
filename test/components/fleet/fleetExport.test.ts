import * as fs from "fs";
import * as k8s from "@pulumi/kubernetes";
import { parse } from "yaml";
import { renderKServeInferencePool, renderKServeRoute } from "@gke-tpu-inference/facts";
import { FleetExport } from "../../../components/fleet/fleetExport";
import { CrdValidator } from "../../crds";
import { record, testProvider } from "../../harness";
import { sharedPath } from "../../shared";

describe("FleetExport", () => {
    const validator = new CrdValidator();

    test("in each member, a twin of KServe's pool of each service under the stack's name, annotated for export, after the service and the fleet", async () => {
        const graph = await record(() => {
            for (const region of ["us-east5", "us-south1"]) {
                const provider = testProvider();
                const fleet = new k8s.core.v1.Namespace(
                    `${region}-fleet-stand-in`,
                    { metadata: { name: `fleet-${region}` } },
                    { provider },
                );
                for (const service of ["qwen", "phi3"]) {
                    const llmisvc = new k8s.core.v1.ConfigMap(`${region}-${service}-stand-in`, {}, { provider });
                    new FleetExport(`${region}-${service}`, { provider, service, namespace: "llm-inference", dependsOn: [llmisvc, fleet] });
                }
            }
        });
        const pools = graph.ofType("kubernetes:inference.networking.k8s.io/v1:InferencePool");
        expect(pools.map((pool) => pool.name)).toEqual([
            "us-east5-qwen-pool",
            "us-east5-phi3-pool",
            "us-south1-qwen-pool",
            "us-south1-phi3-pool",
        ]);
        for (const pool of pools) {
            const [region, service] = [pool.name.split("-").slice(0, 2).join("-"), pool.name.split("-")[2]];
            expect(pool.inputs).toEqual({
                apiVersion: "inference.networking.k8s.io/v1",
                kind: "InferencePool",
                metadata: { name: `${service}-fleet`, namespace: "llm-inference", annotations: { "networking.gke.io/export": "True" } },
                spec: {
                    selector: {
                        matchLabels: {
                            "app.kubernetes.io/name": service,
                            "app.kubernetes.io/part-of": "llminferenceservice",
                            "kserve.io/component": "workload",
                        },
                    },
                    targetPorts: [{ number: 8000 }],
                    endpointPickerRef: { failureMode: "FailOpen", kind: "Service", name: `${service}-epp-service`, port: { number: 9002 } },
                },
            });
            expect(pool.inputs.spec).toEqual(renderKServeInferencePool({ namespace: "llm-inference", name: service }).spec);
            expect(graph.dependencyNames(pool)).toEqual([
                `kubernetes:core/v1:ConfigMap ${region}-${service}-stand-in`,
                `kubernetes:core/v1:Namespace ${region}-fleet-stand-in`,
            ]);
            expect(validator.errors(pool.inputs)).toEqual([]);
        }
    });

    test("KServe's own pool as rendered validates and carries KServe's name and labels", () => {
        const pool = renderKServeInferencePool({ namespace: "llm-inference", name: "qwen" });
        expect(pool.metadata).toEqual({
            name: "qwen-inference-pool",
            namespace: "llm-inference",
            labels: {
                "app.kubernetes.io/component": "llminferenceservice-router-scheduler",
                "app.kubernetes.io/name": "qwen",
                "app.kubernetes.io/part-of": "llminferenceservice",
            },
        });
        expect(validator.errors(pool)).toEqual([]);
    });

    test("the pool spec is KServe's shipped scheduler preset with its templates filled in for the service", () => {
        const preset = parse(fs.readFileSync(sharedPath("reference", "kserve-v0.20.0", "config-llm-scheduler.yaml"), "utf8")) as {
            spec: { router: { scheduler: { pool: { spec: unknown } } } };
        };
        // The route renderer fills KServe's Go templates; the pool's are the same ChildName and ObjectMeta ones.
        const service = { namespace: "llm-inference", name: "qwen", modelName: "Qwen/Qwen2.5-3B-Instruct" };
        const upstream = renderKServeRoute(preset.spec.router.scheduler.pool.spec, service).spec;
        expect(renderKServeInferencePool(service).spec).toEqual(upstream);
    });

    test("refuses a service name KServe would hash", () => {
        const service = "a".repeat(39);
        expect(() => new FleetExport("long", { provider: testProvider(), service, namespace: "llm-inference", dependsOn: [] })).toThrow(
            `FleetExport long: service "${service}" is longer than 38 characters`,
        );
    });
});
