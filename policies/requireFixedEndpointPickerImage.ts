import { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import {
    EPP_MINIMUM_VERSIONS,
    KSERVE_CHILDREN,
    addedClusters,
    containersOf,
    describePatch,
    endpointPickerProblem,
    judgeEndpointPicker,
    PolicyText,
    policyText,
    selectorMatches,
} from "./facts";
import { envoyFilters } from "./support/envoyFilters";
import { Props, isKubernetesKind, isLlmInferenceService, kindOfType, namespaceOf, serviceOfHost } from "./support/resources";

/** An EPP image without the ALPN fix, and the Services (`namespace/name`) in front of it. */
interface UnfixedEndpointPicker {
    image: string;
    repository: string;
    minimum: string;
    services: string[];
}

/** Whether a DestinationRule makes its clients speak TLS (its own or the mesh's) to the host. */
function originatesTls(rule: PolicyResource): boolean {
    const policy = rule.props.spec?.trafficPolicy as Props | undefined;
    const modes = [policy?.tls?.mode, ...((policy?.portLevelSettings as Props[] | undefined) ?? []).map((setting) => setting?.tls?.mode)];
    return modes.some((mode) => mode === "SIMPLE" || mode === "MUTUAL" || mode === "ISTIO_MUTUAL");
}

/** Why TLS to an EPP running `image` (of `repository`, fixed from `minimum`) fails. */
function unfixedWhy(image: string, repository: string, minimum: string): string {
    return `whose EPP runs ${image}; ${repository} before v${minimum} offers no ALPN h2, so Envoy's ext_proc over that TLS fails.`;
}

/** The reports of this policy: an EPP container, and the DestinationRule or EnvoyFilter cluster that speaks TLS to one. */
export const endpointPickerMessages = {
    container: (resource: string, path: string, image: string, problem: string) => `${resource} ${path} runs ${image}; ${problem}.`,
    destinationRule: (rule: string, host: string, picker: { image: string; repository: string; minimum: string }) =>
        `DestinationRule ${rule} speaks TLS to ${host}, ${unfixedWhy(picker.image, picker.repository, picker.minimum)}`,
    envoyCluster: (patch: string, cluster: string, address: string, picker: { image: string; repository: string; minimum: string }) =>
        `${patch} adds cluster ${cluster}, TLS to ${address}, ${unfixedWhy(picker.image, picker.repository, picker.minimum)}`,
};

/**
 * Behind Istio the TLS comes from a DestinationRule or a hand-written EnvoyFilter cluster, which is reported too, since
 * that is where the broken call is made. The image is judged as the doctor judges it
 * (facts/judgements/endpointPicker.ts).
 */
export const requireFixedEndpointPickerImage: StackValidationPolicy & PolicyText = {
    ...policyText(
        "epp-alpn",
        "require-fixed-endpoint-picker-image",
        "An endpoint picker (EPP) that serves TLS must run an image at or above the first release that offers ALPN h2 on its TLS gRPC server; so must the EPP behind a DestinationRule or EnvoyFilter cluster that speaks TLS to it.",
    ),
    enforcementLevel: "mandatory",
    severity: "critical",
    configSchema: {
        properties: {
            minimumVersions: {
                type: "object",
                additionalProperties: { type: "string" },
                default: { ...EPP_MINIMUM_VERSIONS },
                description: "First fixed version per EPP image repository (its last path segment).",
            },
        },
    },
    validateStack: (args, reportViolation) => {
        const minimums = args.getConfig<{ minimumVersions?: Record<string, string> }>().minimumVersions ?? EPP_MINIMUM_VERSIONS;
        const services = args.resources.filter((resource) => isKubernetesKind(resource.type, "", "Service"));
        const unfixed: UnfixedEndpointPicker[] = [];
        for (const resource of args.resources) {
            for (const { path, container, pod } of containersOf(kindOfType(resource.type), resource.props)) {
                const verdict = judgeEndpointPicker(container, minimums);
                const problem = verdict && endpointPickerProblem(verdict);
                if (verdict === undefined || problem === undefined) {
                    continue;
                }
                reportViolation(endpointPickerMessages.container(resource.name, path, verdict.image, problem), resource.urn);
                const namespace = namespaceOf(resource);
                // KServe fronts a service's scheduler with `<name>-epp-service`; other pods by the Services that select them.
                const fronting =
                    isLlmInferenceService(resource.type) && path.startsWith("spec.router.scheduler")
                        ? [`${namespace}/${resource.props.metadata?.name}${KSERVE_CHILDREN.eppServiceSuffix}`]
                        : services
                              .filter(
                                  (service) =>
                                      namespaceOf(service) === namespace && selectorMatches(service.props.spec?.selector, pod.labels),
                              )
                              .map((service) => `${namespaceOf(service)}/${service.props.metadata?.name}`);
                unfixed.push({ image: verdict.image, repository: verdict.repository, minimum: verdict.minimum, services: fronting });
            }
        }
        const behind = (service: string) => unfixed.find((picker) => picker.services.includes(service));
        for (const rule of args.resources.filter((resource) => isKubernetesKind(resource.type, "networking.istio.io", "DestinationRule"))) {
            const host = rule.props.spec?.host;
            const picker = typeof host === "string" && originatesTls(rule) ? behind(serviceOfHost(host, namespaceOf(rule))) : undefined;
            if (picker) {
                reportViolation(
                    endpointPickerMessages.destinationRule(`${namespaceOf(rule)}/${rule.props.metadata?.name}`, host, picker),
                    rule.urn,
                );
            }
        }
        for (const cluster of addedClusters(envoyFilters(args.resources)).filter((candidate) => candidate.tls)) {
            for (const endpoint of cluster.endpoints) {
                const picker = behind(serviceOfHost(endpoint.address, cluster.filter.namespace));
                if (picker) {
                    reportViolation(
                        endpointPickerMessages.envoyCluster(describePatch(cluster), cluster.name, endpoint.address, picker),
                        cluster.filter.source.urn,
                    );
                }
            }
        }
    },
};
