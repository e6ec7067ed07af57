/**
 * The HTTPRoute KServe writes for an LLMInferenceService from a route template: its Go templates filled in for the
 * service (kserve v0.20.0 pkg/controller/v1alpha2/llmisvc/config_merge.go:608-720, templates over the whole config),
 * and its parentRefs those the service's gateway refs give (config_merge.go:329-336).
 */
import { KSERVE, KSERVE_CHILDREN } from "../catalog";
import { KubeProps } from "./objects";

/** A service a route template is rendered for. */
export interface RenderedService {
    namespace: string;
    name: string;
    modelName: string;
}

/** KServe's global config, as templates read it. */
export interface KServeGlobals {
    gateway: { namespace: string; name: string };
    modelRoutingHeader: string;
}

const [defaultNamespace, defaultName] = KSERVE.defaultGateway.chartDefault.split("/");

/** KServe's defaults: its chart's Gateway and model-routing header. */
export const KSERVE_GLOBALS: KServeGlobals = {
    gateway: { namespace: defaultNamespace, name: defaultName },
    modelRoutingHeader: KSERVE.modelRoutingHeader,
};

/** The HTTPRoute KServe creates for `service` from the template `spec`, with `parentRefs` where the service's refs give them. */
export function renderKServeRoute(
    spec: unknown,
    service: RenderedService,
    globals: KServeGlobals = KSERVE_GLOBALS,
    parentRefs?: KubeProps[],
): { apiVersion: string; kind: string; metadata: { name: string; namespace: string }; spec: KubeProps } {
    const rendered = JSON.parse(
        JSON.stringify(spec)
            .replace(/\{\{ ChildName \.ObjectMeta\.Name `([^`]+)` \}\}/g, `${service.name}$1`)
            .replaceAll("{{ .ObjectMeta.Namespace }}", service.namespace)
            .replaceAll("{{ .ObjectMeta.Name }}", service.name)
            .replaceAll("{{ .Spec.Model.Name }}", service.modelName)
            .replaceAll("{{ .GlobalConfig.IngressGatewayName }}", globals.gateway.name)
            .replaceAll("{{ .GlobalConfig.IngressGatewayNamespace }}", globals.gateway.namespace)
            .replaceAll("{{ .GlobalConfig.ModelBasedRoutingHeaderName }}", globals.modelRoutingHeader),
    ) as KubeProps;
    return {
        apiVersion: "gateway.networking.k8s.io/v1",
        kind: "HTTPRoute",
        metadata: { name: `${service.name}${KSERVE_CHILDREN.routeSuffix}`, namespace: service.namespace },
        spec: parentRefs === undefined ? rendered : { ...rendered, parentRefs },
    };
}
