/**
 * What `npm run doctor` checks, put together: the platform once, then every model service it finds. The stack's outputs,
 * when given, say where to look (serving namespace, Gateway, CA issuer, services and their patterns, the TPU pool's
 * maximum); without them, every LLMInferenceService the reader can list is checked and its Gateway read from its route.
 */
import {
    COMPUTE_CLASS,
    KSERVE,
    KSERVE_CHILDREN,
    PREFIX_CACHE_ROUTING,
    listenerCertificateSecrets,
    listenersOf,
    parentGateways,
} from "@gke-tpu-inference/facts";
import { ClusterAccessError } from "../cluster/access";
import { GatewayProvider, gatewayProviderFromOutputs } from "../cluster/checks";
import type { GatewayClient } from "../cluster/gatewayRequest";
import type { KubeObject, ObjectReader } from "../cluster/kube";
import { ModelRouting, modelRoutingFromOutputs } from "../cluster/modelRouting";
import { CapacityPlanOutput, capacityOfNodes, computeClassHealth } from "./capacity";
import type { DoctorCheck } from "./checks";
import { MetricsSource, prefixCacheCheck } from "./metrics";
import { modelRoutingChecks } from "./modelRouting";
import { GatewayRef, certificateChecks, controllerChecks, crdChecks, gatewayChecks } from "./platform";
import { PodContext, endpointPickerChecks, workloadChecks } from "./pods";
import { SecurityTargets, securityChecks } from "./security";
import { AreaDiagnosis, Diagnosis, objectName } from "./report";
import { appProtocolChecks, gatewayHealth, groupRestarts, isStopped, routeChecks, serviceReady } from "./services";

/** Where to look, from the stack's outputs or the command line. */
export interface DoctorTargets {
    /** Namespaces holding model services; every namespace when absent. */
    namespaces?: string[];
    /** The stack's Gateway; read from each service's route when absent. */
    gateway?: GatewayRef;
    /** The stack's CA ClusterIssuer. */
    caIssuer?: string;
    /** The stack's model services by name, with their pattern and URL through the Gateway; every service found when absent. */
    services?: Record<string, { pattern?: string; baseUrl?: string }>;
    /** The TPU pool's maximum node count. */
    tpuMaxNodes?: number;
    /** Pattern 2's endpoint and the service of each model name, when the stack routes by the body's model. */
    modelRouting?: ModelRouting;
    /** Who programs the stack's Gateway, from its `gatewayProvider` output; the Gateway's class says when absent. */
    gatewayProvider?: GatewayProvider;
    /** The stack's TPU capacity plan (its `tpuCapacityPlan` output): each pool's option and zone, and the ComputeClass ordering them. */
    capacityPlan?: CapacityPlanOutput;
    /** What the stack's `access` output says guards the Gateway; the security checks run only with it. */
    security?: SecurityTargets;
    /** The stack's own CA signs the Gateway's certificate (its `caCertificateCommand` output): the doctor trusts the CA the certificate's Secret carries. */
    ownCa?: boolean;
}

/** The `tpuCapacityPlan` output as the doctor reads it, when it has the shape the stack writes. */
export function capacityPlanFromOutputs(plan: unknown): CapacityPlanOutput | undefined {
    const { computeClass, options } = (plan ?? {}) as { computeClass?: unknown; options?: unknown };
    if (!Array.isArray(options)) {
        return undefined;
    }
    return {
        ...(typeof computeClass === "string" ? { computeClass } : {}),
        options: options.flatMap((option: { option?: unknown; nodePool?: unknown; zone?: unknown }) =>
            typeof option?.option === "string" && typeof option.nodePool === "string"
                ? [{ option: option.option, nodePool: option.nodePool, ...(typeof option.zone === "string" ? { zone: option.zone } : {}) }]
                : [],
        ),
    };
}

