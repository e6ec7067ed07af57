/**
 * Resources as a real `pulumi preview` hands them to a policy pack, however a program wrote them: GCP resources by
 * their `@pulumi/gcp` type tokens, Kubernetes objects by `kubernetes:<apiVersion>:<kind>`, whether the program declared
 * them or a chart or config group rendered them. Components a provider constructs (Helm v4 `Chart`, `yaml/v2`
 * ConfigGroup) reach a policy without inputs, so an installation is recognised by what it renders (a CRD, a controller)
 * or by a `helm.v3.Release`, whose inputs a preview does show. Values unknown during preview are left to the policy SDK:
 * reading one throws, and the SDK reports that the policy could not run.
 */
import { PolicyResource } from "@pulumi/policy";
import {
    INFERENCE_POOL_GROUPS,
    INFERENCE_POOL_KIND,
    KindRef,
    LLM_INFERENCE_SERVICE,
    LLM_INFERENCE_SERVICE_CONFIG,
    readKnown,
} from "../facts";

/** Props as the policy SDK hands them over. */
export type Props = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The API group (`""` for the core group, `core/v1` in type tokens) and kind of a Kubernetes type token; an empty kind for any other resource. */
export function kindOfType(type: string): KindRef {
    const match = /^kubernetes:(.+)\/[^/:]+:([^:]+)$/.exec(type);
    return match ? { group: match[1] === "core" ? "" : match[1], kind: match[2] } : { group: "", kind: "" };
}

/** True when `type` is the Kubernetes kind `kind` of API group `group` in any version. */
export function isKubernetesKind(type: string, group: string, kind: string): boolean {
    const ref = kindOfType(type);
    return ref.kind === kind && ref.group === group;
}

/** KServe's LLMInferenceService, in any served version. */
export function isLlmInferenceService(type: string): boolean {
    return isKubernetesKind(type, LLM_INFERENCE_SERVICE.group, LLM_INFERENCE_SERVICE.kind);
}

/** KServe's LLMInferenceServiceConfig, in any served version. */
export function isLlmInferenceServiceConfig(type: string): boolean {
    return isKubernetesKind(type, LLM_INFERENCE_SERVICE_CONFIG.group, LLM_INFERENCE_SERVICE_CONFIG.kind);
}

/** An InferencePool, in either API group. */
export function isInferencePool(type: string): boolean {
    return INFERENCE_POOL_GROUPS.some((group) => isKubernetesKind(type, group, INFERENCE_POOL_KIND.kind));
}

/** Helm charts and releases, however they are installed. */
export function isHelmChart(type: string): boolean {
    return type === "kubernetes:helm.sh/v4:Chart" || type === "kubernetes:helm.sh/v3:Chart" || type === "kubernetes:helm.sh/v3:Release";
}

/**
 * A chart reference's name: `lws` of `lws`, `repo/lws`, `oci://registry.k8s.io/lws/charts/lws:0.7.0` or `…@sha256:…`,
 * and of a packaged chart (`./lws-0.10.0.tgz`, `https://…/lws-0.10.0.tgz`: Helm names archives `<name>-<version>.tgz`).
 */
export function chartName(chart: unknown): string | undefined {
    return typeof chart === "string"
        ? chart
              .replace(/\/$/, "")
              .split("/")
              .pop()!
              .replace(/[:@].*$/, "")
              .replace(/-v?\d+\.\d+\.\d+[^/]*\.tgz$/, "")
        : undefined;
}

/**
 * The namespace a namespaced object lands in: its own, else its provider's default namespace, else `default` (the
 * Kubernetes provider's rule for objects without one).
 */
export function namespaceOf(resource: PolicyResource): string {
    const own = readKnown(() => resource.props.metadata?.namespace as unknown);
    const provider = readKnown(() => resource.provider?.props?.namespace as unknown);
    // One a preview does not know yet (another stack's output) is no namespace any other object is shown to share.
    if (own.unknown || (own.value === undefined && provider.unknown)) {
        return NOT_KNOWN_YET;
    }
    return String(own.value ?? provider.value ?? "default");
}

/** `namespace/name` of a namespaced object. */
export function objectKey(resource: PolicyResource): string {
    const name = readKnown(() => resource.props.metadata?.name as unknown);
    return `${namespaceOf(resource)}/${name.unknown ? NOT_KNOWN_YET : name.value}`;
}

/** How a name or namespace a preview does not know yet reads: matching no other object's. */
const NOT_KNOWN_YET = "(not known until the update)";

/** The Service (`namespace/name`) a host names in a mesh: `name`, `name.namespace`, `name.namespace.svc.cluster.local`. */
export function serviceOfHost(host: string, namespace: string): string {
    const [name, hostNamespace] = host.split(".");
    return `${hostNamespace ?? namespace}/${name}`;
}

/** The stack's name, from a resource URN (`urn:pulumi:<stack>::…`). */
export function stackOf(urn: string): string {
    return urn.split("::")[0].replace(/^urn:pulumi:/, "");
}
