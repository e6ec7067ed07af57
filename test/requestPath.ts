/**
 * The request path of the facts ({@link REQUEST_PATHS}) read against what a program emits: for each hop of the stack's
 * gateway provider, the objects that must build it, with the port, protocol and failure mode the table gives.
 */
import {
    BODY_BASED_ROUTER,
    EPP_MINIMUM_VERSIONS,
    GATEWAY_CLASSES,
    GATEWAY_LISTENERS,
    INFERENCE_POOL_KIND,
    ISTIO,
    KSERVE,
    KSERVE_CHILDREN,
    MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS,
    MULTI_CLUSTER_INFERENCE,
    endpointPickerAlpn,
} from "@gke-tpu-inference/facts";
import { fleetPoolName } from "../components/fleet/fleetExport";
import { REQUEST_PATHS } from "./runtimeContracts";
import { RecordedResource } from "../scripts/offline/recorder";
import { istioEndpointPickers, renderedRoute } from "./kserveRoutes";

type Provider = keyof typeof REQUEST_PATHS;
/** Every hop of every provider. */
type Hop = { [P in Provider]: keyof (typeof REQUEST_PATHS)[P] }[Provider];
/** The tables of the providers whose services KServe routes in their own cluster. */
type RoutedHops = (typeof REQUEST_PATHS)["gke" | "istio"];
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

/** The backend a provider's Gateway sends a service to, as its policies target it. */
function backendOf(service: Inputs, provider: Provider): { kind: string; name: string } {
    return provider === "fleet"
        ? { kind: MULTI_CLUSTER_INFERENCE.importKind.kind, name: fleetPoolName(service.metadata.name) }
        : { kind: INFERENCE_POOL_KIND.kind, name: `${service.metadata.name}${KSERVE_CHILDREN.inferencePoolSuffix}` };
}

/** Each service once: a fleet runs every service in every member. */
function distinct(services: readonly Inputs[]): Inputs[] {
    return [...new Map(services.map((service) => [service.metadata.name as string, service])).values()];
}

/** The regions of the clusters the program builds: a fleet's members. */
function clusterRegions(resources: readonly RecordedResource[]): string[] {
    return resources
        .filter((resource) => resource.type === "gcp:container/cluster:Cluster")
        .map((resource) => (resource.inputs as Inputs).location as string);
}

