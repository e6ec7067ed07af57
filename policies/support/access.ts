/**
 * Who reaches the stack's inference backends through which Gateway: each external Gateway with the routes (and KServe
 * services) that forward to an InferencePool or a vLLM Service, whether a plain-HTTP listener admits a route, and what
 * lets sources into a Gateway that is not GKE's (AuthorizationPolicies, its Service's source ranges).
 */
import { PolicyResource } from "@pulumi/policy";
import {
    KubeProps,
    authorizationPolicyVerdict,
    isExternalGateway,
    isInferencePoolBackend,
    opensToInternet,
    overlaySourceRanges,
    parentGateways,
    redirectsToHttpsOnly,
    selectorMatches,
    selectsKServeWorkload,
    labelsOf,
} from "../facts";
import { Backend, effectiveServiceSpec, inferencePoolOf, serviceGateways } from "./kserve";
import { isKubernetesKind, isLlmInferenceService, namespaceOf, objectKey } from "./resources";
import { httpRoutes } from "./routes";
import { gatewaysByKey } from "./stack";
import { stackVllmPods } from "./workloads";

/** Where traffic enters a Gateway: a route's (or KServe service's) parent references, its namespace, and the backends it reaches. */
export interface Attachment {
    source: PolicyResource;
    namespace: string;
    parentRefs: KubeProps[];
    /** The inference backends of the rules that forward (not only redirect). */
    forwarding: Backend[];
}

/** True when a Service sends traffic to vLLM: it selects KServe's workload, or pods the stack runs vLLM in. */
function isVllmService(service: PolicyResource, resources: PolicyResource[]): boolean {
    const selector = service.props.spec?.selector;
    return (
        selectsKServeWorkload(selector) ||
        stackVllmPods(resources).some((pod) => pod.namespace === namespaceOf(service) && selectorMatches(selector, pod.labels))
    );
}

/** Every way traffic reaches an inference backend: the stack's HTTPRoutes, and KServe's route for each LLMInferenceService. */
function attachments(resources: PolicyResource[]): Attachment[] {
    const services = new Map(
        resources.filter((resource) => isKubernetesKind(resource.type, "", "Service")).map((service) => [objectKey(service), service]),
    );
    const inference = (backend: Backend) =>
        isInferencePoolBackend(backend) ||
        (backend.kind === "Service" &&
            backend.group === "" &&
            isVllmService(services.get(`${backend.namespace}/${backend.name}`) ?? backend.source, resources));
    const fromRoutes = httpRoutes(resources).map((route): Attachment => {
        const rules: KubeProps[] = Array.isArray(route.props.spec?.rules) ? route.props.spec.rules : [];
        const namespace = namespaceOf(route);
        const forwarding = rules
            .filter((rule) => !redirectsToHttpsOnly(rule))
            .flatMap((rule) => (Array.isArray(rule.backendRefs) ? rule.backendRefs : []))
            .map((ref: KubeProps): Backend => ({
                group: ref.group ?? "",
                kind: ref.kind ?? "Service",
                namespace: ref.namespace ?? namespace,
                name: ref.name,
                source: route,
            }))
            .filter(inference);
        return {
            source: route,
            namespace,
            parentRefs: Array.isArray(route.props.spec?.parentRefs) ? route.props.spec.parentRefs : [],
            forwarding,
        };
    });
    const fromServices = resources
        .filter((resource) => isLlmInferenceService(resource.type))
        .flatMap((service): Attachment[] => {
            const pool = inferencePoolOf(service);
            const gateways = serviceGateways(service, resources);
            if (!pool || gateways.length === 0) {
                return [];
            }
            const own: unknown = effectiveServiceSpec(service, resources).spec.router?.route?.http?.spec?.parentRefs;
            const sections = Array.isArray(own)
                ? own.map((ref: KubeProps) => ref?.sectionName).filter((name) => typeof name === "string")
                : [];
            const parentRefs = gateways.flatMap((key) => {
                const [namespace, name] = key.split("/");
                return sections.length > 0 ? sections.map((sectionName) => ({ namespace, name, sectionName })) : [{ namespace, name }];
            });
            return [{ source: service, namespace: namespaceOf(service), parentRefs, forwarding: [pool] }];
        });
    return [...fromRoutes, ...fromServices];
}

/** Whether a listener admits routes from `namespace`: `Same` (the default) the Gateway's own, `All` any, `Selector` a namespace whose labels the stack shows match. */
export function admits(listener: KubeProps, gatewayNamespace: string, namespace: string, resources: PolicyResource[]): boolean {
    const from = listener.allowedRoutes?.namespaces?.from ?? "Same";
    if (from === "All") {
        return true;
    }
    if (from === "Selector") {
        const declared = resources.find(
            (resource) => isKubernetesKind(resource.type, "", "Namespace") && resource.props.metadata?.name === namespace,
        );
        return (
            declared === undefined ||
            selectorMatches(listener.allowedRoutes.namespaces.selector?.matchLabels, labelsOf(declared.props.metadata?.labels))
        );
    }
    return namespace === gatewayNamespace;
}

/** The ConfigMap a Gateway's `spec.infrastructure.parametersRef` names, in the Gateway's namespace. */
function serviceOverlay(gateway: PolicyResource, resources: PolicyResource[]): PolicyResource | undefined {
    const ref: KubeProps | undefined = gateway.props.spec?.infrastructure?.parametersRef;
    return ref?.kind === "ConfigMap"
        ? resources.find(
              (resource) =>
                  isKubernetesKind(resource.type, "", "ConfigMap") &&
                  resource.props.metadata?.name === ref.name &&
                  namespaceOf(resource) === namespaceOf(gateway),
          )
        : undefined;
}

/** What lets sources into a Gateway that is not GKE's: AuthorizationPolicies on it, and its Service's source ranges. */
export function istioGuards(gateway: PolicyResource, resources: PolicyResource[]): { guarded: boolean; open: PolicyResource[] } {
    const name = gateway.props.metadata?.name;
    const verdicts = resources
        .filter(
            (resource) =>
                isKubernetesKind(resource.type, "security.istio.io", "AuthorizationPolicy") &&
                namespaceOf(resource) === namespaceOf(gateway),
        )
        .map((policy) => ({ policy, verdict: authorizationPolicyVerdict(policy.props, name) }));
    const overlay = serviceOverlay(gateway, resources);
    const ranges = overlaySourceRanges(overlay?.props.data?.service);
    return {
        guarded: verdicts.some(({ verdict }) => verdict !== "unrelated") || (ranges !== undefined && ranges.length > 0),
        open: [
            ...verdicts.filter(({ verdict }) => verdict === "opens").map(({ policy }) => policy),
            ...(overlay && ranges !== undefined && opensToInternet(ranges) ? [overlay] : []),
        ],
    };
}

/** The external Gateways of the stack that take traffic to an inference backend, with what reaches each. */
export function exposedGateways(resources: PolicyResource[]): Array<{ key: string; gateway: PolicyResource; reaching: Attachment[] }> {
    const all = attachments(resources);
    return [...gatewaysByKey(resources).entries()]
        .filter(([, { resource }]) => isExternalGateway(resource.props))
        .map(([key, { resource }]) => ({
            key,
            gateway: resource,
            reaching: all.filter(
                (attachment) =>
                    attachment.forwarding.length > 0 && parentGateways(attachment.parentRefs, attachment.namespace).includes(key),
            ),
        }))
        .filter(({ reaching }) => reaching.length > 0)
        .sort((a, b) => a.key.localeCompare(b.key));
}
