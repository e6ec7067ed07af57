import { INVOKE_TOKENS, defaultInvokeAnswers } from "../scripts/offline/invokes";
import { RecordedResource } from "../scripts/offline/recorder";
import { Binding, Identity, Need, bindingsOf, excessBindings, needsOf, unmetNeeds } from "./contracts";
import { runProgram } from "./harness";
import { CHECKED_HOPS, requestPathProblems } from "./requestPath";
import { shippedRun } from "./shippedStacks";
import { REQUEST_PATHS } from "./runtimeContracts";
import { startPathProblems } from "./startPath";

/** The project and its number, as the offline preview answers them. */
function identityOf(project: string): Identity {
    const answer = defaultInvokeAnswers(project)[INVOKE_TOKENS.project]({ projectId: project });
    return { project, projectNumber: String(answer.number) };
}

/** Which workloads a stack's needs come from, and how many of each instance. */
function instances(needs: readonly Need[]): Record<string, string[]> {
    const byWorkload: Record<string, Set<string>> = {};
    for (const need of needs) {
        (byWorkload[need.workload] ??= new Set()).add(need.who);
    }
    return Object.fromEntries(Object.entries(byWorkload).map(([workload, who]) => [workload, [...who].sort()]));
}

describe.each([
    [
        "dev",
        {
            modelServer: ["qwen2-3b server (qwen2-3b-server)"],
            weightsCopy: ["qwen2-3b-weights-copy Job"],
            nodes: ["tpu-inference-system nodes", "tpu-inference-tpu-pool nodes"],
        },
    ],
    [
        "prod",
        {
            modelServer: ["qwen2-3b-cache server (qwen2-3b-cache-server)"],
            weightsCopy: ["qwen2-3b-cache-weights-copy Job"],
            keda: ["KEDA's operator"],
            // Its capacity plan's spot pool runs as the same node account.
            nodes: ["tpu-inference-spot-pool nodes", "tpu-inference-system nodes", "tpu-inference-tpu-pool nodes"],
        },
    ],
    [
        "multimodel",
        {
            modelServer: ["phi3-mini server (phi3-mini-server)", "qwen2-3b server (qwen2-3b-server)"],
            weightsCopy: ["phi3-mini-weights-copy Job", "qwen2-3b-weights-copy Job"],
            nodes: ["tpu-inference-system nodes", "tpu-inference-tpu-pool nodes"],
        },
    ],
    [
        "multihost",
        {
            modelServer: ["qwen-72b server (qwen-72b-server)"],
            weightsCopy: ["qwen-72b-weights-copy Job"],
            nodes: ["tpu-inference-system nodes", "tpu-inference-tpu-pool nodes"],
        },
    ],
    [
        "istio",
        {
            modelServer: ["qwen2-3b-pc server (qwen2-3b-pc-server)"],
            weightsCopy: ["qwen2-3b-pc-weights-copy Job"],
            nodes: ["tpu-inference-system nodes", "tpu-inference-tpu-pool nodes"],
        },
    ],
    [
        "fleet",
        {
            modelServer: ["qwen2-3b server (qwen2-3b-server)"],
            weightsCopy: ["qwen2-3b-weights-copy Job"],
            multiClusterGateway: ["the multi-cluster Gateway controller"],
            // us-east5 buys in both of its v6e zones: a pool per zone.
            nodes: [
                "tpu-inference-us-east5-system nodes",
                "tpu-inference-us-east5-tpu-b-pool nodes",
                "tpu-inference-us-east5-tpu-pool nodes",
                "tpu-inference-us-south1-system nodes",
                "tpu-inference-us-south1-tpu-pool nodes",
            ],
        },
    ],
])("the shipped %s stack's runtime contracts", (stack, expected) => {
    let needs: Need[];
    let bindings: Binding[];
    let resources: RecordedResource[];
    beforeAll(async () => {
        const run = await shippedRun(stack);
        resources = run.resources;
        needs = needsOf(run.resources, identityOf(run.project.config["gcp:project"]));
        bindings = bindingsOf(run.resources);
    });

    test("every workload's every call is granted on a resource its binding's condition admits", () => {
        expect(instances(needs)).toEqual(expected);
        expect(unmetNeeds(needs, bindings)).toEqual([]);
    });

    test("no binding grants a role beyond what a call needs", () => {
        expect(excessBindings(needs, bindings)).toEqual([]);
    });

    test("every wait before Ready fits the startup probe, at the pessimistic figures and the multi-host group's whole wait", () => {
        expect(startPathProblems(resources)).toEqual([]);
    });

    test("the emitted objects build every hop of the request path, each health check included", () => {
        expect(requestPathProblems(resources, stack === "istio" || stack === "fleet" ? stack : "gke")).toEqual([]);
    });
});

