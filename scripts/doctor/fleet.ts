/**
 * `npm run doctor` across a fleet: every member's own checks (its services unrouted, so KServe's WaitingForGateway is
 * expected), the twin pool each member exports, each member's TPU capacity in one line; and in the config cluster the
 * multi-cluster Gateway, each service's GCPInferencePoolImport and what its status says, the route to it and its
 * policies. Each member's checks are marked with its region.
 */
import { LessonId, MULTI_CLUSTER_INFERENCE, SCALE_UP_FAILURES } from "@gke-tpu-inference/facts";
import { acceptedByGateway, describeCondition, findCondition, gkePolicyAttached } from "../cluster/checks";
import {
    IMPORT_CRD,
    describeImportConditions,
    exportingMembers,
    fleetPoolName,
    importApiVersion,
    poolExported,
    readImportStatus,
    routeToImport,
    targetingImport,
} from "../cluster/fleet";
import type { ObjectReader } from "../cluster/kube";
import type { FleetOutput } from "../cluster/stackOutputs";
import type { DoctorCheck } from "./checks";
import { DoctorOptions, DoctorTargets, capacityPlanFromOutputs, runDoctor } from "./diagnose";
import type { GatewayRef } from "./platform";
import { AreaDiagnosis, Diagnosis, objectName } from "./report";

/** The lessons a failed scale-up can name: a Pending pod's `pod scheduled` line with one of them says GKE found no capacity. */
const CAPACITY_LESSONS: readonly string[] = SCALE_UP_FAILURES.map((failure) => failure.lesson);

/**
 * One line for a member's TPU capacity, from its own checks: its TPU nodes, else its Pending pods' failed scale-ups. A
 * member with no TPU node and a pod GKE could not place is at zero capacity, named as such with GKE's reason.
 */
export function memberCapacity(region: string, checks: readonly Diagnosis[]): Diagnosis {
    const check = "TPU capacity";
    const nodes = checks.filter((diagnosis) => diagnosis.check === "TPU node in the capacity plan");
    if (nodes.length > 0) {
        return { status: "OK", check, object: region, evidence: `${nodes.length} TPU node${nodes.length === 1 ? "" : "s"}` };
    }
    const pending = checks.filter((diagnosis) => diagnosis.check === "pod scheduled" && diagnosis.status !== "OK");
    const [stuck] = pending.filter((diagnosis) => diagnosis.lesson !== undefined && CAPACITY_LESSONS.includes(diagnosis.lesson));
    if (stuck) {
        return {
            status: "FAIL",
            check,
            object: region,
            evidence: `none: no TPU node; ${stuck.object} Pending: ${stuck.evidence}`,
            lesson: stuck.lesson,
            fix: `the fleet serves from its other regions meanwhile; ${stuck.fix ?? "the pod's line names the cause"}`,
        };
    }
    return pending.length > 0
        ? {
              status: "WARN",
              check,
              object: region,
              evidence: `no TPU node yet: ${pending.length} vLLM pod${pending.length === 1 ? "" : "s"} Pending without a failed scale-up`,
              fix: "GKE is adding a node: the pod lines say how far it got",
          }
        : { status: "OK", check, object: region, evidence: "no TPU node, and no vLLM pod waits for one (paused or scaled to zero)" };
}

/** Each service's twin pool in a member, exported. */
async function exportChecks(reader: ObjectReader, namespace: string, services: string[]): Promise<Diagnosis[]> {
    return Promise.all(
        services.map(async (service): Promise<Diagnosis> => {
            const pool = await reader.get({
                apiVersion: "inference.networking.k8s.io/v1",
                kind: "InferencePool",
                namespace,
                name: fleetPoolName(service),
            });
            const finding = poolExported(pool, namespace, service);
            const object = objectName("InferencePool", fleetPoolName(service), namespace);
            return finding.ok
                ? { status: "OK", check: "pool exported", object, evidence: finding.detail }
                : {
                      status: "FAIL",
                      check: "pool exported",
                      object,
                      evidence: finding.detail,
                      lesson: "fleet-exports",
                      fix: `run \`pulumi up\`: the stack's twin pool carries ${MULTI_CLUSTER_INFERENCE.exportAnnotation.key}; an annotation put on KServe's own pool by hand is lost on KServe's next update of it`,
                  };
        }),
    );
}