/** What `pulumi stack output --json` says about where the stack's objects are. */
export function targetsFromOutputs(outputs: unknown): DoctorTargets {
    const { servingNamespace, gateway, caIssuerName, models, tpuPoolAutoscaling, tpuCapacityPlan, access } = (outputs ?? {}) as {
        access?: { screening?: unknown };
        servingNamespace?: unknown;
        gateway?: { namespace?: unknown; name?: unknown };
        caIssuerName?: unknown;
        models?: Record<string, { pattern?: unknown; baseUrl?: unknown }>;
        tpuPoolAutoscaling?: { maxNodes?: unknown };
        tpuCapacityPlan?: unknown;
    };
    const capacityPlan = capacityPlanFromOutputs(tpuCapacityPlan);
    const modelRouting = modelRoutingFromOutputs(outputs);
    const provider = gatewayProviderFromOutputs(outputs);
    return {
        ...(typeof servingNamespace === "string" ? { namespaces: [servingNamespace] } : {}),
        ...(typeof gateway?.namespace === "string" && typeof gateway.name === "string"
            ? { gateway: { namespace: gateway.namespace, name: gateway.name } }
            : {}),
        ...(typeof caIssuerName === "string" ? { caIssuer: caIssuerName } : {}),
        ...(models && typeof models === "object"
            ? {
                  services: Object.fromEntries(
                      Object.entries(models).map(([name, model]) => [
                          name,
                          {
                              ...(typeof model?.pattern === "string" ? { pattern: model.pattern } : {}),
                              ...(typeof model?.baseUrl === "string" ? { baseUrl: model.baseUrl } : {}),
                          },
                      ]),
                  ),
              }
            : {}),
        ...(typeof tpuPoolAutoscaling?.maxNodes === "number" ? { tpuMaxNodes: tpuPoolAutoscaling.maxNodes } : {}),
        ...(modelRouting ? { modelRouting } : {}),
        ...(provider ? { gatewayProvider: provider } : {}),
        ...(capacityPlan ? { capacityPlan } : {}),
        ...(access && typeof access === "object" ? { security: { modelArmor: typeof access.screening === "string" } } : {}),
        ...(typeof (outputs as { caCertificateCommand?: unknown } | undefined)?.caCertificateCommand === "string" ? { ownCa: true } : {}),
    };
}

/**
 * How the doctor's requests reach the Gateway: `client` (`--cacert`, the caller's key and token) and, for a stack whose
 * own CA signs the Gateway's certificate, that CA as cert-manager copies it into the certificate's Secret, when
 * `--cacert` does not give one.
 */
async function gatewayClientOf(reader: ObjectReader, targets: DoctorTargets, client: GatewayClient): Promise<GatewayClient> {
    if (client.ca !== undefined || !targets.ownCa || !targets.gateway) {
        return client;
    }
    const { namespace, name } = targets.gateway;
    const gateway = await reader.get({ apiVersion: "gateway.networking.k8s.io/v1", kind: "Gateway", namespace, name });
    const [secretName] = gateway ? listenersOf(gateway, "HTTPS").flatMap(listenerCertificateSecrets) : [];
    const secret =
        secretName === undefined
            ? undefined
            : await reader
                  .get({ apiVersion: "v1", kind: "Secret", namespace, name: secretName })
                  .catch((err: unknown) => (isForbidden(err) ? undefined : Promise.reject(err)));
    const ca = (secret as { data?: Record<string, string> } | undefined)?.data?.["ca.crt"];
    return ca ? { ...client, ca: Buffer.from(ca, "base64").toString("utf8") } : client;
}

/**
 * TPU capacity: which option of the plan each TPU node came from (any TPU node without the stack's outputs), and with a
 * plan of several options its ComputeClass's health and each priority GKE backs off.
 */
async function capacityChecks(reader: ObjectReader, nodes: KubeObject[], targets: DoctorTargets, now: Date): Promise<Diagnosis[]> {
    const plan = targets.capacityPlan;
    const className = plan?.computeClass;
    const computeClass =
        className !== undefined
            ? await reader.get({ apiVersion: COMPUTE_CLASS.apiVersion, kind: COMPUTE_CLASS.kind, name: className })
            : undefined;
    return [...capacityOfNodes(nodes, plan, now), ...(className !== undefined ? computeClassHealth(computeClass, className, plan) : [])];
}

/** Options beyond the targets. */
export interface DoctorOptions {
    /** Where prefix-cache metrics come from; the metrics check is skipped without it. */
    metrics?: MetricsSource;
    /** The time to judge startup budgets against; now by default. */
    now?: Date;
    /** Told what the doctor is reading or checking now, for its progress line. */
    onStep?: (step: string) => void;
    /** What requests through the Gateway present and trust (`--cacert`, `API_KEY`, `ID_TOKEN`); none by default. */
    gatewayClient?: GatewayClient;
}

/** The Gateway a service's route attaches to: the stack's, else the route's (or the service's) first Gateway, else KServe's default. */
function gatewayOf(service: KubeObject, route: KubeObject | undefined, targets: DoctorTargets): GatewayRef {
    if (targets.gateway) {
        return targets.gateway;
    }
    const namespace = service.metadata!.namespace!;
    const spec = service.spec as { router?: { gateway?: { refs?: unknown } } } | undefined;
    const [parent] = [
        ...parentGateways((route?.spec as { parentRefs?: unknown } | undefined)?.parentRefs, namespace),
        ...parentGateways(spec?.router?.gateway?.refs, namespace),
        KSERVE.defaultGateway.chartDefault,
    ];
    const [gatewayNamespace, name] = parent.split("/");
    return { namespace: gatewayNamespace, name };
}

