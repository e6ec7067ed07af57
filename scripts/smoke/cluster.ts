/**
 * The cluster side of `npm run smoke`: each service's route and, by who programs the Gateway, its policies.
 */
import { INFERENCE_POOL_KIND, KSERVE_CHILDREN } from "@gke-tpu-inference/facts";
import { HTTP_SERVICE_SUFFIX } from "../../components/serving/routerRoute";
import {
    GatewayProvider,
    acceptedByGateway,
    eppTlsRule,
    gatewayProvider,
    gkePolicyAttached,
    inferencePoolMigration,
} from "../cluster/checks";
import type { ObjectReader } from "../cluster/kube";
import { CheckResult, SmokeOptions, retried } from "./requests";

/** Where the stack's objects are in the cluster. */
export interface ClusterTargets {
    servingNamespace: string;
    gateway: { namespace: string; name: string };
    /** Who programs the Gateway, from the stack's `gatewayProvider` output; the Gateway's class says when absent. */
    gatewayProvider?: GatewayProvider;
}

/**
 * The cluster side of each service: KServe's HTTPRoute on the v1 InferencePool group, accepted by the Gateway
 * with every reference resolved, and, by who programs the Gateway, GKE's health checks and backend policy attached
 * to its backends, or Istio's TLS to its EPP.
 */
export async function runClusterChecks(
    reader: ObjectReader,
    services: string[],
    targets: ClusterTargets,
    options: SmokeOptions,
): Promise<CheckResult[]> {
    const namespace = targets.servingNamespace;
    const gateway = await reader.get({ apiVersion: "gateway.networking.k8s.io/v1", kind: "Gateway", ...targets.gateway });
    const provider = gatewayProvider(targets.gatewayProvider, gateway);
    const perService = await Promise.all(
        services.map(async (service) => {
            const route = () =>
                reader.get({
                    apiVersion: "gateway.networking.k8s.io/v1",
                    kind: "HTTPRoute",
                    namespace,
                    name: `${service}${KSERVE_CHILDREN.routeSuffix}`,
                });
            const policy = (kind: string, name: string) => reader.get({ apiVersion: "networking.gke.io/v1", kind, namespace, name });
            const pool = `${service}${KSERVE_CHILDREN.inferencePoolSuffix}`;
            const missingRoute = { ok: false, detail: `HTTPRoute ${namespace}/${service}${KSERVE_CHILDREN.routeSuffix} does not exist` };
            const providerChecks =
                provider === "istio"
                    ? [
                          retried(service, "EPP reached over TLS", options, async () =>
                              eppTlsRule(await reader.list("networking.istio.io/v1", "DestinationRule", namespace), namespace, service),
                          ),
                      ]
                    : provider === "gke"
                      ? [
                            retried(service, "health checks attached", options, async () => {
                                const findings = await Promise.all(
                                    [pool, `${service}${HTTP_SERVICE_SUFFIX}`].map(async (name) =>
                                        gkePolicyAttached(await policy("HealthCheckPolicy", name), `HealthCheckPolicy ${name}`),
                                    ),
                                );
                                return {
                                    ok: findings.every((finding) => finding.ok),
                                    detail: findings.map((finding) => finding.detail).join("; "),
                                };
                            }),
                            retried(service, "backend policy attached", options, async () =>
                                gkePolicyAttached(await policy("GCPBackendPolicy", pool), `GCPBackendPolicy ${pool}`),
                            ),
                        ]
                      : [];
            return Promise.all([
                retried(service, `HTTPRoute on ${INFERENCE_POOL_KIND.group}`, options, async () => {
                    const found = await route();
                    return found ? inferencePoolMigration(found) : missingRoute;
                }),
                retried(service, "HTTPRoute accepted", options, async () => {
                    const found = await route();
                    return found ? acceptedByGateway(found, targets.gateway) : missingRoute;
                }),
                ...providerChecks,
            ]);
        }),
    );
    return perService.flat();
}
