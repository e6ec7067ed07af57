/**
 * Lesson https-app-protocol, the whole category: a Service (typed `k8s.core.v1.Service`, or rendered by a component)
 * in front of plain-HTTP vLLM (a workload's pods, or KServe's workload pods) whose port says TLS, by appProtocol
 * (`https`, `HTTPS`, `HTTP2`: HTTP/2 over TLS) or, without an appProtocol, by the name `https`, is caught; `http`,
 * `kubernetes.io/h2c` (cleartext), an appProtocol overriding the name, a sidecar's port, and vLLM serving TLS itself are
 * left alone.
 */
import { disallowHttpsAppProtocolToVllm as policy, httpsToVllmMessage } from "../../../policies/disallowHttpsAppProtocolToVllm";
import { KSERVE_CHILDREN } from "../../../policies/facts";
import { RecordedResource } from "../../../scripts/offline/recorder";
import { vllmContainer } from "../fixtures";
import { check, kube, resource } from "../harness";

type Obj = Record<string, unknown>;

const DECLARED = ["k8s.core.v1.Service", "kubernetes:yaml/v2:ConfigGroup", "kubernetes:helm.sh/v4:Chart", "kubernetes:yaml:ConfigFile"];
const service = (selector: Obj, port: Obj, how = DECLARED[0]) =>
    kube(
        "v1",
        "Service",
        "qwen",
        { metadata: { name: "qwen", namespace: "models" }, spec: { selector, ports: [{ port: 8000, targetPort: 8000, ...port }] } },
        { parent: how === DECLARED[0] ? undefined : resource(how, "manifests", {}) },
    );

const vllmPods = (container: Obj = vllmContainer({ ports: [{ containerPort: 8000, name: "http" }] }), sidecar?: Obj) =>
    kube("apps/v1", "Deployment", "vllm", {
        metadata: { name: "vllm", namespace: "models" },
        spec: { template: { metadata: { labels: { app: "vllm" } }, spec: { containers: [container, ...(sidecar ? [sidecar] : [])] } } },
    });

/** What a Service can select vLLM by: a workload's pod labels, or the labels KServe puts on a service's workload pods. */
const FRONTS: Array<[string, Obj, RecordedResource[]]> = [
    ["a Deployment's vLLM pods", { app: "vllm" }, [vllmPods()]],
    ["KServe's workload pods", KSERVE_CHILDREN.workloadLabels("qwen"), []],
];

const TLS_PORTS: Array<[Obj, string]> = [
    [{ appProtocol: "https" }, "appProtocol https"],
    [{ appProtocol: "HTTPS" }, "appProtocol HTTPS"],
    [{ appProtocol: "HTTP2" }, "appProtocol HTTP2"],
    [{ appProtocol: "http2" }, "appProtocol http2"],
    [{ name: "https" }, 'name "https"'],
    [{ name: "HTTPS" }, 'name "HTTPS"'],
    [{ name: "http", appProtocol: "https" }, "appProtocol https"],
];
const PLAIN_PORTS: Obj[] = [
    {},
    { name: "http" },
    { appProtocol: "http" },
    { appProtocol: "HTTP" },
    { appProtocol: "kubernetes.io/h2c" },
    { name: "https", appProtocol: "http" },
    { name: "https-metrics", appProtocol: "kubernetes.io/h2c" },
];

const verdict = async (resources: RecordedResource[]) => (await check(policy, resources)).map((finding) => finding.message);

describe("lesson https-app-protocol: every way a Service in front of vLLM says TLS", () => {
    describe.each(FRONTS)("selecting %s", (_, selector, pods) => {
        test.each(DECLARED)("declared by %s: TLS spellings caught, plain ones clean", async (how) => {
            for (const [port, declared] of TLS_PORTS) {
                expect(await verdict([...pods, service(selector, port, how)])).toEqual([httpsToVllmMessage("qwen", 8000, declared)]);
            }
            for (const port of PLAIN_PORTS) {
                expect(await verdict([...pods, service(selector, port, how)])).toEqual([]);
            }
        });
    });

    test("a Service port that reaches a sidecar, not vLLM, is not this lesson's", async () => {
        const pods = vllmPods(vllmContainer({ ports: [{ containerPort: 8000 }] }), {
            name: "proxy",
            image: "envoy:v1",
            ports: [{ containerPort: 8443 }],
        });
        expect(await verdict([pods, service({ app: "vllm" }, { port: 443, targetPort: 8443, appProtocol: "https" })])).toEqual([]);
        expect(await verdict([pods, service({ app: "vllm" }, { appProtocol: "https" })])).toEqual([
            httpsToVllmMessage("qwen", 8000, "appProtocol https"),
        ]);
    });

    test("vLLM serving TLS itself (--ssl-certfile) makes https right", async () => {
        const tls = vllmPods(
            vllmContainer({ args: ["/mnt/models", "--port=8000", "--ssl-certfile=/certs/tls.crt", "--ssl-keyfile=/certs/tls.key"] }),
        );
        expect(await verdict([tls, service({ app: "vllm" }, { appProtocol: "https" })])).toEqual([]);
    });

    test("a Service selecting other pods, or none, is not this lesson's", async () => {
        expect(await verdict([vllmPods(), service({ app: "web" }, { appProtocol: "https" })])).toEqual([]);
        expect(await verdict([vllmPods(), service({}, { appProtocol: "https" })])).toEqual([]);
    });
});
