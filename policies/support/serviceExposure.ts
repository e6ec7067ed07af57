/**
 * The ways a stack puts a vLLM Service on the internet without a Gateway: the Service itself as a LoadBalancer, or an
 * Ingress that routes to it, each with what stands in front of it (facts/judgements/exposure.ts), Cloud Armor's rules
 * judged where the stack declares the policy.
 */
import { PolicyResource } from "@pulumi/policy";
import {
    ALB_INGRESS,
    ISTIO,
    istioAuthorizationVerdict,
    labelsOf,
    selectorMatches,
    Exposure,
    IngressSurroundings,
    KubeProps,
    NGINX_INGRESS,
    backendConfigName,
    ingressController,
    ingressExposure,
    loadBalancerServiceExposure,
} from "../facts";
import { isModelService } from "./access";
import { cloudArmorVerdict, securityPolicies } from "./cloudArmor";
import { chartName, isHelmChart, isKubernetesKind, namespaceOf, objectKey, serviceOfHost } from "./resources";

/** A vLLM Service reachable through `through` (itself, or an Ingress), and what stands in front of it. */
export interface ServiceExposure {
    /** The object whose load balancer faces the internet: where the fix goes. */
    through: PolicyResource;
    /** `LoadBalancer Service models/qwen`, `Ingress models/qwen (ingress-nginx)`. */
    description: string;
    /** The vLLM Service it reaches. */
    service: string;
    exposure: Exposure;
}

/** An Ingress's backends: its default backend and every path's, by Service name and port (networking.k8s.io/v1 or the older spelling). */
function ingressBackends(ingress: KubeProps): Array<{ name: string; port: { name?: string; number?: number } }> {
    const rules: KubeProps[] = Array.isArray(ingress.spec?.rules) ? ingress.spec.rules : [];
    const backends: KubeProps[] = [
        ingress.spec?.defaultBackend ?? ingress.spec?.backend,
        ...rules.flatMap((rule) => (Array.isArray(rule?.http?.paths) ? (rule.http.paths as KubeProps[]) : []).map((path) => path?.backend)),
    ];
    return backends.flatMap((backend) => {
        const name: unknown = backend?.service?.name ?? backend?.serviceName;
        const port: unknown = backend?.service?.port?.name ?? backend?.service?.port?.number ?? backend?.servicePort;
        return typeof name === "string"
            ? [{ name, port: typeof port === "number" ? { number: port } : typeof port === "string" ? { name: port } : {} }]
            : [];
    });
}

const CONTROLLER_NAMES = {
    gke: "GKE",
    "gke-internal": "GKE, internal",
    alb: "AWS Load Balancer Controller",
    nginx: "ingress-nginx",
} as const;

/** A guard by a Cloud Armor policy, judged by its rules where the stack declares it: one that denies nobody guards nothing. */
function withArmorRules(exposure: Exposure, resources: PolicyResource[]): Exposure {
    if (exposure.verdict !== "guarded" || exposure.armor === undefined) {
        return exposure;
    }
    const declared = securityPolicies(resources).get(exposure.armor);
    if (declared === undefined) {
        return {
            verdict: "unknown",
            why: `${exposure.by} is not declared by the program, so whether it refuses anyone could not be judged`,
        };
    }
    const verdict = cloudArmorVerdict(declared.rules);
    if (verdict.verdict === "guardsNothing") {
        return { verdict: "open", literalHeaders: [] };
    }
    if (verdict.verdict === "opens" || verdict.verdict === "unknown") {
        return {
            verdict: "unknown",
            why: `Cloud Armor ${verdict.rule} of ${exposure.armor} ${verdict.verdict === "opens" ? "lets every address through" : "could not be judged"}`,
        };
    }
    return exposure;
}

/**
 * What around `ingress` decides its load balancer: the ALB scheme of its class's IngressClassParams, else of another
 * Ingress of its group; the ingress-nginx controller's Service as a chart of the stack configures it.
 */
