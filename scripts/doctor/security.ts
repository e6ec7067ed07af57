/**
 * The security layers' checks, for a stack whose outputs say it controls access (`access`): the Gateway's certificate
 * issued and served by its HTTPS listener; by who programs the Gateway, Cloud Armor or IAP on every backend's
 * GCPBackendPolicy (GKE) or an AuthorizationPolicy on the Gateway (Istio); the per-address rate limit; Model Armor's
 * GCPTrafficExtension accepted when the stack screens.
 */
import {
    KSERVE_CHILDREN,
    KubeProps,
    istioAuthorizationVerdict,
    istioOpenReason,
    backendPolicyGuard,
    listenerCertificateSecrets,
    listenersOf,
    targetsGateway,
} from "@gke-tpu-inference/facts";
import { HTTP_SERVICE_SUFFIX } from "../../components/serving/routerRoute";
import { GatewayProvider, describeCondition, findCondition, gatewayProvider, gkePolicyAttached } from "../cluster/checks";
import type { KubeObject, ObjectReader } from "../cluster/kube";
import type { DoctorCheck } from "./checks";
import type { GatewayRef } from "./platform";
import { Diagnosis, objectName } from "./report";

/** What the stack's `access` output says the doctor should find. */
export interface SecurityTargets {
    /** Model Armor screens the Gateway's traffic (`access.screening`). */
    modelArmor: boolean;
}

const LESSON = "open-endpoint" as const;

const fail = (check: DoctorCheck, object: string, evidence: string, fix?: string): Diagnosis => ({
    status: "FAIL",
    check,
    object,
    evidence,
    lesson: LESSON,
    ...(fix ? { fix } : {}),
});

/** Every condition of `types` True on an object (or a listener's status), with the first that is not. */
function conditionsTrue(conditions: unknown, types: string[]): { ok: boolean; evidence: string } {
    const found = types.map((type) => ({ type, condition: findCondition(conditions, type) }));
    const bad = found.find(({ condition }) => condition?.status !== "True");
    return bad
        ? { ok: false, evidence: bad.condition ? describeCondition(bad.condition) : `no ${bad.type} condition yet` }
        : { ok: true, evidence: found.map(({ condition }) => describeCondition(condition!)).join("; ") };
}

/** The HTTPS listener's certificate: the cert-manager Certificate that writes its Secret Ready, and the listener Programmed with its references resolved. */
async function certificateChecks(reader: ObjectReader, ref: GatewayRef, gateway: KubeObject): Promise<Diagnosis[]> {
    const gatewayName = objectName("Gateway", ref.name, ref.namespace);
    const https = listenersOf(gateway, "HTTPS");
    if (https.length === 0) {
        return [
            fail(
                "HTTPS listener serves the certificate",
                gatewayName,
                "no HTTPS listener: requests and completions cross the network in clear text",
                "run `pulumi up`",
            ),
        ];
    }
    const certificates = await reader.list("cert-manager.io/v1", "Certificate", ref.namespace);
    const statuses = (gateway.status as { listeners?: Array<{ name?: string; conditions?: unknown }> } | undefined)?.listeners ?? [];
    const results: Diagnosis[] = [];
    for (const listener of https) {
        for (const secret of listenerCertificateSecrets(listener)) {
            const certificate = certificates.find(
                (candidate) => (candidate.spec as { secretName?: unknown } | undefined)?.secretName === secret,
            );
            if (certificate) {
                const ready = conditionsTrue((certificate.status as { conditions?: unknown } | undefined)?.conditions, ["Ready"]);
                const object = objectName("Certificate", certificate.metadata!.name!, ref.namespace);
                results.push(
                    ready.ok
                        ? { status: "OK", check: "Gateway certificate issued", object, evidence: `Secret ${secret}: ${ready.evidence}` }
                        : fail(
                              "Gateway certificate issued",
                              object,
                              ready.evidence,
                              `kubectl -n ${ref.namespace} describe certificate ${certificate.metadata!.name}: its conditions and CertificateRequest say why`,
                          ),
                );
            } else {
                const found = await reader.get({ apiVersion: "v1", kind: "Secret", namespace: ref.namespace, name: secret });
                results.push(
                    found
                        ? {
                              status: "OK",
                              check: "Gateway certificate issued",
                              object: objectName("Secret", secret, ref.namespace),
                              evidence: "present (no cert-manager Certificate writes it: a Secret of yours)",
                          }
                        : fail(
                              "Gateway certificate issued",
                              objectName("Secret", secret, ref.namespace),
                              "not found, and no cert-manager Certificate writes it",
                              "run `pulumi up`",
                          ),
                );
            }
        }
        const state = conditionsTrue(statuses.find((status) => status.name === listener.name)?.conditions, ["Programmed", "ResolvedRefs"]);
        const serves = `listener ${listener.name} (${listenerCertificateSecrets(listener).join(", ") || "no certificateRefs"})`;
        results.push(
            state.ok
                ? {
                      status: "OK",
                      check: "HTTPS listener serves the certificate",
                      object: gatewayName,
                      evidence: `${serves}: ${state.evidence}`,
                  }
                : fail(
                      "HTTPS listener serves the certificate",
                      gatewayName,
                      `${serves}: ${state.evidence}`,
                      "kubectl describe gateway: the listener's conditions say why",
                  ),
        );
    }
    return results;
}

