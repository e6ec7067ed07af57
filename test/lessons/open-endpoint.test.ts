/**
 * Lesson open-endpoint, the whole category: however a stack writes its Gateway, its routes and their access control
 * (typed resources such as k8s.apiextensions.CustomResource, a v1 or v2 ConfigFile or ConfigGroup, a Helm v3 or v4 chart,
 * whose rendered objects reach the pack as the component's children), an external Gateway that lets anyone reach an
 * InferencePool or a vLLM Service, or serves one over plain HTTP, is caught; internal Gateways, protected ones and
 * redirect-only HTTP listeners are left alone; an allowlist of the whole internet is an advisory.
 */
import { disallowGatewayOpenToInternet as advisory } from "../../policies/disallowGatewayOpenToInternet";
import { openServiceMessage, requireGatewayAccessControl as policy } from "../../policies/requireGatewayAccessControl";
import { RecordedResource } from "../../scripts/offline/recorder";
import { llmService } from "../support/fixtures";
import { check, kube, resource } from "../support/harness";

describe("every spelling", () => {
    const SPELLINGS = [
        "typed",
        "kubernetes:yaml:ConfigFile",
        "kubernetes:yaml:ConfigGroup",
        "kubernetes:yaml/v2:ConfigFile",
        "kubernetes:yaml/v2:ConfigGroup",
        "kubernetes:helm.sh/v3:Chart",
        "kubernetes:helm.sh/v4:Chart",
    ];

    const HTTPS = {
        name: "https",
        protocol: "HTTPS",
        port: 443,
        tls: { mode: "Terminate", certificateRefs: [{ name: "inference-gateway-tls" }] },
        allowedRoutes: { namespaces: { from: "All" } },
    };
    const HTTP_SAME = { name: "http", protocol: "HTTP", port: 80, allowedRoutes: { namespaces: { from: "Same" } } };
    const HTTP_ALL = { name: "http", protocol: "HTTP", port: 80, allowedRoutes: { namespaces: { from: "All" } } };

    /** The objects of one stack, each written as `spelling` writes it: typed, or rendered by a component. */
    function written(spelling: string, objects: Array<[string, string, string, Record<string, unknown>]>): RecordedResource[] {
        const parent = spelling === "typed" ? undefined : resource(spelling, "rendered", {});
        return [
            ...(parent ? [parent] : []),
            ...objects.map(([apiVersion, kind, name, body]) =>
                kube(apiVersion, kind, parent ? `rendered:${name}` : name, body, parent ? { parent } : {}),
            ),
        ];
    }

    const gatewayObject = (
        className: string,
        listeners: unknown[],
        extra: Record<string, unknown> = {},
    ): [string, string, string, Record<string, unknown>] => [
        "gateway.networking.k8s.io/v1",
        "Gateway",
        "inference-gateway",
        { metadata: { name: "inference-gateway", namespace: "gateway" }, spec: { gatewayClassName: className, listeners, ...extra } },
    ];
    const backendPolicy = (
        target: { group: string; kind: string; name: string },
        defaults: Record<string, unknown>,
    ): [string, string, string, Record<string, unknown>] => [
        "networking.gke.io/v1",
        "GCPBackendPolicy",
        `${target.name}-backend`,
        { metadata: { name: target.name, namespace: "models" }, spec: { default: defaults, targetRef: target } },
    ];
    const POOL = { group: "inference.networking.k8s.io", kind: "InferencePool", name: "qwen-inference-pool" };
    const HTTP_SERVICE = { group: "", kind: "Service", name: "qwen-http" };
    /** vLLM's plain-HTTP Service in front of KServe's workload pods. */
    const vllmService: [string, string, string, Record<string, unknown>] = [
        "v1",
        "Service",
        "qwen-http",
        {
            metadata: { name: "qwen-http", namespace: "models" },
            spec: {
                selector: {
                    "app.kubernetes.io/part-of": "llminferenceservice",
                    "app.kubernetes.io/name": "qwen",
                    "kserve.io/component": "workload",
                },
                ports: [{ port: 8000, targetPort: 8000 }],
            },
        },
    ];
    /** A route on `sectionName` (every listener when undefined) to `backends`, or a redirect-only rule when `redirect`. */
    const route = (
        name: string,
        backends: Array<Record<string, unknown>>,
        options: { sectionName?: string; namespace?: string; redirect?: boolean } = {},
    ): [string, string, string, Record<string, unknown>] => [
        "gateway.networking.k8s.io/v1",
        "HTTPRoute",
        name,
        {
            metadata: { name, namespace: options.namespace ?? "models" },
            spec: {
                parentRefs: [
                    {
                        name: "inference-gateway",
                        namespace: "gateway",
                        ...(options.sectionName ? { sectionName: options.sectionName } : {}),
                    },
                ],
                rules: options.redirect
                    ? [{ filters: [{ type: "RequestRedirect", requestRedirect: { scheme: "https", statusCode: 301 } }] }]
                    : [{ backendRefs: backends }],
            },
        },
    ];
    const toPool = [{ group: "inference.networking.k8s.io", kind: "InferencePool", name: "qwen-inference-pool", port: 8000 }];
    const toService = [{ name: "qwen-http", port: 8000 }];
    /** KServe's service on the Gateway's HTTPS listener only. */
    const httpsService = (): RecordedResource => {
        const service = llmService();
        const inputs = withSection(service.inputs, "https");
        return { ...service, inputs, wire: { inputs, outputs: inputs } };
    };
    function withSection(inputs: Record<string, unknown>, sectionName: string): Record<string, unknown> {
        const spec = inputs.spec as { router: Record<string, unknown> };
        return {
            ...inputs,
            spec: {
                ...spec,
                router: {
                    ...spec.router,
                    route: { http: { spec: { parentRefs: [{ name: "inference-gateway", namespace: "gateway", sectionName }] } } },
                },
            },
        };
    }

    const messages = async (resources: RecordedResource[], which = policy) =>
        (await check(which, resources)).map((finding) => `${finding.level}: ${finding.message}`);

    const UNGUARDED_POOL =
        "mandatory: Gateway gateway/inference-gateway is external and sends InferencePool models/qwen-inference-pool requests from anyone: no GCPBackendPolicy targeting it sets spec.default.securityPolicy (Cloud Armor) or iap.enabled.";
    const UNGUARDED_SERVICE =
        "mandatory: Gateway gateway/inference-gateway is external and sends Service models/qwen-http requests from anyone: no GCPBackendPolicy targeting it sets spec.default.securityPolicy (Cloud Armor) or iap.enabled.";
    const UNGUARDED_WORKLOAD = UNGUARDED_SERVICE.replace("qwen-http", "qwen-kserve-workload-svc");
    const ISTIO_OPEN =
        "mandatory: Gateway gateway/inference-gateway is external and routes to inference backends from anyone: no ALLOW AuthorizationPolicy applies to it, no DENY rule refuses an unknown source, and its Service sets no loadBalancerSourceRanges.";
    const istioAllowsAny = (policy: string) =>
        `mandatory: Gateway gateway/inference-gateway is external and routes to inference backends from anyone: AuthorizationPolicy ${policy} allows requests from any source (Istio allows what any ALLOW policy matches), and its Service sets no loadBalancerSourceRanges.`;
    const istioAllowsToken = (policy: string) =>
        `mandatory: Gateway gateway/inference-gateway is external and routes to inference backends from anyone: AuthorizationPolicy ${policy} admits anyone holding a token its RequestAuthentication accepts, with no condition on its claims but the issuer (an issuer such as accounts.google.com gives anyone one), and its Service sets no loadBalancerSourceRanges.`;
    const plainHttp = (backend: string) =>
        `mandatory: Gateway gateway/inference-gateway serves ${backend} over plain HTTP on listener "http" (port 80): attach the route to an HTTPS listener (sectionName; for KServe's route, in router.gateway.refs) and let HTTP only redirect to https.`;

    describe("lesson open-endpoint: every way a stack exposes an inference backend", () => {
        describe.each(SPELLINGS)("%s", (spelling) => {
            const gke = (listeners: unknown[], ...rest: Array<[string, string, string, Record<string, unknown>]>) =>
                written(spelling, [gatewayObject("gke-l7-regional-external-managed", listeners), ...rest]);

            test("GKE: a route to a pool or to vLLM's Service with no Cloud Armor or IAP is caught; with either it is clean", async () => {
                expect(
                    await messages(
                        gke(
                            [HTTPS],
                            route("pool", toPool, { sectionName: "https" }),
                            route("svc", toService, { sectionName: "https" }),
                            vllmService,
                        ),
                    ),
                ).toEqual([UNGUARDED_SERVICE, UNGUARDED_POOL]);
                expect(
                    await messages(
                        gke(
                            [HTTPS],
                            route("pool", toPool, { sectionName: "https" }),
                            route("svc", toService, { sectionName: "https" }),
                            vllmService,
                            backendPolicy(POOL, { timeoutSec: 600, securityPolicy: "gateway-access" }),
                            backendPolicy(HTTP_SERVICE, {
                                iap: { enabled: true, clientID: "1-x.apps.googleusercontent.com", oauth2ClientSecret: { name: "iap" } },
                            }),
                        ),
                    ),
                ).toEqual([]);
                // A policy with only a timeout guards nothing.
                expect(
                    await messages(gke([HTTPS], route("pool", toPool, { sectionName: "https" }), backendPolicy(POOL, { timeoutSec: 600 }))),
                ).toEqual([UNGUARDED_POOL]);
            });

            test("GKE: routes on the plain-HTTP listener are caught; a redirect-only rule there, or a listener that does not admit the route, is clean", async () => {
                const guarded = backendPolicy(POOL, { securityPolicy: "gateway-access" });
                expect(await messages(gke([HTTPS, HTTP_ALL], route("pool", toPool), guarded))).toEqual([
                    plainHttp("InferencePool models/qwen-inference-pool"),
                ]);
                expect(await messages(gke([HTTPS, HTTP_ALL], route("pool", toPool, { sectionName: "http" }), guarded))).toEqual([
                    plainHttp("InferencePool models/qwen-inference-pool"),
                ]);
                expect(
                    await messages(
                        gke(
                            [HTTPS, HTTP_ALL],
                            route("pool", toPool, { sectionName: "https" }),
                            guarded,
                            route("redirect", [], { namespace: "gateway", redirect: true }),
                        ),
                    ),
                ).toEqual([]);
                // The stack's shape: HTTP admits only the Gateway's namespace, where the redirect lives.
                expect(await messages(gke([HTTPS, HTTP_SAME], route("pool", toPool), guarded))).toEqual([]);
                // A route to something that is not an inference backend is not this lesson's.
                expect(await messages(gke([HTTP_ALL], route("web", [{ name: "website", port: 80 }])))).toEqual([]);
            });

            test("GKE: an internal class is left alone", async () => {
                expect(await messages(written(spelling, [gatewayObject("gke-l7-rilb", [HTTP_ALL]), route("pool", toPool)]))).toEqual([]);
            });

            test("another implementation's class: never mandatory, and the advisory says what could not be judged; a class naming istiod's controller is Istio's", async () => {
                for (const className of ["kserve-gateway", "eg", "nginx", "cilium"]) {
                    for (const listeners of [[HTTPS], [HTTP_ALL]]) {
                        const stack = written(spelling, [
                            gatewayObject(className, listeners),
                            route("pool", toPool),
                            route("svc", toService),
                            vllmService,
                        ]);
                        expect(await messages(stack)).toEqual([]);
                        expect(await messages(stack, advisory)).toEqual([
                            `advisory: Gateway gateway/inference-gateway routes to InferencePool models/qwen-inference-pool, Service models/qwen-http, but its class "${className}" is neither GKE's nor Istio's: whether it is reachable from outside, who may call it and whether it serves only HTTPS could not be judged; restrict it to its callers and serve it over HTTPS only.`,
                        ]);
                    }
                }
                const istioClass: [string, string, string, Record<string, unknown>] = [
                    "gateway.networking.k8s.io/v1",
                    "GatewayClass",
                    "mesh",
                    { metadata: { name: "mesh" }, spec: { controllerName: "istio.io/gateway-controller" } },
                ];
                expect(await messages(written(spelling, [istioClass, gatewayObject("mesh", [HTTPS]), route("pool", toPool)]))).toEqual([
                    ISTIO_OPEN,
                ]);
            });

            test("Istio: an ALLOW AuthorizationPolicy limited to sources or principals, or loadBalancerSourceRanges, protects it; an internal Service is left alone", async () => {
                const istio = (extra: Record<string, unknown>, ...rest: Array<[string, string, string, Record<string, unknown>]>) =>
                    written(spelling, [gatewayObject("istio", [HTTPS], extra), route("pool", toPool, { sectionName: "https" }), ...rest]);
                const authz = (spec: Record<string, unknown>): [string, string, string, Record<string, unknown>] => [
                    "security.istio.io/v1",
                    "AuthorizationPolicy",
                    "allow",
                    {
                        metadata: { name: "allow", namespace: "gateway" },
                        spec: { targetRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: "inference-gateway" }], ...spec },
                    },
                ];
                expect(await messages(istio({}))).toEqual([ISTIO_OPEN]);
                expect(
                    await messages(
                        istio({}, authz({ action: "ALLOW", rules: [{ from: [{ source: { ipBlocks: ["203.0.113.0/24"] } }] }] })),
                    ),
                ).toEqual([]);
                // Any token of an issuer anyone can get a token from lets anyone in, unless a claim condition names who.
                const byToken = { from: [{ source: { requestPrincipals: ["https://accounts.google.com/*"] } }] };
                expect(await messages(istio({}, authz({ rules: [byToken] })))).toEqual([istioAllowsToken("gateway/allow")]);
                expect(
                    await messages(
                        istio(
                            {},
                            authz({
                                rules: [
                                    {
                                        ...byToken,
                                        when: [{ key: "request.auth.claims[email]", values: ["ci@acme.iam.gserviceaccount.com"] }],
                                    },
                                ],
                            }),
                        ),
                    ),
                ).toEqual([]);
                // No rules: the policy allows nothing, so nobody gets in.
                expect(await messages(istio({}, authz({ action: "ALLOW" })))).toEqual([]);
                // A rule that matches any source, a DENY policy, or a RequestAuthentication alone is no access control.
                expect(await messages(istio({}, authz({ rules: [{ to: [{ operation: { paths: ["/v1/*"] } }] }] })))).toEqual([
                    istioAllowsAny("gateway/allow"),
                ]);
                expect(
                    await messages(
                        istio({}, authz({ action: "DENY", rules: [{ from: [{ source: { ipBlocks: ["198.51.100.0/24"] } }] }] })),
                    ),
                ).toEqual([ISTIO_OPEN]);
                const overlay = (service: string): [string, string, string, Record<string, unknown>] => [
                    "v1",
                    "ConfigMap",
                    "overlay",
                    { metadata: { name: "inference-gateway-service", namespace: "gateway" }, data: { service } },
                ];
                const parametersRef = {
                    infrastructure: { parametersRef: { group: "", kind: "ConfigMap", name: "inference-gateway-service" } },
                };
                expect(await messages(istio(parametersRef, overlay("spec:\n  loadBalancerSourceRanges:\n  - 203.0.113.0/24\n")))).toEqual(
                    [],
                );
                expect(await messages(istio(parametersRef, overlay("spec:\n  externalTrafficPolicy: Local\n")))).toEqual([ISTIO_OPEN]);
                expect(
                    await messages(istio({ infrastructure: { annotations: { "networking.gke.io/load-balancer-type": "Internal" } } })),
                ).toEqual([]);
            });

            test("opened to the whole internet: the mandatory policy is met, the advisory one says so", async () => {
                const armor = resource("gcp:compute/regionSecurityPolicy:RegionSecurityPolicy", "gateway-access", {
                    name: "gateway-access",
                    type: "CLOUD_ARMOR",
                    rules: [
                        {
                            priority: 1000,
                            action: "throttle",
                            match: { versionedExpr: "SRC_IPS_V1", config: { srcIpRanges: ["0.0.0.0/0"] } },
                        },
                        {
                            priority: 2147483647,
                            action: "deny(403)",
                            match: { versionedExpr: "SRC_IPS_V1", config: { srcIpRanges: ["*"] } },
                        },
                    ],
                });
                const resources = [
                    ...gke(
                        [HTTPS],
                        route("pool", toPool, { sectionName: "https" }),
                        backendPolicy(POOL, { securityPolicy: "gateway-access" }),
                    ),
                    armor,
                ];
                expect(await messages(resources)).toEqual([]);
                expect(await messages(resources, advisory)).toEqual([
                    "advisory: Cloud Armor policy gateway-access lets every address through (the rule at priority 1000): the Gateway gateway/inference-gateway is open to the internet, and only what its model servers check themselves stands before them.",
                ]);
                // The same allowlist as a rule resource of its own, naming its policy.
                const separate = [
                    ...gke(
                        [HTTPS],
                        route("pool", toPool, { sectionName: "https" }),
                        backendPolicy(POOL, { securityPolicy: "gateway-access" }),
                    ),
                    resource("gcp:compute/regionSecurityPolicy:RegionSecurityPolicy", "gateway-access", {
                        name: "gateway-access",
                        type: "CLOUD_ARMOR",
                        rules: [
                            {
                                priority: 2147483647,
                                action: "deny(403)",
                                match: { versionedExpr: "SRC_IPS_V1", config: { srcIpRanges: ["*"] } },
                            },
                        ],
                    }),
                    resource("gcp:compute/regionSecurityPolicyRule:RegionSecurityPolicyRule", "allow-all", {
                        securityPolicy: "gateway-access",
                        priority: 1000,
                        action: "allow",
                        match: { versionedExpr: "SRC_IPS_V1", config: { srcIpRanges: ["*"] } },
                    }),
                ];
                expect(await messages(separate)).toEqual([]);
                expect(await messages(separate, advisory)).toEqual([
                    "advisory: Cloud Armor policy gateway-access lets every address through (the rule at priority 1000): the Gateway gateway/inference-gateway is open to the internet, and only what its model servers check themselves stands before them.",
                ]);
                const istioOpen = written(spelling, [
                    gatewayObject("istio", [HTTPS]),
                    route("pool", toPool, { sectionName: "https" }),
                    [
                        "security.istio.io/v1",
                        "AuthorizationPolicy",
                        "allow",
                        {
                            metadata: { name: "allow", namespace: "gateway" },
                            spec: {
                                targetRefs: [{ kind: "Gateway", name: "inference-gateway" }],
                                rules: [{ from: [{ source: { ipBlocks: ["0.0.0.0/0"] } }] }],
                            },
                        },
                    ],
                ]);
                expect(await messages(istioOpen)).toEqual([]);
                expect(await messages(istioOpen, advisory)).toEqual([
                    "advisory: AuthorizationPolicy gateway/allow lets every address into Gateway gateway/inference-gateway (0.0.0.0/0): the Gateway is open to the internet, and only what its model servers check themselves stands before them.",
                ]);
            });
        });

        describe("KServe's LLMInferenceService (its InferencePool made by the controller)", () => {
            const gw = written("typed", [gatewayObject("gke-l7-regional-external-managed", [HTTPS, HTTP_ALL])]);
            const guarded = written("typed", [backendPolicy(POOL, { securityPolicy: "gateway-access" })]);
            const onHttp = plainHttp("InferencePool models/qwen-inference-pool");
            /** The namespace's route template, attached to the HTTPS listener. */
            const template = kube("serving.kserve.io/v1alpha2", "LLMInferenceServiceConfig", "route-template", {
                metadata: { name: "kserve-config-llm-router-route", namespace: "models" },
                spec: {
                    router: {
                        route: {
                            http: {
                                spec: {
                                    parentRefs: [{ name: "inference-gateway", namespace: "gateway", sectionName: "https" }],
                                    rules: [
                                        {
                                            backendRefs: [
                                                { ...POOL, name: "{{ ChildName .ObjectMeta.Name `-inference-pool` }}", port: 8000 },
                                            ],
                                        },
                                    ],
                                },
                            },
                        },
                    },
                },
            });
            const withRefs = (refs: Array<Record<string, unknown>>, ownRoute?: Record<string, unknown>): RecordedResource => {
                const service = llmService();
                const spec = service.inputs.spec as { router: Record<string, unknown> };
                const inputs = {
                    ...service.inputs,
                    spec: { ...spec, router: { ...spec.router, gateway: { refs }, ...(ownRoute ? { route: ownRoute } : {}) } },
                };
                return { ...service, inputs, wire: { inputs, outputs: inputs } };
            };

            test("on an external GKE Gateway without a guarded pool it is caught; with Cloud Armor and the HTTPS listener in its gateway refs it is clean", async () => {
                const https = withRefs([{ name: "inference-gateway", namespace: "gateway", sectionName: "https" }]);
                // Without a template in the program, KServe's own sends every other path to the workload Service.
                expect(await messages([...gw, https])).toEqual([UNGUARDED_WORKLOAD, UNGUARDED_POOL]);
                expect(await messages([...gw, ...guarded, https])).toEqual([UNGUARDED_WORKLOAD]);
                expect(await messages([...gw, ...guarded, template, https])).toEqual([]);
            });

            test("KServe's workload Service is a model backend too: the route of a service without a scheduler, or a route the program writes to it", async () => {
                const https = withRefs([{ name: "inference-gateway", namespace: "gateway", sectionName: "https" }]);
                const spec = https.inputs.spec as { router: Record<string, unknown> };
                const router = Object.fromEntries(Object.entries(spec.router).filter(([key]) => key !== "scheduler"));
                const inputs = { ...https.inputs, spec: { ...spec, router } };
                const withoutScheduler = { ...https, inputs, wire: { inputs, outputs: inputs } };
                expect(await messages([...gw, ...guarded, withoutScheduler])).toEqual([UNGUARDED_WORKLOAD]);
                // A template's InferencePool rule points at the workload Service when there is no scheduler.
                expect(await messages([...gw, ...guarded, template, withoutScheduler])).toEqual([UNGUARDED_WORKLOAD]);
                const toWorkload = written("typed", [
                    route("direct", [{ name: "qwen-kserve-workload-svc", port: 8000 }], { sectionName: "https" }),
                ]);
                expect(await messages([...gw, ...guarded, template, https, ...toWorkload])).toEqual([UNGUARDED_WORKLOAD]);
            });

            test("KServe writes the gateway refs over the route's parentRefs: a listener named only in the template or the service's own route spec does not keep it off plain HTTP", async () => {
                // The refs name no listener: the route attaches to every listener that admits it, whatever the template says.
                expect(await messages([...gw, ...guarded, template, llmService()])).toEqual([onHttp]);
                // Its own route spec names no rules: KServe's template's apply, the workload Service's catch-all with them.
                expect(await messages([...gw, ...guarded, httpsService()])).toEqual([
                    UNGUARDED_WORKLOAD,
                    plainHttp("InferencePool models/qwen-inference-pool, Service models/qwen-kserve-workload-svc"),
                ]);
                // Without refs, the namespace's template gives the parents, its listener included.
                const noRefs = withRefs([]);
                const defaultGateway = kube("v1", "ConfigMap", "kserve-config", {
                    metadata: { name: "inferenceservice-config", namespace: "kserve" },
                    data: { ingress: JSON.stringify({ kserveIngressGateway: "gateway/inference-gateway" }) },
                });
                expect(await messages([...gw, ...guarded, defaultGateway, template, noRefs])).toEqual([]);
                expect(await messages([...gw, ...guarded, defaultGateway, noRefs])).toEqual([
                    UNGUARDED_WORKLOAD,
                    plainHttp("InferencePool models/qwen-inference-pool, Service models/qwen-kserve-workload-svc"),
                ]);
            });
        });

        describe("what Cloud Armor and Istio let in, as they evaluate their rules", () => {
            const gkeStack = (...rest: RecordedResource[]) => [
                ...written("typed", [
                    gatewayObject("gke-l7-regional-external-managed", [HTTPS]),
                    route("pool", toPool, { sectionName: "https" }),
                    backendPolicy(POOL, { securityPolicy: "gateway-access" }),
                ]),
                ...rest,
            ];
            const armor = (rules: unknown[] | undefined, name = "gateway-access") =>
                resource("gcp:compute/regionSecurityPolicy:RegionSecurityPolicy", name, {
                    name,
                    type: "CLOUD_ARMOR",
                    ...(rules ? { rules } : {}),
                });
            const byRanges = (priority: number, action: string, srcIpRanges: string[]) => ({
                priority,
                action,
                match: { versionedExpr: "SRC_IPS_V1", config: { srcIpRanges } },
            });
            const byExpression = (priority: number, action: string, expression: string) => ({
                priority,
                action,
                match: { expr: { expression } },
            });
            const DENY_DEFAULT = byRanges(2147483647, "deny(403)", ["*"]);
            const both = async (resources: RecordedResource[]) => [
                ...(await messages(resources)),
                ...(await messages(resources, advisory)),
            ];

            test("a policy that denies nobody is no access control: no rules (GCP adds an allow-all default), or an allowlist with nothing denying after it", async () => {
                const unguarded = (rule: string) =>
                    `mandatory: Gateway gateway/inference-gateway is external and sends InferencePool models/qwen-inference-pool requests from anyone: its Cloud Armor policy gateway-access lets in everyone its rules do not single out (${rule} lets them through); add a rule that denies every source outside the allowlist, or make the default rule deny.`;
                expect(await both(gkeStack(armor(undefined)))).toEqual([
                    unguarded("GCP's default rule, which allows as the policy sets none"),
                ]);
                expect(
                    await both(gkeStack(armor([byRanges(1000, "allow", ["203.0.113.0/24"]), byRanges(2147483647, "allow", ["*"])]))),
                ).toEqual([unguarded("the rule at priority 2147483647")]);
                expect(await both(gkeStack(armor([byRanges(1000, "allow", ["203.0.113.0/24"]), DENY_DEFAULT])))).toEqual([]);
            });

            test("an expression is evaluated as Cloud Armor does: an allow that holds for any address opens it, a deny-by-expression allowlist guards it", async () => {
                for (const expression of ["true", "inIpRange(origin.ip, '0.0.0.0/0')", "!inIpRange(origin.ip, '10.0.0.0/8')"]) {
                    expect(await both(gkeStack(armor([byExpression(1000, "allow", expression), DENY_DEFAULT])))).toEqual([
                        "advisory: Cloud Armor policy gateway-access lets every address through (the rule at priority 1000): the Gateway gateway/inference-gateway is open to the internet, and only what its model servers check themselves stands before them.",
                    ]);
                }
                // Deny everyone outside the range, allow by default: only the range gets in.
                expect(await both(gkeStack(armor([byExpression(1000, "deny(403)", "!inIpRange(origin.ip, '10.0.0.0/8')")])))).toEqual([]);
                expect(
                    await both(
                        gkeStack(
                            armor([
                                byExpression(1000, "allow", "inIpRange(origin.ip, '10.0.0.0/8') || inIpRange(origin.ip, '192.168.0.0/16')"),
                                DENY_DEFAULT,
                            ]),
                        ),
                    ),
                ).toEqual([]);
            });

            test("what a preview cannot judge is said, never mandatory: a policy the program does not declare, an expression over headers", async () => {
                expect(await both(gkeStack())).toEqual([
                    "advisory: InferencePool models/qwen-inference-pool behind Gateway gateway/inference-gateway names Cloud Armor policy gateway-access, which the program does not declare: whether it refuses anyone could not be judged.",
                ]);
                expect(await both(gkeStack(armor([byExpression(1000, "allow", "origin.region_code == 'US'"), DENY_DEFAULT])))).toEqual([
                    "advisory: Cloud Armor policy gateway-access in front of InferencePool models/qwen-inference-pool could not be judged: the rule at priority 1000, whose expression reads more than the client's address.",
                ]);
            });

            test("a rule in preview mode enforces nothing, and a deny that reads more than the address refuses only whom it matches: the rules after it decide", async () => {
                const unguarded = (rule: string) =>
                    `mandatory: Gateway gateway/inference-gateway is external and sends InferencePool models/qwen-inference-pool requests from anyone: its Cloud Armor policy gateway-access lets in everyone its rules do not single out (${rule} lets them through); add a rule that denies every source outside the allowlist, or make the default rule deny.`;
                const DEFAULT_ALLOWS = "GCP's default rule, which allows as the policy sets none";
                const ALLOWLIST = byRanges(1000, "allow", ["203.0.113.0/24"]);
                expect(await both(gkeStack(armor([ALLOWLIST, { ...DENY_DEFAULT, priority: 2000, preview: true }])))).toEqual([
                    unguarded(DEFAULT_ALLOWS),
                ]);
                for (const expression of [
                    "evaluatePreconfiguredWaf('sqli-v33-stable')",
                    "origin.region_code == 'KP'",
                    "request.headers['x-team'] != 'ml'",
                ]) {
                    expect(await both(gkeStack(armor([byExpression(900, "deny(403)", expression)])))).toEqual([unguarded(DEFAULT_ALLOWS)]);
                    // Behind an allowlist that ends in a deny, the same rule leaves every outsider refused.
                    expect(await both(gkeStack(armor([byExpression(900, "deny(403)", expression), ALLOWLIST, DENY_DEFAULT])))).toEqual([]);
                }
            });

            test("a policy no inference backend uses is no concern of this lesson", async () => {
                const elsewhere = armor([byRanges(1000, "allow", ["0.0.0.0/0"]), DENY_DEFAULT], "website");
                expect(await both(gkeStack(armor([byRanges(1000, "allow", ["203.0.113.0/24"]), DENY_DEFAULT]), elsewhere))).toEqual([]);
            });

            const istioStack = (...policies: Array<[string, Record<string, unknown>]>) => [
                ...written("typed", [gatewayObject("istio", [HTTPS]), route("pool", toPool, { sectionName: "https" })]),
                ...policies.map(([key, spec]) => {
                    const [namespace, name] = key.split("/");
                    return kube("security.istio.io/v1", "AuthorizationPolicy", key, { metadata: { name, namespace }, spec });
                }),
            ];
            const ON_GATEWAY = { targetRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: "inference-gateway" }] };
            const FROM_OFFICE = { from: [{ source: { ipBlocks: ["203.0.113.0/24"] } }] };

            test("Istio allows what any ALLOW policy matches: an allow-all beside a guarding policy, or any token without a claim, opens the Gateway", async () => {
                expect(
                    await both(
                        istioStack(
                            ["gateway/office", { ...ON_GATEWAY, rules: [FROM_OFFICE] }],
                            ["gateway/everyone", { ...ON_GATEWAY, rules: [{}] }],
                        ),
                    ),
                ).toEqual([istioAllowsAny("gateway/everyone")]);
                expect(
                    await both(
                        istioStack(["gateway/tokens", { ...ON_GATEWAY, rules: [{ from: [{ source: { requestPrincipals: ["*"] } }] }] }]),
                    ),
                ).toEqual([istioAllowsToken("gateway/tokens")]);
                expect(await both(istioStack(["gateway/office", { ...ON_GATEWAY, rules: [FROM_OFFICE] }]))).toEqual([]);
            });

            test("a policy applies as Istio places it: by the Gateway's pods' label (before targetRefs), in the root namespace, or a DENY rule that refuses all but the allowlist", async () => {
                const onPods = {
                    selector: { matchLabels: { "gateway.networking.k8s.io/gateway-name": "inference-gateway" } },
                    rules: [FROM_OFFICE],
                };
                expect(await both(istioStack(["gateway/by-label", onPods]))).toEqual([]);
                expect(await both(istioStack(["istio-system/mesh-wide", onPods]))).toEqual([]);
                // Another namespace's policy, or another Gateway's pods, is not the Gateway's.
                expect(await both(istioStack(["models/elsewhere", onPods]))).toEqual([ISTIO_OPEN]);
                expect(
                    await both(
                        istioStack([
                            "gateway/other",
                            { ...onPods, selector: { matchLabels: { "gateway.networking.k8s.io/gateway-name": "other" } } },
                        ]),
                    ),
                ).toEqual([ISTIO_OPEN]);
                expect(
                    await both(
                        istioStack([
                            "gateway/deny-others",
                            { ...ON_GATEWAY, action: "DENY", rules: [{ from: [{ source: { notIpBlocks: ["203.0.113.0/24"] } }] }] },
                        ]),
                    ),
                ).toEqual([]);
            });
        });

        describe("who is outside: each rule field and condition as Istio reads it, and where a Gateway's load balancer is", () => {
            const istioGateway = (gateway: Record<string, unknown>, ...policies: Array<[string, Record<string, unknown>]>) => {
                const [apiVersion, kind, name, body] = gatewayObject("istio", [HTTPS, HTTP_SAME]);
                const metadata = { ...(body.metadata as object), ...((gateway.metadata as object) ?? {}) };
                const spec = { ...(body.spec as object), ...((gateway.spec as object) ?? {}) };
                return [
                    ...written("typed", [[apiVersion, kind, name, { metadata, spec }], route("pool", toPool, { sectionName: "https" })]),
                    ...policies.map(([key, policySpec]) => {
                        const [namespace, policyName] = key.split("/");
                        return kube("security.istio.io/v1", "AuthorizationPolicy", key, {
                            metadata: { name: policyName, namespace },
                            spec: policySpec,
                        });
                    }),
                ];
            };
            const both = async (resources: RecordedResource[]) => [
                ...(await messages(resources)),
                ...(await messages(resources, advisory)),
            ];
            const ON_GATEWAY = { targetRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: "inference-gateway" }] };
            const allow = (rule: Record<string, unknown>) => ({ ...ON_GATEWAY, rules: [rule] });

            test("restricts: a mesh identity, a named principal, a claim besides the issuer, a DENY of anyone but a named principal or range", async () => {
                for (const rule of [
                    { from: [{ source: { serviceAccounts: ["apps/chat-frontend"] } }] },
                    { from: [{ source: { principals: ["cluster.local/ns/apps/sa/chat"] } }] },
                    { from: [{ source: { requestPrincipals: ["https://accounts.google.com/104857600000000000001"] } }] },
                    {
                        from: [{ source: { requestPrincipals: ["https://accounts.google.com/*"] } }],
                        when: [{ key: "request.auth.claims[hd]", values: ["example.com"] }],
                    },
                    { when: [{ key: "remote.ip", values: ["203.0.113.0/24"] }] },
                ]) {
                    expect(await both(istioGateway({}, ["gateway/allow", allow(rule)]))).toEqual([]);
                }
                for (const source of [
                    { notRequestPrincipals: ["https://accounts.google.com/104857600000000000001"] },
                    { notPrincipals: ["cluster.local/ns/apps/sa/chat"] },
                    { notRemoteIpBlocks: ["203.0.113.0/24"] },
                ]) {
                    const deny = { ...ON_GATEWAY, action: "DENY", rules: [{ from: [{ source }], to: [{ operation: { paths: ["/*"] } }] }] };
                    expect(await both(istioGateway({}, ["gateway/deny", deny]))).toEqual([]);
                }
            });

            test("open: an address condition on every address, a blocklist, the issuer alone, a header value the program writes, a DENY only of requests without a token", async () => {
                expect(
                    await both(istioGateway({}, ["gateway/allow", allow({ when: [{ key: "remote.ip", values: ["0.0.0.0/0"] }] })])),
                ).toEqual([
                    "advisory: AuthorizationPolicy gateway/allow lets every address into Gateway gateway/inference-gateway (0.0.0.0/0): the Gateway is open to the internet, and only what its model servers check themselves stands before them.",
                ]);
                expect(
                    await both(istioGateway({}, ["gateway/allow", allow({ when: [{ key: "remote.ip", notValues: ["192.0.2.0/24"] }] })])),
                ).toEqual([istioAllowsAny("gateway/allow")]);
                expect(
                    await both(
                        istioGateway({}, [
                            "gateway/allow",
                            allow({ when: [{ key: "request.auth.claims[iss]", values: ["https://accounts.google.com"] }] }),
                        ]),
                    ),
                ).toEqual([istioAllowsToken("gateway/allow")]);
                expect(
                    await both(
                        istioGateway({}, [
                            "gateway/deny",
                            { ...ON_GATEWAY, action: "DENY", rules: [{ from: [{ source: { notRequestPrincipals: ["*"] } }] }] },
                        ]),
                    ),
                ).toEqual([
                    "mandatory: Gateway gateway/inference-gateway is external and routes to inference backends from anyone: its AuthorizationPolicies refuse only requests without a token, so they admit anyone holding a token its RequestAuthentication accepts, with no condition on its claims but the issuer (an issuer such as accounts.google.com gives anyone one), and its Service sets no loadBalancerSourceRanges.",
                ]);
                expect(
                    await both(
                        istioGateway({}, [
                            "gateway/allow",
                            allow({ when: [{ key: "request.headers[x-api-key]", values: ["sk-team-4f9a2c"] }] }),
                        ]),
                    ),
                ).toEqual([
                    "mandatory: Gateway gateway/inference-gateway is external and routes to inference backends from anyone: AuthorizationPolicy gateway/allow lets in whoever sends x-api-key: sk-team-4f9a2c, a value written in the program, which anyone who reads the program or the stack's state can send, and its Service sets no loadBalancerSourceRanges.",
                ]);
            });

            test("a DENY refuses only what its conditions match: one on a header, a port or the issuer alone refuses not everyone", async () => {
                const deny = (when: Record<string, unknown>) => ({ ...ON_GATEWAY, action: "DENY", rules: [{ when: [when] }] });
                for (const when of [
                    { key: "request.headers[x-debug]", values: ["1"] },
                    { key: "request.headers[x-api-key]", notValues: ["s3cret-team-key"] },
                    { key: "destination.port", values: ["15000"] },
                ]) {
                    expect(await both(istioGateway({}, ["gateway/deny", deny(when)]))).toEqual([ISTIO_OPEN]);
                }
                // Deny unless the token's issuer is Google's: anyone with a Google token gets in.
                expect(
                    await both(
                        istioGateway({}, [
                            "gateway/deny",
                            deny({ key: "request.auth.claims[iss]", notValues: ["https://accounts.google.com"] }),
                        ]),
                    ),
                ).toEqual([
                    "mandatory: Gateway gateway/inference-gateway is external and routes to inference backends from anyone: its AuthorizationPolicies refuse only requests without a token, so they admit anyone holding a token its RequestAuthentication accepts, with no condition on its claims but the issuer (an issuer such as accounts.google.com gives anyone one), and its Service sets no loadBalancerSourceRanges.",
                ]);
                // Deny whoever is outside the office: refuses everyone else.
                expect(await both(istioGateway({}, ["gateway/deny", deny({ key: "remote.ip", notValues: ["203.0.113.0/24"] })]))).toEqual(
                    [],
                );
            });

            test("any token of an issuer the program shows to be its own is access control; of a public one, or an issuer not shown, not", async () => {
                const jwt = (issuer: string) =>
                    kube("security.istio.io/v1", "RequestAuthentication", "gateway/jwt", {
                        metadata: { name: "jwt", namespace: "gateway" },
                        spec: { ...ON_GATEWAY, jwtRules: [{ issuer, jwksUri: `${issuer}/certs` }] },
                    });
                const requireToken: [string, Record<string, unknown>] = [
                    "gateway/require-jwt",
                    { ...ON_GATEWAY, action: "DENY", rules: [{ from: [{ source: { notRequestPrincipals: ["*"] } }] }] },
                ];
                expect(await both([...istioGateway({}, requireToken), jwt("https://auth.example.com/realms/corp")])).toEqual([]);
                expect(await both([...istioGateway({}, requireToken), jwt("https://accounts.google.com")])).toHaveLength(1);
                expect(await both(istioGateway({}, requireToken))).toHaveLength(1);
            });

            test("an external authorizer (CUSTOM) is said, never mandatory", async () => {
                const custom = {
                    ...ON_GATEWAY,
                    action: "CUSTOM",
                    provider: { name: "oauth2-proxy" },
                    rules: [{ to: [{ operation: { paths: ["/*"] } }] }],
                };
                expect(await both(istioGateway({}, ["gateway/ext-authz", custom]))).toEqual([
                    'advisory: AuthorizationPolicy gateway/ext-authz hands Gateway gateway/inference-gateway\'s requests to an external authorizer (CUSTOM, provider "oauth2-proxy"), which the program does not show: whether it refuses anyone could not be judged.',
                ]);
            });

            test("a selector policy finds the Gateway's pods by any label istiod gives them: the Gateway's class, its own labels or spec.infrastructure's", async () => {
                const fromOffice = { rules: [{ from: [{ source: { ipBlocks: ["203.0.113.0/24"] } }] }] };
                const select = (labels: Record<string, string>) => ({ selector: { matchLabels: labels }, ...fromOffice });
                expect(
                    await both(
                        istioGateway({}, ["istio-system/by-class", select({ "gateway.networking.k8s.io/gateway-class-name": "istio" })]),
                    ),
                ).toEqual([]);
                expect(
                    await both(istioGateway({ metadata: { labels: { tier: "public" } } }, ["gateway/own", select({ tier: "public" })])),
                ).toEqual([]);
                expect(
                    await both(
                        istioGateway({ spec: { infrastructure: { labels: { tier: "public" } } } }, [
                            "gateway/infra",
                            select({ tier: "public" }),
                        ]),
                    ),
                ).toEqual([]);
                // With spec.infrastructure, the Gateway's own labels are not copied.
                expect(
                    await both(
                        istioGateway({ metadata: { labels: { tier: "public" } }, spec: { infrastructure: { annotations: {} } } }, [
                            "gateway/own",
                            select({ tier: "public" }),
                        ]),
                    ),
                ).toEqual([ISTIO_OPEN]);
            });

            test("an Istio Gateway behind no internet load balancer is left alone: ClusterIP, or an internal load balancer by any cloud's annotation, on the Gateway or its infrastructure", async () => {
                for (const gateway of [
                    { metadata: { annotations: { "networking.istio.io/service-type": "ClusterIP" } } },
                    { metadata: { annotations: { "networking.gke.io/load-balancer-type": "Internal" } } },
                    { spec: { infrastructure: { annotations: { "cloud.google.com/load-balancer-type": "Internal" } } } },
                    { spec: { infrastructure: { annotations: { "service.beta.kubernetes.io/aws-load-balancer-scheme": "internal" } } } },
                    { spec: { infrastructure: { annotations: { "service.beta.kubernetes.io/aws-load-balancer-type": "nlb-ip" } } } },
                ]) {
                    expect(await both(istioGateway(gateway))).toEqual([]);
                }
                // The Gateway's own annotations do not reach its Service when spec.infrastructure is set.
                expect(
                    await both(
                        istioGateway({
                            metadata: { annotations: { "networking.gke.io/load-balancer-type": "Internal" } },
                            spec: { infrastructure: { labels: {} } },
                        }),
                    ),
                ).toEqual([ISTIO_OPEN]);
            });

            test("a route whose parentRef names the HTTPS port is not served on the HTTP listener", async () => {
                const [apiVersion, kind, name, body] = route("pool", toPool);
                const spec = body.spec as { parentRefs: Array<Record<string, unknown>> };
                const onPort = (port: number) => [
                    ...written("typed", [
                        gatewayObject("istio", [HTTPS, HTTP_ALL]),
                        [apiVersion, kind, name, { ...body, spec: { ...spec, parentRefs: [{ ...spec.parentRefs[0], port }] } }],
                    ]),
                    kube("security.istio.io/v1", "AuthorizationPolicy", "gateway/office", {
                        metadata: { name: "office", namespace: "gateway" },
                        spec: allow({ from: [{ source: { ipBlocks: ["203.0.113.0/24"] } }] }),
                    }),
                ];
                expect(await both(onPort(443))).toEqual([]);
                expect(await both(onPort(80))).toEqual([plainHttp("InferencePool models/qwen-inference-pool")]);
            });

            test("on GKE the class alone says internal or external; a GCPBackendPolicy guards only its own namespace's backends", async () => {
                const gke = (extra: Record<string, unknown>, policyNamespace = "models") => [
                    ...written("typed", [
                        gatewayObject("gke-l7-regional-external-managed", [HTTPS], extra),
                        route("pool", toPool, { sectionName: "https" }),
                        [
                            "networking.gke.io/v1",
                            "GCPBackendPolicy",
                            "guard",
                            {
                                metadata: { name: "guard", namespace: policyNamespace },
                                spec: { default: { iap: { enabled: true } }, targetRef: { ...POOL, namespace: "models" } },
                            },
                        ],
                    ]),
                ];
                expect(await both(gke({}))).toEqual([]);
                expect(await both(gke({}, "platform"))).toEqual([UNGUARDED_POOL]);
                const annotated = { infrastructure: { annotations: { "networking.gke.io/load-balancer-type": "Internal" } } };
                expect(await both(gke(annotated, "platform"))).toEqual([UNGUARDED_POOL]);
            });
        });

        describe("without a Gateway: a LoadBalancer Service or an Ingress in front of vLLM", () => {
            const vllmPods = {
                "app.kubernetes.io/part-of": "llminferenceservice",
                "app.kubernetes.io/name": "qwen",
                "kserve.io/component": "workload",
            };
            const svc = (spec: Record<string, unknown> = {}, annotations: Record<string, string> = {}) =>
                kube("v1", "Service", "qwen-http", {
                    metadata: { name: "qwen-http", namespace: "models", annotations },
                    spec: { selector: vllmPods, ports: [{ name: "http", port: 8000, targetPort: 8000 }], ...spec },
                });
            const ingress = (annotations: Record<string, string>, extra: Record<string, unknown> = {}) =>
                kube("networking.k8s.io/v1", "Ingress", "qwen", {
                    metadata: { name: "qwen", namespace: "models", annotations },
                    spec: {
                        rules: [
                            {
                                http: {
                                    paths: [
                                        {
                                            path: "/",
                                            pathType: "Prefix",
                                            backend: { service: { name: "qwen-http", port: { number: 8000 } } },
                                        },
                                    ],
                                },
                            },
                        ],
                        ...extra,
                    },
                });
            const LB = { type: "LoadBalancer" };
            const openService = `mandatory: ${openServiceMessage("LoadBalancer Service models/qwen-http", "models/qwen-http", [])}`;
            const openIngress = (label: string, headers: string[] = []) =>
                `mandatory: ${openServiceMessage(`Ingress models/qwen (${label})`, "models/qwen-http", headers)}`;

            test("whatever the pods say of how they serve: vLLM over TLS (no client certificate asked), the leaders of a LeaderWorkerSet by the label its controller adds", async () => {
                const served = (kind: string, body: Record<string, unknown>, selector: Record<string, string>) => [
                    kube(kind === "Deployment" ? "apps/v1" : "leaderworkerset.x-k8s.io/v1", kind, "vllm", {
                        metadata: { name: "vllm", namespace: "models" },
                        spec: body,
                    }),
                    kube("v1", "Service", "qwen-http", {
                        metadata: { name: "qwen-http", namespace: "models" },
                        spec: { ...LB, selector, ports: [{ port: 8000, targetPort: 8000 }] },
                    }),
                ];
                const template = (args: string[], labels: Record<string, string>) => ({
                    metadata: { labels },
                    spec: {
                        containers: [
                            { name: "vllm", image: "vllm/vllm-openai:v0.10.1", args: ["--model", "Qwen/Qwen2.5-3B-Instruct", ...args] },
                        ],
                    },
                });
                const tls = ["--ssl-keyfile", "/tls/tls.key", "--ssl-certfile", "/tls/tls.crt"];
                expect(await messages(served("Deployment", { template: template(tls, { app: "vllm" }) }, { app: "vllm" }))).toEqual([
                    openService,
                ]);
                const lws = { leaderWorkerTemplate: { size: 2, leaderTemplate: template([], { role: "leader" }) } };
                expect(
                    await messages(served("LeaderWorkerSet", lws, { "leaderworkerset.sigs.k8s.io/name": "vllm", role: "leader" })),
                ).toEqual([openService]);
                expect(await messages(served("LeaderWorkerSet", lws, { "leaderworkerset.sigs.k8s.io/name": "other" }))).toEqual([]);
                const sts = kube("apps/v1", "StatefulSet", "vllm", {
                    metadata: { name: "vllm", namespace: "models" },
                    spec: { template: template([], { app: "vllm" }) },
                });
                const byPodName = kube("v1", "Service", "qwen-http", {
                    metadata: { name: "qwen-http", namespace: "models" },
                    spec: { ...LB, selector: { "statefulset.kubernetes.io/pod-name": "vllm-0" }, ports: [{ port: 8000 }] },
                });
                expect(await messages([sts, byPodName])).toEqual([openService]);
            });

            test("another model server is a model server too: TGI, Ollama, NIM and the rest by their images; an ordinary web server is not", async () => {
                const behindLoadBalancer = (image: string) => [
                    kube("apps/v1", "Deployment", "server", {
                        metadata: { name: "server", namespace: "models" },
                        spec: { template: { metadata: { labels: { app: "server" } }, spec: { containers: [{ name: "server", image }] } } },
                    }),
                    kube("v1", "Service", "qwen-http", {
                        metadata: { name: "qwen-http", namespace: "models" },
                        spec: { ...LB, selector: { app: "server" }, ports: [{ port: 80, targetPort: 8080 }] },
                    }),
                ];
                for (const image of [
                    "ghcr.io/huggingface/text-generation-inference:3.3.4",
                    "ollama/ollama:0.5.7",
                    "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.3.3",
                    "nvcr.io/nvidia/tritonserver:25.01-py3",
                    "lmsysorg/sglang:v0.4.6",
                    "ghcr.io/ggml-org/llama.cpp:server-b4500",
                    "quay.io/go-skynet/local-ai:v2.26.0",
                ]) {
                    expect(await messages(behindLoadBalancer(image))).toEqual([openService]);
                }
                expect(await messages(behindLoadBalancer("nginx:1.27"))).toEqual([]);
            });

            test("a LoadBalancer Service with an internet address and no allowlist is caught, on GKE, AWS and Azure alike", async () => {
                const external: Array<Record<string, string>> = [
                    {},
                    { "cloud.google.com/l4-rbs": "enabled" },
                    { "networking.gke.io/load-balancer-type": "INTERNAL" },
                    // GKE reads the first key present: the new one says external, so the legacy Internal is ignored.
                    { "networking.gke.io/load-balancer-type": "External", "cloud.google.com/load-balancer-type": "Internal" },
                    { "service.beta.kubernetes.io/aws-load-balancer-scheme": "internet-facing" },
                    { "service.beta.kubernetes.io/aws-load-balancer-internal": "false" },
                    { "service.beta.kubernetes.io/azure-load-balancer-internal": "True" },
                    // The scheme wins over the older annotation.
                    {
                        "service.beta.kubernetes.io/aws-load-balancer-scheme": "internet-facing",
                        "service.beta.kubernetes.io/aws-load-balancer-internal": "true",
                    },
                ];
                for (const annotations of external) {
                    expect(await messages([svc(LB, annotations)])).toEqual([openService]);
                    expect(await messages([svc({ ...LB, loadBalancerSourceRanges: ["0.0.0.0/0"] }, annotations)])).toEqual([openService]);
                    // Ranges that together cover every address.
                    expect(await messages([svc({ ...LB, loadBalancerSourceRanges: ["0.0.0.0/1", "128.0.0.0/1"] }, annotations)])).toEqual([
                        openService,
                    ]);
                }
            });

            test("clean: internal by any cloud's rule, restricted by ranges or service tags, or not a LoadBalancer", async () => {
                for (const [spec, annotations] of [
                    [LB, { "networking.gke.io/load-balancer-type": "Internal" }],
                    [LB, { "cloud.google.com/load-balancer-type": "internal" }],
                    [{ ...LB, loadBalancerClass: "networking.gke.io/l4-regional-internal" }, {}],
                    [LB, { "service.beta.kubernetes.io/aws-load-balancer-scheme": "internal" }],
                    [{ ...LB, loadBalancerClass: "service.k8s.aws/nlb" }, {}],
                    [LB, { "service.beta.kubernetes.io/aws-load-balancer-internal": "true" }],
                    // The AWS Load Balancer Controller's by its annotations, without a scheme: internal by default.
                    [LB, { "service.beta.kubernetes.io/aws-load-balancer-type": "nlb-ip" }],
                    [
                        LB,
                        {
                            "service.beta.kubernetes.io/aws-load-balancer-type": "external",
                            "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": "ip",
                        },
                    ],
                    [LB, { "service.beta.kubernetes.io/azure-load-balancer-internal": "true" }],
                    [{ ...LB, loadBalancerSourceRanges: ["203.0.113.0/24"] }, {}],
                    [LB, { "service.beta.kubernetes.io/load-balancer-source-ranges": "203.0.113.0/24, 198.51.100.7/32" }],
                    [LB, { "service.beta.kubernetes.io/azure-allowed-service-tags": "AzureFrontDoor.Backend" }],
                    [{ type: "ClusterIP" }, {}],
                    [{ type: "NodePort" }, {}],
                ] as Array<[Record<string, unknown>, Record<string, string>]>) {
                    expect(await messages([svc(spec, annotations)])).toEqual([]);
                }
                // A LoadBalancer in front of something that is not a model server is not this lesson's.
                const web = kube("v1", "Service", "web", {
                    metadata: { name: "web", namespace: "models" },
                    spec: { ...LB, selector: { app: "web" } },
                });
                expect(await messages([web])).toEqual([]);
            });

            test("GKE's Ingress (no class, or gce) is caught unless a BackendConfig's IAP or a guarding Cloud Armor policy stands before the Service", async () => {
                for (const annotations of [{}, { "kubernetes.io/ingress.class": "gce" }] as Array<Record<string, string>>) {
                    expect(await messages([svc(), ingress(annotations)])).toEqual([openIngress("GKE")]);
                }
                const backendConfig = (spec: Record<string, unknown>) =>
                    kube("cloud.google.com/v1", "BackendConfig", "qwen", { metadata: { name: "qwen", namespace: "models" }, spec });
                for (const key of ["cloud.google.com/backend-config", "beta.cloud.google.com/backend-config"]) {
                    for (const value of ['{"default": "qwen"}', '{"ports": {"http": "qwen"}}', '{"ports": {"8000": "qwen"}}']) {
                        const named = svc({}, { [key]: value });
                        expect(await messages([named, ingress({}), backendConfig({ iap: { enabled: true } })])).toEqual([]);
                        expect(await messages([named, ingress({}), backendConfig({ timeoutSec: 600 })])).toEqual([openIngress("GKE")]);
                    }
                }
                const named = svc({}, { "cloud.google.com/backend-config": '{"default": "qwen"}' });
                const armor = (rules: unknown[]) => resource("gcp:compute/securityPolicy:SecurityPolicy", "gate", { name: "gate", rules });
                const DENY_DEFAULT = {
                    action: "deny(403)",
                    priority: 2147483647,
                    match: { versionedExpr: "SRC_IPS_V1", config: { srcIpRanges: ["*"] } },
                };
                const ALLOW_OFFICE = {
                    action: "allow",
                    priority: 1000,
                    match: { versionedExpr: "SRC_IPS_V1", config: { srcIpRanges: ["203.0.113.0/24"] } },
                };
                const withArmor = [named, ingress({}), backendConfig({ securityPolicy: { name: "gate" } })];
                expect(await messages([...withArmor, armor([ALLOW_OFFICE, DENY_DEFAULT])])).toEqual([]);
                expect(await messages([...withArmor, armor([])])).toEqual([openIngress("GKE")]);
                // A policy or BackendConfig the program does not declare: advisory, never mandatory.
                expect(await messages(withArmor)).toEqual([]);
                expect(await messages(withArmor, advisory)).toEqual([
                    "advisory: Ingress models/qwen (GKE) puts model server Service models/qwen-http on the internet, and what stands in front of it could not be judged: Cloud Armor policy gate (BackendConfig qwen) is not declared by the program, so whether it refuses anyone could not be judged.",
                ]);
                // Internal, or another class GKE leaves alone.
                expect(await messages([svc(), ingress({ "kubernetes.io/ingress.class": "gce-internal" })])).toEqual([]);
            });

            test("the AWS Load Balancer Controller's Ingress: internet-facing without authentication or an allowlist is caught, and a literal header condition is named", async () => {
                const facing = { "kubernetes.io/ingress.class": "alb", "alb.ingress.kubernetes.io/scheme": "internet-facing" };
                expect(await messages([svc(), ingress(facing)])).toEqual([openIngress("AWS Load Balancer Controller")]);
                expect(
                    await messages([
                        svc(),
                        ingress({ "alb.ingress.kubernetes.io/scheme": "internet-facing" }, { ingressClassName: "alb" }),
                    ]),
                ).toEqual([openIngress("AWS Load Balancer Controller")]);
                const header = {
                    ...facing,
                    "alb.ingress.kubernetes.io/conditions.qwen-http": JSON.stringify([
                        { field: "http-header", httpHeaderConfig: { httpHeaderName: "X-Api-Key", values: ["s3cr3t-v4lue"] } },
                    ]),
                };
                expect(await messages([svc(), ingress(header)])).toEqual([
                    openIngress("AWS Load Balancer Controller", ["X-Api-Key: s3cr3t-v4lue"]),
                ]);
                // Clean: internal by default, authentication, an allowlist; the WAF or security groups it names are advisory.
                expect(await messages([svc(), ingress({ "kubernetes.io/ingress.class": "alb" })])).toEqual([]);
                expect(await messages([svc(), ingress({ ...facing, "alb.ingress.kubernetes.io/auth-type": "oidc" })])).toEqual([]);
                expect(
                    await messages([svc(), ingress({ ...facing, "alb.ingress.kubernetes.io/inbound-cidrs": "203.0.113.0/24" })]),
                ).toEqual([]);
                expect(await messages([svc(), ingress({ ...facing, "alb.ingress.kubernetes.io/inbound-cidrs": "0.0.0.0/0" })])).toEqual([
                    openIngress("AWS Load Balancer Controller"),
                ]);
                const waf = ingress({
                    ...facing,
                    "alb.ingress.kubernetes.io/wafv2-acl-arn": "arn:aws:wafv2:us-east-1:123456789012:regional/webacl/gate/1",
                });
                expect(await messages([svc(), waf])).toEqual([]);
                expect((await messages([svc(), waf], advisory))[0]).toMatch(
                    /^advisory: Ingress models\/qwen \(AWS Load Balancer Controller\) .* could not be judged: its load balancer takes the WAF web ACL/,
                );
            });

            test("ingress-nginx (by class or an IngressClass naming its controller): caught without an allowlist or authentication; a snippet's header check is named", async () => {
                const nginxClass = kube("networking.k8s.io/v1", "IngressClass", "public", {
                    metadata: { name: "public" },
                    spec: { controller: "k8s.io/ingress-nginx" },
                });
                expect(await messages([svc(), ingress({ "kubernetes.io/ingress.class": "nginx" })])).toEqual([
                    openIngress("ingress-nginx"),
                ]);
                expect(await messages([svc(), nginxClass, ingress({}, { ingressClassName: "public" })])).toEqual([
                    openIngress("ingress-nginx"),
                ]);
                const snippet = {
                    "kubernetes.io/ingress.class": "nginx",
                    "nginx.ingress.kubernetes.io/configuration-snippet": 'if ($http_x_api_key != "team-key-123") { return 403; }',
                };
                expect(await messages([svc(), ingress(snippet)])).toEqual([openIngress("ingress-nginx", ["x-api-key: team-key-123"])]);
                for (const guard of [
                    { "nginx.ingress.kubernetes.io/allowlist-source-range": "203.0.113.0/24" },
                    { "nginx.ingress.kubernetes.io/whitelist-source-range": "10.0.0.0/8" },
                    { "nginx.ingress.kubernetes.io/auth-type": "basic", "nginx.ingress.kubernetes.io/auth-secret": "basic-auth" },
                    { "nginx.ingress.kubernetes.io/auth-url": "https://auth.acme.internal/check" },
                ] as Array<Record<string, string>>) {
                    expect(await messages([svc(), ingress({ "kubernetes.io/ingress.class": "nginx", ...guard })])).toEqual([]);
                }
            });

            test("the controller's own settings decide: a default IngressClass for an Ingress without one, an ALB scheme set by IngressClassParams or another Ingress of the group, the ingress-nginx chart's controller Service", async () => {
                const albClass = (annotations: Record<string, string>, parameters?: Record<string, unknown>) =>
                    kube("networking.k8s.io/v1", "IngressClass", "alb", {
                        metadata: { name: "alb", annotations },
                        spec: { controller: "ingress.k8s.aws/alb", ...(parameters ? { parameters } : {}) },
                    });
                const DEFAULT_CLASS = { "ingressclass.kubernetes.io/is-default-class": "true" };
                // An Ingress without a class is the default class's: the ALB's, internal by default, not GKE's.
                expect(await messages([svc(), albClass(DEFAULT_CLASS), ingress({})])).toEqual([]);
                expect(
                    await messages([svc(), albClass(DEFAULT_CLASS), ingress({ "alb.ingress.kubernetes.io/scheme": "internet-facing" })]),
                ).toEqual([openIngress("AWS Load Balancer Controller")]);
                const params = kube("elbv2.k8s.aws/v1beta1", "IngressClassParams", "public", {
                    metadata: { name: "public" },
                    spec: { scheme: "internet-facing" },
                });
                const parameters = { apiGroup: "elbv2.k8s.aws", kind: "IngressClassParams", name: "public" };
                expect(await messages([svc(), params, albClass({}, parameters), ingress({}, { ingressClassName: "alb" })])).toEqual([
                    openIngress("AWS Load Balancer Controller"),
                ]);
                // EKS Auto Mode's controller and IngressClassParams.
                const autoClass = kube("networking.k8s.io/v1", "IngressClass", "auto", {
                    metadata: { name: "auto" },
                    spec: {
                        controller: "eks.amazonaws.com/alb",
                        parameters: { apiGroup: "eks.amazonaws.com", kind: "IngressClassParams", name: "auto-public" },
                    },
                });
                const autoParams = kube("eks.amazonaws.com/v1", "IngressClassParams", "auto-public", {
                    metadata: { name: "auto-public" },
                    spec: { scheme: "internet-facing" },
                });
                expect(await messages([svc(), autoClass, autoParams, ingress({}, { ingressClassName: "auto" })])).toEqual([
                    openIngress("AWS Load Balancer Controller"),
                ]);
                expect(await messages([svc(), autoClass, ingress({}, { ingressClassName: "auto" })])).toEqual([]);
                const grouped = { "kubernetes.io/ingress.class": "alb", "alb.ingress.kubernetes.io/group.name": "shared" };
                const web = kube("networking.k8s.io/v1", "Ingress", "web", {
                    metadata: {
                        name: "web",
                        namespace: "models",
                        annotations: { ...grouped, "alb.ingress.kubernetes.io/scheme": "internet-facing" },
                    },
                    spec: { defaultBackend: { service: { name: "web", port: { number: 80 } } } },
                });
                expect(await messages([svc(), web, ingress(grouped)])).toEqual([openIngress("AWS Load Balancer Controller")]);
                const nginx = (service: Record<string, unknown>) =>
                    resource("kubernetes:helm.sh/v3:Release", "ingress-nginx", {
                        chart: "ingress-nginx",
                        version: "4.12.1",
                        values: { controller: { service } },
                    });
                const NGINX = { "kubernetes.io/ingress.class": "nginx" };
                for (const internal of [
                    { annotations: { "networking.gke.io/load-balancer-type": "Internal" } },
                    { type: "ClusterIP" },
                    { loadBalancerSourceRanges: ["203.0.113.0/24"] },
                ]) {
                    expect(await messages([svc(), nginx(internal), ingress(NGINX)])).toEqual([]);
                }
                expect(await messages([svc(), nginx({ externalTrafficPolicy: "Local" }), ingress(NGINX)])).toEqual([
                    openIngress("ingress-nginx"),
                ]);
            });

            test("Istio's classic ingress (a networking.istio.io Gateway and its VirtualServices): open unless its pods' Service is internal or restricted, or an AuthorizationPolicy on them refuses; its Service not shown is advisory", async () => {
                const classic = [
                    kube("networking.istio.io/v1", "Gateway", "ingress", {
                        metadata: { name: "ingress", namespace: "models" },
                        spec: {
                            selector: { istio: "ingressgateway" },
                            servers: [{ port: { number: 80, name: "http", protocol: "HTTP" }, hosts: ["*"] }],
                        },
                    }),
                    kube("networking.istio.io/v1", "VirtualService", "qwen", {
                        metadata: { name: "qwen", namespace: "models" },
                        spec: {
                            hosts: ["*"],
                            gateways: ["ingress"],
                            http: [{ route: [{ destination: { host: "qwen-http.models.svc.cluster.local", port: { number: 8000 } } }] }],
                        },
                    }),
                ];
                const podsService = (spec: Record<string, unknown>, annotations: Record<string, string> = {}) =>
                    kube("v1", "Service", "istio-ingressgateway", {
                        metadata: { name: "istio-ingressgateway", namespace: "istio-system", annotations },
                        spec: { selector: { istio: "ingressgateway" }, ports: [{ port: 80 }], ...spec },
                    });
                const through = "Istio Gateway models/ingress (pods istio=ingressgateway), by VirtualService models/qwen,";
                expect(await messages([svc(), ...classic, podsService(LB)])).toEqual([
                    `mandatory: ${openServiceMessage(through, "models/qwen-http", [])}`,
                ]);
                const chart = (service: Record<string, unknown>) =>
                    resource("kubernetes:helm.sh/v3:Release", "istio-ingress", {
                        chart: "gateway",
                        version: "1.29.6",
                        values: { service },
                    });
                expect(await messages([svc(), ...classic, chart({})])).toEqual([
                    `mandatory: ${openServiceMessage(through, "models/qwen-http", [])}`,
                ]);
                for (const guarded of [
                    [podsService(LB, { "networking.gke.io/load-balancer-type": "Internal" })],
                    [podsService({ type: "ClusterIP" })],
                    [chart({ loadBalancerSourceRanges: ["203.0.113.0/24"] })],
                    [
                        podsService(LB),
                        kube("security.istio.io/v1", "AuthorizationPolicy", "office", {
                            metadata: { name: "office", namespace: "istio-system" },
                            spec: {
                                selector: { matchLabels: { istio: "ingressgateway" } },
                                rules: [{ from: [{ source: { remoteIpBlocks: ["203.0.113.0/24"] } }] }],
                            },
                        }),
                    ],
                ]) {
                    expect(await messages([svc(), ...classic, ...guarded])).toEqual([]);
                }
                // The chart's values say nothing of its Service: its default, a LoadBalancer.
                const release = resource("kubernetes:helm.sh/v3:Release", "istio-ingress", {
                    chart: "gateway",
                    version: "1.29.6",
                    namespace: "istio-ingress",
                    values: {},
                });
                expect(await messages([svc(), ...classic, release])).toEqual([
                    `mandatory: ${openServiceMessage(through, "models/qwen-http", [])}`,
                ]);
                // A selector policy guards the pods of its own namespace only.
                const policyIn = (namespace: string) =>
                    kube("security.istio.io/v1", "AuthorizationPolicy", `${namespace}/office`, {
                        metadata: { name: "office", namespace },
                        spec: {
                            selector: { matchLabels: { istio: "ingressgateway" } },
                            rules: [{ from: [{ source: { remoteIpBlocks: ["203.0.113.0/24"] } }] }],
                        },
                    });
                expect(await messages([svc(), ...classic, release, policyIn("istio-ingress")])).toEqual([]);
                expect(await messages([svc(), ...classic, release, policyIn("models")])).toEqual([
                    `mandatory: ${openServiceMessage(through, "models/qwen-http", [])}`,
                ]);
                const unseen = [svc(), ...classic];
                expect(await messages(unseen)).toEqual([]);
                expect(await messages(unseen, advisory)).toEqual([
                    `advisory: ${through} puts model server Service models/qwen-http on the internet, and what stands in front of it could not be judged: the Service of its pods (istio=ingressgateway) is not in the program, so whether its load balancer faces the internet could not be judged, and no AuthorizationPolicy on them refuses anyone.`,
                ]);
            });

            test("GKE's class named in spec.ingressClassName, which GKE's controller does not read: never mandatory, and the advisory says so", async () => {
                const stack = [svc(), ingress({}, { ingressClassName: "gce" })];
                expect(await messages(stack)).toEqual([]);
                expect(await messages(stack, advisory)).toEqual([
                    'advisory: Ingress models/qwen (class gce) puts model server Service models/qwen-http on the internet, and what stands in front of it could not be judged: its class "gce" is named in spec.ingressClassName, which GKE\'s Ingress controller does not read (it reads the kubernetes.io/ingress.class annotation), so which controller serves it, if any, is not shown.',
                ]);
            });

            test("another controller's class (Tailscale, Traefik): never mandatory, the advisory says what could not be judged", async () => {
                for (const className of ["tailscale", "traefik"]) {
                    const stack = [svc(), ingress({}, { ingressClassName: className })];
                    expect(await messages(stack)).toEqual([]);
                    expect(await messages(stack, advisory)).toEqual([
                        `advisory: Ingress models/qwen (class ${className}) puts model server Service models/qwen-http on the internet, and what stands in front of it could not be judged: its class "${className}" is served by a controller the pack does not know.`,
                    ]);
                }
            });
        });
    });
});
