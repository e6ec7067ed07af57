/**
 * The request path of the facts ({@link REQUEST_PATHS}) read against what a program emits: for each hop of the stack's
 * gateway provider, the objects that must build it, with the port, protocol and failure mode the table gives.
 */
import {
    BODY_BASED_ROUTER,
    EPP_MINIMUM_VERSIONS,
    GATEWAY_CLASSES,
    INFERENCE_POOL_KIND,
    ISTIO,
    KSERVE,
    KSERVE_CHILDREN,
    MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS,
    endpointPickerAlpn,
} from "@gke-tpu-inference/facts";
import { REQUEST_PATHS } from "./runtimeContracts";
import { RecordedResource } from "../scripts/offline/recorder";
import { istioEndpointPickers, renderedRoute } from "./kserveRoutes";

type Provider = keyof typeof REQUEST_PATHS;
type Hops = (typeof REQUEST_PATHS)[Provider];
type Inputs = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The emitted objects of one kind. */
function ofKind(resources: readonly RecordedResource[], kind: string): Inputs[] {
    return resources
        .filter((resource) => resource.custom && (resource.inputs as Inputs).kind === kind)
        .map((resource) => resource.inputs as Inputs);
}

/** The value of `flag` in a command line, `--flag=value` or `--flag value`. */
function flagValue(words: readonly string[], flag: string): string | undefined {
    const index = words.findIndex((word) => word === flag || word.startsWith(`${flag}=`));
    return index < 0 ? undefined : words[index].includes("=") ? words[index].split("=")[1] : words[index + 1];
}

/** What every hop's check sees. */
interface Emitted {
    gateway: Inputs;
    services: Inputs[];
    routeTemplate: Inputs;
    routed: boolean;
    resources: readonly RecordedResource[];
}