const CHECKS: Record<Hop, (emitted: Emitted, provider: Provider) => string[]> = {
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
        const classes: readonly string[] = {
            gke: GATEWAY_CLASSES.regional,
            istio: [ISTIO.gatewayClass],
            fleet: [MULTI_CLUSTER_INFERENCE.gatewayClass],
        }[provider];
        if (!classes.includes(gateway.spec.gatewayClassName)) {
            problems.push(`the Gateway's class ${gateway.spec.gatewayClassName} is not one of ${classes.join(", ")}`);
        }
        if (provider !== "istio") {
            const policies = ofKind(resources, "GCPBackendPolicy");
            for (const service of distinct(services)) {
                const backend = backendOf(service, provider);
                const policy = policies.find(
                    (candidate) => candidate.spec.targetRef.kind === backend.kind && candidate.spec.targetRef.name === backend.name,
                );
                if (!(policy?.spec.default.timeoutSec >= MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS)) {
                    problems.push(`${backend.name} has no backend timeout of at least ${MINIMUM_INFERENCE_BACKEND_TIMEOUT_SECONDS} s`);
                }
            }
        }
        if (provider === "fleet") {
            const addressed = ((gateway.spec.addresses ?? []) as Inputs[]).map((address) =>
                address.type === `${MULTI_CLUSTER_INFERENCE.ephemeralAddressTypePrefix}${address.value}` ? address.value : undefined,
            );
            const missing = clusterRegions(resources).filter((region) => !addressed.includes(region));
            if (missing.length > 0) {
                problems.push(`the Gateway has no address in ${missing.join(", ")}`);
            }
        }
        return problems;
    },
    bodyBasedRouter: ({ resources, services, routed }, provider) => {
        if (!routed) {
            return [];
        }
        const hop = (REQUEST_PATHS[provider] as RoutedHops).bodyBasedRouter;
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
        const hop = (REQUEST_PATHS[provider] as RoutedHops).routeToPool;
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
        const hop = (REQUEST_PATHS[provider] as RoutedHops).catchAll;
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
    routeToImport: ({ resources, services, gateway }) => {
        const routes = ofKind(resources, "HTTPRoute");
        return distinct(services).flatMap((service) => {
            const name = fleetPoolName(service.metadata.name);
            const route = routes.find(
                (candidate) => candidate.metadata.name === name && candidate.metadata.namespace === service.metadata.namespace,
            );
            const refs = ((route?.spec.rules ?? []) as Inputs[]).flatMap((rule) => rule.backendRefs as Inputs[]);
            const toImport = (ref: Inputs) =>
                ref.group === MULTI_CLUSTER_INFERENCE.importKind.group &&
                ref.kind === MULTI_CLUSTER_INFERENCE.importKind.kind &&
                ref.name === name &&
                ref.port === undefined;
            const listener = ((route?.spec.parentRefs ?? []) as Inputs[]).every(
                (ref) => ref.name === gateway.metadata.name && ref.sectionName === GATEWAY_LISTENERS.https.name,
            );
            return refs.length > 0 && refs.every(toImport) && listener
                ? []
                : [`${service.metadata.namespace}/${name} does not send every rule to the import ${name} from the HTTPS listener`];
        });
    },
    memberPool: ({ resources, services }) => {
        const hop = REQUEST_PATHS.fleet;
        const pools = ofKind(resources, INFERENCE_POOL_KIND.kind);
        return distinct(services).flatMap((service) => {
            const name = fleetPoolName(service.metadata.name);
            const members = services.filter((candidate) => candidate.metadata.name === service.metadata.name).length;
            const exported = pools.filter(
                (pool) =>
                    pool.metadata.name === name &&
                    pool.metadata.namespace === service.metadata.namespace &&
                    pool.metadata.annotations?.[MULTI_CLUSTER_INFERENCE.exportAnnotation.key] ===
                        MULTI_CLUSTER_INFERENCE.exportAnnotation.value,
            );
            const wired = exported.filter(
                (pool) =>
                    JSON.stringify(pool.spec.targetPorts) === JSON.stringify([{ number: hop.memberPool.port }]) &&
                    JSON.stringify(pool.spec.selector.matchLabels) ===
                        JSON.stringify(KSERVE_CHILDREN.workloadLabels(service.metadata.name)) &&
                    pool.spec.endpointPickerRef.name === `${service.metadata.name}${KSERVE_CHILDREN.eppServiceSuffix}` &&
                    pool.spec.endpointPickerRef.port.number === hop.endpointPicker.port,
            );
            return [
                ...(exported.length === members ? [] : [`${name} is exported by ${exported.length} of the ${members} members running it`]),
                ...(wired.length === exported.length
                    ? []
                    : [`${name} does not select KServe's workload on ${hop.memberPool.port} with its EPP on ${hop.endpointPicker.port}`]),
            ];
        });
    },
    importHealthCheck: ({ services, resources }) => {
        const hop = REQUEST_PATHS.fleet.importHealthCheck;
        const policies = ofKind(resources, "HealthCheckPolicy");
        return distinct(services).flatMap((service) => {
            const backend = backendOf(service, "fleet");
            const check = policies.find(
                (policy) => policy.spec.targetRef.kind === backend.kind && policy.spec.targetRef.name === backend.name,
            )?.spec.default.config;
            return check?.type === "HTTP" &&
                check.httpHealthCheck.port === hop.port &&
                check.httpHealthCheck.portSpecification === "USE_FIXED_PORT" &&
                check.httpHealthCheck.requestPath === "/health"
                ? []
                : [`${backend.name} is not health-checked over HTTP on ${hop.port} /health`];
        });
    },
    proxyFirewall: ({ resources }) => {
        const hop = REQUEST_PATHS.fleet;
        const ports = [String(hop.poolToVllm.port), String(hop.endpointPicker.port)];
        const ranges = resources
            .filter(
                (resource) =>
                    resource.type === "gcp:compute/subnetwork:Subnetwork" &&
                    (resource.inputs as Inputs).purpose === MULTI_CLUSTER_INFERENCE.proxyOnlySubnetPurpose,
            )
            .map((resource) => (resource.inputs as Inputs).ipCidrRange as string);
        const rules = resources
            .filter((resource) => resource.type === "gcp:compute/firewall:Firewall")
            .map((resource) => resource.inputs as Inputs)
            .filter((rule) => rule.direction === "INGRESS");
        const opens = (range: string, port: string) =>
            rules.some(
                (rule) =>
                    (rule.sourceRanges ?? []).includes(range) &&
                    (rule.allows as Inputs[]).some((allow) => allow.protocol === "tcp" && (allow.ports ?? [port]).includes(port)),
            );
        return ranges.flatMap((range) =>
            ports.filter((port) => !opens(range, port)).map((port) => `no firewall rule admits the proxy-only range ${range} on ${port}`),
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
