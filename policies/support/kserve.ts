/**
 * KServe's LLMInferenceServices as KServe reconciles them: each service's spec merged over the configs its `baseRefs`
 * name, the Gateways its route attaches to, and the InferencePool it makes.
 */
import { PolicyResource } from "@pulumi/policy";
import {
    BackendRef,
    INFERENCE_POOL_KIND,
    KSERVE,
    KSERVE_CHILDREN,
    KSERVE_GLOBALS,
    isInferencePoolBackend,
    parentGateways,
    redirectsToHttpsOnly,
    renderKServeRoute,
} from "../facts";
import { Props, isLlmInferenceService, namespaceOf } from "./resources";
import { kserveConfigResolver, kserveDefaultGateway } from "./stack";

/** A backend a GKE Gateway creates a backend service (and a health check) for, with the resource that makes the Gateway route to it. */
export interface Backend extends BackendRef {
    source: PolicyResource;
}

/** Lists whose items KServe's strategic merge matches by `name` (the PodSpec's patch merge keys); every other list is replaced whole. */
const MERGED_BY_NAME = new Set(["containers", "initContainers", "ephemeralContainers", "env", "volumes", "volumeMounts"]);

/** `patch` merged over `base` as KServe merges a service over its configs. Source: kserve v0.20.0 pkg/controller/v1alpha2/llmisvc/config_merge.go mergeSpecs (a strategic merge patch). */
function mergeSpec(base: unknown, patch: unknown, key = ""): unknown {
    const isRecord = (value: unknown): value is Props => value !== null && typeof value === "object" && !Array.isArray(value);
    if (isRecord(base) && isRecord(patch)) {
        const merged: Props = { ...base };
        for (const [field, value] of Object.entries(patch)) {
            merged[field] = field in base ? mergeSpec(base[field], value, field) : value;
        }
        return merged;
    }
    if (Array.isArray(base) && Array.isArray(patch) && MERGED_BY_NAME.has(key)) {
        const merged = base.map((item: Props) => {
            const override = patch.find((candidate: Props) => candidate?.name === item?.name);
            return override === undefined ? item : mergeSpec(item, override);
        });
        return [...merged, ...patch.filter((item: Props) => !base.some((candidate: Props) => candidate?.name === item?.name))];
    }
    return patch;
}

/**
 * An LLMInferenceService's spec as KServe reconciles it: the configs its `baseRefs` name, in order, with the service's
 * own spec merged over them. `complete` is false when a base config is not in the stack, so a field the service
 * leaves out may come from it.
 */
export function effectiveServiceSpec(service: PolicyResource, resources: PolicyResource[]): { spec: Props; complete: boolean } {
    const resolve = kserveConfigResolver(resources);
    const baseRefs: Props[] = Array.isArray(service.props.spec?.baseRefs) ? service.props.spec.baseRefs : [];
    const bases = baseRefs.map((ref) => resolve(ref?.name, namespaceOf(service)));
    const spec = [...bases.flatMap((config) => (config ? [config.props.spec ?? {}] : [])), service.props.spec ?? {}].reduce(
        (merged: Props, next: Props) => mergeSpec(merged, next) as Props,
        {},
    );
    return { spec, complete: bases.every(Boolean) };
}

/**
 * The parentRefs of the HTTPRoute KServe writes for an LLMInferenceService: its `router.gateway.refs` (baseRefs included),
 * which replace the route spec's own parentRefs, each with the listener (`sectionName`) it names and nothing else
 * (kserve v0.20.0 pkg/controller/v1alpha2/llmisvc/config_merge.go:329-336, ToParentRefs :566-584); without refs, the
 * parentRefs of its own route spec, else those of the well-known route template KServe reads for its namespace, on
 * KServe's default Gateway. None when it has no route.
 */
export function serviceParentRefs(service: PolicyResource, resources: PolicyResource[]): Props[] {
    const { spec } = effectiveServiceSpec(service, resources);
    const refs: Props[] = Array.isArray(spec.router?.gateway?.refs) ? spec.router.gateway.refs : [];
    if (refs.length > 0) {
        return refs.map((ref) => ({
            name: ref.name,
            ...(ref.namespace !== undefined ? { namespace: ref.namespace } : {}),
            ...(ref.sectionName !== undefined ? { sectionName: ref.sectionName } : {}),
        }));
    }
    if (spec.router?.route === undefined) {
        return [];
    }
    const ownParents: unknown = spec.router.route.http?.spec?.parentRefs;
    if (Array.isArray(ownParents)) {
        return ownParents;
    }
    // The template's parents name the default Gateway through KServe's global config: only their listeners are read here.
    const [namespace, name] = kserveDefaultGateway(resources).split("/");
    const template = kserveConfigResolver(resources)(KSERVE.routerRouteConfigName, namespaceOf(service));
    const templateParents: unknown = template?.props.spec?.router?.route?.http?.spec?.parentRefs;
    const sections = (Array.isArray(templateParents) ? (templateParents as Props[]) : [])
        .map((ref) => ref?.sectionName)
        .filter((section): section is string => typeof section === "string");
    return sections.length > 0 ? sections.map((sectionName) => ({ namespace, name, sectionName })) : [{ namespace, name }];
}

