/**
 * The stack-wide facts the per-service lookups read, built once per stack: a policy asks once per service, and a scan
 * per ask is quadratic. The Gateways by `namespace/name`, KServe's controller namespace, its configs, and the Gateway a
 * service attaches to when it names none.
 */
import { PolicyResource } from "@pulumi/policy";
import { KSERVE } from "../facts";
import { chartName, isKubernetesKind, isLlmInferenceServiceConfig, namespaceOf, objectKey } from "./resources";

interface StackIndex {
    gateways: Map<string, { className: string; resource: PolicyResource }>;
    kserveNamespace: string;
    /** LLMInferenceServiceConfigs by `namespace/name`, the first of each. */
    configs: Map<string, PolicyResource>;
    defaultGateway: string;
}

/** KServe's LLMInferenceService controller: its Deployment and its chart. Source: kserve v0.20.0 charts/kserve-llmisvc-resources. */
export const KSERVE_CONTROLLER = { deployment: "llmisvc-controller-manager", chart: "kserve-llmisvc-resources" } as const;

const stackIndexes = new WeakMap<PolicyResource[], StackIndex>();

function stackIndex(resources: PolicyResource[]): StackIndex {
    let index = stackIndexes.get(resources);
    if (index === undefined) {
        const gateways = new Map<string, { className: string; resource: PolicyResource }>();
        const configs = new Map<string, PolicyResource>();
        let controller: PolicyResource | undefined;
        for (const resource of resources) {
            if (isKubernetesKind(resource.type, "gateway.networking.k8s.io", "Gateway")) {
                gateways.set(objectKey(resource), { className: resource.props.spec?.gatewayClassName, resource });
            } else if (isLlmInferenceServiceConfig(resource.type) && !configs.has(objectKey(resource))) {
                configs.set(objectKey(resource), resource);
            } else if (
                controller === undefined &&
                isKubernetesKind(resource.type, "apps", "Deployment") &&
                resource.props.metadata?.name === KSERVE_CONTROLLER.deployment
            ) {
                controller = resource;
            }
        }
        const namespace = controller ? namespaceOf(controller) : KSERVE.namespace;
        index = { gateways, kserveNamespace: namespace, configs, defaultGateway: defaultGatewayOf(resources, namespace) };
        stackIndexes.set(resources, index);
    }
    return index;
}

/** The stack's Gateways by `namespace/name`, with their class. */
export function gatewaysByKey(resources: PolicyResource[]): Map<string, { className: string; resource: PolicyResource }> {
    return stackIndex(resources).gateways;
}

/** The namespace KServe's controller runs in: that of its controller Deployment if the stack shows it, else KServe's own. */
export function kserveNamespace(resources: PolicyResource[]): string {
    return stackIndex(resources).kserveNamespace;
}

/** Looks up an LLMInferenceServiceConfig by name as KServe does for a service in `namespace`: that namespace first, then the controller's. */
export function kserveConfigResolver(resources: PolicyResource[]): (name: unknown, namespace: string) => PolicyResource | undefined {
    const { configs, kserveNamespace: controllerNamespace } = stackIndex(resources);
    return (name, namespace) =>
        typeof name === "string"
            ? [namespace, controllerNamespace].map((candidate) => configs.get(`${candidate}/${name}`)).find(Boolean)
            : undefined;
}

/**
 * The Gateway (`namespace/name`) a service's route attaches to when the service names none: what KServe's
 * inferenceservice-config ConfigMap says, else what a Helm release of KServe's controller chart sets, else the
 * chart's default. Source: {@link KSERVE.defaultGateway}.
 */
export function kserveDefaultGateway(resources: PolicyResource[]): string {
    return stackIndex(resources).defaultGateway;
}

function defaultGatewayOf(resources: PolicyResource[], namespace: string): string {
    const { configMap, chartValue, chartDefault } = KSERVE.defaultGateway;
    const fromConfigMap = resources
        .filter(
            (resource) =>
                isKubernetesKind(resource.type, "", "ConfigMap") &&
                resource.props.metadata?.name === configMap &&
                namespaceOf(resource) === namespace,
        )
        .map((resource) => {
            try {
                return JSON.parse(String(resource.props.data?.ingress)).kserveIngressGateway as unknown;
            } catch {
                return undefined;
            }
        })[0];
    const release = resources.find(
        (resource) => resource.type === "kubernetes:helm.sh/v3:Release" && chartName(resource.props.chart) === KSERVE_CONTROLLER.chart,
    );
    const fromRelease = chartValue.reduce(
        (value: unknown, key) => (value as Record<string, unknown> | undefined)?.[key],
        release?.props.values,
    );
    const gateway =
        [fromConfigMap, fromRelease].find((value): value is string => typeof value === "string" && value !== "") ?? chartDefault;
    return gateway.includes("/") ? gateway : `${namespace}/${gateway}`;
}