/** One check of the config cluster on `object`: OK, or FAIL with `fix` (or a lesson). */
const verdict = (
    check: DoctorCheck,
    object: string,
    ok: boolean,
    evidence: string,
    wrong: { fix?: string; lesson?: LessonId },
): Diagnosis => (ok ? { status: "OK", check, object, evidence } : { status: "FAIL", check, object, evidence, ...wrong });

/** The multi-cluster Gateway: its class, Programmed, an address for each member region. */
async function fleetGatewayChecks(reader: ObjectReader, ref: GatewayRef, fleet: FleetOutput): Promise<Diagnosis[]> {
    const object = objectName("Gateway", ref.name, ref.namespace);
    const gateway = await reader.get({ apiVersion: "gateway.networking.k8s.io/v1", kind: "Gateway", ...ref });
    if (!gateway) {
        return [{ status: "FAIL", check: "Gateway exists", object, evidence: "not found", fix: "run `pulumi up`" }];
    }
    const className = (gateway.spec as { gatewayClassName?: unknown } | undefined)?.gatewayClassName;
    const programmed = findCondition((gateway.status as { conditions?: unknown } | undefined)?.conditions, "Programmed");
    const addresses = ((gateway.status as { addresses?: Array<{ value?: string }> } | undefined)?.addresses ?? []).map(
        (address) => address.value,
    );
    const regions = Object.keys(fleet.members);
    return [
        verdict("multi-cluster GatewayClass", object, className === MULTI_CLUSTER_INFERENCE.gatewayClass, `class ${String(className)}`, {
            fix: `the fleet's Gateway must be of class ${MULTI_CLUSTER_INFERENCE.gatewayClass}; run \`pulumi up\``,
        }),
        verdict(
            "Gateway programmed",
            object,
            programmed?.status === "True",
            programmed ? describeCondition(programmed) : "no Programmed condition yet",
            {
                fix: "kubectl describe gateway: its events say why (the fleet's multiclusteringress feature must name this cluster's membership)",
            },
        ),
        verdict(
            "Gateway address per region",
            object,
            addresses.length >= regions.length,
            `${addresses.join(", ") || "no address"} for ${regions.length} regions (${regions.join(", ")})`,
            { fix: "the load balancer is not provisioned in every region: kubectl describe gateway, and a proxy-only subnet per region" },
        ),
    ];
}

/** Each service in the config cluster: its import and what its status says, the route to it accepted, its policies attached. */
async function importChecks(
    reader: ObjectReader,
    namespace: string,
    services: string[],
    gateway: GatewayRef,
    fleet: FleetOutput,
): Promise<Diagnosis[]> {
    const apiVersion = await importApiVersion(reader);
    const [imports, routes, healthChecks, backendPolicies] = await Promise.all([
        apiVersion ? reader.list(apiVersion, MULTI_CLUSTER_INFERENCE.importKind.kind, namespace) : Promise.resolve([]),
        reader.list("gateway.networking.k8s.io/v1", "HTTPRoute", namespace),
        reader.list("networking.gke.io/v1", "HealthCheckPolicy", namespace),
        reader.list("networking.gke.io/v1", "GCPBackendPolicy", namespace),
    ]);
    return services.flatMap((service): Diagnosis[] => {
        const object = objectName(MULTI_CLUSTER_INFERENCE.importKind.kind, fleetPoolName(service), namespace);
        const found = imports.find((candidate) => candidate.metadata?.name === fleetPoolName(service));
        const results: Diagnosis[] = [];
        if (!found) {
            results.push({
                status: "FAIL",
                check: "import present",
                object,
                evidence: apiVersion ? `not found (${apiVersion})` : `the cluster has no CRD ${IMPORT_CRD}`,
                fix: "GKE imports a pool once a member exports it and the fleet's multiclusteringress feature names this cluster: the members' `pool exported` lines, and gcloud container fleet ingress describe",
            });
        } else {
            const status = readImportStatus(found.status);
            const refused = status.conditions.filter(({ condition }) => condition.status === "False");
            results.push(
                verdict(
                    "import present",
                    object,
                    refused.length === 0,
                    `read as ${apiVersion} (CRD ${IMPORT_CRD}): ${describeImportConditions(status)}`,
                    {
                        fix: "kubectl describe the import: its conditions say why",
                    },
                ),
            );
            const exporting = exportingMembers(status, fleet);
            const missing = Object.keys(fleet.members).filter((region) => !exporting.includes(region));
            results.push(
                status.clusters.length === 0
                    ? {
                          status: "SKIPPED",
                          check: "exported by every member",
                          object,
                          evidence:
                              "its status names no cluster: the backends per region are not shown in the cluster (gcloud compute backend-services get-health shows them)",
                      }
                    : verdict(
                          "exported by every member",
                          object,
                          missing.length === 0,
                          `${status.clusters.map((list) => `${list.path}: ${list.names.join(", ") || "none"}`).join("; ")}${missing.length > 0 ? `: not ${missing.join(", ")}` : ""}`,
                          { lesson: "fleet-exports", fix: "the missing regions' `pool exported` and `TPU capacity` lines say why" },
                      ),
            );
        }
        const route = routeToImport(routes, service);
        const accepted = route
            ? acceptedByGateway(route, gateway)
            : { ok: false, detail: `no HTTPRoute in ${namespace} routes to ${fleetPoolName(service)}` };
        results.push(
            verdict(
                "route to the import accepted",
                route ? objectName("HTTPRoute", route.metadata!.name!, namespace) : object,
                accepted.ok,
                accepted.detail,
                {
                    fix: "run `pulumi up`; kubectl describe httproute says why the Gateway refuses it",
                },
            ),
        );
        for (const [check, kind, candidates, lesson] of [
            ["import health check attached", "HealthCheckPolicy", healthChecks, "import-health-checks"],
            ["import backend policy attached", "GCPBackendPolicy", backendPolicies, "backend-timeout"],
        ] as const) {
            const policy = targetingImport(candidates, service);
            const attached = gkePolicyAttached(
                policy,
                policy ? `${kind} ${policy.metadata!.name}` : `no ${kind} targets ${fleetPoolName(service)}, which`,
            );
            results.push(
                verdict(check, policy ? objectName(kind, policy.metadata!.name!, namespace) : object, attached.ok, attached.detail, {
                    lesson,
                }),
            );
        }
        return results;
    });
}

