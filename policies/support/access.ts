/**
 * Who reaches the stack's inference backends through which Gateway: each external Gateway with the routes (and KServe
 * services) that forward to an InferencePool or a vLLM Service, whether a plain-HTTP listener admits a route, and what
 * lets sources into a Gateway that is not GKE's (AuthorizationPolicies, its Service's source ranges).
 */
import { PolicyResource } from "@pulumi/policy";
import {
    BackendRef,
    ISTIO,
    KubeProps,
    backendKey,
    backendPolicyGuard,
    IstioAuthorization,
    appliesToGateway,
    istioAuthorizationVerdict,
    tokenIssuers,
    isExternalGateway,
    isGkeGatewayClass,
    isInferencePoolBackend,
    opensToInternet,
    overlaySourceRanges,
    parentGateways,
    redirectsToHttpsOnly,
    selectorMatches,
    selectsKServeWorkload,
    labelsOf,
} from "../facts";
import { CloudArmorVerdict, cloudArmorVerdict, securityPolicies } from "./cloudArmor";
import { Backend, kserveRouteBackends, serviceParentRefs, workloadServiceOf } from "./kserve";
import { isKubernetesKind, isLlmInferenceService, namespaceOf, objectKey } from "./resources";
import { gkePoliciesByTarget, httpRoutes } from "./routes";
import { gatewaysByKey } from "./stack";
import { stackOtherModelServerPods, stackVllmPods } from "./workloads";

/** Where traffic enters a Gateway: a route's (or KServe service's) parent references, its namespace, and the backends it reaches. */
export interface Attachment {
    source: PolicyResource;
    namespace: string;
    parentRefs: KubeProps[];
    /** The inference backends of the rules that forward (not only redirect). */
    forwarding: Backend[];
}

/**
 * True when a Service sends traffic to a model server: it selects KServe's workload, or pods the stack runs vLLM in
 * (over HTTP or TLS) or another model server (TGI, Ollama, NIM, ...: facts MODEL_SERVER_IMAGES).
 */
export function isModelService(service: PolicyResource, resources: PolicyResource[]): boolean {
    const selector = service.props.spec?.selector;
    const selected = (pod: { namespace: string; labels: Record<string, string> }) =>
        pod.namespace === namespaceOf(service) && selectorMatches(selector, pod.labels);
    return (
        selectsKServeWorkload(selector) ||
        stackVllmPods(resources, true).some(selected) ||
        stackOtherModelServerPods(resources).some(selected)
    );
}

/** The Services KServe creates for the stack's LLMInferenceServices' workloads (`<name>-kserve-workload-svc`), by key. */
function kserveWorkloadServices(resources: PolicyResource[]): Set<string> {
    return new Set(
        resources.filter((resource) => isLlmInferenceService(resource.type)).map((service) => backendKey(workloadServiceOf(service))),
    );
}

