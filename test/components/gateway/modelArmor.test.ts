import * as k8s from "@pulumi/kubernetes";
import { run } from "@bufbuild/cel";
import { ModelArmor, screenedRequestsMatcher } from "../../../components/gateway/modelArmor";
import { CrdValidator } from "../../crds";
import { record, testProvider } from "../../harness";

describe("ModelArmor", () => {
    test("screens the inference paths at the root and under a service's prefix, nothing else", () => {
        const matches = (path: string) => run(screenedRequestsMatcher(), { request: { path } });
        expect(matches("/v1/chat/completions")).toBe(true);
        expect(matches("/llm-inference/qwen/v1/completions")).toBe(true);
        expect(matches("/llm-inference/qwen/v1/models")).toBe(false);
        expect(matches("/health")).toBe(false);
    });

    test("a template in the region, the guide's roles for the Service Extensions agent, and an extension failing closed that waits for both", async () => {
        const graph = await record(() => {
            const provider = testProvider();
            const gatewayNs = new k8s.core.v1.Namespace("edge-ns", { metadata: { name: "edge" } }, { provider });
            new ModelArmor("screen", {
                provider,
                project: "acme-inference",
                projectNumber: "123456789012",
                region: "europe-west4",
                gateway: { namespace: gatewayNs.metadata.name, name: "llm" },
                manageApi: true,
            });
        });
        const template = graph.get("gcp:modelarmor/template:Template", "screen-template");
        expect(template.inputs).toEqual({
            project: "acme-inference",
            location: "europe-west4",
            templateId: "llm-screening",
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
        expect(graph.ofType("gcp:projects/iAMMember:IAMMember").map((grant) => [grant.inputs.role, grant.inputs.member])).toEqual(
            [
                "roles/container.admin",
                "roles/modelarmor.calloutUser",
                "roles/serviceusage.serviceUsageConsumer",
                "roles/modelarmor.user",
            ].map((role) => [role, "serviceAccount:service-123456789012@gcp-sa-dep.iam.gserviceaccount.com"]),
        );
        const extension = graph.get("kubernetes:networking.gke.io/v1:GCPTrafficExtension", "screen-extension");
        const template_ = "projects/acme-inference/locations/europe-west4/templates/llm-screening";
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
                                timeout: "500ms",
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