function surroundings(
    ingress: PolicyResource,
    ingressClasses: ReadonlyMap<unknown, KubeProps>,
    resources: PolicyResource[],
): IngressSurroundings {
    const className: unknown = ingress.props.spec?.ingressClassName;
    const parameters: KubeProps | undefined = typeof className === "string" ? ingressClasses.get(className)?.spec?.parameters : undefined;
    const classParams =
        parameters?.kind === ALB_INGRESS.classParams.kind
            ? resources.find(
                  (resource) =>
                      ALB_INGRESS.classParams.groups.some((group) =>
                          isKubernetesKind(resource.type, group, ALB_INGRESS.classParams.kind),
                      ) && resource.props.metadata?.name === parameters.name,
              )
            : undefined;
    const group: unknown = ingress.props.metadata?.annotations?.[ALB_INGRESS.groupName];
    const groupScheme =
        group === undefined
            ? undefined
            : resources
                  .filter(
                      (resource) =>
                          (isKubernetesKind(resource.type, "networking.k8s.io", "Ingress") ||
                              isKubernetesKind(resource.type, "extensions", "Ingress")) &&
                          resource.props.metadata?.annotations?.[ALB_INGRESS.groupName] === group,
                  )
                  .map((member) => member.props.metadata?.annotations?.[ALB_INGRESS.scheme.key] as unknown)
                  .find((scheme) => typeof scheme === "string");
    const albScheme: unknown = classParams?.props.spec?.scheme ?? groupScheme;
    const nginxControllerService = serviceOfValues(
        chartValuesAt(chartNamed(resources, NGINX_INGRESS.chart), NGINX_INGRESS.controllerServiceValues),
    );
    return {
        ...(typeof albScheme === "string" ? { albScheme } : {}),
        ...(nginxControllerService !== undefined ? { nginxControllerService } : {}),
    };
}

/** A Service a chart's values describe (`type`, `annotations`, `loadBalancerSourceRanges`, `loadBalancerClass`), as a Service object. */
function serviceOfValues(values: KubeProps | undefined): KubeProps | undefined {
    return values !== undefined && typeof values === "object"
        ? {
              metadata: { annotations: values.annotations ?? {} },
              spec: {
                  type: values.type ?? "LoadBalancer",
                  ...(values.loadBalancerSourceRanges !== undefined ? { loadBalancerSourceRanges: values.loadBalancerSourceRanges } : {}),
                  ...(values.loadBalancerClass !== undefined ? { loadBalancerClass: values.loadBalancerClass } : {}),
              },
          }
        : undefined;
}

/** The stack's first chart named `chart`. */
function chartNamed(resources: PolicyResource[], chart: string): PolicyResource | undefined {
    return resources.find((resource) => isHelmChart(resource.type) && chartName(resource.props.chart) === chart);
}

/** The values at `path` of `chart` (an empty object where a chart of the stack sets none there: its defaults). */
function chartValuesAt(chart: PolicyResource | undefined, path: readonly string[]): KubeProps | undefined {
    return chart === undefined ? undefined : (path.reduce((value: KubeProps | undefined, key) => value?.[key], chart.props.values) ?? {});
}

/**
 * Istio's classic ingress: each VirtualService bound to a networking.istio.io Gateway that routes to a model Service,
 * with what stands in front: the Service of the Gateway's pods as the program shows it (one it declares, or the gateway
 * chart's values; else not judged), and the AuthorizationPolicies on those pods as Istio evaluates them.
 */
function classicIstioExposures(resources: PolicyResource[], services: ReadonlyMap<string, PolicyResource>): ServiceExposure[] {
    const gateways = resources.filter((resource) => isKubernetesKind(resource.type, ISTIO.classic.group, "Gateway"));
    const policies = resources
        .filter((resource) => isKubernetesKind(resource.type, "security.istio.io", "AuthorizationPolicy"))
        .map((policy) => ({ namespace: namespaceOf(policy), props: policy.props }));
    const found: ServiceExposure[] = [];
    for (const route of resources.filter((resource) => isKubernetesKind(resource.type, ISTIO.classic.group, "VirtualService"))) {
        const namespace = namespaceOf(route);
        const destinations = ((route.props.spec?.http ?? []) as KubeProps[])
            .flatMap((rule) => (Array.isArray(rule?.route) ? (rule.route as KubeProps[]) : []))
            .map((target): unknown => target?.destination?.host)
            .map((host) => (typeof host === "string" ? serviceOfHost(host, namespace) : undefined))
            .filter((key): key is string => key !== undefined && services.has(key));
        for (const name of (Array.isArray(route.props.spec?.gateways) ? route.props.spec.gateways : []) as unknown[]) {
            const [gatewayNamespace, gatewayName] = String(name).includes("/") ? String(name).split("/") : [namespace, String(name)];
            const gateway = gateways.find(
                (candidate) => namespaceOf(candidate) === gatewayNamespace && candidate.props.metadata?.name === gatewayName,
            );
            if (gateway === undefined || destinations.length === 0) {
                continue;
            }
            const labels = labelsOf(gateway.props.spec?.selector);
            const podService = resources.find(
                (resource) =>
                    isKubernetesKind(resource.type, "", "Service") &&
                    Object.keys(labelsOf(resource.props.spec?.selector)).length > 0 &&
                    selectorMatches(resource.props.spec?.selector, labels),
            );
            // The gateway chart's Service is a LoadBalancer unless its values say otherwise.
            const chart = chartNamed(resources, ISTIO.classic.gatewayChart);
            const serviceProps = podService?.props ?? serviceOfValues(chartValuesAt(chart, ISTIO.classic.serviceValues));
            const balancer = serviceProps && loadBalancerServiceExposure(serviceProps);
            // A selector policy applies in its own namespace only: the pods' (their Service's, or the chart's release's).
            const podsNamespace: unknown = podService ? namespaceOf(podService) : chart?.props.namespace;
            const authorization = istioAuthorizationVerdict(policies, {}, "", {
                labels,
                ...(typeof podsNamespace === "string" ? { namespace: podsNamespace } : {}),
            });
            const shown = Object.entries(labels)
                .map(([key, value]) => `${key}=${value}`)
                .join(",");
            const exposure: Exposure =
                serviceProps !== undefined && balancer === undefined
                    ? { verdict: "internal" }
                    : balancer !== undefined && balancer.verdict !== "open"
                      ? balancer
                      : authorization.verdict === "restricts"
                        ? { verdict: "guarded", by: "AuthorizationPolicies on its pods" }
                        : authorization.verdict === "unknown"
                          ? {
                                verdict: "unknown",
                                why: "an AuthorizationPolicy on its pods hands requests to an external authorizer, or reads what the pack cannot evaluate",
                            }
                          : serviceProps === undefined
                            ? {
                                  verdict: "unknown",
                                  why: `the Service of its pods (${shown}) is not in the program, so whether its load balancer faces the internet could not be judged, and no AuthorizationPolicy on them refuses anyone`,
                              }
                            : { verdict: "open", literalHeaders: authorization.literalHeaders };
            for (const service of new Set(destinations)) {
                if (exposure.verdict !== "internal") {
                    found.push({
                        through: gateway,
                        description: `Istio Gateway ${objectKey(gateway)} (pods ${shown}), by VirtualService ${objectKey(route)},`,
                        service,
                        exposure,
                    });
                }
            }
        }
    }
    return found;
}

