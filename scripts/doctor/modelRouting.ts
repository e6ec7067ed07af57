/**
 * Pattern 2's checks: the body-based router's replicas ready beside the Gateway, GKE's routing extension on that Gateway,
 * each service's ConfigMap naming its model for the router, and, where the outputs give the endpoint, each model name
 * answered at the Gateway's root by its own service.
 */
import { parse } from "yaml";
import { BODY_BASED_ROUTER } from "@gke-tpu-inference/facts";
import type { GatewayClient } from "../cluster/gatewayRequest";
import type { KubeObject, ObjectReader } from "../cluster/kube";
import { ModelRouting, ROUTED_PATH, routedToModel } from "../cluster/modelRouting";
import type { GatewayRef } from "./platform";
import { Diagnosis, objectName } from "./report";

/** How long one request through the Gateway may take: a completion of one token on a warm server. */
const ROUTED_REQUEST_TIMEOUT_MS = 30_000;

/**
 * Whether the router serves: every request at the Gateway's root passes through it (the per-service paths do not), so no
 * ready replica fails them all, and one of several leaves them a restart or a drain away from failing.
 */
export function routerReplicas(deployment: KubeObject | undefined, namespace: string): Diagnosis {
    const check = "body-based router ready replicas";
    const object = objectName("Deployment", BODY_BASED_ROUTER.name, namespace);
    if (!deployment) {
        return { status: "FAIL", check, object, evidence: "not found", fix: "run `pulumi up` with bodyBasedRouting on" };
    }
    const wanted = (deployment.spec as { replicas?: number } | undefined)?.replicas ?? 1;
    const ready = (deployment.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0;
    const evidence = `${ready} of ${wanted} ready`;
    const why = `kubectl -n ${namespace} describe deployment ${BODY_BASED_ROUTER.name} and its pods say why`;
    if (ready === 0) {
        return { status: "FAIL", check, object, evidence: `${evidence}: every request at the Gateway's root fails`, fix: why };
    }
    return ready < wanted
        ? {
              status: "WARN",
              check,
              object,
              evidence: `${evidence}: one more restart or drain and requests at the Gateway's root fail`,
              fix: why,
          }
        : { status: "OK", check, object, evidence };
}

/** Every check of the stack's body-based routing. */
export async function modelRoutingChecks(
    reader: ObjectReader,
    gateway: GatewayRef,
    routing: ModelRouting,
    client: GatewayClient = { credentials: {} },
): Promise<Diagnosis[]> {
    const { namespace } = gateway;
    const [deployment, extension] = await Promise.all([
        reader.get({ apiVersion: "apps/v1", kind: "Deployment", namespace, name: BODY_BASED_ROUTER.name }),
        reader.get({ apiVersion: "networking.gke.io/v1", kind: "GCPRoutingExtension", namespace, name: BODY_BASED_ROUTER.name }),
    ]);
    const results: Diagnosis[] = [];

    results.push(routerReplicas(deployment, namespace));

    const extensionName = objectName("GCPRoutingExtension", BODY_BASED_ROUTER.name, namespace);
    const targets = ((extension?.spec as { targetRefs?: Array<{ kind?: string; name?: string }> } | undefined)?.targetRefs ?? []).filter(
        (ref) => ref.kind === "Gateway",
    );
    results.push(
        targets.some((ref) => ref.name === gateway.name)
            ? {
                  status: "OK",
                  check: "routing extension on the Gateway",
                  object: extensionName,
                  evidence: `targets Gateway ${gateway.name}`,
              }
            : {
                  status: "FAIL",
                  check: "routing extension on the Gateway",
                  object: extensionName,
                  evidence: extension ? `targets ${targets.map((ref) => ref.name).join(", ") || "no Gateway"}` : "not found",
                  fix: "without it GKE never calls the router and no request at the Gateway's root matches a route; run `pulumi up`",
              },
    );

    // What each service answers to, as the router reads it from the service's ConfigMap.
    const byService = new Map<string, string[]>();
    for (const [modelName, service] of Object.entries(routing.models)) {
        byService.set(service, [...(byService.get(service) ?? []), modelName]);
    }
    for (const [service, names] of byService) {
        const name = `${service}-models`;
        const configMap = await reader.get({ apiVersion: "v1", kind: "ConfigMap", namespace, name });
        const data = (configMap?.data ?? {}) as { baseModel?: string; adapters?: string };
        // The router reads `adapters` as a YAML list of names (basemodelextractor/adapters_store.go).
        const adapters = (parse(data.adapters ?? "") as unknown) ?? [];
        const listed = [data.baseModel, ...(Array.isArray(adapters) ? adapters.map(String) : [])].filter(
            (entry): entry is string => entry !== undefined && entry !== "",
        );
        const labelled = configMap?.metadata?.labels?.[BODY_BASED_ROUTER.managedLabel] === "true";
        const unlisted = names.filter((modelName) => !listed.includes(modelName));
        results.push(
            configMap && labelled && unlisted.length === 0
                ? {
                      status: "OK",
                      check: "router knows the service's models",
                      object: objectName("ConfigMap", name, namespace),
                      evidence: listed.join(", "),
                  }
                : {
                      status: "FAIL",
                      check: "router knows the service's models",
                      object: objectName("ConfigMap", name, namespace),
                      evidence: !configMap
                          ? "not found"
                          : !labelled
                            ? `no ${BODY_BASED_ROUTER.managedLabel}=true label: the router ignores it`
                            : `lists ${listed.join(", ") || "nothing"}, not ${unlisted.join(", ")}`,
                      fix: "the router sets an empty base-model header for a name no ConfigMap lists, and the Gateway answers 404; run `pulumi up`",
                  },
        );
    }

    for (const [modelName, service] of Object.entries(routing.models)) {
        const check = "model name reaches its service";
        const asked = `${JSON.stringify(modelName)} at /v1${ROUTED_PATH}`;
        const object = objectName("LLMInferenceService", service);
        try {
            const finding = await routedToModel(routing.url, modelName, ROUTED_REQUEST_TIMEOUT_MS, client);
            results.push(
                finding.ok
                    ? { status: "OK", check, object, evidence: `${asked}: ${finding.detail}` }
                    : {
                          status: "FAIL",
                          check,
                          object,
                          evidence: `${asked}: ${finding.detail}`,
                          fix: "the router, extension and ConfigMap checks above name the broken part",
                      },
            );
        } catch (err) {
            const reason =
                (err as Error).name === "TimeoutError"
                    ? `no answer within ${ROUTED_REQUEST_TIMEOUT_MS / 1000} s`
                    : String((err as Error).cause ?? (err as Error).message);
            results.push({
                status: "FAIL",
                check,
                object,
                evidence: `${asked}: ${reason}`,
                fix: "check the Gateway's address and that this machine may reach it",
            });
        }
    }
    return results;
}
