/**
 * `npm run smoke` against a fleet: besides the request checks through the fleet's URL, `/health` through the
 * multi-cluster Gateway's address in each member region, and, reading the clusters, each member's twin pool exported
 * and, in the config cluster, the route to each service's import accepted and the import's policies attached.
 */
import { acceptedByGateway, gkePolicyAttached } from "../cluster/checks";
import { fleetPoolName, poolExported, routeToImport, targetingImport } from "../cluster/fleet";
import { gatewayRequest } from "../cluster/gatewayRequest";
import type { ObjectReader } from "../cluster/kube";
import type { FleetOutput } from "../cluster/stackOutputs";
import type { ClusterTargets } from "./cluster";
import { CheckResult, ServiceEndpoint, SmokeOptions, retried } from "./requests";

/**
 * `/health` of every service through each of the multi-cluster Gateway's addresses (the `gatewayAddresses` output): the
 * cross-regional load balancer has a frontend per member region, and each must reach the service.
 */
export function runRegionChecks(
    services: Record<string, ServiceEndpoint>,
    fleet: FleetOutput,
    options: SmokeOptions,
): Promise<CheckResult[]> {
    return Promise.all(
        (fleet.gatewayAddresses ?? []).flatMap((address) =>
            Object.entries(services).map(([service, endpoint]) =>
                retried(service, `/health through ${address}`, options, async () => {
                    const url = new URL(`${endpoint.baseUrl}/health`);
                    url.hostname = address;
                    const response = await gatewayRequest(
                        url.href,
                        { method: "GET" },
                        options.client ?? { credentials: {} },
                        options.requestTimeoutMs,
                    );
                    return { ok: response.status === 200, detail: `GET ${url.href}: HTTP ${response.status}` };
                }),
            ),
        ),
    );
}

/** Each member's twin pool exported (by region), and in the config cluster each service's route to its import and the import's policies. */
export async function runFleetClusterChecks(
    readers: Record<string, ObjectReader>,
    fleet: FleetOutput,
    services: string[],
    targets: ClusterTargets,
    options: SmokeOptions,
): Promise<CheckResult[]> {
    const namespace = targets.servingNamespace;
    const config = readers[fleet.configRegion];
    const exported = Object.keys(fleet.members).flatMap((region) =>
        services.map((service) =>
            retried(service, `${region} exports ${fleetPoolName(service)}`, options, async () =>
                poolExported(
                    await readers[region].get({
                        apiVersion: "inference.networking.k8s.io/v1",
                        kind: "InferencePool",
                        namespace,
                        name: fleetPoolName(service),
                    }),
                    namespace,
                    service,
                ),
            ),
        ),
    );
    const imported = services.flatMap((service) => [
        retried(service, "HTTPRoute to the import accepted", options, async () => {
            const route = routeToImport(await config.list("gateway.networking.k8s.io/v1", "HTTPRoute", namespace), service);
            return route
                ? acceptedByGateway(route, targets.gateway)
                : { ok: false, detail: `no HTTPRoute in ${namespace} routes to ${fleetPoolName(service)}` };
        }),
        ...(["HealthCheckPolicy", "GCPBackendPolicy"] as const).map((kind) =>
            retried(service, `${kind} on the import attached`, options, async () => {
                const policy = targetingImport(await config.list("networking.gke.io/v1", kind, namespace), service);
                return gkePolicyAttached(
                    policy,
                    policy ? `${kind} ${policy.metadata!.name}` : `no ${kind} targets ${fleetPoolName(service)}, which`,
                );
            }),
        ),
    ]);
    return Promise.all([...exported, ...imported]);
}