/** Whether a service routes by prefix: its pattern in the outputs, else its scheduler's config names the prefix-cache scorer. */
function routesByPrefix(service: KubeObject, targets: DoctorTargets): boolean {
    const pattern = targets.services?.[service.metadata!.name!]?.pattern;
    return pattern !== undefined ? pattern === "pattern3" : JSON.stringify(service.spec ?? {}).includes(PREFIX_CACHE_ROUTING.scorer);
}

const matches = (labels: Record<string, string>) => (pod: KubeObject) =>
    Object.entries(labels).every(([key, value]) => pod.metadata?.labels?.[key] === value);

/** Every check of one namespace's model services. */
async function namespaceChecks(
    reader: ObjectReader,
    namespace: string | undefined,
    services: KubeObject[],
    targets: DoctorTargets,
    options: DoctorOptions,
    nodes: KubeObject[],
): Promise<{ results: AreaDiagnosis[]; gateways: GatewayRef[] }> {
    const [pods, events] = await Promise.all([reader.list("v1", "Pod", namespace), reader.list("v1", "Event", namespace)]);
    const context: PodContext = {
        reader,
        events: events as PodContext["events"],
        nodes,
        tpuMaxNodes: targets.tpuMaxNodes,
        now: options.now ?? new Date(),
    };
    const gateways: GatewayRef[] = [];
    const perService = await Promise.all(
        services.map(async (service) => {
            const name = service.metadata!.name!;
            const serviceNamespace = service.metadata!.namespace!;
            const inNamespace = pods.filter((pod) => pod.metadata?.namespace === serviceNamespace);
            // On a multi-host slice the leader serves and the workers hold the other hosts' chips: a Pending worker stalls the group.
            const [servesTraffic, isGroupWorker] = [
                matches(KSERVE_CHILDREN.workloadLabels(name)),
                matches(KSERVE_CHILDREN.workerLabels(name)),
            ];
            const workload = inNamespace.filter((pod) => servesTraffic(pod) || isGroupWorker(pod));
            const pickers = inNamespace.filter(matches(KSERVE_CHILDREN.schedulerLabels(name)));
            const route = await reader.get({
                apiVersion: "gateway.networking.k8s.io/v1",
                kind: "HTTPRoute",
                namespace: serviceNamespace,
                name: `${name}${KSERVE_CHILDREN.routeSuffix}`,
            });
            // A service without a route is reached only inside the cluster: no route, Gateway or Gateway policies to check.
            const routed = (service.spec as { router?: { route?: unknown } } | undefined)?.router?.route !== undefined;
            const gateway = gatewayOf(service, route, targets);
            if (routed) {
                gateways.push(gateway);
            }
            const hasScheduler = (service.spec as { router?: { scheduler?: unknown } } | undefined)?.router?.scheduler !== undefined;
            const stopped = isStopped(service);
            const baseUrl = targets.services?.[name]?.baseUrl;
            const podChecks = await workloadChecks(name, serviceNamespace, workload, stopped, context);
            const multiHost = (service.spec as { worker?: unknown } | undefined)?.worker !== undefined;
            const results: Diagnosis[] = [
                serviceReady(service, podChecks),
                ...(routed ? await routeChecks(reader, serviceNamespace, name, gateway, targets.gatewayProvider) : []),
                ...(await appProtocolChecks(reader, serviceNamespace, name, workload)),
                ...podChecks,
                ...(multiHost && !stopped ? [groupRestarts(name, serviceNamespace, context.events)] : []),
                ...(hasScheduler && !stopped ? endpointPickerChecks(name, serviceNamespace, pickers) : []),
            ];
            // Only where the stack's outputs give the URL: a Gateway's address alone may not be reachable from here.
            if (baseUrl !== undefined && routed && !stopped) {
                results.push(await gatewayHealth(baseUrl, serviceNamespace, name, options.gatewayClient));
            }
            if (routesByPrefix(service, targets)) {
                results.push(
                    options.metrics
                        ? await prefixCacheCheck(options.metrics, serviceNamespace, name)
                        : {
                              status: "SKIPPED",
                              check: "prefix-cache hits while prompts arrive",
                              object: objectName("LLMInferenceService", name, serviceNamespace),
                              evidence: "no --metrics given",
                          },
                );
            }
            return inArea(`model service ${serviceNamespace}/${name}`, results);
        }),
    );
    return { results: perService.flat(), gateways };
}

/** What the API server answers when the kubeconfig's user may not read something. */
function isForbidden(err: unknown): err is ClusterAccessError {
    return err instanceof ClusterAccessError && err.status === 403;
}

/** `diagnoses`, each marked as concerning `area`. */
const inArea = (area: string, diagnoses: Diagnosis[]): AreaDiagnosis[] => diagnoses.map((diagnosis) => ({ ...diagnosis, area }));