/** The Gateways (as `namespace/name`) an LLMInferenceService's route attaches to ({@link serviceParentRefs}). */
export function serviceGateways(service: PolicyResource, resources: PolicyResource[]): string[] {
    return parentGateways(serviceParentRefs(service, resources), namespaceOf(service));
}

/** The InferencePool KServe creates for an LLMInferenceService with a scheduler. */
export function inferencePoolOf(resource: PolicyResource): Backend | undefined {
    if (!isLlmInferenceService(resource.type) || resource.props.spec?.router?.scheduler === undefined) {
        return undefined;
    }
    const pool =
        resource.props.spec.router.scheduler.pool?.ref?.name ?? `${resource.props.metadata?.name}${KSERVE_CHILDREN.inferencePoolSuffix}`;
    return { namespace: namespaceOf(resource), ...INFERENCE_POOL_KIND, name: pool, source: resource };
}

/**
 * The HTTPRoute KServe writes for an LLMInferenceService, as the program shows it: from the service's own route spec,
 * else the route template config KServe looks up for it; undefined when the program declares neither (KServe then uses
 * the template its chart installs).
 */
export function kserveRoute(service: PolicyResource, resources: PolicyResource[]): ReturnType<typeof renderKServeRoute> | undefined {
    const { spec } = effectiveServiceSpec(service, resources);
    const template: unknown =
        spec.router?.route?.http?.spec ??
        kserveConfigResolver(resources)(KSERVE.routerRouteConfigName, namespaceOf(service))?.props.spec?.router?.route?.http?.spec;
    if (template === undefined) {
        return undefined;
    }
    const name = String(service.props.metadata?.name);
    return renderKServeRoute(
        template,
        { namespace: namespaceOf(service), name, modelName: spec.model?.name },
        KSERVE_GLOBALS,
        serviceParentRefs(service, resources),
    );
}

/** The Service KServe creates in front of an LLMInferenceService's workload pods (`<name>-kserve-workload-svc`). */
export function workloadServiceOf(service: PolicyResource): Backend {
    return {
        namespace: namespaceOf(service),
        group: "",
        kind: "Service",
        name: `${service.props.metadata?.name}${KSERVE_CHILDREN.workloadServiceSuffix}`,
        source: service,
    };
}

/**
 * Where KServe's route for an LLMInferenceService sends requests: the backends of its rendered route's forwarding rules,
 * or, where the program shows no template or one without rules, those of the template KServe's chart installs: the InferencePool
 * (with a scheduler) and, for every other path, the workload Service (kserve v0.20.0
 * config/llmisvcconfig/config-llm-router-route.yaml:304-325; without a scheduler, config_merge.go:338-352).
 */
export function kserveRouteBackends(service: PolicyResource, resources: PolicyResource[]): Backend[] {
    const namespace = namespaceOf(service);
    const route = kserveRoute(service, resources);
    const rules: Props[] = Array.isArray(route?.spec.rules) ? route.spec.rules : [];
    const pool = inferencePoolOf(service);
    const workload = workloadServiceOf(service);
    if (rules.length === 0) {
        return pool ? [pool, workload] : [workload];
    }
    return rules
        .filter((rule) => !redirectsToHttpsOnly(rule))
        .flatMap((rule) => (Array.isArray(rule.backendRefs) ? (rule.backendRefs as Props[]) : []))
        .map((ref): Backend =>
            // Without a scheduler, KServe points the route's InferencePool backends at the workload Service (kserve
            // v0.20.0 pkg/controller/v1alpha2/llmisvc/config_merge.go:338-352).
            pool === undefined && isInferencePoolBackend({ group: ref.group ?? "", kind: ref.kind ?? "Service" })
                ? workload
                : {
                      group: ref.group ?? "",
                      kind: ref.kind ?? "Service",
                      namespace: ref.namespace ?? namespace,
                      name: ref.name,
                      source: service,
                  },
        );
}
