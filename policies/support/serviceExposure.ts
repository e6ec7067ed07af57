/**
 * The ways a stack puts a vLLM Service on the internet without a Gateway: the Service itself as a LoadBalancer, or an
 * Ingress that routes to it, each with what stands in front of it (facts/judgements/exposure.ts), Cloud Armor's rules
 * judged where the stack declares the policy.
 */
import { PolicyResource } from "@pulumi/policy";
import {
    ALB_INGRESS,
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
import { chartName, isHelmChart, isKubernetesKind, namespaceOf, objectKey } from "./resources";

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
                      isKubernetesKind(resource.type, ALB_INGRESS.classParams.group, ALB_INGRESS.classParams.kind) &&
                      resource.props.metadata?.name === parameters.name,
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
    const nginx = resources.find((resource) => isHelmChart(resource.type) && chartName(resource.props.chart) === NGINX_INGRESS.chart);
    const values: unknown = NGINX_INGRESS.controllerServiceValues.reduce(
        (value: unknown, key) => (value as KubeProps | undefined)?.[key],
        nginx?.props.values,
    );
    const service = values as KubeProps | undefined;
    return {
        ...(typeof albScheme === "string" ? { albScheme } : {}),
        ...(service !== undefined && typeof service === "object"
            ? {
                  nginxControllerService: {
                      metadata: { annotations: service.annotations ?? {} },
                      spec: {
                          type: service.type ?? "LoadBalancer",
                          ...(service.loadBalancerSourceRanges !== undefined
                              ? { loadBalancerSourceRanges: service.loadBalancerSourceRanges }
                              : {}),
                          ...(service.loadBalancerClass !== undefined ? { loadBalancerClass: service.loadBalancerClass } : {}),
                      },
                  },
              }
            : {}),
    };
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
    return found;
}
