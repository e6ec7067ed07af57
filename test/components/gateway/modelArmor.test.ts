import * as gcp from "@pulumi/gcp";
import * as k8s from "@pulumi/kubernetes";
import { run } from "@bufbuild/cel";
import { ModelArmor, screenedRequestsMatcher } from "../../../components/gateway/modelArmor";
import { CrdValidator } from "../../crds";
import { stackNames } from "../../../components/lib/names";
import { record, testProvider } from "../../harness";

describe("ModelArmor", () => {
    test("screens every request but a health check: whatever reaches a model, at the root or under a service's prefixes, with or without a query", () => {
        const matches = (path: string) => run(screenedRequestsMatcher(), { request: { path } });
        for (const path of [
            "/v1/chat/completions",
            "/llm-inference/qwen/v1/completions",
            "/llm-inference/qwen/v1/models",
            "/llm-inference/qwen/v1/embeddings",
            "/publishers/llm-inference/models/Qwen/Qwen2.5-3B-Instruct/v1/responses",
            "/invocations",
            "/llm-inference/qwen/invocations",
            "/llm-inference/qwen/health/../invocations",
        ]) {
            expect([path, matches(path)]).toEqual([path, true]);
        }
        for (const path of ["/health", "/llm-inference/qwen/health", "/publishers/llm-inference/models/Qwen/Qwen2.5-3B-Instruct/health"]) {
            expect([path, matches(path)]).toEqual([path, false]);
        }
    });

    test("a template in the region, the guide's roles for the Service Extensions agent, and an extension failing closed that waits for both", async () => {
        const graph = await record(() => {
            const provider = testProvider();
            const gatewayNs = new k8s.core.v1.Namespace("edge-ns", { metadata: { name: "edge" } }, { provider });
            const networkServices = new gcp.projects.Service("network-services", {
                project: "acme-inference",
                service: "networkservices.googleapis.com",
            });
            new ModelArmor("screen", {
                provider,
                project: "acme-inference",
                projectNumber: "123456789012",
                region: "europe-west4",
                gateway: { namespace: gatewayNs.metadata.name, name: "llm" },
                manageApi: true,
                names: stackNames("tpu-inference", "dev"),
                networkServices: [networkServices],
            });
        });
        const template = graph.get("gcp:modelarmor/template:Template", "screen-template");
        expect(template.inputs).toEqual({
            project: "acme-inference",
            location: "europe-west4",
            templateId: "tpu-inference-dev-screening",
            filterConfig: {
                raiSettings: {
                    raiFilters: ["SEXUALLY_EXPLICIT", "HATE_SPEECH", "HARASSMENT", "DANGEROUS"].map((filterType) => ({
                        filterType,
                        confidenceLevel: "MEDIUM_AND_ABOVE",
                    })),
                },
                sdpSettings: { basicConfig: { filterEnforcement: "ENABLED" } },
                piAndJailbreakFilterSettings: { filterEnforcement: "ENABLED", confidenceLevel: "MEDIUM_AND_ABOVE" },
                maliciousUriFilterSettings: { filterEnforcement: "ENABLED" },
            },
        });
        expect(graph.dependencyNames(template)).toEqual(["gcp:projects/service:Service screen-api"]);
        // The grants wait for Model Armor's API, the Network Services API and the agent generateServiceIdentity makes.
        const agent = graph.get("gcp:projects/serviceIdentity:ServiceIdentity", "screen-agent");
        expect(agent.inputs).toEqual({ project: "acme-inference", service: "networkservices.googleapis.com" });
        expect(graph.dependencyNames(agent)).toEqual(["gcp:projects/service:Service network-services"]);
        for (const grant of graph.ofType("gcp:projects/iAMMember:IAMMember")) {
            expect(graph.dependencyNames(grant)).toEqual([
                "gcp:projects/service:Service screen-api",
                "gcp:projects/serviceIdentity:ServiceIdentity screen-agent",
            ]);
        }
        expect(graph.ofType("gcp:projects/iAMMember:IAMMember").map((grant) => [grant.inputs.role, grant.inputs.member])).toEqual(
            [
                "roles/container.admin",
                "roles/modelarmor.calloutUser",
                "roles/serviceusage.serviceUsageConsumer",
                "roles/modelarmor.user",
            ].map((role) => [role, "serviceAccount:service-123456789012@gcp-sa-dep.iam.gserviceaccount.com"]),
        );
        const extension = graph.get("kubernetes:networking.gke.io/v1:GCPTrafficExtension", "screen-extension");
        const template_ = "projects/acme-inference/locations/europe-west4/templates/tpu-inference-dev-screening";
        expect(extension.inputs).toEqual({
            apiVersion: "networking.gke.io/v1",
            kind: "GCPTrafficExtension",
            metadata: { name: "llm-model-armor", namespace: "edge" },
            spec: {
                targetRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: "llm" }],
                extensionChains: [
                    {
                        name: "model-armor",
                        matchCondition: { celExpressions: [{ celMatcher: screenedRequestsMatcher() }] },
                        extensions: [
                            {
                                name: "model-armor",
                                googleAPIServiceName: "modelarmor.europe-west4.rep.googleapis.com",
                                timeout: "10s",
                                supportedEvents: [
                                    "RequestHeaders",
                                    "RequestBody",
                                    "ResponseHeaders",
                                    "ResponseBody",
                                    "RequestTrailers",
                                    "ResponseTrailers",
                                ],
                                failOpen: false,
                                metadata: {
                                    model_armor_settings: JSON.stringify([
                                        { model: "default", user_prompt_template_id: template_, model_response_template_id: template_ },
                                    ]),
                                },
                            },
                        ],
                    },
                ],
            },
        });
        expect(graph.dependencyNames(extension)).toEqual([
            "gcp:modelarmor/template:Template screen-template",
            "gcp:projects/iAMMember:IAMMember screen-container-admin",
            "gcp:projects/iAMMember:IAMMember screen-modelarmor-calloutuser",
            "gcp:projects/iAMMember:IAMMember screen-modelarmor-user",
            "gcp:projects/iAMMember:IAMMember screen-serviceusage-serviceusageconsumer",
            "kubernetes:core/v1:Namespace edge-ns",
        ]);
        expect(new CrdValidator().errors(extension.inputs)).toEqual([]);
    });
});
