/** The program (index.ts) with its model services, and the shipped stacks side by side in one project. */
import { wireSecret } from "../scripts/offline/recorder";
import { MOCK_GATEWAY_ADDRESS } from "../scripts/offline/mocks";
import { PLACEHOLDER_PROJECT } from "../scripts/offline/run";
import { Graph, runProgram, transitiveDependencies } from "./harness";
import { shippedRun } from "./shippedStacks";

/** The dev stack's model list (Pulumi.dev.yaml). */
const DEV_MODELS = JSON.stringify([
    {
        name: "qwen2-3b",
        pattern: "pattern1",
        modelUri: "hf://Qwen/Qwen2.5-3B-Instruct",
        modelName: "Qwen/Qwen2.5-3B-Instruct",
        replicas: 1,
    },
]);

describe("the program's workloads", () => {
    let graph: Graph;
    beforeAll(async () => {
        graph = await runProgram({ models: DEV_MODELS, hfToken: "hf_test_token" }, { secretKeys: ["hfToken"] });
    });

    test("each model service waits for KServe's and LeaderWorkerSet's webhooks, KServe's configs, the route template, Network Services and its staged weights, never for the TPU pool", () => {
        const llmisvc = graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService", "qwen2-3b-llmisvc");
        expect(graph.dependencyNames(llmisvc)).toEqual([
            "gcp:artifactregistry/repository:Repository tpu-inference-images",
            "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember tpu-inference-images-reader",
            "gcp:projects/service:Service tpu-inference-networkservices",
            "gcp:storage/bucket:Bucket tpu-inference-bucket",
            "gcp:storage/bucketIAMMember:BucketIAMMember qwen2-3b-weights-cache",
            "gcp:storage/bucketIAMMember:BucketIAMMember qwen2-3b-weights-read-weights",
            "gcp:storage/bucketIAMMember:BucketIAMMember qwen2-3b-weights-stack-bucket",
            "kubernetes:batch/v1:Job lws-webhooks-probe",
            "kubernetes:batch/v1:Job qwen2-3b-weights-copy",
            "kubernetes:core/v1:Namespace serving-ns",
            "kubernetes:core/v1:Secret serving-api-key",
            "kubernetes:core/v1:ServiceAccount qwen2-3b-weights-server",
            "kubernetes:helm.sh/v4:Chart kserve-configs",
            // Both backends' Cloud Armor policy before KServe routes to them.
            "kubernetes:networking.gke.io/v1:GCPBackendPolicy qwen2-3b-http-backend",
            "kubernetes:networking.gke.io/v1:GCPBackendPolicy qwen2-3b-pool-backend",
            "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceServiceConfig serving-router-route",
        ]);
        const tpuPool = graph.get("gcp:container/nodePool:NodePool", "tpu-inference-tpu-pool");
        expect(transitiveDependencies(graph, llmisvc).has(tpuPool.urn)).toBe(false);
    });

    test("every custom resource of a kind the stack's webhooks serve waits for its readiness gate", () => {
        const gates: Record<string, string> = {
            "cert-manager.io": "kubernetes:batch/v1:Job tpu-inference-webhooks-probe",
            "serving.kserve.io": "kubernetes:batch/v1:Job kserve-webhooks-probe",
        };
        const byName = new Map(graph.resources.map((resource) => [`${resource.type} ${resource.name}`, resource.urn]));
        const served = graph.resources.filter((resource) => /^kubernetes:(cert-manager\.io|serving\.kserve\.io)\//.test(resource.type));
        expect(served.length).toBe(6);
        for (const resource of served) {
            const gate = gates[resource.type.split(":")[1].split("/")[0]];
            expect({ resource: resource.name, gated: transitiveDependencies(graph, resource).has(byName.get(gate)!) }).toEqual({
                resource: resource.name,
                gated: true,
            });
        }
    });

    test("health checks and the backend policies wait for nothing but their namespace (and the Cloud Armor policy they name), so GKE has them before the first pod", () => {
        for (const [type, name] of [
            ["kubernetes:networking.gke.io/v1:GCPBackendPolicy", "qwen2-3b-pool-backend"],
            ["kubernetes:networking.gke.io/v1:GCPBackendPolicy", "qwen2-3b-http-backend"],
        ]) {
            expect({ name, dependencies: graph.dependencyNames(graph.get(type, name)) }).toEqual({
                name,
                dependencies: [
                    "gcp:compute/regionSecurityPolicy:RegionSecurityPolicy gateway-access-policy",
                    "kubernetes:core/v1:Namespace serving-ns",
                ],
            });
        }
        for (const [type, name] of [
            ["kubernetes:networking.gke.io/v1:HealthCheckPolicy", "qwen2-3b-pool-health"],
            ["kubernetes:networking.gke.io/v1:HealthCheckPolicy", "qwen2-3b-http-health"],
            ["kubernetes:core/v1:Service", "qwen2-3b-http"],
        ]) {
            expect({ name, dependencies: graph.dependencyNames(graph.get(type, name)) }).toEqual({
                name,
                dependencies: ["kubernetes:core/v1:Namespace serving-ns"],
            });
        }
    });

    test("the service selects the pool's shape from the catalog and the token stays a secret", () => {
        const spec = graph.get("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService", "qwen2-3b-llmisvc").inputs.spec as {
            template: { nodeSelector: unknown; containers: Array<{ resources: unknown }> };
        };
        expect(spec.template.nodeSelector).toEqual(graph.recording.outputs.tpuNodeSelector);
        expect(spec.template.containers[0].resources).toEqual({ requests: { "google.com/tpu": "4" }, limits: { "google.com/tpu": "4" } });
        expect(graph.get("kubernetes:core/v1:Secret", "serving-hf-token").inputs.stringData).toBe("[secret]");
        // What the report shows (inputs, outputs) never holds it.
        expect(JSON.stringify(graph.resources.map((resource) => [resource.inputs, graph.recording.outputs]))).not.toContain(
            "hf_test_token",
        );
        // The analyzer alone gets the value, still marked secret, as the engine sends it (KeepSecrets).
        expect(graph.get("kubernetes:core/v1:Secret", "serving-hf-token").wire.inputs.stringData).toEqual(
            wireSecret({ HF_TOKEN: "hf_test_token" }),
        );
    });

    test("outputs per service the URL through the Gateway and curl commands", () => {
        expect(graph.recording.outputs.models).toEqual({
            "qwen2-3b": {
                modelName: "Qwen/Qwen2.5-3B-Instruct",
                pattern: "pattern1",
                replicas: 1,
                baseUrl: `https://${MOCK_GATEWAY_ADDRESS}/llm-inference/qwen2-3b`,
                curl: {
                    models: `curl -sS --cacert ca.crt -H "Authorization: Bearer $API_KEY" https://${MOCK_GATEWAY_ADDRESS}/llm-inference/qwen2-3b/v1/models`,
                    completions:
                        `curl -sS --cacert ca.crt -H "Authorization: Bearer $API_KEY" https://${MOCK_GATEWAY_ADDRESS}/llm-inference/qwen2-3b/v1/completions -H 'Content-Type: application/json' ` +
                        `-d '{"model":"Qwen/Qwen2.5-3B-Instruct","prompt":"Say hello","max_tokens":32}'`,
                },
                // Weights streamed from the bucket, the image streamed, compiled programs loaded from the cache when warm.
                coldStart: {
                    first: { imagePull: 10, groupFormation: 0, weights: 6, serverStart: 3, compile: 91, total: 110 },
                    warm: { imagePull: 10, groupFormation: 0, weights: 6, serverStart: 3, compile: 9, total: 28 },
                    pessimistic: { imagePull: 120, groupFormation: 0, weights: 25, serverStart: 12, compile: 364, total: 521 },
                    startupBudgetSeconds: 600,
                },
            },
        });
    });
});

describe("the shipped stacks in one project", () => {
    // Resources without a name of their own (dashboards, alert policies, node pools) get one from GCP or from Pulumi's random suffix.
    test("no two project-global resources of one type share a name", async () => {
        const stacks = ["dev", "prod", "fleet"];
        const seen = new Map<string, string>();
        for (const stack of stacks) {
            // Neither stack file sets gcp:project, so both run in the offline preview's one placeholder project.
            const run = await shippedRun(stack);
            expect(run.project.config["gcp:project"]).toBe(PLACEHOLDER_PROJECT);
            // Project services are the project's own: each stack enables them and none ever disables them.
            for (const resource of run.resources.filter(
                (candidate) => candidate.type.startsWith("gcp:") && candidate.type !== "gcp:projects/service:Service",
            )) {
                for (const key of ["name", "accountId"].flatMap((field) =>
                    typeof resource.inputs[field] === "string" ? [`${resource.type} ${field}=${resource.inputs[field]}`] : [],
                )) {
                    expect({ key, first: seen.get(key), now: stack }).toEqual({ key, first: undefined, now: stack });
                    seen.set(key, stack);
                }
            }
        }
        expect([...seen.keys()].filter((key) => key.includes("serviceaccount")).sort()).toEqual([
            "gcp:serviceaccount/account:Account accountId=tpu-inference-dev-nodes",
            // A fleet's node account per member, named by the region's short tag.
            "gcp:serviceaccount/account:Account accountId=tpu-inference-fleet-use5-nodes",
            "gcp:serviceaccount/account:Account accountId=tpu-inference-fleet-uss1-nodes",
            "gcp:serviceaccount/account:Account accountId=tpu-inference-prod-nodes",
        ]);
    });
});