/** GKE: every backend of each service (its InferencePool and its plain-HTTP Service) guarded by an attached GCPBackendPolicy; the rate limit lives in that Cloud Armor policy. */
async function gkeChecks(reader: ObjectReader, namespaces: string[], services: string[]): Promise<Diagnosis[]> {
    const results: Diagnosis[] = [];
    const armor = new Set<string>();
    for (const namespace of namespaces) {
        const policies = await reader.list("networking.gke.io/v1", "GCPBackendPolicy", namespace);
        for (const service of services) {
            for (const backend of [`${service}${KSERVE_CHILDREN.inferencePoolSuffix}`, `${service}${HTTP_SERVICE_SUFFIX}`]) {
                const policy = policies.find(
                    (candidate) => (candidate.spec as { targetRef?: { name?: unknown } } | undefined)?.targetRef?.name === backend,
                );
                const object = objectName("GCPBackendPolicy", policy?.metadata?.name ?? backend, namespace);
                const guard = backendPolicyGuard(policy);
                if (!policy || (guard.securityPolicy === undefined && !guard.iap)) {
                    results.push(
                        fail(
                            "security policy attached",
                            object,
                            policy ? `names no securityPolicy and no IAP for ${backend}` : `no GCPBackendPolicy targets ${backend}`,
                            "run `pulumi up`",
                        ),
                    );
                    continue;
                }
                if (guard.securityPolicy) {
                    armor.add(guard.securityPolicy);
                }
                const attached = gkePolicyAttached(policy, `GCPBackendPolicy ${policy.metadata!.name}`);
                const names = [guard.securityPolicy ? `securityPolicy ${guard.securityPolicy}` : undefined, guard.iap ? "IAP" : undefined]
                    .filter(Boolean)
                    .join(", ");
                results.push(
                    attached.ok
                        ? { status: "OK", check: "security policy attached", object, evidence: `${names}; ${attached.detail}` }
                        : fail(
                              "security policy attached",
                              object,
                              `${names}; ${attached.detail}`,
                              "kubectl describe gcpbackendpolicy: its conditions say why (a Cloud Armor policy in another region, or not found)",
                          ),
                );
            }
        }
    }
    results.push(
        armor.size > 0
            ? {
                  status: "OK",
                  check: "rate limit present",
                  object: `Cloud Armor ${[...armor].sort().join(", ")}`,
                  evidence:
                      "its allow rules are throttle rules (per client address); the cluster does not show them: gcloud compute security-policies describe NAME --region REGION",
              }
            : fail(
                  "rate limit present",
                  "Cloud Armor",
                  "no backend names a Cloud Armor policy, where the stack's rate limit lives",
                  "run `pulumi up`",
              ),
    );
    return results;
}