const CHECKS: Record<keyof Hops | "vllmHealthCheck" | "routerHealthCheck", (emitted: Emitted, provider: Provider) => string[]> = {
    clientToGateway: ({ gateway, services, resources }, provider) => {
        const hop = REQUEST_PATHS[provider].clientToGateway;
        const problems: string[] = [];
        const listener = (gateway.spec.listeners as Inputs[]).find(
            (candidate) => candidate.protocol === "HTTPS" && candidate.port === hop.port,
        );
        if (!listener) {
            problems.push(`the Gateway has no HTTPS listener on ${hop.port}`);
        }
        for (const service of services) {
            const refs = (service.spec.router.gateway?.refs ?? []) as Inputs[];
            if (!refs.every((ref) => ref.sectionName === listener?.name)) {
                problems.push(
                    `${service.metadata.name}'s route does not name the HTTPS listener in router.gateway.refs, which KServe writes over the template's`,
                );
            }
        }
        const classes: readonly string[] = provider === "gke" ? GATEWAY_CLASSES.regional : [ISTIO.gatewayClass];
        if (!classes.includes(gateway.spec.gatewayClassName)) {
            problems.push(`the Gateway's class ${gateway.spec.gatewayClassName} is not one of ${classes.join(", ")}`);
        }
        if (provider === "gke") {
            const policies = ofKind(resources, "GCPBackendPolicy");
            for (const service of services) {
                const pool = `${service.metadata.name}${KSERVE_CHILDREN.inferencePoolSuffix}`;
                const policy = policies.find(
                    (candidate) => candidate.spec.targetRef.kind === INFERENCE_POOL_KIND.kind && candidate.spec.targetRef.name === pool,
                );
                if (!(policy?.spec.default.timeoutSec >= MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS)) {
                    problems.push(`${pool} has no backend timeout of at least ${MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS} s`);
                }
            }
        }
        return problems;
    },
    bodyBasedRouter: ({ resources, services, routed }, provider) => {
        if (!routed) {
            return [];
        }
        const hop = REQUEST_PATHS[provider].bodyBasedRouter;
        if (provider === "gke") {
            const [extension] = ofKind(resources, "GCPRoutingExtension");
            const chain = extension?.spec.extensionChains[0];
            const call = chain?.extensions[0];
            return [
                ...(call?.backendRef.name === BODY_BASED_ROUTER.name && call.backendRef.port === hop.port
                    ? []
                    : [`the routing extension does not call ${BODY_BASED_ROUTER.name}:${hop.port}`]),
                ...(call?.timeout === BODY_BASED_ROUTER.extension.timeout
                    ? []
                    : ["the routing extension's timeout is not the router's 1 s"]),
                ...(call?.failOpen ? ["the routing extension fails open: the root's requests would reach no service"] : []),
                ...(chain?.matchCondition?.celExpressions?.length > 0
                    ? []
                    : ["the routing extension runs on every route: the per-service paths would depend on the router"]),
            ];
        }
        // The router's filter, beside the Gateway's rate limit.
        const filter = ofKind(resources, "EnvoyFilter").find((candidate) => candidate.metadata.name === BODY_BASED_ROUTER.name);
        const patches = (filter?.spec.configPatches ?? []) as Inputs[];
        const processor = patches.find((patch) => patch.applyTo === "HTTP_FILTER")?.patch.value.typed_config;
        const disabledRoutes = patches.filter((patch) => patch.applyTo === "HTTP_ROUTE").length;
        const tls = ofKind(resources, "DestinationRule").find((rule) => String(rule.spec.host).startsWith(`${BODY_BASED_ROUTER.name}.`));
        return [
            ...(String(processor?.grpc_service.envoy_grpc.cluster_name).startsWith(`outbound|${hop.port}||${BODY_BASED_ROUTER.name}.`)
                ? []
                : [`the router's filter does not call ${BODY_BASED_ROUTER.name}:${hop.port}`]),
            ...(processor?.failure_mode_allow === false ? [] : ["the router's filter fails open"]),
            ...(processor?.processing_mode.response_body_mode === "NONE" ? [] : ["the router's filter holds responses"]),
            ...(tls?.spec.trafficPolicy.tls.mode === "SIMPLE" ? [] : ["no TLS to the router"]),
            ...(disabledRoutes >= 10 * services.length
                ? []
                : [`the router's filter is off on ${disabledRoutes} routes, fewer than every service's own paths`]),
        ];
    },
    routeToPool: ({ routeTemplate, services }, provider) => {
        const hop = REQUEST_PATHS[provider].routeToPool;
        const rules = routeTemplate.spec.router.route.http.spec.rules as Inputs[];
        const problems = rules.flatMap((rule, index) => [
            ...(rule.name !== undefined ? [`rule ${index} is named ${rule.name}: istiod would key every service's EPP by it`] : []),
            ...(rule.backendRefs as Inputs[])
                .filter((ref) => ref.kind === INFERENCE_POOL_KIND.kind && ref.port !== hop.port)
                .map((ref) => `rule ${index} sends to the InferencePool on ${ref.port}, not ${hop.port}`),
        ]);
        // Each service's rules resolve to its own InferencePool, as istiod keys them.
        const routes = services.map((service) =>
            renderedRoute(routeTemplate.spec.router.route.http.spec, {
                namespace: service.metadata.namespace,
                name: service.metadata.name,
                modelName: service.spec.model.name,
            }),
        );
        for (const [index, { route, pools }] of istioEndpointPickers(routes).entries()) {
            const own = `${services[index].metadata.namespace}/${services[index].metadata.name}${KSERVE_CHILDREN.inferencePoolSuffix}`;
            if (pools.some((pool) => pool !== own)) {
                problems.push(`${route} reaches another service's InferencePool`);
            }
        }
        return problems;
    },
    endpointPicker: ({ services, resources }, provider) => {
        const hop = REQUEST_PATHS[provider].endpointPicker;
        return services.flatMap((service) => {
            const name = service.metadata.name;
            const [picker] = service.spec.router.scheduler.template.containers as Inputs[];
            const words = [...(picker.command ?? []), ...(picker.args ?? [])] as string[];
            const alpn = endpointPickerAlpn(picker.image, EPP_MINIMUM_VERSIONS);
            const tls = ofKind(resources, "DestinationRule").find(
                (rule) => rule.spec.host === `${name}${KSERVE_CHILDREN.eppServiceSuffix}.${service.metadata.namespace}.svc.cluster.local`,
            );
            return [
                ...(flagValue(words, "--grpc-port") === String(hop.port)
                    ? []
                    : [`${name}'s EPP does not serve ext_proc on ${hop.port}, where KServe's pool calls it`]),
                ...(flagValue(words, "--secure-serving") === "true" ? [] : [`${name}'s EPP does not serve TLS`]),
                ...(alpn?.fixed ? [] : [`${name}'s EPP image ${picker.image} lacks ALPN h2`]),
                ...(provider === "istio" && tls?.spec.trafficPolicy.tls.mode !== "SIMPLE" ? [`no TLS from Istio to ${name}'s EPP`] : []),
            ];
        });
    },
    poolToVllm: ({ services }, provider) => {
        const hop = REQUEST_PATHS[provider].poolToVllm;
        return services.flatMap((service) => {
            const [main] = service.spec.template.containers as Inputs[];
            const probes = [main.startupProbe, main.readinessProbe, main.livenessProbe] as Inputs[];
            return [
                ...(flagValue(main.args, "--port") === String(hop.port)
                    ? []
                    : [`${service.metadata.name}'s vLLM does not serve on ${hop.port}`]),
                ...((main.ports as Inputs[]).some((port) => port.containerPort === hop.port)
                    ? []
                    : [`${service.metadata.name}'s container does not expose ${hop.port}`]),
                ...(probes.every((probe) => probe.httpGet.scheme === "HTTP" && probe.httpGet.port === hop.port)
                    ? []
                    : [`${service.metadata.name}'s probes are not HTTP on ${hop.port}`]),
            ];
        });
    },
    catchAll: ({ services, resources }, provider) => {
        const hop = REQUEST_PATHS[provider].catchAll;
        const plain = ofKind(resources, "Service");
        return services.flatMap((service) => {
            const name = `${service.metadata.name}-http`;
            const backend = plain.find(
                (candidate) => candidate.metadata.name === name && candidate.metadata.namespace === service.metadata.namespace,
            );
            const port = backend?.spec.ports[0];
            const selects =
                JSON.stringify(backend?.spec.selector) === JSON.stringify(KSERVE_CHILDREN.workloadLabels(service.metadata.name));
            return port?.port === hop.port && port.appProtocol === "http" && selects
                ? []
                : [`${name} is not plain HTTP on ${hop.port} to the service's workload`];
        });
    },
    vllmHealthCheck: ({ services, resources }) => {
        const hop = REQUEST_PATHS.gke.vllmHealthCheck;
        const policies = ofKind(resources, "HealthCheckPolicy");
        return services.flatMap((service) =>
            [`${service.metadata.name}${KSERVE_CHILDREN.inferencePoolSuffix}`, `${service.metadata.name}-http`].flatMap((backend) => {
                const check = policies.find((policy) => policy.spec.targetRef.name === backend)?.spec.default.config;
                return check?.type === "HTTP" && check.httpHealthCheck.port === hop.port && check.httpHealthCheck.requestPath === "/health"
                    ? []
                    : [`${backend} is not health-checked over HTTP on ${hop.port} /health`];
            }),
        );
    },
    routerHealthCheck: ({ resources, routed }) => {
        if (!routed) {
            return [];
        }
        const hop = REQUEST_PATHS.gke.routerHealthCheck;
        const check = ofKind(resources, "HealthCheckPolicy").find((policy) => policy.spec.targetRef.name === BODY_BASED_ROUTER.name)?.spec
            .default.config;
        return check?.type === "GRPC" && check.grpcHealthCheck.port === hop.port
            ? []
            : [`the router is not health-checked over gRPC on ${hop.port}`];
    },
};

/** One line per hop of the provider's request path the emitted objects do not build. */
export function requestPathProblems(resources: readonly RecordedResource[], provider: Provider): string[] {
    const [gateway] = ofKind(resources, "Gateway");
    const emitted: Emitted = {
        gateway,
        services: ofKind(resources, "LLMInferenceService"),
        routeTemplate: ofKind(resources, "LLMInferenceServiceConfig").find(
            (config) => config.metadata.name === KSERVE.routerRouteConfigName,
        )!,
        routed: resources.some(
            (resource) =>
                resource.type === "kubernetes:core/v1:ConfigMap" &&
                (resource.inputs as Inputs).metadata?.labels?.[BODY_BASED_ROUTER.managedLabel] === "true",
        ),
        resources,
    };
    return Object.keys(REQUEST_PATHS[provider]).flatMap((hop) =>
        CHECKS[hop as keyof typeof CHECKS](emitted, provider).map((problem) => `${hop}: ${problem}`),
    );
}

/** The hops the checks know, for the test that every hop of the table has one. */
export const CHECKED_HOPS = Object.keys(CHECKS);