describe("runtime contracts of two services: one staged from Hugging Face and autoscaled, one from a team's own bucket", () => {
    let resources: RecordedResource[];
    const identity = identityOf("acme-inference");
    beforeAll(async () => {
        const graph = await runProgram({
            tpuMaxNodes: "4",
            models: JSON.stringify([
                { name: "qwen", pattern: "pattern3", autoscaling: { minReplicas: 2, maxReplicas: 3 } },
                { name: "mine", pattern: "pattern1", modelUri: "gs://team-models/llama/8b", weightsGb: 16, layers: 32 },
            ]),
        });
        resources = graph.resources;
    });

    test("each server is granted its own weights, its bucket and its cache, and nothing of the other's", () => {
        const needs = needsOf(resources, identity);
        const bindings = bindingsOf(resources);
        expect(instances(needs)).toMatchObject({
            modelServer: ["mine server (mine-server)", "qwen server (qwen-server)"],
            keda: ["KEDA's operator"],
        });
        expect(unmetNeeds(needs, bindings)).toEqual([]);
        expect(excessBindings(needs, bindings)).toEqual([]);
        // Swap the members: neither server may read the other's weights.
        const swapped = needs
            .filter((need) => need.workload === "modelServer" && need.call.on === "weightsObject")
            .map((need) => ({
                ...need,
                member: need.member.replace(/sa\/(mine|qwen)-server$/, (_, name) => `sa/${name === "mine" ? "qwen" : "mine"}-server`),
            }));
        expect(unmetNeeds(swapped, bindings)).toHaveLength(swapped.length);
    });

    test("the check fails without the bucket reader grant: the streamer's get_bucket and listing are refused", () => {
        const needs = needsOf(resources, identity);
        const bindings = bindingsOf(resources).filter((binding) => binding.name !== "mine-weights-weights-bucket");
        expect(unmetNeeds(needs, bindings).map((line) => line.split(", for ")[0])).toEqual([
            "mine server (mine-server): storage.buckets.get on projects/_/buckets/team-models",
            "mine server (mine-server): storage.objects.list on projects/_/buckets/team-models",
        ]);
    });

    test("an object grant's prefix condition admits its objects only, never the bucket or a neighbouring prefix", () => {
        const needs = needsOf(resources, identity).filter((need) => need.who.startsWith("mine server") && need.call.on === "weightsObject");
        const objectGrant = bindingsOf(resources).filter((binding) => binding.name === "mine-weights-read-weights");
        expect(unmetNeeds(needs, objectGrant)).toEqual([]);
        const elsewhere = needs.map((need) => ({ ...need, resourceName: need.resourceName.replace("/llama/8b/", "/llama/70b/") }));
        expect(unmetNeeds(elsewhere, objectGrant)).toHaveLength(elsewhere.length);
        const bucketNeeds = needsOf(resources, identity).filter(
            (need) => need.who.startsWith("mine server") && need.call.on === "weightsBucket",
        );
        expect(unmetNeeds(bucketNeeds, objectGrant)).toHaveLength(bucketNeeds.length);
    });

    test("a listing condition on the list-prefix attribute is flagged: role bindings do not support Cloud Storage API attributes", () => {
        const needs = needsOf(resources, identity);
        const listing: Binding = {
            name: "listing",
            on: "projects/_/buckets/team-models",
            role: "roles/storage.objectViewer",
            member: needs.find((need) => need.who.startsWith("mine server"))!.member,
            condition: 'api.getAttribute("storage.googleapis.com/objectListPrefix", "").startsWith("llama/8b/")',
        };
        expect(excessBindings(needs, [listing])).toEqual([
            "listing's condition reads a Cloud Storage API attribute, which role bindings do not support",
        ]);
    });
});

