/**
 * The platform's checks: Gateway API on, the Gateway regional, Programmed and addressed; the CRDs and controllers
 * KServe, LeaderWorkerSet and cert-manager bring, Available; cert-manager's issuers and the CA Ready, the CA's key RSA.
 */
import { CHARTS, ISTIO, PLATFORM_CRDS, PinnedChart, gatewayClassServesInference } from "@gke-tpu-inference/facts";
import { GatewayProvider, describeCondition, findCondition, gatewayProvider } from "../cluster/checks";
import type { KubeObject, ObjectReader } from "../cluster/kube";
import type { LessonId } from "@gke-tpu-inference/facts";
import type { DoctorCheck } from "./checks";
import { Diagnosis, objectName } from "./report";

/** A Gateway, by namespace and name. */
export interface GatewayRef {
    namespace: string;
    name: string;
}

/** A condition's state in `kubectl describe` words, or that it is not reported. */
function conditionEvidence(object: KubeObject, type: string): { ok: boolean; evidence: string } {
    const condition = findCondition((object.status as { conditions?: unknown } | undefined)?.conditions, type);
    return condition
        ? { ok: condition.status === "True", evidence: describeCondition(condition) }
        : { ok: false, evidence: `no ${type} condition yet` };
}

/** OK or FAIL on one condition of an object of `kind` (list items from the API server carry no kind). */
function conditionCheck(kind: string, object: KubeObject, type: string, check: DoctorCheck, lesson?: LessonId, fix?: string): Diagnosis {
    const { ok, evidence } = conditionEvidence(object, type);
    return {
        status: ok ? "OK" : "FAIL",
        check,
        object: objectName(kind, object.metadata!.name!, object.metadata?.namespace),
        evidence,
        ...(ok ? {} : { lesson, fix }),
    };
}

/**
 * GatewayClasses exist (GKE's Gateway API controller is on); the Gateway is Programmed, with an address; by who programs
 * it (the stack's `gatewayProvider` output, `statedProvider`, else the Gateway's class): GKE's class is regional, or
 * istiod serves InferencePool.
 */
export async function gatewayChecks(reader: ObjectReader, gateways: GatewayRef[], statedProvider?: GatewayProvider): Promise<Diagnosis[]> {
    const classes = await reader.list("gateway.networking.k8s.io/v1", "GatewayClass");
    const names = classes.map((gatewayClass) => gatewayClass.metadata!.name!).sort();
    const results: Diagnosis[] = [
        names.length > 0
            ? { status: "OK", check: "Gateway API enabled", object: "GatewayClasses", evidence: names.join(", ") }
            : {
                  status: "FAIL",
                  check: "Gateway API enabled",
                  object: "GatewayClasses",
                  evidence: "the cluster has no GatewayClass",
                  lesson: "gateway-api-disabled",
              },
    ];
    for (const ref of gateways) {
        const object = objectName("Gateway", ref.name, ref.namespace);
        const gateway = await reader.get({ apiVersion: "gateway.networking.k8s.io/v1", kind: "Gateway", ...ref });
        if (!gateway) {
            results.push({ status: "FAIL", check: "Gateway exists", object, evidence: "not found", fix: "run `pulumi up`" });
            continue;
        }
        const className = String((gateway.spec as { gatewayClassName?: unknown } | undefined)?.gatewayClassName ?? "");
        const servesInference = gatewayClassServesInference(className);
        const provider = gatewayProvider(statedProvider, gateway);
        results.push(
            provider === "istio"
                ? await istiodInferenceSupport(reader)
                : servesInference === "serves"
                  ? { status: "OK", check: "GatewayClass regional", object, evidence: `class ${className}` }
                  : servesInference === "never"
                    ? {
                          status: "FAIL",
                          check: "GatewayClass regional",
                          object,
                          evidence: `class ${className}`,
                          lesson: "global-gateway-class",
                      }
                    : {
                          status: "WARN",
                          check: "GatewayClass regional",
                          object,
                          evidence: `class ${className} is not GKE's`,
                          fix: "its implementation must support InferencePool backends",
                      },
        );
        const programmed = conditionCheck(
            "Gateway",
            gateway,
            "Programmed",
            "Gateway programmed",
            undefined,
            "kubectl describe gateway: its events say why",
        );
        results.push(
            names.includes(className) || programmed.status === "OK"
                ? programmed
                : {
                      ...programmed,
                      evidence: `${programmed.evidence}; the cluster has no GatewayClass ${className}`,
                      lesson: "gateway-api-disabled",
                      fix: undefined,
                  },
        );
        const addresses = ((gateway.status as { addresses?: Array<{ value?: string }> } | undefined)?.addresses ?? []).map(
            (address) => address.value,
        );
        results.push(
            addresses.length > 0
                ? { status: "OK", check: "Gateway address", object, evidence: addresses.join(", ") }
                : {
                      status: "FAIL",
                      check: "Gateway address",
                      object,
                      evidence: "no address yet",
                      fix: "the load balancer is not provisioned: kubectl describe gateway",
                  },
        );
    }
    return results;
}

