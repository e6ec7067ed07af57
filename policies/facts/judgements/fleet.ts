/**
 * A fleet's objects, judged one way for the pack and the live tools: which InferencePools a member exports, which
 * backends are a config cluster's imports, which Gateways are multi-cluster, and which extensions call Model Armor.
 * Sources: {@link SOURCES.gkeMultiClusterInferenceSetup}, {@link SOURCES.gkeMultiClusterGatewayPrep}.
 */
import { MODEL_ARMOR, MULTI_CLUSTER_INFERENCE } from "../catalog";
import { BackendRef } from "./backends";
import { KubeProps } from "./objects";

/** True for a backend or policy target naming an imported pool (GKE's import kind, never the upstream InferencePoolImport). */
export function isPoolImportBackend(backend: Pick<BackendRef, "group" | "kind">): boolean {
    return backend.group === MULTI_CLUSTER_INFERENCE.importKind.group && backend.kind === MULTI_CLUSTER_INFERENCE.importKind.kind;
}

/** True for the GatewayClasses of GKE's multi-cluster Gateway controller. */
export function isMultiClusterGatewayClass(className: unknown): boolean {
    return (MULTI_CLUSTER_INFERENCE.gatewayClasses as readonly unknown[]).includes(className);
}

/** The value of an InferencePool's export annotation, undefined without one. */
export function exportAnnotationOf(pool: KubeProps): unknown {
    return pool.metadata?.annotations?.[MULTI_CLUSTER_INFERENCE.exportAnnotation.key];
}

/** True when an InferencePool is exported to the fleet: its export annotation has the value GKE documents. */
export function isExportedPool(pool: KubeProps): boolean {
    return exportAnnotationOf(pool) === MULTI_CLUSTER_INFERENCE.exportAnnotation.value;
}

/**
 * True when the import `backend` stands for `pool` (in `namespace`): an exported pool of the import's namespace and name.
 * Every member exports its pool under the same namespace and name, so one import stands for a pool in each member.
 */
export function importsPool(backend: BackendRef, pool: KubeProps, namespace: string): boolean {
    return isPoolImportBackend(backend) && isExportedPool(pool) && pool.metadata?.name === backend.name && namespace === backend.namespace;
}

const [MODEL_ARMOR_PREFIX, MODEL_ARMOR_SUFFIX] = MODEL_ARMOR.serviceName("\0").split("\0");

/** True when a service extension (GCPTrafficExtension, GCPRoutingExtension) calls Model Armor in some region. */
export function callsModelArmor(extension: KubeProps): boolean {
    const chains: KubeProps[] = Array.isArray(extension.spec?.extensionChains) ? extension.spec.extensionChains : [];
    return chains.some((chain) =>
        (Array.isArray(chain?.extensions) ? (chain.extensions as KubeProps[]) : []).some(
            (call) =>
                typeof call?.googleAPIServiceName === "string" &&
                call.googleAPIServiceName.startsWith(MODEL_ARMOR_PREFIX) &&
                call.googleAPIServiceName.endsWith(MODEL_ARMOR_SUFFIX),
        ),
    );
}