/** Istio: an AuthorizationPolicy on the Gateway that lets only its ranges (or principals) in, and the local rate limit filter on it. */
async function istioChecks(reader: ObjectReader, ref: GatewayRef): Promise<Diagnosis[]> {
    const gatewayName = objectName("Gateway", ref.name, ref.namespace);
    const [authorizations, filters] = await Promise.all([
        reader.list("security.istio.io/v1", "AuthorizationPolicy", ref.namespace),
        reader.list("networking.istio.io/v1alpha3", "EnvoyFilter", ref.namespace),
    ]);
    const placed = authorizations.map((policy) => ({ namespace: policy.metadata?.namespace ?? ref.namespace, props: policy as KubeProps }));
    // The Gateway as far as a selector policy reads it: its name (the reader lists policies, not the Gateway's labels).
    const authorization = istioAuthorizationVerdict(placed, { metadata: { name: ref.name } }, ref.namespace);
    const deciding = authorization.deciding?.props.metadata?.name;
    const limit = filters.find(
        (filter) => targetsGateway(filter, ref.name) && JSON.stringify(filter.spec ?? {}).includes("envoy.filters.http.local_ratelimit"),
    );
    return [
        authorization.verdict === "guardsNothing"
            ? fail("security policy attached", gatewayName, istioOpenReason(authorization, deciding), "run `pulumi up`")
            : {
                  status: authorization.verdict === "opens" ? "WARN" : "OK",
                  check: "security policy attached",
                  object: deciding !== undefined ? objectName("AuthorizationPolicy", deciding, ref.namespace) : gatewayName,
                  evidence:
                      authorization.verdict === "opens"
                          ? `AuthorizationPolicy ${deciding} lets every address in (0.0.0.0/0)`
                          : `AuthorizationPolicies on Gateway ${ref.name} refuse an unknown source${authorization.identity ? " and ask for a token and its claims" : ""}`,
              },
        limit
            ? {
                  status: "OK",
                  check: "rate limit present",
                  object: objectName("EnvoyFilter", limit.metadata!.name!, ref.namespace),
                  evidence: `local_ratelimit on Gateway ${ref.name}`,
              }
            : fail(
                  "rate limit present",
                  gatewayName,
                  "no EnvoyFilter puts envoy.filters.http.local_ratelimit on the Gateway",
                  "run `pulumi up`",
              ),
    ];
}

/** Model Armor: a GCPTrafficExtension on the Gateway, Accepted by it. */
async function modelArmorChecks(reader: ObjectReader, ref: GatewayRef): Promise<Diagnosis[]> {
    const extensions = (await reader.list("networking.gke.io/v1", "GCPTrafficExtension", ref.namespace)).filter((extension) =>
        targetsGateway(extension, ref.name),
    );
    if (extensions.length === 0) {
        return [
            fail(
                "Model Armor extension accepted",
                objectName("Gateway", ref.name, ref.namespace),
                "no GCPTrafficExtension targets the Gateway",
                "run `pulumi up`",
            ),
        ];
    }
    return extensions.map((extension) => {
        const object = objectName("GCPTrafficExtension", extension.metadata!.name!, ref.namespace);
        const ancestors = (extension.status as { ancestors?: Array<{ conditions?: unknown }> } | undefined)?.ancestors ?? [];
        const accepted =
            ancestors.length > 0
                ? conditionsTrue(ancestors[0].conditions, ["Accepted"])
                : { ok: false, evidence: "no ancestor status yet" };
        return accepted.ok
            ? { status: "OK" as const, check: "Model Armor extension accepted" as const, object, evidence: accepted.evidence }
            : fail(
                  "Model Armor extension accepted",
                  object,
                  accepted.evidence,
                  "kubectl describe gcptrafficextension: its conditions say why",
              );
    });
}

/** Every security layer's live state for the stack's Gateway and its services. */
export async function securityChecks(
    reader: ObjectReader,
    ref: GatewayRef,
    statedProvider: GatewayProvider | undefined,
    namespaces: string[],
    services: string[],
    targets: SecurityTargets,
): Promise<Diagnosis[]> {
    const gateway = await reader.get({ apiVersion: "gateway.networking.k8s.io/v1", kind: "Gateway", ...ref });
    if (!gateway) {
        return [];
    }
    const provider = gatewayProvider(statedProvider, gateway);
    return [
        ...(await certificateChecks(reader, ref, gateway)),
        ...(provider === "istio"
            ? await istioChecks(reader, ref)
            : provider === "gke"
              ? await gkeChecks(reader, namespaces, services)
              : []),
        ...(targets.modelArmor ? await modelArmorChecks(reader, ref) : []),
    ];
}