/** Every way traffic reaches an inference backend: the stack's HTTPRoutes, and KServe's route for each LLMInferenceService. */
function attachments(resources: PolicyResource[]): Attachment[] {
    const services = new Map(
        resources.filter((resource) => isKubernetesKind(resource.type, "", "Service")).map((service) => [objectKey(service), service]),
    );
    const workloadServices = kserveWorkloadServices(resources);
    const inference = (backend: Backend) =>
        isInferencePoolBackend(backend) ||
        (backend.kind === "Service" &&
            backend.group === "" &&
            (workloadServices.has(backendKey(backend)) ||
                isModelService(services.get(`${backend.namespace}/${backend.name}`) ?? backend.source, resources)));
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
            const parentRefs = serviceParentRefs(service, resources);
            if (parentRefs.length === 0) {
                return [];
            }
            const forwarding = [
                ...new Map(
                    kserveRouteBackends(service, resources)
                        .filter(inference)
                        .map((b) => [backendKey(b), b]),
                ).values(),
            ];
            return [{ source: service, namespace: namespaceOf(service), parentRefs, forwarding }];
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

/**
 * Whose Gateway this is, as far as the program shows: GKE's (its classes), Istio's (its class, or a GatewayClass the
 * stack declares with istiod's controllerName), or an implementation the pack does not know, whose load balancer and
 * access rules it cannot judge.
 */
export function gatewayImplementation(gateway: PolicyResource, resources: PolicyResource[]): "gke" | "istio" | "unknown" {
    const className: unknown = gateway.props.spec?.gatewayClassName;
    if (isGkeGatewayClass(className)) {
        return "gke";
    }
    const declared = resources.find(
        (resource) =>
            isKubernetesKind(resource.type, "gateway.networking.k8s.io", "GatewayClass") && resource.props.metadata?.name === className,
    );
    return className === ISTIO.gatewayClass || declared?.props.spec?.controllerName === ISTIO.controller ? "istio" : "unknown";
}

/** What someone the program does not know meets at a Gateway that is not GKE's, and what decides it. */
export interface IstioAccess {
    /** As {@link istioAuthorizationVerdict}, the Service's source ranges first (its load balancer drops everyone else). */
    verdict: IstioAuthorization["verdict"];
    /** What opens the Gateway or leaves it open (an AuthorizationPolicy, or the Service overlay's ConfigMap), or what could not be judged. */
    deciding?: PolicyResource;
    /** The AuthorizationPolicies' judgement, for messages. */
    authorization: IstioAuthorization;
    /** Every request must carry a token whose claims the policies check. */
    identity: boolean;
}

/** What lets sources into a Gateway that is not GKE's: its Service's source ranges, and Istio's AuthorizationPolicies on it. */
export function istioAccess(gateway: PolicyResource, resources: PolicyResource[]): IstioAccess {
    const policies = resources.filter((resource) => isKubernetesKind(resource.type, "security.istio.io", "AuthorizationPolicy"));
    const placed = policies.map((policy) => ({ namespace: namespaceOf(policy), props: policy.props, resource: policy }));
    // The RequestAuthentications on the Gateway (its namespace or the root one; by targetRefs, selector or none).
    const authentications = resources
        .filter((resource) => isKubernetesKind(resource.type, "security.istio.io", "RequestAuthentication"))
        .filter((resource) =>
            appliesToGateway({ namespace: namespaceOf(resource), props: resource.props }, gateway.props, namespaceOf(gateway)),
        )
        .map((resource) => resource.props);
    const authorization = istioAuthorizationVerdict(placed, gateway.props, namespaceOf(gateway), undefined, tokenIssuers(authentications));
    const overlay = serviceOverlay(gateway, resources);
    const ranges = overlaySourceRanges(overlay?.props.data?.service);
    const identity = authorization.identity;
    if (ranges !== undefined && ranges.length > 0 && !opensToInternet(ranges)) {
        return { verdict: "restricts", deciding: overlay, authorization, identity };
    }
    const deciding = placed.find((candidate) => candidate === authorization.deciding)?.resource;
    if (authorization.verdict === "guardsNothing" && overlay !== undefined && ranges !== undefined && opensToInternet(ranges)) {
        return { verdict: "opens", deciding: overlay, authorization, identity };
    }
    return { verdict: authorization.verdict, deciding, authorization, identity };
}

/** What a GCPBackendPolicy puts in front of a backend on GKE's load balancer: IAP, and the Cloud Armor policy it names with what that does. */
export interface GkeBackendGuard {
    /** The GCPBackendPolicy that targets the backend. */
    policy?: PolicyResource;
    iap: boolean;
    /** The Cloud Armor policy it names: its verdict where the stack declares it, undefined where it does not. */
    armor?: { name: string; verdict?: CloudArmorVerdict; resource?: PolicyResource };
}

/** The guard GKE's load balancer puts in front of `backend`, each name resolved to the object it names. */
export function gkeBackendGuard(backend: BackendRef, resources: PolicyResource[]): GkeBackendGuard {
    const policy = gkePoliciesByTarget(resources, "GCPBackendPolicy").get(backendKey(backend));
    const { securityPolicy, iap } = backendPolicyGuard(policy?.props);
    if (securityPolicy === undefined) {
        return { policy, iap };
    }
    const name = securityPolicy.split("/").pop()!;
    const declared = securityPolicies(resources).get(name);
    return {
        policy,
        iap,
        armor: { name, ...(declared ? { verdict: cloudArmorVerdict(declared.rules), resource: declared.resource } : {}) },
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