/**
 * The checks of one part of the platform, or one SKIPPED line (its first check, `check`) when the user may not read what they need (the
 * rest still runs).
 */
async function readable(area: string, check: DoctorCheck, checks: () => Promise<Diagnosis[]>): Promise<AreaDiagnosis[]> {
    try {
        return inArea(area, await checks());
    } catch (err) {
        if (!isForbidden(err)) {
            throw err;
        }
        return inArea(area, [{ status: "SKIPPED", check, object: "the kubeconfig's user", evidence: `forbidden: ${err.reason}` }]);
    }
}

/** Runs every check, each marked with the part of the stack it concerns; read-only. */
export async function runDoctor(reader: ObjectReader, targets: DoctorTargets, given: DoctorOptions = {}): Promise<AreaDiagnosis[]> {
    const namespaces = targets.namespaces ?? [undefined];
    const step = given.onStep ?? (() => undefined);
    const options: DoctorOptions = {
        ...given,
        gatewayClient: await gatewayClientOf(reader, targets, given.gatewayClient ?? { credentials: {} }),
    };
    step(`listing nodes and LLMInferenceServices in ${targets.namespaces?.join(", ") ?? "every namespace"}`);
    const [nodes, found] = await Promise.all([
        reader.list("v1", "Node").catch((err: unknown) => (isForbidden(err) ? [] : Promise.reject(err))),
        Promise.all(namespaces.map((namespace) => reader.list(KSERVE.apiVersion, "LLMInferenceService", namespace))),
    ]);
    const wanted = targets.services ? Object.keys(targets.services) : undefined;
    const nothingFound: Diagnosis[] =
        wanted === undefined && found.flat().length === 0
            ? [
                  {
                      status: "SKIPPED",
                      check: "model services",
                      object: `LLMInferenceServices in ${targets.namespaces?.join(", ") ?? "every namespace"}`,
                      evidence: "none found",
                  },
              ]
            : [];
    const missing: Diagnosis[] = (wanted ?? [])
        .filter((name) => !found.flat().some((service) => service.metadata?.name === name))
        .map((name) => ({
            status: "FAIL",
            check: "service exists",
            object: objectName("LLMInferenceService", name, targets.namespaces?.join(",")),
            evidence: "not found",
            fix: "run `pulumi up`; `kubectl get llminferenceservice -A` lists what exists",
        }));
    const checked = found.flat().filter((service) => wanted === undefined || wanted.includes(service.metadata!.name!));
    step(
        `checking ${checked.length} model service${checked.length === 1 ? "" : "s"}: ${checked.map((service) => service.metadata!.name).join(", ")}`,
    );
    const perNamespace = await Promise.all(
        namespaces.map((namespace, index) =>
            namespaceChecks(
                reader,
                namespace,
                found[index].filter((service) => wanted === undefined || wanted.includes(service.metadata!.name!)),
                targets,
                options,
                nodes,
            ),
        ),
    );
    const gateways = targets.gateway
        ? [targets.gateway]
        : [...new Map(perNamespace.flatMap((part) => part.gateways).map((ref) => [`${ref.namespace}/${ref.name}`, ref])).values()];
    step("checking the platform: Gateway, CRDs, controllers, cert-manager, TPU capacity");
    const platform = await Promise.all([
        readable("Gateway", "Gateway exists", () => gatewayChecks(reader, gateways, targets.gatewayProvider)),
        readable("CRDs", "CRD installed", () => crdChecks(reader)),
        readable("controllers", "controllers available", () => controllerChecks(reader)),
        readable("cert-manager", "issuer ready", () => certificateChecks(reader, targets.caIssuer)),
        readable("TPU capacity", "ComputeClass healthy", () => capacityChecks(reader, nodes, targets, options.now ?? new Date())),
        // The router lives beside the Gateway, which only the stack's outputs name.
        targets.modelRouting && targets.gateway
            ? readable("body-based routing", "body-based router ready replicas", () =>
                  modelRoutingChecks(reader, targets.gateway!, targets.modelRouting!, options.gatewayClient),
              )
            : Promise.resolve([]),
        targets.security && targets.gateway
            ? readable("security", "security policy attached", () =>
                  securityChecks(
                      reader,
                      targets.gateway!,
                      targets.gatewayProvider,
                      [...new Set(checked.map((service) => service.metadata!.namespace!))],
                      checked.map((service) => service.metadata!.name!),
                      targets.security!,
                  ),
              )
            : Promise.resolve([]),
    ]);
    return [
        ...platform.flat(),
        ...inArea("model services", [...nothingFound, ...missing]),
        ...perNamespace.flatMap((part) => part.results),
    ];
}
