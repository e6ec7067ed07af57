/**
 * Lesson epp-alpn, the whole category: an endpoint picker serving TLS from an image of either name
 * (llm-d-router-endpoint-picker, llm-d-inference-scheduler) below the ALPN fix or with a tag that is no version, by
 * tag, tag and digest, or through a registry mirror, in an LLMInferenceService's or LLMInferenceServiceConfig's
 * scheduler or a Deployment, is caught; fixed versions, a digest alone, and plain gRPC (--secure-serving=false) are
 * left alone.
 */
import { endpointPickerMessages, requireFixedEndpointPickerImage as policy } from "../../../policies/requireFixedEndpointPickerImage";
import { EPP_MINIMUM_VERSIONS, endpointPickerProblem, judgeEndpointPicker } from "../../../policies/facts";
import { RecordedResource } from "../../../scripts/offline/recorder";
import { llmService, vllmContainer } from "../fixtures";
import { check, kube, resource } from "../harness";

type Obj = Record<string, unknown>;
const DIGEST = `sha256:${"a".repeat(64)}`;
const REGISTRIES = ["ghcr.io/llm-d", "europe-docker.pkg.dev/acme/mirror", "localhost:5000/llm-d"];

/** Images of `name` that lack the fix, and that have it (or cannot move). */
function images(name: string): { broken: string[]; safe: string[] } {
    const minimum = EPP_MINIMUM_VERSIONS[name];
    const [major, minor] = minimum.split(".").map(Number);
    const before = `v${major}.${minor - 1}.0`;
    return {
        broken: REGISTRIES.flatMap((registry) => [
            `${registry}/${name}:${before}`,
            `${registry}/${name}:${before.slice(1)}`,
            `${registry}/${name}:${before}@${DIGEST}`,
            `${registry}/${name}:main`,
            `${registry}/${name}:latest`,
        ]),
        safe: REGISTRIES.flatMap((registry) => [
            `${registry}/${name}:v${minimum}`,
            `${registry}/${name}:v${major}.${minor + 1}.0`,
            `${registry}/${name}:v${minimum}@${DIGEST}`,
            `${registry}/${name}@${DIGEST}`,
        ]),
    };
}

const epp = (image: string, args: string[] = []) => ({ name: "main", image, args });

/** Where an EPP container can sit, as the resource and the path the policy reports. */
const HOLDERS: Array<[string, (container: Obj) => RecordedResource, string]> = [
    [
        "an LLMInferenceService's scheduler",
        (container) => {
            const service = llmService(vllmContainer(), { name: "qwen" });
            ((service.inputs.spec as Obj).router as Obj).scheduler = { template: { containers: [container] } };
            return service;
        },
        "spec.router.scheduler.template.containers[0] (main)",
    ],
    [
        "an LLMInferenceServiceConfig's scheduler",
        (container) =>
            kube("serving.kserve.io/v1alpha2", "LLMInferenceServiceConfig", "qwen", {
                metadata: { name: "kserve-config-llm-scheduler", namespace: "models" },
                spec: { router: { scheduler: { template: { containers: [container] } } } },
            }),
        "spec.router.scheduler.template.containers[0] (main)",
    ],
    [
        "a Deployment rendered by a Helm v4 Chart",
        (container) =>
            kube(
                "apps/v1",
                "Deployment",
                "qwen",
                {
                    metadata: { name: "epp", namespace: "models" },
                    spec: { template: { metadata: { labels: { app: "epp" } }, spec: { containers: [container] } } },
                },
                { parent: resource("kubernetes:helm.sh/v4:Chart", "epp", {}) },
            ),
        "spec.template.spec.containers[0] (main)",
    ],
];

const verdict = async (resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);
const caught = (path: string, image: string) => [
    endpointPickerMessages.container("qwen", path, image, endpointPickerProblem(judgeEndpointPicker({ image }, EPP_MINIMUM_VERSIONS)!)!),
];

describe("lesson epp-alpn: every EPP image that serves TLS without ALPN h2", () => {
    describe.each(HOLDERS)("%s", (_, holder, path) => {
        test.each(Object.keys(EPP_MINIMUM_VERSIONS))("%s: unfixed and unversioned caught, fixed and digest-pinned clean", async (name) => {
            const { broken, safe } = images(name);
            for (const image of broken) {
                expect(await verdict([holder(epp(image))])).toEqual(caught(path, image));
                expect(await verdict([holder(epp(image, ["--secure-serving=true"]))])).toEqual(caught(path, image));
                // Plain gRPC needs no ALPN.
                expect(await verdict([holder(epp(image, ["--secure-serving=false"]))])).toEqual([]);
            }
            for (const image of safe) {
                expect(await verdict([holder(epp(image))])).toEqual([]);
            }
        });
    });

    test("the TLS a DestinationRule speaks to an unfixed EPP's KServe Service is reported where it is made", async () => {
        const image = "ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.8.0";
        const rule = kube("networking.istio.io/v1", "DestinationRule", "epp", {
            metadata: { name: "epp", namespace: "models" },
            spec: { host: "qwen-epp-service.models.svc.cluster.local", trafficPolicy: { tls: { mode: "SIMPLE" } } },
        });
        const picker = { image, repository: "llm-d-router-endpoint-picker", minimum: EPP_MINIMUM_VERSIONS["llm-d-router-endpoint-picker"] };
        expect(await verdict([HOLDERS[0][1](epp(image)), rule])).toEqual([
            ...caught(HOLDERS[0][2], image),
            endpointPickerMessages.destinationRule("models/epp", "qwen-epp-service.models.svc.cluster.local", picker),
        ]);
    });

    test("not this lesson's: other images named like no EPP", async () => {
        expect(await verdict([HOLDERS[2][1](epp("registry.k8s.io/gateway-api-inference-extension/bbr:v0.1.0"))])).toEqual([]);
    });
});
