import { errorOf, problemsOf } from "./parse";

describe("settings validation names the key, the value and what is allowed", () => {
    test.each<[string, Record<string, string>, string]>([
        [
            "global GatewayClass",
            { gatewayClass: "gke-l7-global-external-managed" },
            'gke-tpu-inference:gatewayClass = "gke-l7-global-external-managed" is a global GatewayClass, which never serves InferencePool backends; ' +
                "allowed: gke-l7-regional-external-managed, gke-l7-rilb or istio",
        ],
        [
            "a GatewayClass neither GKE nor Istio serves",
            { gatewayClass: "nginx" },
            'gke-tpu-inference:gatewayClass = "nginx" is a GatewayClass neither GKE nor Istio programs for InferencePool backends; allowed: gke-l7-regional-external-managed, gke-l7-rilb or istio',
        ],
        [
            "Istio's class with GKE's Gateway",
            { gatewayClass: "istio" },
            'gke-tpu-inference:gatewayClass = "istio" is Istio\'s class, which GKE does not program, but gke-tpu-inference:gatewayProvider = "gke"; allowed: empty, gke-l7-regional-external-managed or gke-l7-rilb (or gatewayProvider istio)',
        ],
        [
            "an Istio load balancer kind with GKE's Gateway",
            { gatewayLoadBalancer: "internal" },
            'gke-tpu-inference:gatewayLoadBalancer = "internal" chooses the kind of Istio\'s load balancer, but gke-tpu-inference:gatewayProvider = "gke", whose class chooses it; allowed: empty, with gatewayClass gke-l7-rilb for an internal one (or gatewayProvider istio)',
        ],
        [
            "GKE's class behind Istio",
            { gatewayProvider: "istio", gatewayClass: "gke-l7-rilb" },
            'gke-tpu-inference:gatewayClass = "gke-l7-rilb" is GKE\'s class, which Istio does not program, but gke-tpu-inference:gatewayProvider = "istio"; allowed: empty or istio (or gatewayProvider gke)',
        ],
        [
            "a proxy-only subnet behind Istio",
            { gatewayProvider: "istio", proxyOnlyCidr: "10.9.0.0/23" },
            'gke-tpu-inference:proxyOnlyCidr = "10.9.0.0/23" is for a proxy-only subnet, but gke-tpu-inference:gatewayProvider = "istio", whose passthrough Network Load Balancer needs none; allowed: empty (or gatewayProvider gke)',
        ],
        [
            "an unknown gateway provider",
            { gatewayProvider: "envoy-gateway" },
            'gke-tpu-inference:gatewayProvider = "envoy-gateway" is not a gateway provider; allowed: gke, istio',
        ],
        [
            "an unknown load balancer kind",
            { gatewayProvider: "istio", gatewayLoadBalancer: "global" },
            'gke-tpu-inference:gatewayLoadBalancer = "global" is not a load balancer kind; allowed: external, internal',
        ],
        [
            "namespace that is not a DNS label",
            { servingNamespace: "LLM_Models" },
            'gke-tpu-inference:servingNamespace = "LLM_Models" is not a DNS-1123 label; allowed: at most 63 lowercase letters, digits and hyphens, starting and ending with a letter or digit',
        ],
        [
            "TLS secret name that is not a DNS label",
            { gatewayTlsSecret: "tls.secret" },
            'gke-tpu-inference:gatewayTlsSecret = "tls.secret" is not a DNS-1123 label; allowed: at most 63 lowercase letters, digits and hyphens, starting and ending with a letter or digit',
        ],
        [
            "serving namespace shared with the Gateway",
            { servingNamespace: "inference-gateway" },
            "gke-tpu-inference:servingNamespace = \"inference-gateway\" is the Gateway's namespace; allowed: a namespace other than gke-tpu-inference:gatewayNamespace, so that model services never share the Gateway's",
        ],
        [
            "body-based routing with one model name on two services",
            {
                bodyBasedRouting: "true",
                models: JSON.stringify([
                    { name: "qwen", pattern: "pattern1" },
                    { name: "phi", pattern: "pattern1", modelUri: "hf://microsoft/Phi-3-mini-4k-instruct" },
                    { name: "qwen-again", pattern: "pattern1", modelName: "Qwen/Qwen2.5-3B-Instruct" },
                ]),
            },
            'gke-tpu-inference:models[2].modelName = "Qwen/Qwen2.5-3B-Instruct" is also models[0]\'s, and gke-tpu-inference:bodyBasedRouting routes a name to one service; allowed: a modelName no other service uses',
        ],
        [
            "a body-based router on a system pool of one node",
            { bodyBasedRouting: "true", systemMinNodes: "1", systemMaxNodes: "1" },
            "gke-tpu-inference:systemMaxNodes = 1 leaves the body-based router's second replica nowhere to run: its two replicas spread over system nodes; allowed: 2 or more (or bodyBasedRouting false)",
        ],
    ])("%s", (_case, values, message) => {
        expect(errorOf(values)).toBe(message);
    });
});

describe("values the cloud or the cluster would refuse", () => {
    test.each<[string, Record<string, string>, string]>([
        [
            "Kubernetes' own namespace",
            { servingNamespace: "kube-system" },
            'gke-tpu-inference:servingNamespace = "kube-system" is a namespace Kubernetes or the platform owns; allowed: a namespace of this stack\'s own, not default, kube-system, kube-public, kube-node-lease, gmp-system, gmp-public, cert-manager, lws-system, kserve, keda, istio-system',
        ],
        [
            "the default namespace",
            { gatewayNamespace: "default" },
            expect.stringContaining(
                'gke-tpu-inference:gatewayNamespace = "default" is a namespace Kubernetes or the platform owns',
            ) as unknown as string,
        ],
        [
            "a kube- namespace",
            { gatewayNamespace: "kube-gateway" },
            expect.stringContaining(
                'gke-tpu-inference:gatewayNamespace = "kube-gateway" is a namespace Kubernetes or the platform owns',
            ) as unknown as string,
        ],
        [
            "the platform's namespace",
            { servingNamespace: "kserve" },
            expect.stringContaining(
                'gke-tpu-inference:servingNamespace = "kserve" is a namespace Kubernetes or the platform owns',
            ) as unknown as string,
        ],
    ])("%s", (_, values, message) => {
        expect(problemsOf(values)).toEqual([message]);
    });
});