/** `diagnoses`, each area prefixed with the member's region. */
const ofRegion = (region: string, diagnoses: AreaDiagnosis[]): AreaDiagnosis[] =>
    diagnoses.map((diagnosis) => ({ ...diagnosis, area: `${region}: ${diagnosis.area}` }));

/**
 * Every member's checks and the config cluster's, each reader the member's cluster by region; read-only. `targets` are
 * the stack's as a single-cluster stack's outputs give them: the serving namespace, the services, the multi-cluster
 * Gateway.
 */
export async function runFleetDoctor(
    readers: Record<string, ObjectReader>,
    fleet: FleetOutput,
    targets: DoctorTargets,
    options: DoctorOptions = {},
): Promise<AreaDiagnosis[]> {
    const services = Object.keys(targets.services ?? {});
    const namespace = targets.namespaces?.[0];
    const perMember = await Promise.all(
        Object.entries(fleet.members).map(async ([region, member]) => {
            const reader = readers[region];
            // A member has no Gateway of its own, and no security layers: they are the config cluster's Gateway's.
            const plan = capacityPlanFromOutputs(member.tpuCapacityPlan);
            const memberTargets: DoctorTargets = {
                ...(targets.namespaces ? { namespaces: targets.namespaces } : {}),
                ...(targets.services ? { services: targets.services } : {}),
                ...(targets.caIssuer ? { caIssuer: targets.caIssuer } : {}),
                ...(plan ? { capacityPlan: plan } : {}),
            };
            const own = await runDoctor(reader, memberTargets, {
                ...options,
                onStep: options.onStep && ((step) => options.onStep!(`${region}: ${step}`)),
            });
            const fleetChecks: AreaDiagnosis[] = [
                { ...memberCapacity(region, own), area: "TPU capacity" },
                ...(namespace
                    ? (await exportChecks(reader, namespace, services)).map((diagnosis) => ({ ...diagnosis, area: "fleet export" }))
                    : []),
            ];
            return ofRegion(region, [...fleetChecks, ...own]);
        }),
    );
    const config = readers[fleet.configRegion];
    options.onStep?.(`${fleet.configRegion}: checking the multi-cluster Gateway and the imports`);
    const gateway = targets.gateway;
    const configChecks: Diagnosis[] = gateway
        ? [
              ...(await fleetGatewayChecks(config, gateway, fleet)),
              ...(namespace ? await importChecks(config, namespace, services, gateway, fleet) : []),
          ]
        : [];
    return [
        ...ofRegion(
            fleet.configRegion,
            configChecks.map((diagnosis) => ({ ...diagnosis, area: "multi-cluster Gateway" })),
        ),
        ...perMember.flat(),
    ];
}