/** istiod (the Istio class's controller) has InferencePool support on; without it, routes to InferencePools are not programmed. */
async function istiodInferenceSupport(reader: ObjectReader): Promise<Diagnosis> {
    const namespace = CHARTS.istiod.namespace;
    const object = objectName("Deployment", "istiod", namespace);
    const check = "istiod serves InferencePool";
    const istiod = await reader.get({ apiVersion: "apps/v1", kind: "Deployment", namespace, name: "istiod" });
    if (!istiod) {
        return { status: "FAIL", check, object, evidence: "not found", fix: "install Istio: gatewayProvider istio (`pulumi up`)" };
    }
    const containers = (istiod.spec as { template?: { spec?: { containers?: Array<{ env?: Array<{ name?: string; value?: string }> }> } } })
        ?.template?.spec?.containers;
    const value = (containers ?? [])
        .flatMap((container) => container.env ?? [])
        .find((env) => env.name === ISTIO.inferenceExtensionEnv)?.value;
    return value === "true"
        ? { status: "OK", check, object, evidence: `${ISTIO.inferenceExtensionEnv}=true` }
        : {
              status: "FAIL",
              check,
              object,
              evidence: `${ISTIO.inferenceExtensionEnv} is ${value === undefined ? "not set" : JSON.stringify(value)}`,
              fix: `set istiod's pilot.env.${ISTIO.inferenceExtensionEnv}: "true" (this stack's Istio does)`,
          };
}

/** Every CRD the platform needs is installed and Established. */
export async function crdChecks(reader: ObjectReader): Promise<Diagnosis[]> {
    return Promise.all(
        PLATFORM_CRDS.map(async (crd): Promise<Diagnosis> => {
            const object = objectName("CustomResourceDefinition", crd.name);
            const found = await reader.get({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", name: crd.name });
            const group = crd.name.slice(crd.name.indexOf(".") + 1);
            const lesson: LessonId | undefined =
                crd.kind === "LeaderWorkerSet" ? "lws-missing" : crd.kind === "InferencePool" ? "inference-pool-group" : undefined;
            if (!found) {
                return {
                    status: "FAIL",
                    check: "CRD installed",
                    object,
                    evidence: `no matches for kind ${crd.kind} in version ${group}/${crd.version} (installed by ${crd.installedBy})`,
                    lesson,
                    ...(lesson ? {} : { fix: `install it: ${crd.installedBy} (\`pulumi up\`)` }),
                };
            }
            const served = ((found.spec as { versions?: Array<{ name?: string; served?: boolean }> } | undefined)?.versions ?? [])
                .filter((version) => version.served === true)
                .map((version) => version.name);
            const established = conditionCheck("CustomResourceDefinition", found, "Established", "CRD installed", lesson);
            return served.includes(crd.version) || established.status !== "OK"
                ? established
                : {
                      ...established,
                      status: "FAIL",
                      evidence: `serves ${served.join(", ") || "no version"}, not ${crd.version}`,
                      fix: `upgrade it: ${crd.installedBy}`,
                  };
        }),
    );
}

/** The controllers of cert-manager, LeaderWorkerSet, KServe and (where installed) KEDA: every Deployment in their namespaces Available. */
export async function controllerChecks(reader: ObjectReader): Promise<Diagnosis[]> {
    const charts: ReadonlyArray<PinnedChart> = Object.values(CHARTS);
    const namespaces = [...new Set(charts.map((chart) => chart.namespace))];
    const results = await Promise.all(
        namespaces.map(async (namespace): Promise<Diagnosis[]> => {
            const deployments = await reader.list("apps/v1", "Deployment", namespace);
            // A chart the stack installs only for some stacks (KEDA) is judged where it is installed.
            const optional = charts.filter((chart) => chart.namespace === namespace).every((chart) => chart.installedWhen !== undefined);
            if (deployments.length === 0 && optional) {
                return [];
            }
            if (deployments.length === 0) {
                return [
                    {
                        status: "FAIL",
                        check: "controllers available",
                        object: `Deployments in ${namespace}`,
                        evidence: "none",
                        lesson: "platform-controllers",
                    },
                ];
            }
            return deployments.map((deployment) =>
                conditionCheck(
                    "Deployment",
                    deployment,
                    "Available",
                    "controller available",
                    "platform-controllers",
                    `kubectl -n ${namespace} describe deployment ${deployment.metadata!.name}: its conditions and pods say why`,
                ),
            );
        }),
    );
    return results.flat();
}

/** cert-manager's ClusterIssuers Ready (the stack's CA issuer among them), its CA certificates Ready with an RSA key. */
export async function certificateChecks(reader: ObjectReader, caIssuer?: string): Promise<Diagnosis[]> {
    // With the stack's CA issuer known, other teams' issuers are none of this stack's business.
    const issuers = (await reader.list("cert-manager.io/v1", "ClusterIssuer")).filter(
        (issuer) => caIssuer === undefined || issuer.metadata?.name === caIssuer,
    );
    const results = issuers.map((issuer) =>
        conditionCheck(
            "ClusterIssuer",
            issuer,
            "Ready",
            "issuer ready",
            undefined,
            "kubectl describe clusterissuer: its conditions say why",
        ),
    );
    if (caIssuer !== undefined && issuers.length === 0) {
        results.push({
            status: "FAIL",
            check: "issuer ready",
            object: objectName("ClusterIssuer", caIssuer),
            evidence: "not found",
            fix: "run `pulumi up`",
        });
    }
    const authorities = (await reader.list("cert-manager.io/v1", "Certificate", CHARTS.certManager.namespace)).filter(
        (certificate) => (certificate.spec as { isCA?: unknown } | undefined)?.isCA === true,
    );
    for (const certificate of authorities) {
        results.push(
            conditionCheck("Certificate", certificate, "Ready", "CA certificate ready", undefined, "kubectl describe certificate"),
        );
        // cert-manager generates an RSA key when the certificate names no algorithm.
        const algorithm = (certificate.spec as { privateKey?: { algorithm?: string; size?: number } }).privateKey?.algorithm ?? "RSA";
        results.push({
            status: algorithm === "RSA" ? "OK" : "FAIL",
            check: "CA key RSA",
            object: objectName("Certificate", certificate.metadata!.name!, certificate.metadata?.namespace),
            evidence: `privateKey.algorithm ${algorithm}`,
            ...(algorithm === "RSA" ? {} : { lesson: "rsa-ca" as const }),
        });
    }
    return results;
}