describe("the start path check", () => {
    /** A multi-host service's objects as the program emitted them before: a 720 s startup window and a 900 s Ray wait. */
    function emitted(window: number, rayTimeout: number, pessimistic: number): RecordedResource[] {
        const resource = (type: string, inputs: unknown) => ({ type, inputs }) as unknown as RecordedResource;
        return [
            resource("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService", {
                metadata: {
                    name: "llama-70b",
                    namespace: "llm-inference",
                    annotations: {
                        "gke-tpu-inference/cold-start-pessimistic-seconds": String(pessimistic),
                        "pulumi.com/timeoutSeconds": String(1800 + window),
                    },
                },
                spec: { template: { containers: [{ startupProbe: { periodSeconds: 5, failureThreshold: window / 5 } }] }, worker: {} },
            }),
            resource("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceServiceConfig", {
                metadata: { name: "kserve-config-llm-worker-pipeline-parallel", namespace: "llm-inference" },
                spec: {
                    template: {
                        containers: [{ command: ["/bin/bash", "-c", `bash leader --ray_init_timeout=${rayTimeout} && exec vllm serve`] }],
                    },
                },
            }),
        ];
    }

    test("catches a startup window shorter than the wait before vLLM starts, and a Ray wait the estimate does not count", () => {
        expect(startPathProblems(emitted(720, 900, 2106))).toEqual([
            "llama-70b: the startup probe allows 720 s, less than its pessimistic start of 2106 s",
            "llama-70b: the preset's Ray wait (1800 s at most) is not the one its pessimistic start of 2106 s counts",
        ]);
        expect(startPathProblems(emitted(2160, 300, 2106))).toEqual([]);
    });
});

describe("the request path check", () => {
    test("every hop of each provider's table has a check", () => {
        const hops = new Set(Object.values(REQUEST_PATHS).flatMap((hops) => Object.keys(hops)));
        expect([...hops].filter((hop) => !CHECKED_HOPS.includes(hop))).toEqual([]);
    });

    test("catches an EPP on another port, a named route rule and a vLLM probe over HTTPS", async () => {
        const run = await shippedRun("multimodel");
        const broken = JSON.parse(JSON.stringify(run.resources)) as RecordedResource[];
        const inputs = (type: string, name: string) =>
            broken.find((resource) => resource.type === type && resource.name === name)!.inputs as any; // eslint-disable-line @typescript-eslint/no-explicit-any
        const service = inputs("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService", "qwen2-3b-llmisvc");
        const picker = service.spec.router.scheduler.template.containers[0];
        picker.command[picker.command.indexOf("--grpc-port") + 1] = "9003";
        service.spec.template.containers[0].readinessProbe.httpGet.scheme = "HTTPS";
        inputs(
            "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceServiceConfig",
            "serving-router-route",
        ).spec.router.route.http.spec.rules[4].name = "v1-model-routing";
        expect(requestPathProblems(broken, "gke")).toEqual([
            "routeToPool: rule 4 is named v1-model-routing: istiod would key every service's EPP by it",
            "routeToPool: llm-inference/qwen2-3b-kserve-route reaches another service's InferencePool",
            "endpointPicker: qwen2-3b's EPP does not serve ext_proc on 9002, where KServe's pool calls it",
            "poolToVllm: qwen2-3b's probes are not HTTP on 8000",
        ]);
    });
});