/** Every LoadBalancer Service and Ingress of the stack that reaches a vLLM Service, and what stands in front of each. */
export function exposedModelServices(resources: PolicyResource[]): ServiceExposure[] {
    const services = new Map(
        resources
            .filter((resource) => isKubernetesKind(resource.type, "", "Service") && isModelService(resource, resources))
            .map((service) => [objectKey(service), service]),
    );
    const byKind = (group: string, kind: string) => resources.filter((resource) => isKubernetesKind(resource.type, group, kind));
    const ingressClasses = new Map(
        byKind("networking.k8s.io", "IngressClass").map((resource) => [resource.props.metadata?.name, resource.props]),
    );
    const backendConfigs = new Map(byKind("cloud.google.com", "BackendConfig").map((resource) => [objectKey(resource), resource.props]));
    const found: ServiceExposure[] = [];
    for (const service of services.values()) {
        const exposure = loadBalancerServiceExposure(service.props);
        if (exposure !== undefined && exposure.verdict !== "internal") {
            found.push({
                through: service,
                description: `LoadBalancer Service ${objectKey(service)}`,
                service: objectKey(service),
                exposure,
            });
        }
    }
    for (const ingress of [...byKind("networking.k8s.io", "Ingress"), ...byKind("extensions", "Ingress")]) {
        const controller = ingressController(ingress.props, ingressClasses);
        const label = typeof controller === "string" ? CONTROLLER_NAMES[controller] : `class ${controller.other}`;
        const seen = new Set<string>();
        for (const backend of ingressBackends(ingress.props)) {
            const key = `${namespaceOf(ingress)}/${backend.name}`;
            const service = services.get(key);
            if (service === undefined || seen.has(key)) {
                continue;
            }
            seen.add(key);
            // GKE looks a BackendConfig up by the Service port's name, then its number: the port the Ingress names, either way.
            const ports: KubeProps[] = Array.isArray(service.props.spec?.ports) ? service.props.spec.ports : [];
            const servicePort = ports.find((port) => port?.name === backend.port.name || port?.port === backend.port.number);
            const configName = backendConfigName(
                service.props,
                servicePort ? { name: servicePort.name, number: servicePort.port } : backend.port,
            );
            const exposure = withArmorRules(
                ingressExposure(
                    ingress.props,
                    controller,
                    { name: backend.name, props: service.props },
                    {
                        name: configName,
                        props: configName === undefined ? undefined : backendConfigs.get(`${namespaceOf(service)}/${configName}`),
                    },
                    surroundings(ingress, ingressClasses, resources),
                ),
                resources,
            );
            if (exposure.verdict !== "internal") {
                found.push({ through: ingress, description: `Ingress ${objectKey(ingress)} (${label})`, service: key, exposure });
            }
        }
    }
    return [...found, ...classicIstioExposures(resources, services)];
}