describe("the fleet's contracts and request path checks", () => {
    let resources: RecordedResource[];
    let identity: Identity;
    beforeAll(async () => {
        const run = await shippedRun("fleet");
        resources = run.resources;
        identity = identityOf(run.project.config["gcp:project"]);
    });
    const agent = () => `serviceAccount:service-${identity.projectNumber}@gcp-sa-multiclusteringress.iam.gserviceaccount.com`;
    const controllerGaps = (bindings: Binding[]) =>
        unmetNeeds(
            needsOf(resources, identity).filter((need) => need.workload === "multiClusterGateway"),
            bindings,
        ).map((line) => line.split(" on ")[0]);

    test("the controller's cluster calls need the guide's container.admin, its load-balancer calls its own service agent role: the stack grants both", () => {
        const bindings = bindingsOf(resources);
        expect(controllerGaps(bindings)).toEqual([]);
        // The agent's own role reads clusters but not their credentials: that is what the guide's container.admin adds.
        expect(controllerGaps(bindings.filter((binding) => binding.role !== "roles/container.admin"))).toEqual([
            "the multi-cluster Gateway controller: container.clusters.getCredentials",
        ]);
        // container.admin carries no Compute Engine permission: without the agent role, no load balancer.
        expect(controllerGaps(bindings.filter((binding) => binding.role !== "roles/multiclusteringress.serviceAgent"))).toEqual([
            "the multi-cluster Gateway controller: compute.backendServices.create",
            "the multi-cluster Gateway controller: compute.healthChecks.create",
            "the multi-cluster Gateway controller: compute.urlMaps.create",
            "the multi-cluster Gateway controller: compute.targetHttpsProxies.create",
            "the multi-cluster Gateway controller: compute.globalForwardingRules.create",
            "the multi-cluster Gateway controller: compute.networkEndpointGroups.use",
        ]);
        expect(bindings.filter((binding) => binding.member === agent()).map((binding) => binding.role)).toEqual([
            "roles/container.admin",
            "roles/multiclusteringress.serviceAgent",
        ]);
    });

    test("a firewall rule from every proxy-only range on vLLM's and the EPP's ports closes the proxy hop", () => {
        const ranges = resources
            .filter((resource) => resource.type === "gcp:compute/subnetwork:Subnetwork")
            .map((resource) => resource.inputs as { purpose?: string; ipCidrRange: string })
            .filter((subnet) => subnet.purpose === "GLOBAL_MANAGED_PROXY")
            .map((subnet) => subnet.ipCidrRange);
        const fromProxies = (resource: RecordedResource) =>
            resource.type === "gcp:compute/firewall:Firewall" &&
            ((resource.inputs as { sourceRanges?: string[] }).sourceRanges ?? []).some((range) => ranges.includes(range));
        // The stack's own rule (components/infrastructure/network.ts), replaced below by rules of chosen ports.
        expect(resources.filter(fromProxies).map((resource) => resource.name)).toEqual(["tpu-inference-proxy-ingress"]);
        const rule = (ports: string[]) =>
            ({
                type: "gcp:compute/firewall:Firewall",
                inputs: { direction: "INGRESS", sourceRanges: ranges, allows: [{ protocol: "tcp", ports }] },
            }) as unknown as RecordedResource;
        const proxyHop = (rules: RecordedResource[]) =>
            requestPathProblems([...resources.filter((resource) => !fromProxies(resource)), ...rules], "fleet").filter((line) =>
                line.startsWith("proxyFirewall"),
            );
        const closed = (ports: string[]) =>
            ranges.flatMap((range) =>
                ports.map((port) => `proxyFirewall: no firewall rule admits the proxy-only range ${range} on ${port}`),
            );
        expect(requestPathProblems(resources, "fleet").filter((line) => line.startsWith("proxyFirewall"))).toEqual([]);
        expect(proxyHop([])).toEqual(closed(["8000", "9002"]));
        expect(proxyHop([rule(["8000", "9002"])])).toEqual([]);
        expect(proxyHop([rule(["8000"])])).toEqual(closed(["9002"]));
    });

    test("catches a route with a port, a member that does not export, a health check on the serving port and a Gateway missing a region", () => {
        const broken = (JSON.parse(JSON.stringify(resources)) as RecordedResource[]).filter(
            (resource) => resource.name !== "qwen2-3b-us-south1-pool",
        );
        const inputs = (type: string, name: string) =>
            broken.find((resource) => resource.type === type && resource.name === name)!.inputs as any; // eslint-disable-line @typescript-eslint/no-explicit-any
        inputs("kubernetes:gateway.networking.k8s.io/v1:HTTPRoute", "tpu-inference-qwen2-3b-route").spec.rules[0].backendRefs[0].port =
            8000;
        delete inputs("kubernetes:networking.gke.io/v1:HealthCheckPolicy", "tpu-inference-qwen2-3b-health").spec.default.config
            .httpHealthCheck.portSpecification;
        inputs("kubernetes:gateway.networking.k8s.io/v1:Gateway", "tpu-inference-gateway").spec.addresses.pop();
        expect(requestPathProblems(broken, "fleet").filter((line) => !line.startsWith("proxyFirewall"))).toEqual([
            "clientToGateway: the Gateway has no address in us-south1",
            "routeToImport: llm-inference/qwen2-3b-fleet does not send every rule to the import qwen2-3b-fleet from the HTTPS listener",
            "memberPool: qwen2-3b-fleet is exported by 1 of the 2 members running it",
            "importHealthCheck: qwen2-3b-fleet is not health-checked over HTTP on 8000 /health",
        ]);
    });
});
